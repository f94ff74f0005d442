"""README.md's numbers are the computed ones (garesearch.app.readme_numbers): the side-by-side table
of epsilons with the paragraph after it, the claims summary line and the counts, with the
rounding README displays; and README lists exactly the notebooks there are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from garesearch.app import readme_numbers

# the claims' cached computations are shared by these modules: one worker runs them all
pytestmark = pytest.mark.xdist_group("claims")

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def snippets():
    return readme_numbers.snippets()


@pytest.mark.parametrize("name", ["summary line", "side-by-side table", "derivations count",
                                  "pinned values"])
def test_readme_shows_the_computed_numbers(snippets, name):
    assert snippets[name] in README, f"README.md differs from the computed {name}:\n{snippets[name]}"


def test_readme_lists_every_notebook():
    listed = re.findall(r"^- `(\d\d_\w+)`:", README, re.M)
    assert listed == readme_numbers.notebook_names()
    assert len(listed) == readme_numbers.counts()["notebooks"]


def test_the_table_keeps_its_rounding():
    assert readme_numbers._sig(0.00072063, 3) == "0.000721"
    assert readme_numbers._sig(0.0192521, 5) == "0.019252"
    assert readme_numbers._sig(1.55261, 4) == "1.553"


def test_write(tmp_path, snippets, monkeypatch):
    monkeypatch.setattr(readme_numbers, "snippets", lambda results=None: snippets)
    path = readme_numbers.write(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert path.name == "readme_numbers.md"
    assert snippets["side-by-side table"] in text and "- `16_optimal_epsilon`" in text
