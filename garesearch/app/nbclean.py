"""Strip a notebook to the form the repository stores (``python -m garesearch.app.nbclean``).

Not in the paper: a development tool.  The notebooks in ``notebooks/`` are stored without
outputs; JupyterLab's autosave writes outputs, execution counts and its own metadata into
them.  :func:`clean` takes them out again, and ``python -m garesearch.app.nbclean`` does so as a
git *clean filter*: it reads a notebook on stdin and writes the stored form on stdout, so that
git sees (and commits) a notebook without its outputs while the file on disk keeps them.
``make`` (its set-up step) installs the filter for the checkout::

    git config filter.nbstrip.clean ".venv/bin/python -m garesearch.app.nbclean"
    git config filter.nbstrip.smudge cat
    git config filter.nbstrip.required true

and ``.gitattributes`` applies it to ``*.ipynb``.

What is kept: every cell's type, id, source and ``tags``; the notebook's ``kernelspec`` and
the name of its language.  What goes: outputs, execution counts, every other cell metadata
entry (``execution`` timings, ``collapsed``, ``scrolled``, ...) and every other notebook
metadata entry (the widget state, ``language_info`` beyond its name, ...).  The result is
written as nbformat writes it (sorted keys, one-space indent, a final newline), so that a
stored notebook passes through unchanged.
"""

from __future__ import annotations

import json
import sys

from ..errors import ParameterError

__all__ = ["clean", "main"]

_KEEP_CELL_METADATA = ("tags",)


def clean(text: str) -> str:
    """The notebook ``text`` (JSON, nbformat 4) without outputs, execution counts and
    editor metadata, as the repository stores it.

    Parameters
    ----------
    text : str
        The notebook file's content.

    Returns
    -------
    str
        The stored form (ends with a newline); cleaning it again changes nothing.

    Raises
    ------
    ParameterError
        If ``text`` is not a notebook in nbformat 4.

    Examples
    --------
    >>> import nbformat
    >>> cell = nbformat.v4.new_code_cell("1 + 1", execution_count=3, id="c1",
    ...     outputs=[nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)])
    >>> nb = nbformat.v4.new_notebook(cells=[cell])
    >>> stored = clean(nbformat.writes(nb))
    >>> out = nbformat.reads(stored, as_version=4).cells[0]
    >>> out.outputs, out.execution_count, out.source, out.id
    ([], None, '1 + 1', 'c1')
    >>> clean(stored) == stored
    True
    """
    try:
        nb = json.loads(text)
    except ValueError as exc:
        raise ParameterError(f"text must be a Jupyter notebook (JSON, nbformat 4): {exc}") from exc
    if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
        got = nb.get("nbformat") if isinstance(nb, dict) else type(nb).__name__
        raise ParameterError(f"text must be a Jupyter notebook in nbformat 4 (with cells); got {got!r}")
    old = nb.get("metadata") or {}
    meta = {}
    if "kernelspec" in old:
        meta["kernelspec"] = old["kernelspec"]
    name = (old.get("language_info") or {}).get("name")
    if name is not None:
        meta["language_info"] = {"name": name}
    nb["metadata"] = meta
    for cell in nb["cells"]:
        if not isinstance(cell, dict):
            raise ParameterError("text must be a Jupyter notebook: a cell is not a JSON object")
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell["metadata"] = {k: v for k, v in (cell.get("metadata") or {}).items()
                            if k in _KEEP_CELL_METADATA}
        if isinstance(cell.get("source"), str):  # as nbformat writes it: a list of lines
            cell["source"] = cell["source"].splitlines(keepends=True)
    # nbformat's layout (nbformat.v4.nbjson), without importing nbformat: a git filter runs
    # on every `git add` and `git status` of a changed notebook
    return json.dumps(nb, indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m garesearch.app.nbclean [FILE ...]``: print the stored form of a notebook.

    With no ``FILE`` it reads stdin (a git clean filter); with files, it rewrites each in
    place.  Exit status 0, or 2 (with one line on stderr) when an input is not a notebook.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status.
    """
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    try:
        if not args:  # bytes in, bytes out: notebooks are UTF-8 whatever the locale
            sys.stdout.buffer.write(clean(sys.stdin.buffer.read().decode("utf-8")).encode("utf-8"))
            sys.stdout.flush()
            return 0
        for name in args:
            path = Path(name)
            text = path.read_text(encoding="utf-8")
            stored = clean(text)
            if stored != text:
                path.write_text(stored, encoding="utf-8")
    except (OSError, UnicodeDecodeError, ParameterError) as exc:
        print(f"garesearch.app.nbclean: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
