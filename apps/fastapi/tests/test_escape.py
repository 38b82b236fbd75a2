"""The escaper against Go's html/template: templates/testdata/escape-vectors.json."""

import json
from pathlib import Path

import pytest

from blog import views

APP = Path(__file__).resolve().parent.parent
# The repository this app lives in, which holds the single sources its tests compare with.
REPO = APP.parent.parent
VECTORS = json.loads((REPO / "templates/testdata/escape-vectors.json").read_text())


@pytest.mark.parametrize(("text", "escaped"), VECTORS)
def test_escape_text_writes_what_html_template_writes(text, escaped):
    assert views.escape_text(text) == escaped


@pytest.mark.parametrize(("text", "escaped"), VECTORS)
def test_templates_print_every_value_through_it(text, escaped):
    page = views.TagPage(name=text, slug="x", post_count=0, posts=[])
    assert f"<h1>Posts tagged “{escaped}”</h1>" in views.render(page).decode()


def test_there_are_enough_vectors():
    assert len(VECTORS) >= 10
