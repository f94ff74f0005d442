"""Sphinx configuration of garesearch's documentation site (``make docs`` -> output/site/).

The site is built from what the main job wrote: the executed notebooks and ``claims.json`` in
``output/`` (``make docs`` runs ``garesearch reproduce`` first; if they are missing, this file
runs it).  Pages generated at build time go to ``docs/_generated/`` (not stored):

- ``api/``: one page per public module of garesearch (found with :mod:`pkgutil`, so a module
  added later appears without editing the docs) and a table of the names that
  ``garesearch/__init__.py`` exports;
- ``notebooks/``: the executed notebooks (widgets as static snapshots);
- ``README.md`` (for the landing page), ``claims.md`` and ``derivations.md``.

Math is typeset by MathJax 3 from a local copy (:func:`garesearch.publish.copy_mathjax`), so the
site reads the same without a network.
"""

from __future__ import annotations

import os
import pkgutil
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
OUTPUT = Path(os.environ.get("GARESEARCH_OUTPUT", ROOT / "output"))
sys.path.insert(0, str(ROOT))
(GENERATED / "_static").mkdir(parents=True, exist_ok=True)

import garesearch  # noqa: E402
from garesearch import publish  # noqa: E402

project = "garesearch"
author = "The garesearch developers"
copyright = "The garesearch developers"
release = version = garesearch.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []

# --- API reference ------------------------------------------------------------------------
autosummary_generate = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc shows the types of the docstrings
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

# --- notebooks and Markdown ---------------------------------------------------------------
nb_execution_mode = "off"  # executed copies come from `garesearch reproduce`
nb_ipywidgets_js: dict = {}  # widgets are static snapshots: no widget manager to load
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

# --- HTML: furo, MathJax 3 from a local copy ----------------------------------------------
html_theme = "furo"
html_title = f"garesearch {version}"
html_static_path = ["_generated/_static"]
html_css_files = ["garesearch.css"]
mathjax_path = f"mathjax/{publish.MATHJAX_SCRIPT}"
mathjax3_config = {"tex": {"tags": "ams"}}
html_show_sourcelink = False


# ------------------------------------------------------------------------------------------
# generated pages
# ------------------------------------------------------------------------------------------
_SKIP_MODULES = {"__main__"}
#: old paths kept for compatibility (they warn); documented at their new place
_DEPRECATED_MODULES = {"garesearch.derivations.lambertw", "garesearch.derivations.radius"}


def public_modules() -> list[str]:
    """Every public module of garesearch (no leading underscore), found on disk."""
    found = []
    for info in pkgutil.walk_packages(garesearch.__path__, prefix="garesearch."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[-1] in _SKIP_MODULES:
            continue
        if info.name in _DEPRECATED_MODULES:
            continue
        found.append(info.name)
    return sorted(found)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _api_pages() -> None:
    modules = public_modules()
    for name in modules:
        title = f"``{name}``"
        _write(GENERATED / "api" / f"{name}.rst",
               f"{title}\n{'=' * len(title)}\n\n.. automodule:: {name}\n")
    by_module: dict[str, list[str]] = {}
    for name, module in sorted(getattr(garesearch, "_LAZY", {}).items()):
        by_module.setdefault(module, []).append(name)
    lines = [
        "API reference",
        "=============",
        "",
        "``import garesearch`` gives these names (loaded on first use); each links to its",
        "documentation, which cites the paper's equation or section it implements.",
        "",
    ]
    for module in sorted(by_module):
        heading = f"From ``garesearch.{module}``"
        lines += [heading, "-" * len(heading), "", ".. autosummary::", ""]
        lines += [f"   garesearch.{module}.{n}" for n in by_module[module]]
        lines.append("")
    lines += ["Modules", "-------", "", ".. toctree::", "   :maxdepth: 1", ""]
    lines += [f"   {m}" for m in modules]
    _write(GENERATED / "api" / "index.rst", "\n".join(lines) + "\n")


def _ensure_outputs() -> None:
    executed = sorted((OUTPUT / "notebooks").glob("*.ipynb"))
    if executed and (OUTPUT / "claims.json").is_file():
        return
    from garesearch import reproduce

    print("[docs] no executed notebooks in output/: running garesearch reproduce", flush=True)
    code = reproduce.main(["--output", str(OUTPUT), "--figures", str(OUTPUT / "figures")])
    if code != 0:
        raise RuntimeError("garesearch reproduce failed; see its output above")


def _notebook_pages() -> None:
    folder = GENERATED / "notebooks"
    names = []
    for path in sorted((OUTPUT / "notebooks").glob("*.ipynb")):
        target = folder / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != path.read_bytes():
            shutil.copyfile(path, target)
        names.append(path.stem)
    for stale in folder.glob("*.ipynb"):
        if stale.stem not in names:
            stale.unlink()
    readme = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    body = readme.split("\n", 1)[1] if readme.startswith("# ") else readme
    lines = ["# Notebooks", "", body.strip(), "", "```{toctree}", ":maxdepth: 1", "", *names, "```"]
    _write(folder / "index.md", "\n".join(lines) + "\n")


def _claims_page() -> None:
    import json

    from garesearch import claims_report

    records = json.loads((OUTPUT / "claims.json").read_text(encoding="utf-8"))["claims"]
    _write(GENERATED / "claims.md", claims_report.to_markdown(records, targets="myst"))


def _derivations_page() -> None:
    from garesearch import derivations as dv
    from garesearch.claims_report import code_span, md_escape

    records = dv.all_derivations()
    lines = [
        "# Derivations",
        "",
        "Every derivation of the paper redone with sympy (`python -m garesearch derivations`): "
        "**proved**, **proved under conditions** (a condition the paper does not state) or "
        "**refuted** (false as printed, with a counterexample at 50 digits and the corrected "
        "statement). Notebook 10 walks through them.",
        "",
        dv.html_table(records),
        "",
    ]
    for r in records:
        lines += [
            f"## `{r.name}`",
            "",
            f"**{md_escape(r.location)}** · {r.status}",
            "",
            "$$",
            r.latex,
            "$$",
            "",
            md_escape(r.summary),
            "",
        ]
        if r.conditions:
            lines += [f"Conditions: {code_span(r.conditions)}", ""]
        if r.detail:
            lines += [md_escape(r.detail), ""]
    _write(GENERATED / "derivations.md", "\n".join(lines) + "\n")


_CSS = """\
.garesearch-widget-snapshot { border: 1px solid #ccc; border-radius: 4px; padding: 0.5em 0.8em; }
.garesearch-widget-snapshot .snapshot-note { color: #666; font-size: 0.9em; margin: 0 0 0.4em; }
.garesearch-widget-snapshot table.controls td { padding: 0.1em 0.6em 0.1em 0; border: none; }
.garesearch-widget-snapshot img { max-width: 100%; }
table.derivations td, table.derivations th { padding: 0.2em 0.5em; vertical-align: top; }
"""


def _static() -> None:
    publish.copy_mathjax(GENERATED / "_static" / "mathjax")
    _write(GENERATED / "_static" / "garesearch.css", _CSS)


def _generate(app) -> None:
    _ensure_outputs()
    _static()
    _api_pages()
    _readme_page()
    _notebook_pages()
    _claims_page()
    _derivations_page()


def _readme_page() -> None:
    """README for the landing page: its figures found from docs/_generated/, its link to
    notebooks/README.md pointing at the site's notebooks page."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = text.replace("](figures/", "](../../figures/")
    text = text.replace("[`notebooks/README.md`](notebooks/README.md)",
                        "{doc}`notebooks/README.md </_generated/notebooks/index>`")
    _write(GENERATED / "README.md", text)


def setup(app):
    app.connect("builder-inited", _generate)

