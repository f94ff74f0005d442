"""The main job: reproduce the paper's results (``python -m garesearch reproduce``).

1. executes every notebook (those shipped with the package, or ``--notebooks DIR``) on a
   fresh kernel (two at a time by default) and writes each, with its outputs, to
   ``<output>/notebooks/`` as HTML that loads nothing from the network (MathJax from a local
   copy in ``<output>/notebooks/mathjax/``, widgets as static snapshots:
   :mod:`garesearch.app.publish`) and as an executed ``.ipynb`` (which ``make docs`` renders);
2. regenerates the paper's figures in ``<output>/figures/`` or ``--figures DIR``
   (:mod:`garesearch.app.figures`);
3. writes the claims report with :func:`garesearch.claims.write_report` (when that module
   is present), the numbers README.md quotes with :func:`garesearch.app.readme_numbers.write`
   and the paper's erratum (``erratum.tex``, ``erratum.md``) with
   :func:`garesearch.app.erratum.write`;
4. prints progress as it goes and a table of timings, also saved as
   ``<output>/timings.tsv``.

Every file is written under ``--output`` (unless ``--figures`` names another folder).  The exit
status is non-zero if any step fails, and the last line says which.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import multiprocessing
import os
import queue
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from .._optional import require, require_jupyter_stack
from ._commands import OneLineParser

__all__ = ["NotebookRun", "execute_notebook", "find_notebooks", "main", "notebook_client", "project_root"]

#: the project's longest notebooks (about 40, 15 and 9 s on one core), started first so that the
#: pool does not end on one of them; the rest follow in name order.  Only the order of the work
#: changes: every notebook runs on its own fresh kernel.
LONG_FIRST = ("16_optimal_epsilon.ipynb", "11_exact_advantage.ipynb", "10_derivations.ipynb")


@dataclass(frozen=True)
class NotebookRun:
    """Outcome of executing one notebook."""

    name: str
    seconds: float
    ok: bool
    error: str = ""
    html: str = ""


def project_root() -> Path:
    """The folder that holds the ``garesearch`` package (the repository root in a checkout).

    Examples
    --------
    >>> (project_root() / "garesearch" / "__init__.py").is_file()
    True
    """
    return Path(__file__).resolve().parents[2]


def find_notebooks(folder: str | Path) -> list[Path]:
    """Every ``*.ipynb`` in ``folder`` (not in sub-folders), sorted by name.

    Examples
    --------
    >>> from garesearch.app.publish import packaged_notebooks
    >>> names = [p.name for p in find_notebooks(packaged_notebooks())]
    >>> names == sorted(names), names[0]
    (True, '01_tour.ipynb')
    """
    return sorted(p for p in Path(folder).glob("*.ipynb") if not p.name.startswith("."))


def _poll_in_slices(channel, step: float = 0.5) -> None:
    """Make ``channel.get_msg(timeout)`` look for a message at least every ``step`` seconds.

    Under load, the asyncio poll of a kernel channel sometimes misses the wake-up of a message
    that has arrived (seen after cells that display ipywidgets, jupyter/nbclient#312): the
    message is then only read when the poll's timeout runs out, so a notebook stalls for the
    whole per-cell timeout between two cells.  Polling in short slices reads it within
    ``step`` seconds; ``queue.Empty`` is still raised when ``timeout`` has passed.
    """
    get = channel.get_msg

    async def get_msg(timeout: float | None = None):
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = step if end is None else min(step, max(end - time.monotonic(), 0.0))
            try:
                return await get(timeout=left)
            except queue.Empty:
                if end is not None and time.monotonic() >= end:
                    raise

    channel.get_msg = get_msg


def notebook_client(nb, *, path: str | Path, timeout: int = 300, kernel_name: str = "python3"):
    """An ``nbclient.NotebookClient`` for the notebook ``nb`` read from ``path``: its kernel
    runs in the notebook's folder, cells may take ``timeout`` seconds each, and the kernel
    channels are polled in short slices (a message whose wake-up was missed is read within
    half a second instead of after the timeout; see the source of ``_poll_in_slices``).

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    >>> client = notebook_client(nb, path="one.ipynb", timeout=120)
    >>> client.timeout, client.kernel_name
    (120, 'python3')
    """
    nbclient = require("nbclient", "reproduce", "executing notebooks")

    class _Client(nbclient.NotebookClient):
        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            _poll_in_slices(kc.shell_channel)
            _poll_in_slices(kc.iopub_channel)
            return kc

    return _Client(
        nb, timeout=timeout, kernel_name=kernel_name,
        resources={"metadata": {"path": str(Path(path).parent.resolve())}},
        extra_arguments=["--IPKernelApp.log_level=ERROR"],  # no kernel start-up chatter
    )


def _kernel_env() -> None:
    """Let the kernels import this very ``garesearch`` (also from an uninstalled checkout)."""
    root = str(project_root())
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in parts:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *parts])
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")


def execute_notebook(
    path: str | Path, html_dir: str | Path | None = None, *, timeout: int = 300,
    kernel_name: str = "python3", retries: int = 1,
) -> NotebookRun:
    """Execute one notebook top to bottom on a fresh kernel (working folder: its own).

    A run that fails without a cell raising (a cell or the kernel start timing out, the kernel
    dying: on a loaded machine a kernel message can get lost) is repeated on a new kernel, up
    to ``retries`` times; a cell that raises is reported at once.

    Parameters
    ----------
    path : path
        The ``.ipynb`` file (it is read, never written).
    html_dir : path, optional
        If given, write the executed notebook there as ``<name>.html``
        (:func:`garesearch.app.publish.notebook_to_html`, with MathJax copied into
        ``<html_dir>/mathjax/``) and as ``<name>.ipynb`` (widgets as static snapshots), also
        when a cell fails (up to the failing cell).
    timeout : int
        Seconds allowed per cell.
    kernel_name : str
        Jupyter kernel to run it on.
    retries : int
        How often a run that timed out or lost its kernel is repeated.

    Returns
    -------
    NotebookRun

    Examples
    --------
    >>> import nbformat, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "one.ipynb"
    ...     cell = nbformat.v4.new_code_cell("import garesearch as ga; ga.epsilon_for_advantage(delta=0.1, p=0.2)")
    ...     nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    ...     run = execute_notebook(path, timeout=120)
    >>> run.name, run.ok
    ('one.ipynb', True)
    """
    require("nbclient", "reproduce", "executing notebooks")
    nbformat = require("nbformat", "reproduce", "executing notebooks")
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    _kernel_env()
    start = time.perf_counter()
    for attempt in range(retries + 1):
        nb = nbformat.read(path, as_version=4)
        error = ""
        try:
            notebook_client(nb, path=path, timeout=timeout, kernel_name=kernel_name).execute()
        except CellExecutionError as exc:  # a cell raised: the notebook is broken
            error = f"{type(exc).__name__}: {exc}"
            break
        except Exception as exc:  # a timeout, a dead kernel: report, don't crash; retry
            error = f"{type(exc).__name__}: {exc}"
            if attempt < retries:
                print(f"[notebooks] {path.name}: {type(exc).__name__}; running it again on a "
                      "new kernel", flush=True)
                continue
        break
    seconds = time.perf_counter() - start
    html = ""
    if html_dir is not None:
        try:
            from . import publish

            html_dir = Path(html_dir)
            publish.copy_mathjax(html_dir / "mathjax")
            out = html_dir / f"{path.stem}.html"
            out.write_text(publish.notebook_to_html(nb), encoding="utf-8")
            nbformat.write(publish.snapshot_widgets(nb), html_dir / f"{path.stem}.ipynb")
            html = str(out)
        except Exception as exc:
            error = error or f"HTML export failed: {type(exc).__name__}: {exc}"
    return NotebookRun(path.name, seconds, not error, error, html)


def _run_figures(folder: Path) -> tuple[bool, str]:
    try:
        from .figures import make_figures

        paths = make_figures(folder)
        return True, f"{len(paths)} files in {folder}/"
    except Exception:
        return False, traceback.format_exc()


def _run_claims(output: Path) -> tuple[bool, str]:
    if importlib.util.find_spec("garesearch.claims") is None:
        return True, "skipped: garesearch.claims is not available"
    try:
        from .. import claims
        from . import erratum, readme_numbers

        results = claims.check_all()
        result = claims.write_report(output, results)
        readme_numbers.write(output, results)
        erratum.write(output, results)
        return True, f"written, with readme_numbers.md, erratum.tex and erratum.md ({result})"
    except Exception:
        return False, traceback.format_exc()


def _say(text: str) -> None:
    print(text, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the whole reproduction; returns 0 if every step succeeded, 1 otherwise.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     try:
    ...         main(["--help"])
    ...     except SystemExit as exc:
    ...         print("exit", exc.code)
    >>> out.getvalue().splitlines()[-1]
    'exit 0'
    """
    parser = OneLineParser(
        prog="python -m garesearch reproduce",
        description="The main job: reproduce the paper's results. Executes every notebook and "
                    "writes it as offline HTML and executed .ipynb, redraws the figures, and writes "
                    "the claims report and a table of timings, all under --output. Needs the "
                    'Jupyter stack: pip install "garesearch[reproduce]".',
    )
    parser.add_argument("--output", default="output", help="folder for HTML copies, report, timings")
    parser.add_argument("--notebooks", default=None,
                        help="folder with the notebooks (default: those shipped with garesearch)")
    parser.add_argument("--figures", default=None,
                        help="folder for the paper's figures (default: <output>/figures)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed in parallel (default 2)")
    parser.add_argument("--timeout", type=int, default=300,
                        help="seconds allowed per notebook cell (default 300); a notebook that "
                             "times out is run once more on a new kernel")
    parser.add_argument("--skip-claims", action="store_true", help="do not write the claims report")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    # Import the heavy modules once, then fork the workers (they inherit them); spawn where
    # fork does not exist.
    require_jupyter_stack("garesearch reproduce", "reproduce")
    for module in ("nbclient", "nbformat", "nbconvert", "ipykernel"):
        require(module, "reproduce", "garesearch reproduce")
    t0 = time.perf_counter()
    output = Path(args.output)
    figures_dir = Path(args.figures) if args.figures is not None else output / "figures"
    html_dir = output / "notebooks"
    html_dir.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    timings: list[tuple[str, float, str]] = []
    notebook_dir = args.notebooks
    if notebook_dir is None:
        from .publish import packaged_notebooks

        try:
            notebook_dir = packaged_notebooks()
        except FileNotFoundError as exc:
            _say(f"[notebooks] {exc}")
            notebook_dir = Path("notebooks")
    notebooks = find_notebooks(notebook_dir)
    notebooks.sort(key=lambda nb: LONG_FIRST.index(nb.name) if nb.name in LONG_FIRST else len(LONG_FIRST))
    if not notebooks:
        _say(f"[notebooks] none found in {notebook_dir}/")
        failures.append("notebooks (none found)")
    else:
        from .publish import copy_mathjax

        copy_mathjax(html_dir / "mathjax")  # once, before the workers start


    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx) as pool:
        futures = {
            pool.submit(execute_notebook, nb, html_dir, timeout=args.timeout): nb
            for nb in notebooks
        }
        _say(f"[notebooks] executing {len(notebooks)} notebooks, {args.jobs} at a time")

        # figures and claims run here while the notebooks run in the workers
        start = time.perf_counter()
        ok, msg = _run_figures(figures_dir)
        timings.append(("figures", time.perf_counter() - start, "ok" if ok else "FAILED"))
        _say(f"[figures] {'ok' if ok else 'FAILED'} ({timings[-1][1]:.1f} s): {msg}")
        if not ok:
            failures.append("figures")
        if args.skip_claims:
            _say("[claims] skipped (--skip-claims)")
        else:
            start = time.perf_counter()
            ok, msg = _run_claims(output)
            timings.append(("claims report", time.perf_counter() - start, "ok" if ok else "FAILED"))
            _say(f"[claims] {'ok' if ok else 'FAILED'} ({timings[-1][1]:.1f} s): {msg}")
            if not ok:
                failures.append("claims report")

        done = 0
        for fut in concurrent.futures.as_completed(futures):
            done += 1
            try:
                run = fut.result()
            except Exception as exc:
                run = NotebookRun(futures[fut].name, 0.0, False, f"{type(exc).__name__}: {exc}")
            status = "ok" if run.ok else "FAILED"
            timings.append((run.name, run.seconds, status))
            _say(f"[notebooks {done}/{len(notebooks)}] {run.name}: {status} ({run.seconds:.1f} s)")
            if not run.ok:
                _say("    " + run.error.strip().replace("\n", "\n    ")[:4000])
                failures.append(run.name)

    total = time.perf_counter() - t0
    timings.append(("total", total, "ok" if not failures else "FAILED"))
    lines = ["step\tseconds\tstatus"] + [f"{n}\t{s:.2f}\t{st}" for n, s, st in timings]
    (output / "timings.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if failures:
        _say(f"[FAILED] {total:.1f} s: {len(failures)} step(s) failed: {', '.join(failures)} "
             f"(details above); the rest is in {output}/")
        return 1
    _say(f"[done] {total:.1f} s: notebooks (HTML, executed .ipynb) in {html_dir}/, figures in "
         f"{figures_dir}/, timings in {output / 'timings.tsv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
