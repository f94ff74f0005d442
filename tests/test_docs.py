"""The documentation site's generated pages: every public module and every exported name."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import garesearch

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def conf():
    spec = importlib.util.spec_from_file_location("garesearch_docs_conf", ROOT / "docs" / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_public_module_gets_a_page(conf, tmp_path, monkeypatch):
    on_disk = {
        "garesearch." + p.stem for p in (ROOT / "garesearch").glob("*.py")
        if not p.stem.startswith("_")
    }
    assert on_disk <= set(conf.public_modules())
    assert "garesearch.lambertw" in conf.public_modules()
    assert "garesearch.derivations.lambertw" not in conf.public_modules()  # deprecated path
    monkeypatch.setattr(conf, "GENERATED", tmp_path)
    conf._api_pages()
    pages = {p.stem for p in (tmp_path / "api").glob("garesearch*.rst")}
    assert pages == set(conf.public_modules())
    index = (tmp_path / "api" / "index.rst").read_text(encoding="utf-8")
    for name, module in garesearch._LAZY.items():
        assert f"garesearch.{module}.{name}\n" in index, name


def test_landing_page_links_resolve(conf, tmp_path, monkeypatch):
    monkeypatch.setattr(conf, "GENERATED", tmp_path)
    conf._readme_page()
    text = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "](notebooks/README.md)" not in text and "](figures/" not in text
    for image in ("figure1_corner.png", "figure2a_andor.png", "figure2b_split.png"):
        assert f"](../../figures/{image})" in text
        assert (ROOT / "figures" / image).is_file()


def test_summaries_are_first_sentences_not_cut_at_abbreviations(conf):
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from sphinx.ext.autosummary import extract_summary

    settings = get_default_settings(Parser)
    cases = {
        "The posterior bound of Sec. 3.2 and Eq. (main), and the epsilon it implies.  More.":
            "The posterior bound of Sec. 3.2 and Eq. (main), and the epsilon it implies.",
        "App. A: the optimal radius, e.g. for a uniform prior (Def. 7).  Then more.":
            "App. A: the optimal radius, e.g. for a uniform prior (Def. 7).",
        "Epsilon of all outputs together (Sec. 5, Theorem 4).  The input distance is a norm.":
            "Epsilon of all outputs together (Sec. 5, Theorem 4).",
    }
    for doc, summary in cases.items():
        assert extract_summary([doc], settings) == summary
    bound = importlib.import_module("garesearch.bound").__doc__.splitlines()
    assert extract_summary(bound, settings).endswith("and the epsilon it implies.")


def test_the_api_entry_page_groups_the_public_calls_by_task(conf, tmp_path, monkeypatch):
    monkeypatch.setattr(conf, "GENERATED", tmp_path)
    conf._api_pages()
    index = (tmp_path / "api" / "index.rst").read_text(encoding="utf-8")
    headings = [h for h, _, _ in conf.API_GROUPS]
    assert headings[:7] == ["One attribute", "Goals", "Noise and calibration", "Releases",
                            "The paper's constructions", "Claims and derivations", "Interfaces"]
    positions = [index.index(f"\n{h}\n{'-' * len(h)}\n") for h in headings]
    assert positions == sorted(positions)
    for _, _, names in conf.API_GROUPS:
        for entry in names:  # every grouped name exists where the page says
            module, name = entry.rsplit(".", 1)
            assert hasattr(importlib.import_module(f"garesearch.{module}"), name), entry
    main = index.split("Supporting modules")[0].split(".. _api-modules:")[1]
    assert "   garesearch.bound\n" in main and "   garesearch.claims\n" in main
    assert "garesearch.paper.sec3_posterior" not in main
    assert "   garesearch.paper.sec3_posterior\n" in index  # on the supporting list


def test_a_function_named_like_its_submodule_is_documented_once(conf, tmp_path, monkeypatch):
    monkeypatch.setattr(conf, "GENERATED", tmp_path)
    conf._api_pages()
    claims = (tmp_path / "api" / "garesearch.claims.rst").read_text(encoding="utf-8")
    assert ":exclude-members: verify" in claims  # garesearch.claims.verify is the module
    bound = (tmp_path / "api" / "garesearch.bound.rst").read_text(encoding="utf-8")
    assert "exclude-members" not in bound


def test_the_bundled_inventories_link_to_the_real_documentation(conf):
    from sphinx.util.inventory import InventoryFile

    expected = {
        "python": ("py:class", "fractions.Fraction",
                   "https://docs.python.org/3/library/fractions.html#fractions.Fraction"),
        "numpy": ("py:class", "numpy.ndarray",
                  "https://numpy.org/doc/stable/reference/generated/numpy.ndarray.html"
                  "#numpy.ndarray"),
        "scipy": ("py:function", "scipy.special.lambertw",
                  "https://docs.scipy.org/doc/scipy/reference/generated/"
                  "scipy.special.lambertw.html#scipy.special.lambertw"),
        "opendp": ("py:function", "opendp.measurements.make_laplace",
                   "https://docs.opendp.org/en/stable/api/python/opendp.measurements.html"
                   "#opendp.measurements.make_laplace"),
        "dp_accounting": ("py:function", "dp_accounting.calibrate_dp_mechanism",
                          "https://github.com/google/differential-privacy/blob/main/python/"
                          "dp_accounting/dp_accounting/mechanism_calibration.py"),
    }
    assert set(conf.intersphinx_mapping) == set(expected)
    for key, (kind, name, url) in expected.items():
        base, path = conf.intersphinx_mapping[key]
        assert Path(path).is_file() and Path(path).parent == ROOT / "docs" / "_inventories"
        with open(path, "rb") as stream:
            inventory = InventoryFile.load(stream, base, lambda a, b: a + b)
        items = inventory.data if hasattr(inventory, "data") else inventory
        entry = items[kind][name]
        uri = entry.uri if hasattr(entry, "uri") else entry[2]
        assert uri == url, (key, uri)
