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
