"""Offline HTML for executed notebooks, and the notebooks shipped with the package.

Not in the paper: how garesearch publishes its results so that they read the same without a
network (a seminar room, an air-gapped review).

- :func:`mathjax_source` and :func:`copy_mathjax`: MathJax 3 from the local copy that the
  ``django-static-mathjax`` package ships (only its files are used, not Django), copied next to
  the HTML that needs it;
- :func:`snapshot_widgets`: each ipywidgets output of an executed notebook replaced by a static
  HTML snapshot (its controls and their values, and what its output areas showed), so that no
  widget manager has to be fetched to show it;
- :func:`notebook_to_html`: nbconvert's JupyterLab template without require.js, the widget
  manager or mermaid, with MathJax from a relative URL;
- :func:`remote_references`: every script, style sheet, image, frame or font that an HTML text
  would fetch from the network (tests and :func:`garesearch.app.reproduce.main` use it);
- :func:`packaged_notebooks`, :func:`copy_notebooks` and :func:`main`
  (``garesearch notebooks --output DIR``): the notebooks and the PLEAK examples, which ship
  inside the package, copied out to open in JupyterLab.
"""

from __future__ import annotations

import base64
import copy
import html
import importlib.metadata
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._optional import require_jupyter_stack
from ._commands import OneLineParser

__all__ = [
    "MATHJAX_SCRIPT",
    "copy_mathjax",
    "copy_notebooks",
    "main",
    "mathjax_source",
    "notebook_to_html",
    "packaged_examples",
    "packaged_notebooks",
    "remote_references",
    "snapshot_widgets",
]

#: the MathJax 3 component used everywhere: TeX input, CommonHTML output (its TeX fonts are
#: loaded from ``output/chtml/fonts/woff-v2`` beside it)
MATHJAX_SCRIPT = "tex-chtml.js"
_MATHJAX_DIST = "django-static-mathjax"
_MATHJAX_ES5 = "mathjax/static/mathjax/es5"
# the other combined components of es5/ are alternatives to tex-chtml.js: not copied
_MATHJAX_SKIP = re.compile(r"^(?!tex-chtml\.js$)[^/]+\.js$")

_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


# ------------------------------------------------------------------------------------------
# MathJax
# ------------------------------------------------------------------------------------------
def mathjax_source() -> Path:
    """The folder of MathJax 3's ``es5`` build shipped by the ``django-static-mathjax`` package.

    Returns
    -------
    pathlib.Path
        The folder that holds :data:`MATHJAX_SCRIPT`.

    Raises
    ------
    FileNotFoundError
        If the package is not installed (it is a dependency of garesearch).

    Examples
    --------
    >>> (mathjax_source() / MATHJAX_SCRIPT).is_file()
    True
    """
    try:
        dist = importlib.metadata.distribution(_MATHJAX_DIST)
    except importlib.metadata.PackageNotFoundError:
        raise FileNotFoundError(
            f"MathJax: the package {_MATHJAX_DIST!r} is not installed (pip install {_MATHJAX_DIST})"
        ) from None
    folder = Path(str(dist.locate_file(_MATHJAX_ES5)))
    if not (folder / MATHJAX_SCRIPT).is_file():
        raise FileNotFoundError(f"MathJax: {folder / MATHJAX_SCRIPT} is missing")
    return folder


def copy_mathjax(dest: str | Path) -> Path:
    """Copy MathJax (:data:`MATHJAX_SCRIPT` and the files it loads) into ``dest``.

    Copies nothing if ``dest`` already holds the same version.

    Parameters
    ----------
    dest : path
        Target folder (created); pages load ``<dest>/tex-chtml.js``.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = copy_mathjax(Path(tmp) / "mathjax")
    ...     (folder / MATHJAX_SCRIPT).is_file()
    True
    """
    src, dest = mathjax_source(), Path(dest)
    version = importlib.metadata.version(_MATHJAX_DIST)
    stamp = dest / ".version"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == version:
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src).as_posix()
        if path.is_dir() or _MATHJAX_SKIP.match(rel):
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    stamp.write_text(version, encoding="utf-8")
    return dest


# ------------------------------------------------------------------------------------------
# Widgets as static snapshots
# ------------------------------------------------------------------------------------------
def _model_id(ref: Any) -> str | None:
    if isinstance(ref, str) and ref.startswith("IPY_MODEL_"):
        return ref[len("IPY_MODEL_"):]
    return None


def _output_html(output: Mapping[str, Any]) -> str:
    """One output of an Output widget (or of a cell) as static HTML."""
    kind = output.get("output_type")
    if kind == "stream":
        return f"<pre>{html.escape(str(output.get('text', '')))}</pre>"
    if kind == "error":
        text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.get("traceback", [])))
        return f"<pre class='error'>{html.escape(text)}</pre>"
    data = output.get("data", {})
    for mime in ("image/svg+xml",):
        if mime in data:
            return "".join(data[mime]) if isinstance(data[mime], list) else str(data[mime])
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            payload = data[mime] if isinstance(data[mime], str) else "".join(data[mime])
            base64.b64decode(payload, validate=False)  # a malformed payload raises here
            return f"<img alt='plot' src='data:{mime};base64,{payload.strip()}'>"
    if "text/html" in data:
        value = data["text/html"]
        return "".join(value) if isinstance(value, list) else str(value)
    if "text/plain" in data:
        value = data["text/plain"]
        return f"<pre>{html.escape(''.join(value) if isinstance(value, list) else str(value))}</pre>"
    return ""


def _control_html(state: Mapping[str, Any]) -> str | None:
    """A control (slider, dropdown, check box, text) as a table row, or None."""
    name = state.get("_model_name", "")
    label = html.escape(str(state.get("description", "")))
    if name in ("FloatSliderModel", "IntSliderModel", "FloatLogSliderModel"):
        value = state.get("value")
        lo, hi, step = state.get("min"), state.get("max"), state.get("step")
        shown = value if name != "FloatLogSliderModel" else f"{state.get('base', 10)}^{value}"
        return (f"<tr><td>{label}</td><td><input type='range' disabled min='{lo}' max='{hi}' "
                f"step='{step}' value='{value}' aria-label='{label}'></td>"
                f"<td><code>{html.escape(str(shown))}</code></td></tr>")
    if name in ("DropdownModel", "RadioButtonsModel", "ToggleButtonsModel", "SelectModel"):
        labels, index = state.get("_options_labels", []), state.get("index")
        chosen = labels[index] if isinstance(index, int) and 0 <= index < len(labels) else ""
        options = ", ".join(html.escape(str(x)) for x in labels)
        return (f"<tr><td>{label}</td><td><code>{html.escape(str(chosen))}</code></td>"
                f"<td>(one of: {options})</td></tr>")
    if name in ("CheckboxModel", "ToggleButtonModel"):
        mark = "checked" if state.get("value") else ""
        return (f"<tr><td>{label}</td><td><input type='checkbox' disabled {mark} "
                f"aria-label='{label}'></td><td></td></tr>")
    if name in ("TextModel", "IntTextModel", "FloatTextModel", "BoundedFloatTextModel",
                "BoundedIntTextModel"):
        return f"<tr><td>{label}</td><td><code>{html.escape(str(state.get('value')))}</code></td><td></td></tr>"
    return None


def _widget_parts(model_id: str, models: Mapping[str, Any], rows: list[str],
                  blocks: list[str], seen: set[str]) -> None:
    if model_id in seen or model_id not in models:
        return
    seen.add(model_id)
    state = models[model_id].get("state", {})
    name = state.get("_model_name", models[model_id].get("model_name", ""))
    row = _control_html({**state, "_model_name": name})
    if row is not None:
        rows.append(row)
    elif name == "OutputModel":
        blocks.extend(_output_html(o) for o in state.get("outputs", []))
    elif name in ("HTMLModel", "LabelModel", "HTMLMathModel"):
        value = str(state.get("value", ""))
        blocks.append(value if name != "LabelModel" else f"<p>{html.escape(value)}</p>")
    for child in state.get("children", []):
        child_id = _model_id(child)
        if child_id:
            _widget_parts(child_id, models, rows, blocks, seen)


def _snapshot_html(model_id: str, models: Mapping[str, Any]) -> str:
    rows: list[str] = []
    blocks: list[str] = []
    _widget_parts(model_id, models, rows, blocks, set())
    table = f"<table class='controls'>{''.join(rows)}</table>" if rows else ""
    return (
        "<div class='garesearch-widget-snapshot'>"
        "<p class='snapshot-note'>Static snapshot of an interactive widget at the values below; "
        "run the notebook in JupyterLab to move its controls.</p>"
        f"{table}{''.join(blocks)}</div>"
    )


def snapshot_widgets(nb):
    """Replace every widget output of an executed notebook by a static HTML snapshot.

    Not in the paper.  The widget state that nbclient stores in the notebook's metadata gives
    each control's value and each output area's outputs (plots as PNG); the snapshot shows the
    controls as a table (sliders disabled at their values) followed by those outputs.  The
    widget state is then dropped from the metadata, so no HTML exporter asks for a widget
    manager from the network.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        An executed notebook; it is not modified.

    Returns
    -------
    nbformat.NotebookNode
        A copy with the widget outputs replaced (``text/html`` and ``text/plain``).

    Examples
    --------
    >>> import nbformat
    >>> from nbformat.v4 import new_code_cell, new_notebook, new_output
    >>> view = {"model_id": "s1", "version_major": 2, "version_minor": 0}
    >>> out = new_output("display_data", {"text/plain": "FloatSlider(...)",
    ...                                   "application/vnd.jupyter.widget-view+json": view})
    >>> nb = new_notebook(cells=[new_code_cell("w", outputs=[out])])
    >>> slider = {"_model_name": "FloatSliderModel", "description": "delta", "value": 0.1,
    ...           "min": 0.01, "max": 0.5, "step": 0.01}
    >>> nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
    ...     "state": {"s1": {"model_name": "FloatSliderModel", "state": slider}},
    ...     "version_major": 2, "version_minor": 0}}
    >>> snap = snapshot_widgets(nb)
    >>> data = snap.cells[0].outputs[0]["data"]
    >>> sorted(data), "delta" in data["text/html"], "widgets" in snap.metadata
    (['text/html', 'text/plain'], True, False)
    """
    nb = copy.deepcopy(nb)
    widgets = nb.metadata.get("widgets", {})
    models = widgets.get(_WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if _WIDGET_VIEW not in data:
                continue
            model_id = data[_WIDGET_VIEW].get("model_id", "")
            snapshot = _snapshot_html(model_id, models)
            plain = data.get("text/plain", "(interactive widget)")
            output["data"] = {"text/html": snapshot, "text/plain": plain}
    nb.metadata.pop("widgets", None)
    return nb


# ------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------
def _template_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "templates"


def notebook_to_html(nb, mathjax_url: str = f"mathjax/{MATHJAX_SCRIPT}") -> str:
    """An executed notebook as one HTML page that loads nothing from the network.

    Not in the paper.  Widgets are replaced by :func:`snapshot_widgets`; nbconvert's
    JupyterLab template is used without require.js, the widget manager and mermaid, and
    MathJax comes from ``mathjax_url`` (relative to the page; see :func:`copy_mathjax`).

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The executed notebook.
    mathjax_url : str
        Where the page loads MathJax from.

    Returns
    -------
    str
        The HTML text.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("$x^2 = 0.539$")])
    >>> page = notebook_to_html(nb)
    >>> remote_references(page), "0.539" in page  # nothing is fetched from the network
    ([], True)
    """
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="offline", mathjax_url=mathjax_url,
                            extra_template_basedirs=[str(_template_dir())])
    body, _ = exporter.from_notebook_node(snapshot_widgets(nb))
    return body


_REMOTE = re.compile(r"^\s*(?:https?:)?//", re.I)
_TAG_ATTRS = re.compile(
    r"<(script|link|img|iframe|source|video|audio|embed|object)\b[^>]*?\b(src|href|data)\s*=\s*"
    r"(['\"])(.*?)\3", re.I | re.S)
_CSS_URL = re.compile(r"(?:@import\s+|url\()\s*(['\"]?)((?:https?:)?//[^'\")\s]+)\1", re.I)
_JS_IMPORT = re.compile(r"\bimport\s*\(\s*(['\"])((?:https?:)?//[^'\"]+)\1")


def remote_references(text: str) -> list[str]:
    """Every URL that an HTML page would fetch from the network when it is opened.

    Not in the paper.  Looks at ``src``/``href``/``data`` of the tags that load something
    (``script``, ``link``, ``img``, ``iframe``, media, ``embed``, ``object``), at CSS
    ``url(...)`` and ``@import``, and at dynamic ``import(...)`` of a URL.  Plain links
    (``<a href>``), which load nothing until followed, are not counted.

    Parameters
    ----------
    text : str
        HTML text.

    Returns
    -------
    list of str
        The remote URLs, in order of appearance (empty when the page is self-contained).

    Examples
    --------
    >>> remote_references('<script src="https://cdn.example.org/x.js"></script>'
    ...                   '<a href="https://example.org">a link</a><img src="local.png">')
    ['https://cdn.example.org/x.js']
    """
    found = []
    for match in _TAG_ATTRS.finditer(text):
        tag, attr, url = match.group(1).lower(), match.group(2).lower(), match.group(4)
        if tag == "link" and attr == "href":
            rel = re.search(r"\brel\s*=\s*(['\"])(.*?)\1", match.group(0), re.I)
            if rel and not re.search(r"stylesheet|preload|icon|modulepreload|prefetch",
                                     rel.group(2), re.I):
                continue
        if _REMOTE.match(url):
            found.append(url)
    found += [m.group(2) for m in _CSS_URL.finditer(text)]
    found += [m.group(2) for m in _JS_IMPORT.finditer(text)]
    return found


# ------------------------------------------------------------------------------------------
# The notebooks and examples shipped with the package
# ------------------------------------------------------------------------------------------
def _first_folder(*candidates: Path, pattern: str) -> Path:
    for folder in candidates:
        if folder.is_dir() and any(folder.glob(pattern)):
            return folder
    raise FileNotFoundError(
        "garesearch's " + ("notebooks" if pattern.endswith("ipynb") else "examples")
        + " were not found in " + ", ".join(str(c) for c in candidates)
    )


def packaged_notebooks() -> Path:
    """The folder of garesearch's notebooks: ``garesearch/notebooks`` in an installed package,
    ``notebooks/`` in a source checkout.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> any(p.suffix == ".ipynb" for p in packaged_notebooks().iterdir())
    True
    """
    here = Path(__file__).resolve().parents[1]
    return _first_folder(here / "notebooks", here.parent / "notebooks", pattern="*.ipynb")


def packaged_examples() -> Path:
    """The folder of the PLEAK example files (``examples/pleak``), installed or in a checkout.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> (packaged_examples() / "cats.att").is_file()
    True
    """
    here = Path(__file__).resolve().parents[1]
    return _first_folder(here / "examples" / "pleak", here.parent / "examples" / "pleak",
                         pattern="*.att")


def copy_notebooks(dest: str | Path, *, overwrite: bool = False) -> list[Path]:
    """Copy the notebooks and the PLEAK examples into ``dest`` (``notebooks/``,
    ``examples/pleak/``: the layout the notebooks expect).

    Not in the paper.

    Parameters
    ----------
    dest : path
        Target folder (created).
    overwrite : bool
        Replace files that already exist (default: keep them, so edits are not lost).

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     copied = copy_notebooks(tmp)
    ...     (Path(tmp) / "examples" / "pleak" / "cats.att").is_file(), len(copied) > 10
    (True, True)
    """
    dest = Path(dest)
    written = []
    for src, sub in ((packaged_notebooks(), "notebooks"), (packaged_examples(), "examples/pleak")):
        for path in sorted(src.iterdir()):
            if not path.is_file() or path.name.startswith((".", "__")):
                continue
            target = dest / sub / path.name
            if target.exists() and not overwrite:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """``garesearch notebooks [--output DIR] [--overwrite]``: copy the notebooks out.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status, 0.

    Examples
    --------
    >>> import contextlib, io, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
    ...     status = main(["--output", tmp])
    ...     found = (Path(tmp) / "notebooks").is_dir()
    >>> status, found
    (0, True)
    """
    parser = OneLineParser(
        prog="garesearch notebooks",
        description="Copy garesearch's notebooks and PLEAK examples into a folder "
                    "(then: cd DIR && jupyter lab notebooks).",
    )
    parser.add_argument("--output", default="garesearch-notebooks",
                        help="target folder (default: garesearch-notebooks)")
    parser.add_argument("--overwrite", action="store_true", help="replace files that exist")
    args = parser.parse_args(argv)
    require_jupyter_stack("garesearch notebooks", "notebooks")
    written = copy_notebooks(args.output, overwrite=args.overwrite)
    print(f"{len(written)} files copied into {args.output}/ (notebooks/, examples/pleak/)")
    return 0
