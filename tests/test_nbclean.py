"""The git clean filter for notebooks (garesearch.app.nbclean): a notebook as JupyterLab saves it
(outputs, execution counts, editor metadata) comes out byte-identical to the stored file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from garesearch.app.nbclean import clean, main
from garesearch.errors import ParameterError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def as_saved_by_jupyterlab(path: Path) -> str:
    """The stored notebook after a run and a save: outputs in every code cell, execution
    counts, timings and a collapsed flag in cell metadata, the full language_info and widget
    state in the notebook's metadata."""
    nb = nbformat.read(path, as_version=4)
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        count += 1
        cell.execution_count = count
        cell.outputs = [
            nbformat.v4.new_output("stream", name="stdout", text="secret 42\n"),
            nbformat.v4.new_output("execute_result", {"text/plain": "0.539", "image/png": "iVBORw0KGgo="},
                                   execution_count=count),
        ]
        cell.metadata["execution"] = {"iopub.execute_input": "2024-01-01T00:00:00.000000Z"}
        cell.metadata["collapsed"] = False
    nb.metadata["language_info"] = {
        "codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
        "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3", "version": "3.11.7"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nbformat.writes(nb)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_clean_restores_the_stored_notebook(path):
    stored = path.read_text(encoding="utf-8")
    saved = as_saved_by_jupyterlab(path)
    assert "secret 42" in saved and '"execution_count": 1' in saved
    assert clean(saved) == stored
    assert clean(stored) == stored


def test_clean_keeps_tags_and_ids_and_drops_the_rest():
    cell = nbformat.v4.new_code_cell("x = 1", id="keep-me", execution_count=7)
    cell.metadata.update({"tags": ["slow"], "scrolled": True})
    nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_markdown_cell("# title", id="md")])
    nb.metadata.update({"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                        "toc": {"x": 1}})
    out = nbformat.reads(clean(nbformat.writes(nb)), as_version=4)
    assert [c.id for c in out.cells] == ["keep-me", "md"]
    assert dict(out.cells[0].metadata) == {"tags": ["slow"]}
    assert out.cells[0].execution_count is None and out.cells[1].source == "# title"
    assert set(out.metadata) == {"kernelspec"}


@pytest.mark.parametrize("text", ["", "not json", '{"cells": []}', '{"nbformat": 3, "metadata": {}}'])
def test_clean_rejects_what_is_not_a_notebook(text):
    with pytest.raises(ParameterError, match="notebook"):
        clean(text)


def test_main_reports_a_bad_file_on_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{", encoding="utf-8")
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("garesearch.app.nbclean: ") and err.count("\n") == 1


def test_main_rewrites_files_in_place(tmp_path):
    stored = NOTEBOOKS[0].read_text(encoding="utf-8")
    target = tmp_path / NOTEBOOKS[0].name
    target.write_text(as_saved_by_jupyterlab(NOTEBOOKS[0]), encoding="utf-8")
    assert main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == stored


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def test_the_filter_command_cleans_stdin():
    path = ROOT / "notebooks" / "12_teaching_widgets.ipynb"  # non-ASCII text (δ, ε, X̂)
    run = subprocess.run([sys.executable, "-m", "garesearch.app.nbclean"],
                         input=as_saved_by_jupyterlab(path).encode("utf-8"),
                         capture_output=True, env=_env(), timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout == path.read_bytes()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_stores_what_the_filter_gives(tmp_path):
    """In a scratch repository set up as the Makefile does, `git add` of a notebook saved with
    outputs stages the stored form; the file on disk keeps its outputs."""
    path = ROOT / "notebooks" / "01_tour.ipynb"

    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, env=_env(),
                              timeout=60, check=True).stdout

    git("init", "-q")
    git("config", "filter.nbstrip.clean", f'"{sys.executable}" -m garesearch.app.nbclean')
    git("config", "filter.nbstrip.smudge", "cat")
    git("config", "filter.nbstrip.required", "true")
    shutil.copyfile(ROOT / ".gitattributes", tmp_path / ".gitattributes")
    saved = as_saved_by_jupyterlab(path)
    (tmp_path / path.name).write_text(saved, encoding="utf-8")
    git("add", path.name)
    assert git("show", f":{path.name}") == path.read_bytes()
    assert (tmp_path / path.name).read_text(encoding="utf-8") == saved
