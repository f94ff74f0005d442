"""The modules that moved into the family subpackages keep their old paths for one release:
each old path imports, warns naming the new one and is the very same module object; the new
module keeps its own name and spec; nothing in the project uses an old path any more."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import garesearch
from garesearch._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]

#: strings that keep an old name on purpose: the figures' Creator metadata (so that the stored
#: figures stay byte-identical)
ALLOWED = ('"Creator": "garesearch.figures"',)

OLD_STEMS = sorted((old.split(".", 1)[1] for old in MOVED), key=len, reverse=True)
OLD_RE = re.compile(r"(?<![\w.])(?:garesearch|ga)\\?\.(" + "|".join(OLD_STEMS) + r")(?!\w)")
OLD_PATH_RE = re.compile(r"garesearch/(" + "|".join(OLD_STEMS) + r")\.py\b")
FROM_PKG_RE = re.compile(r"from garesearch import \(?([\w ,\n]+)\)?")


def _forget(monkeypatch, old):
    """As if ``old`` had never been imported (without asking garesearch's ``__getattr__``,
    which would import it)."""
    name = old.split(".", 1)[1]
    if name in vars(garesearch):
        monkeypatch.delattr(garesearch, name)
    monkeypatch.delitem(sys.modules, old, raising=False)


def test_the_table_maps_old_top_level_paths_to_the_families():
    assert MOVED["garesearch.goal_optimal"] == "garesearch.optimal.goals"
    assert MOVED["garesearch.exact_core"] == "garesearch.exact.core"
    assert "garesearch.optimal" not in MOVED and "garesearch.exact" not in MOVED  # same path
    families = {"constructions", "optimal", "exact", "enclosures", "releases", "app"}
    for old, new in MOVED.items():
        assert old.count(".") == 1 and new.split(".")[1] in families, (old, new)
        assert importlib.util.find_spec(new).origin.startswith(str(ROOT / "garesearch")), new


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_warns_and_is_the_new_module(old, monkeypatch):
    new = importlib.import_module(MOVED[old])
    _forget(monkeypatch, old)
    with pytest.warns(DeprecationWarning, match=re.escape(MOVED[old])) as caught:
        module = importlib.import_module(old)
    assert module is new and sys.modules[old] is new
    assert new.__name__ == MOVED[old] and new.__spec__.name == MOVED[old]
    assert all(w.filename != importlib.__file__ for w in caught)


def test_the_old_forms_of_import(monkeypatch):
    from garesearch.exact.core import exact_advantage
    from garesearch.optimal import goals

    _forget(monkeypatch, "garesearch.exact_core")
    with pytest.warns(DeprecationWarning, match=r"garesearch\.exact_core is deprecated.*use garesearch\.exact\.core"):
        ns = {}
        exec("from garesearch.exact_core import exact_advantage", ns)
    assert ns["exact_advantage"] is exact_advantage
    _forget(monkeypatch, "garesearch.goal_optimal")
    with pytest.warns(DeprecationWarning, match=r"use garesearch\.optimal\.goals") as caught:
        ns = {}
        exec("from garesearch import goal_optimal", ns)
    assert ns["goal_optimal"] is goals
    assert caught[0].filename == "<string>"  # the warning points at the import, not importlib
    _forget(monkeypatch, "garesearch.goal_optimal")
    with pytest.warns(DeprecationWarning, match=r"use garesearch\.optimal\.goals"):
        assert garesearch.goal_optimal is goals
    with pytest.raises(AttributeError):
        garesearch.no_such_module  # noqa: B018


def test_python_m_with_an_old_path_runs_the_new_module():
    # existing clones run the notebooks' git filter as `python -m garesearch.nbclean` until
    # `make git-filter` sets the new path: a stored notebook passes through unchanged
    path = ROOT / "notebooks" / "01_tour.ipynb"
    run = subprocess.run([sys.executable, "-m", "garesearch.nbclean"], input=path.read_bytes(),
                         capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout == path.read_bytes()


def _files():
    for folder in ("garesearch", "tests", "notebooks", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".md", ".ipynb", ".rst") and "__pycache__" not in path.parts \
                    and "_generated" not in path.parts and path.name not in ("_moved.py", Path(__file__).name):
                yield path


def _texts(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        for cell in json.loads(text)["cells"]:
            yield "".join(cell["source"])
    else:
        yield text


def test_nothing_uses_an_old_path():
    found = []
    for path in _files():
        for text in _texts(path):
            for keep in ALLOWED:
                text = text.replace(keep, "")
            rel = path.relative_to(ROOT)
            found += [f"{rel}: {m.group(0)}" for m in OLD_RE.finditer(text)]
            found += [f"{rel}: {m.group(0)}" for m in OLD_PATH_RE.finditer(text)]
            for m in FROM_PKG_RE.finditer(text):
                found += [f"{rel}: from garesearch import {n}" for n in re.split(r"[\s,]+", m.group(1))
                          if f"garesearch.{n}" in MOVED]
    assert found == []


def test_no_relative_import_names_an_old_path():
    found = []
    package = ROOT / "garesearch"
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        here = parts[:-1]  # the package that holds the module (or is it)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = here[: len(here) - (node.level - 1)] + ([node.module] if node.module else [])
                base = ".".join(base)
                for alias in node.names:
                    for name in (base, f"{base}.{alias.name}"):
                        if name in MOVED:
                            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert found == []
