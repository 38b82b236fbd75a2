"""The templates are templates/tera/'s, byte for byte: Jinja reads Tera's syntax as it is."""

from pathlib import Path

import pytest

from blog import views

APP = Path(__file__).resolve().parent.parent
SHARED = APP / "../../templates/tera"
PAGES = ["base.html", "home.html", "not_found.html", "post.html", "tag.html"]


def test_every_shared_template_is_here():
    assert sorted(path.name for path in SHARED.glob("*.html")) == PAGES
    assert sorted(path.name for path in (APP / "blog/templates").glob("*.html")) == PAGES


@pytest.mark.parametrize("name", PAGES)
def test_template_is_the_shared_one(name):
    assert (APP / "blog/templates" / name).read_bytes() == (SHARED / name).read_bytes()


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
