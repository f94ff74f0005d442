"""The map from each section of the paper to its code, claims, notebooks and tests
(garesearch.paper.section_map), checked against the repository: every module, notebook and
test file it names exists; every claim of the registry sits under exactly one section, the one
its location names (read here with a pattern of this file, and against the module that
registers the claim); every notebook, module of garesearch.paper and test file is mapped.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from garesearch import paper
from garesearch.errors import ParameterError
from garesearch.paper import section_map as sm

ROOT = Path(__file__).resolve().parent.parent

#: the sections of the paper's source, in its order (typed here from its \section and
#: \subsection commands, numbered as the paper prints them)
PAPER_SECTIONS = ("1", "2", "3", "3.1", "3.2", "4", "4.1", "4.2", "4.3", "5", "6", "6.1", "6.2",
                  "6.3", "7", "A", "A.1", "B", "B.1", "B.2")


@pytest.fixture(scope="module")
def rows():
    return sm.section_map()


@pytest.fixture(scope="module")
def by_number(rows):
    return {s.number: s for s in rows}


def test_the_rows_are_the_papers_sections_in_order(rows):
    assert tuple(s.number for s in rows) == (*PAPER_SECTIONS, sm.WHOLE_PAPER)
    labels = [s.label for s in rows if s.label]
    assert len(labels) == len(set(labels)) == 15
    assert all(s.title and s.title == s.title.strip() for s in rows)


def test_every_module_named_exists_and_has_an_api_page(rows):
    for s in rows:
        for name in (*s.modules, *s.beyond, *s.paper_modules):
            assert importlib.util.find_spec(name) is not None, (s.number, name)
            assert not any(part.startswith("_") for part in name.split(".")), (s.number, name)
        assert all(m.startswith("garesearch.paper.") for m in s.paper_modules), s.number
        assert not any(m.startswith("garesearch.paper") for m in (*s.modules, *s.beyond))
        for field in ("modules", "beyond", "paper_modules", "notebooks", "tests", "claims"):
            values = getattr(s, field)
            assert len(values) == len(set(values)), (s.number, field)


def test_every_section_module_of_the_paper_is_mapped(rows):
    mapped = {m for s in rows for m in s.paper_modules}
    on_disk = {f"garesearch.paper.{p.stem}" for p in (ROOT / "garesearch" / "paper").glob("*.py")
               if not p.stem.startswith("_") and p.stem != "section_map"}
    assert {f"garesearch.paper.{n}" for n in paper.SECTION_NAMES} <= on_disk
    assert on_disk - mapped == set()


def _section_in_location(location: str) -> str:
    """The section a location names, read independently of the module under test."""
    m = re.match(r"(Sec|App) ([0-9A-Z](?:\.[0-9])?)(?![0-9])", location)
    if m:
        return m[2]
    m = re.match(r"Thm (\d)", location)
    # Theorem 1 is stated in Sec. 4.2 (AND events), Theorem 2 in Sec. 4.3 (OR events)
    return {"1": "4.2", "2": "4.3"}[m[1]]


def test_every_claim_is_under_the_section_its_location_names(rows):
    registry = paper.registered_claims()
    placed = [c for s in rows for c in s.claims]
    assert sorted(placed) == sorted(registry)  # each claim exactly once
    for s in rows:
        for claim_id in s.claims:
            c = registry[claim_id]
            assert _section_in_location(c.location) == s.number, (claim_id, c.location)
            assert c.func.__module__ in s.paper_modules, (claim_id, s.number)
    assert not by_number_claims(rows, sm.WHOLE_PAPER)
    assert by_number_claims(rows, "4.3")[-1] == "T2.printed_unsound"
    assert "S6.rescale_sensitivity" in by_number_claims(rows, "6.2")  # "Sec 6.2 and 6.3"


def by_number_claims(rows, number):
    return next(s.claims for s in rows if s.number == number)


def test_every_notebook_exists_and_is_mapped(rows):
    on_disk = {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    mapped = {n for s in rows for n in s.notebooks}
    assert mapped == on_disk


def _heading_citations(path: Path) -> set[str]:
    """``Sec. X`` / ``App. X`` cited alone in a heading (lists and theorems left out)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join(line for c in cells if c["cell_type"] == "markdown"
                     for line in "".join(c["source"]).splitlines() if line.startswith("#"))
    return {m[2] for m in re.finditer(r"(Sec|App)\. ([0-9A-Z](?:\.[0-9])?)(?![0-9.,])", text)}


def test_a_notebook_is_under_every_section_its_headings_cite(by_number):
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for number in _heading_citations(path):
            assert path.stem in by_number[number].notebooks, (path.stem, number)
    # a list ("Sec. 4.2, 4.3, 6.1"), a theorem ("Theorem 1 (AND)") and a range ("Sec. 4.2–4.3")
    for number in ("4.2", "4.3", "6.1", "6.3"):
        assert "04_and_or_events" in by_number[number].notebooks, number
    for number in ("6", "6.1", "6.2", "6.3"):
        assert "06_worked_examples" in by_number[number].notebooks, number
    assert "07_optimal_radius_lambert" not in by_number["A.1"].notebooks
    assert "01_tour" in by_number["1"].notebooks  # cites no section in a heading: typed


def test_every_test_file_exists_and_is_mapped(rows):
    on_disk = {f"tests/{p.name}" for p in (ROOT / "tests").glob("test_*.py")}
    in_sections = {t for s in rows for t in s.tests}
    infrastructure = set(sm.INFRASTRUCTURE_TESTS)
    assert in_sections <= on_disk and infrastructure <= on_disk
    assert not in_sections & infrastructure
    assert on_disk - in_sections - infrastructure == set()


def test_citations_are_read_as_the_paper_numbers_them():
    cases = {
        "Sec 1, para 2": ("1",),
        "Sec 4.3 property 2 and Thm 2 eps_0": ("4.3",),
        "Thm 1 / Thm 2 hypothesis": ("4.2", "4.3"),
        "## Sec. 1 and Sec. 3.2 — rescaling epsilon": ("1", "3.2"),
        "Sec. 4.2–4.3": ("4.2", "4.3"),
        "Sec. 4.1-6": ("4.1", "4.2", "4.3", "5", "6"),
        "Theorems 3 and 4": ("5",),
        "App. A.1 and Appendix B.": ("A.1", "B"),
        "App B.2, Lambert W for b'": ("B.2",),
        "see Sec. 6.1.": ("6.1",),
        "Secure applications, Theory": (),
    }
    for text, expected in cases.items():
        assert sm.cited_sections(text) == expected, text
    assert sm.section_of("Sec 6.2 and 6.3, sensitivity after rescaling") == "6.2"
    assert sm.section_of("Sec 5, Thm (sequential composition)") == "5"


def test_bad_citations_are_refused():
    with pytest.raises(ParameterError, match="location: cites no section"):
        sm.section_of("para 2")
    with pytest.raises(ParameterError, match=r"location: Sec\. 8 is not a section"):
        sm.section_of("Sec 8, intro")
    with pytest.raises(ParameterError, match="Theorem 5 is not one of the paper's theorems"):
        sm.cited_sections("Thm 5")
    with pytest.raises(ParameterError, match="text: must be a string"):
        sm.cited_sections(None)


def test_the_page_links_every_claim_notebook_and_module(rows):
    from garesearch.app.claims_report import anchor

    page = sm.to_markdown()
    for s in rows:
        assert f"({sm._anchor(s.number)})=\n" in page
        for c in s.claims:
            assert f"{{ref}}`{c} <{anchor(c)}>`" in page
        for n in s.notebooks:
            assert f"{{doc}}`{n} </_generated/notebooks/{n}>`" in page
        for m in (*s.modules, *s.beyond, *s.paper_modules):
            assert f"{{mod}}`~{m}`" in page
        for t in s.tests:
            assert f"`{t}`" in page
    for t in sm.INFRASTRUCTURE_TESTS:
        assert f"`{t}`" in page


def test_the_docs_generate_the_page(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("garesearch_docs_conf_map",
                                                  ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    monkeypatch.setattr(conf, "GENERATED", tmp_path)
    monkeypatch.setattr(conf, "OUTPUT", tmp_path / "output")
    (tmp_path / "output" / "notebooks").mkdir(parents=True)
    (tmp_path / "output" / "notebooks" / "06_worked_examples.ipynb").write_text("{}")
    conf._sections_page()
    page = (tmp_path / "sections.md").read_text(encoding="utf-8")
    assert page == sm.to_markdown(notebook_pages={"06_worked_examples"})
    # a notebook the site has no page for is named without a link
    assert "{doc}`06_worked_examples </_generated/notebooks/06_worked_examples>`" in page
    assert "`03_one_attribute`" in page and "notebooks/03_one_attribute>" not in page
    assert "\n_generated/sections\n" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "guide" / "index.md").read_text(encoding="utf-8")
    assert "</_generated/sections>`" in guide
