"""The slug, /compute and comment-form rules against the vectors every app is checked with
(workload/testdata)."""

import json
from pathlib import Path
from urllib.parse import unquote

import pytest

from blog import rules

APP = Path(__file__).resolve().parent.parent
# The repository this app lives in, which holds the single sources its tests compare with.
REPO = APP.parent.parent
TESTDATA = REPO / "workload/testdata"
SLUGS = json.loads((TESTDATA / "slugs.json").read_text())
QUERIES = json.loads((TESTDATA / "compute-queries.json").read_text())
FORMS = json.loads((TESTDATA / "comment-forms.json").read_text())


def test_there_are_enough_vectors():
    assert (len(SLUGS), len(QUERIES), len(FORMS)) >= (30, 20, 30)


@pytest.mark.parametrize(("encoded", "is_slug"), SLUGS)
def test_is_slug(encoded, is_slug):
    # The segment as uvicorn decodes the path (urllib's unquote; bytes that are not UTF-8
    # become U+FFFD, which no slug holds).
    assert rules.is_slug(unquote(encoded)) is is_slug


@pytest.mark.parametrize(("query", "n"), QUERIES)
def test_parse_n(query, n):
    assert rules.parse_n(query.encode()) == n


def test_sum_of_primes_below():
    assert [rules.sum_of_primes_below(n) for n in (2, 3, 10, 12)] == [0, 2, 17, 28]
    assert rules.compute_body(rules.DEFAULT_N) == "21171191\n"


@pytest.mark.parametrize(("form", "outcome"), FORMS)
def test_parse_comment(form, outcome):
    body = form.encode()
    if "error" in outcome:
        with pytest.raises(rules.FormError) as refused:
            rules.parse_comment(body)
        assert (refused.value.status, refused.value.message) == (400, outcome["error"])
    else:
        comment = rules.parse_comment(body)
        assert (comment.author_name, comment.body) == (outcome["author_name"], outcome["body"])


def test_a_form_over_the_limit_is_too_large():
    def form(size: int) -> bytes:
        return b"author_name=a&body=" + b"b" * (size - 19)

    with pytest.raises(rules.FormError) as refused:
        rules.parse_comment(form(rules.FORM_LIMIT + 1))
    assert refused.value is rules.TOO_LARGE
    with pytest.raises(rules.FormError) as refused:
        rules.parse_comment(form(rules.FORM_LIMIT))
    assert refused.value.status == 400  # within the limit, but the body is too long


@pytest.mark.parametrize(
    ("content_type", "is_form"),
    [
        ("application/x-www-form-urlencoded", True),
        ("Application/X-WWW-Form-URLEncoded", True),
        ("application/x-www-form-urlencoded; charset=UTF-8", True),
        (" application/x-www-form-urlencoded\t;charset=utf-8", True),
        ("", False),
        ("text/plain", False),
        ("multipart/form-data; boundary=x", False),
        ("application/x-www-form-urlencodedx", False),
        ("application/json", False),
    ],
)
def test_is_form(content_type, is_form):
    assert rules.is_form(content_type) is is_form


@pytest.mark.parametrize(
    ("author", "trimmed"),
    [
        ("%E3%80%80Ana%E2%80%A8", "Ana"),  # U+3000 and U+2028 are white space to Go
        ("%C2%85Ana%0B", "Ana"),  # so are NEL and VT
        ("%1CAna%1F", "\x1cAna\x1f"),  # str.strip() would trim these; Go's TrimSpace does not
        ("%EF%BB%BFAna", "\ufeffAna"),  # nor a byte-order mark
    ],
)
def test_fields_are_trimmed_of_what_go_calls_white_space(author, trimmed):
    assert rules.parse_comment(f"author_name={author}&body=b".encode()).author_name == trimmed
