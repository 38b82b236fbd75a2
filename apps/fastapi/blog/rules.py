"""The rules every blogbench app applies alike, in Python: the slug rule (docs/spec.md §3.1),
/compute (§3.6), the comment form (§3.9) and the plain-text answers of §3.8. The twins of
go-shared/workload and the Rust workload crate, checked against the same vectors
(workload/testdata, in tests/test_rules.py)."""

import re
from dataclasses import dataclass
from math import isqrt
from urllib.parse import unquote_to_bytes

DB_UNAVAILABLE_MESSAGE = "database unavailable\n"
INTERNAL_ERROR_MESSAGE = "internal server error\n"

_SLUG = re.compile(r"[a-z0-9-]{1,100}")


def is_slug(segment: str) -> bool:
    """Whether a decoded path segment may be a slug: 1 to 100 of a-z, 0-9 and "-". Anything
    else gets the 404 page before any query: PostgreSQL rejects a NUL or invalid UTF-8 in a
    text parameter, which would otherwise read as an outage."""
    return _SLUG.fullmatch(segment) is not None


# "%" not followed by two hex digits: Go's url.QueryUnescape refuses it.
_BAD_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")


def unescape(component: bytes) -> bytes | None:
    """A query or form component decoded: "+" is a space, %XX that byte; None for a bad "%"."""
    if _BAD_ESCAPE.search(component):
        return None
    return unquote_to_bytes(component.replace(b"+", b" "))


DEFAULT_N = 20_000
BAD_N_MESSAGE = "n must be an integer from 2 to 1000000\n"
_SIGNED = re.compile(rb"[+-]?[0-9]+")


def parse_n(query: bytes) -> int | None:
    """The n of /compute's raw query string by Go's url.ParseQuery rule, or None for a bad one:
    pieces split on "&"; a piece holding ";" or a bad escape is undecodable; the first n counts;
    no n is the default, unless a piece was undecodable."""
    undecodable = False
    for piece in query.split(b"&"):
        if not piece:
            continue
        if b";" in piece:
            undecodable = True
            continue
        raw_key, _, raw_value = piece.partition(b"=")
        key, value = unescape(raw_key), unescape(raw_value)
        if key is None or value is None:
            undecodable = True
        elif key == b"n":
            if _SIGNED.fullmatch(value) and 2 <= int(value) <= 1_000_000:
                return int(value)
            return None
    return None if undecodable else DEFAULT_N


def sum_of_primes_below(n: int) -> int:
    """The sum of the primes below n by trial division, on every call: each i divided by d from
    2 while d * d <= i. The work is the point of /compute, so no sieve and no caching."""
    return sum(i for i in range(2, n) if all(i % d for d in range(2, isqrt(i) + 1)))


def compute_body(n: int) -> str:
    return f"{sum_of_primes_below(n)}\n"


FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"
FORM_LIMIT = 16 * 1024  # bytes
AUTHOR_MAX_CHARS = 80  # after trimming
BODY_MAX_CHARS = 2000  # after trimming

# What Go's strings.TrimSpace trims: Unicode's White_Space characters.
_WHITE_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


class FormError(Exception):
    """A request that is not a valid comment: a 4xx with a plain-text body, and nothing sent to
    the database."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# The refusals of the whole form, in the order the comment route checks them.
NOT_A_FORM = FormError(415, "a comment must be sent as application/x-www-form-urlencoded\n")
TOO_LARGE = FormError(413, "a comment form must be at most 16384 bytes\n")
MALFORMED = FormError(400, "the comment form is not valid form encoding\n")


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment that passed the rule, its fields trimmed."""

    author_name: str
    body: str


def is_form(content_type: str) -> bool:
    """Whether a Content-Type names a form: its media type (before any ";", without spaces or
    tabs around it) is application/x-www-form-urlencoded in any ASCII case."""
    media_type = content_type.partition(";")[0].strip(" \t")
    return media_type.isascii() and media_type.lower() == FORM_CONTENT_TYPE


def parse_comment(form: bytes) -> Comment:
    """The comment in a form body, or the FormError that refuses it. Pieces split on "&" (empty
    ones skipped) and at the first "="; a bad escape anywhere makes the form malformed; the
    first author_name and the first body count; then each field is checked, author_name first."""
    if len(form) > FORM_LIMIT:
        raise TOO_LARGE
    author_name = body = None
    for piece in form.split(b"&"):
        if not piece:
            continue
        raw_key, _, raw_value = piece.partition(b"=")
        key, value = unescape(raw_key), unescape(raw_value)
        if key is None or value is None:
            raise MALFORMED
        if key == b"author_name" and author_name is None:
            author_name = value
        elif key == b"body" and body is None:
            body = value
    return Comment(
        author_name=_field("author_name", AUTHOR_MAX_CHARS, author_name),
        body=_field("body", BODY_MAX_CHARS, body),
    )


def _field(name: str, max_chars: int, value: bytes | None) -> str:
    """The trimmed field: present, UTF-8, without NUL (PostgreSQL's text cannot hold one), not
    empty after trimming white space, at most max_chars characters."""
    if value is None:
        raise FormError(400, f"{name} is required\n")
    try:
        text = value.decode()
    except UnicodeDecodeError:
        raise FormError(400, f"{name} must be valid UTF-8\n") from None
    if "\0" in text:
        raise FormError(400, f"{name} must not contain NUL characters\n")
    trimmed = text.strip(_WHITE_SPACE)
    if not trimmed:
        raise FormError(400, f"{name} is required\n")
    if len(trimmed) > max_chars:
        raise FormError(400, f"{name} must be at most {max_chars} characters\n")
    return trimmed
