"""The layers of garesearch: no import cycle among its modules, and the library does not reach
up into the paper.

The import graph is read from the source with :mod:`ast` (nothing is imported): an edge
``a -> b`` for every ``import`` / ``from ... import`` in ``a`` that names garesearch's module
``b`` (or a name defined in ``b``), plus ``a -> p`` for each package ``p`` that holds ``b``
but not ``a`` (importing ``b`` runs ``p/__init__.py`` first).  Module-level imports run when the module is
imported; function-level imports run when the function is called.  Imports under
``if TYPE_CHECKING:`` never run and are left out.

``python tests/test_layering.py`` prints the cycles and the importers of ``garesearch.paper``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

# one worker runs the module, so its module-scoped fixtures are computed once
pytestmark = pytest.mark.xdist_group("layering")

PACKAGE = Path(__file__).resolve().parents[1] / "garesearch"

#: modules about the paper, which may import garesearch.paper: the paper itself, its claims and
#: derivations, and the erratum generated from the claims
ABOUT_THE_PAPER = ("garesearch.paper", "garesearch.claims", "garesearch.derivations",
                   "garesearch.app.erratum")

#: modules that once formed a circle through a lazy import (a helper of the comparison sets in
#: ``attribute``, and ``attribute`` giving a counterexample by its old name): no cycle through
#: any import may include them again
NO_CYCLE_AT_ALL = {"garesearch.attribute", "garesearch.constructions.comparison_sets", "garesearch.constructions.counterexamples"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of garesearch by dotted name."""
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _targets(node: ast.Import | ast.ImportFrom, here: str, is_package: bool,
             known: Iterable[str]) -> set[str]:
    """The garesearch modules an import statement names (with the packages that hold them)."""
    known = set(known)
    names: set[str] = set()
    if isinstance(node, ast.Import):
        names = {alias.name for alias in node.names}
    else:
        if node.level:
            base = here.split(".") if is_package else here.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        for alias in node.names:
            sub = f"{prefix}.{alias.name}"
            names.add(sub if sub in known else prefix)
    out = set()
    for name in names:
        while name and name not in known:  # "garesearch.x.Name" -> "garesearch.x"
            name = name.rpartition(".")[0]
        if name.startswith("garesearch"):
            parts = name.split(".")
            out.add(name)
            # and the packages that hold it, but for those that hold ``here`` too: these are
            # being imported already when ``here`` runs
            out |= {pkg for pkg in (".".join(parts[:k]) for k in range(2, len(parts)))
                    if not here.startswith(pkg + ".")}
    return out & known


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(module_level, every_import)``: module -> the garesearch modules it imports."""
    mods = modules()
    top: dict[str, set[str]] = {m: set() for m in mods}
    every: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        is_package = path.name == "__init__.py"

        def walk(node: ast.AST, in_function: bool, name=name, is_package=is_package) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    for sub in child.orelse:
                        walk(sub, in_function)
                    continue
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    found = _targets(child, name, is_package, mods) - {name}
                    every[name] |= found
                    if not in_function:
                        top[name] |= found
                walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                              ast.Lambda)))

        walk(ast.parse(path.read_text(encoding="utf-8")), False)
    return top, every


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def paper_importers(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The modules outside :data:`ABOUT_THE_PAPER` that import ``garesearch.paper``."""
    return {
        m: {t for t in targets if t == "garesearch.paper" or t.startswith("garesearch.paper.")}
        for m, targets in graph.items()
        if not any(m == p or m.startswith(p + ".") for p in ABOUT_THE_PAPER)
        and any(t == "garesearch.paper" or t.startswith("garesearch.paper.") for t in targets)
    }


@pytest.fixture(scope="module")
def graphs():
    return import_graph()


def test_the_cycle_finder_finds_cycles_and_only_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": set(), "f": {"f"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_relative_and_absolute_imports(graphs):
    top, every = graphs
    assert len(top) > 60
    # module level: "from ._maximise import maximise", "from . import bound"
    assert {"garesearch._maximise", "garesearch.bound"} <= top["garesearch.attribute"]
    # "from .. import attribute, bound, priors" and "from ..datasets import ..." in a subpackage;
    # garesearch.paper, which holds paper.examples too, is being imported already
    assert {"garesearch.attribute", "garesearch.datasets", "garesearch.paper._claim"} <= top[
        "garesearch.paper.examples"]
    assert "garesearch.paper" not in top["garesearch.paper.examples"]
    # "from ..paper._claim import ...": paper._claim and the package that holds it
    assert {"garesearch.paper._claim", "garesearch.paper"} <= top["garesearch.claims"]
    # function level only: "from .release import noise_accuracy" inside a method
    assert "garesearch.releases.release" in every["garesearch.releases.calibration"] - top["garesearch.releases.calibration"]


def test_no_import_cycle_at_module_level(graphs):
    top, _ = graphs
    assert cycles(top) == []


def test_the_one_attribute_modules_form_no_circle_through_any_import(graphs):
    # a cycle through function-level imports works (each import runs after both modules are
    # loaded) but ties the modules together; these must stay apart
    _, every = graphs
    assert [c for c in cycles(every) if c & NO_CYCLE_AT_ALL] == []


def test_the_library_does_not_import_the_paper(graphs):
    # the library takes the paper's example data from garesearch.datasets; only the modules
    # about the paper (its claims, derivations and erratum) import garesearch.paper
    _, every = graphs
    assert paper_importers(every) == {}
    for name in ("garesearch.releases.release", "garesearch.app.widgets", "garesearch.app.bench", "garesearch.app.readme_numbers", "garesearch.app.demo"):
        assert "garesearch.datasets" in every[name], name


#: the interfaces (the command line, the main job, PLEAK's files, widgets, figures)
APP = "garesearch.app"


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_library_does_not_import_the_interfaces_at_module_level(graphs):
    # the core at the top level and the families below it run without garesearch.app; only
    # the entry point (__main__) and the modules about the paper, whose commands use its
    # parsers and report writers, import it when they are imported
    top, _ = graphs
    library = [m for m in top if not _inside(m, APP) and m != "garesearch.__main__"
               and not any(_inside(m, p) for p in ABOUT_THE_PAPER)]
    assert {m: sorted(t for t in top[m] if _inside(t, APP)) for m in library
            if any(_inside(t, APP) for t in top[m])} == {}


def test_the_family_packages_import_nothing_when_imported(graphs):
    # their __init__ loads its names on first use (through garesearch._optional's
    # lazy_attributes, which imports only the standard library): importing one module of a
    # family runs no other module of it
    top, _ = graphs
    assert top["garesearch._optional"] == set()
    for family in ("constructions", "optimal", "exact", "enclosures", "releases", "app"):
        assert top[f"garesearch.{family}"] == {"garesearch._optional"}, family


if __name__ == "__main__":
    top, every = import_graph()
    print("cycles at module level:", cycles(top) or "none")
    print("cycles through any import:", cycles(every) or "none")
    print("importers of garesearch.paper outside the paper's modules:", paper_importers(every) or "none")
