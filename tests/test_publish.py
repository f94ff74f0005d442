"""Offline HTML: MathJax from a local copy, widgets as static snapshots, no remote loads."""

from __future__ import annotations

import doctest

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from garesearch.app import publish

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


def test_docstring_examples_run():
    result = doctest.testmod(publish)
    assert result.attempted >= 2 and result.failed == 0


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ('<script src="https://cdn.example.org/a.js"></script>', ["https://cdn.example.org/a.js"]),
        ("<script src='//cdn.example.org/b.js'></script>", ["//cdn.example.org/b.js"]),
        ('<link rel="stylesheet" href="http://x.org/s.css">', ["http://x.org/s.css"]),
        ('<link rel="canonical" href="https://x.org/page.html">', []),
        ('<style>@import url("https://fonts.example.org/f.css");</style>',
         ["https://fonts.example.org/f.css"]),
        ("<style>.a { background: url(https://x.org/i.png) }</style>", ["https://x.org/i.png"]),
        ('<script>import("https://x.org/m.mjs")</script>', ["https://x.org/m.mjs"]),
        ('<img src="data:image/png;base64,AAAA"><script src="mathjax/tex-chtml.js"></script>', []),
        ('<a href="https://example.org">a link loads nothing</a>', []),
    ],
)
def test_remote_references(html, expected):
    assert publish.remote_references(html) == expected


def _widget_notebook():
    view = {"model_id": "box", "version_major": 2, "version_minor": 0}
    out = new_output("execute_result", {"text/plain": "VBox(...)",
                                        "application/vnd.jupyter.widget-view+json": view},
                     execution_count=1)
    nb = new_notebook(cells=[new_markdown_cell("The bound $\\epsilon_{lb}$"),
                             new_code_cell("w", outputs=[out], execution_count=1)])
    state = {
        "box": {"model_name": "VBoxModel", "state": {
            "_model_name": "VBoxModel",
            "children": ["IPY_MODEL_slider", "IPY_MODEL_menu", "IPY_MODEL_tick", "IPY_MODEL_out"]}},
        "slider": {"model_name": "FloatSliderModel", "state": {
            "_model_name": "FloatSliderModel", "description": "delta", "value": 0.125,
            "min": 0.01, "max": 0.5, "step": 0.005}},
        "menu": {"model_name": "DropdownModel", "state": {
            "_model_name": "DropdownModel", "description": "prior",
            "_options_labels": ["normal", "uniform"], "index": 1}},
        "tick": {"model_name": "CheckboxModel", "state": {
            "_model_name": "CheckboxModel", "description": "q = 1 - p", "value": True}},
        "out": {"model_name": "OutputModel", "state": {
            "_model_name": "OutputModel", "outputs": [
                {"output_type": "display_data", "metadata": {},
                 "data": {"text/plain": "<Figure>", "image/png": PNG}},
                {"output_type": "stream", "name": "stdout", "text": "epsilon = 0.5390 <ok>\n"}]}},
    }
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": state, "version_major": 2, "version_minor": 0}}
    return nb


def test_snapshot_shows_controls_values_and_outputs():
    nb = _widget_notebook()
    snap = publish.snapshot_widgets(nb)
    assert "widgets" in nb.metadata  # the input is left alone
    assert "widgets" not in snap.metadata
    data = snap.cells[1].outputs[0]["data"]
    assert set(data) == {"text/html", "text/plain"}
    html = data["text/html"]
    assert "delta" in html and "value='0.125'" in html and "<code>0.125</code>" in html
    assert "<code>uniform</code>" in html  # index 1 of the dropdown
    assert "checked" in html
    assert f"data:image/png;base64,{PNG}" in html
    assert "epsilon = 0.5390 &lt;ok&gt;" in html  # streams are escaped


def test_notebook_html_loads_nothing_remote():
    html = publish.notebook_to_html(_widget_notebook())
    assert publish.remote_references(html) == []
    assert 'src="mathjax/tex-chtml.js"' in html
    assert "require.js" not in html and "embed-amd" not in html
    assert "garesearch-widget-snapshot" in html
    assert nbformat.validate(publish.snapshot_widgets(_widget_notebook())) is None


def test_copy_mathjax_is_complete_and_idempotent(tmp_path):
    dest = publish.copy_mathjax(tmp_path / "mj")
    assert (dest / "tex-chtml.js").is_file()
    fonts = list((dest / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert len(fonts) > 20  # the TeX fonts of the CommonHTML output
    assert (dest / "input" / "tex" / "extensions" / "boldsymbol.js").is_file()
    assert not (dest / "tex-svg-full.js").exists()  # other bundles are not copied
    stamp = (dest / ".version").stat().st_mtime_ns
    publish.copy_mathjax(dest)
    assert (dest / ".version").stat().st_mtime_ns == stamp
