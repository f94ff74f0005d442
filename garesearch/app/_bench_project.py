"""The project-wide measurements of :mod:`garesearch.app.bench`: the symbolic derivations and the
notebooks timed in fresh processes, ``make`` targets, and the machine they ran on.

Imported from :mod:`garesearch.app.bench`, whose docstring lists the measurements and their targets.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import mpmath
import numpy as np


def _root() -> Path:
    """The folder holding the ``garesearch`` package (the project root in a checkout)."""
    return Path(__file__).resolve().parents[2]


def _make(target: str, log=None) -> tuple[float | None, int | None]:
    """Wall time and exit status of ``make <target>`` in the project folder, this interpreter.

    ``(None, None)`` without a Makefile.  A failing command is timed all the same; the last
    lines of its output go to ``log``.
    """
    root = _root()
    if not (root / "Makefile").is_file():
        return None, None
    t0 = time.perf_counter()
    proc = subprocess.run(
        ["make", target, f"PY={sys.executable}", "STAMP="], cwd=root,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    seconds = time.perf_counter() - t0
    if proc.returncode and log is not None:
        tail = "\n".join(proc.stdout.splitlines()[-15:])
        print(f"make {target} failed (exit {proc.returncode}):\n{tail}", file=log, flush=True)
    return seconds, proc.returncode


def derivations_time() -> dict[str, float]:
    """Wall time of every symbolic derivation in a fresh interpreter, imports included.

    Examples
    --------
    >>> derivations_time()["derivations_s"] > 0  # runs every derivation: tens of seconds  # doctest: +SKIP
    True
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_root()), env.get("PYTHONPATH")]))
    code = "from garesearch import derivations as d; d.all_derivations()"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return {"derivations_s": time.perf_counter() - t0}


def _timings_tsv(path: Path) -> dict[str, tuple[float, bool]]:
    """Notebook rows of a ``timings.tsv`` written by ``python -m garesearch reproduce``."""
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        name, seconds, status = line.split("\t")
        if name.endswith(".ipynb"):
            rows[name] = (float(seconds), status == "ok")
    return rows


def notebook_times(folder: str | Path | None = None, *, timings: str | Path | None = None):
    """Execution time of the slowest notebook in ``folder`` (default: ``notebooks/``).

    Each notebook runs top to bottom on a fresh kernel, one after the other; with
    ``timings`` (a ``timings.tsv`` of ``python -m garesearch reproduce``) its notebook rows
    are read instead.  Returns ``notebook_max_s``, ``notebook_slowest``,
    ``notebook_failures`` and ``notebook_count`` (``notebook_max_s`` is ``None`` when
    there is no notebook).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:  # from a timings.tsv of 'reproduce'
    ...     tsv = Path(tmp) / "timings.tsv"
    ...     rows = [("step", "seconds", "status"), ("a.ipynb", "2.5", "ok"), ("b.ipynb", "7.0", "failed")]
    ...     _ = tsv.write_text("".join("%s\\t%s\\t%s\\n" % row for row in rows))
    ...     res = notebook_times(timings=tsv)
    >>> res["notebook_max_s"], res["notebook_slowest"], res["notebook_failures"]
    (7.0, 'b.ipynb', 1)
    """
    if timings is not None:
        rows = _timings_tsv(Path(timings))
        source = str(timings)
    else:
        from .reproduce import execute_notebook, find_notebooks

        folder = Path(folder) if folder is not None else _root() / "notebooks"
        runs = [execute_notebook(path) for path in find_notebooks(folder)] if folder.is_dir() else []
        rows = {run.name: (run.seconds, run.ok) for run in runs}
        source = "executed"
    slowest = max(rows, key=lambda name: rows[name][0]) if rows else None
    return {
        "notebook_max_s": rows[slowest][0] if rows else None,
        "notebook_slowest": slowest,
        "notebook_failures": sum(not ok for _, ok in rows.values()),
        "notebook_count": len(rows),
        "notebook_times_from": source,
    }


def machine() -> dict[str, object]:
    """CPU model, cores, load, Python and library versions of this run.

    Examples
    --------
    >>> sorted(machine())[:3]
    ['cores', 'cpu', 'load_average']
    """
    import scipy

    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "mpmath": mpmath.__version__,
        "platform": platform.platform(),
    }
