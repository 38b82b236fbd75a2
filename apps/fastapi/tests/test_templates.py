"""The templates are templates/tera/ itself (blog/templates links to it): Jinja reads Tera's
syntax as it is, so the Rust apps and this one render one set of files."""

from pathlib import Path

from blog import views

APP = Path(__file__).resolve().parent.parent
REPO = APP.parent.parent


def test_the_templates_are_the_shared_tera_folder():
    assert (APP / "blog/templates").resolve() == (REPO / "templates/tera").resolve()


def test_the_404_page_is_byte_for_byte_go_s():
    # Whitespace included: the blocks' trimmed newlines and the base template's last newline,
    # which Jinja drops unless told to keep it.
    assert views.NOT_FOUND_PAGE == (
        b'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        b"<title>Not found \xc2\xb7 blogbench</title>\n</head>\n<body>\n"
        b'<header><a href="/">blogbench</a></header>\n<main>\n<h1>Not found</h1>\n'
        b'<p>There is no page at this address. <a href="/">Back to the latest posts</a>.</p>\n'
        b"</main>\n</body>\n</html>\n"
    )
