"""Command line: ``python -m garesearch <command> [options]``.

Commands are provided by the modules that implement them (each exposes ``main(argv)``).
"""

from __future__ import annotations

import importlib
import sys

from ._optional import MissingDependencyError
from .app._commands import fail, quiet_broken_pipe

# command -> (module, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("garesearch.app.demo", "the paper's cats example through the public API"),
    "reproduce": ("garesearch.app.reproduce", "reproduce every notebook, figure and the claims report"),
    "notebooks": ("garesearch.app.publish", "copy the notebooks and PLEAK examples out, to open in JupyterLab"),
    "figures": ("garesearch.app.figures", "redraw the paper's three figures into figures/"),
    "derivations": ("garesearch.derivations", "every derivation re-derived with sympy: proved or refuted"),
    "claims": ("garesearch.claims", "every claim of the paper, checked, with a verdict"),
    "erratum": ("garesearch.app.erratum", "the paper's erratum (LaTeX and Markdown) from the claims report"),
    "epsilon": ("garesearch.app.cli", "epsilon for a prior, a precision r and an advantage bound delta"),
    "calibrate": ("garesearch.app.cli_calibrate", "noise scale for a target under the worst, tail or average reading"),
    "bench": ("garesearch.app.bench", "measure speed and accuracy against the targets (--json)"),
}


def _usage() -> str:
    lines = ["usage: python -m garesearch [--version] <command> [options]", "", "commands:"]
    for name, (_, text) in COMMANDS.items():
        lines.append(f"  {name:<12} {text}")
    lines.append("")
    lines.append("Run 'python -m garesearch <command> --help' for a command's options.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run a command; returns its exit status (0 done, 1 infeasible, 2 malformed input or a
    missing optional package, 3 internal error, 141 output cut short by a closed pipe).

    Examples
    --------
    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     status = main(["demo"])
    >>> status, "(paper: 0.539)" in out.getvalue()
    (0, True)
    """
    try:
        try:
            status = _dispatch(list(sys.argv[1:] if argv is None else argv))
        except SystemExit as exc:  # argparse's --help and usage errors
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        sys.stdout.flush()
        return status
    except BrokenPipeError:  # ... | head: the reader has what it wanted
        return quiet_broken_pipe()


def _dispatch(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if argv[0] in ("-V", "--version"):
        from . import __version__

        print(f"garesearch {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"garesearch: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    from .errors import InfeasibleError, ParameterError

    prog = f"garesearch {name}"
    try:
        module = importlib.import_module(COMMANDS[name][0])
        return int(module.main(rest) or 0)
    except BrokenPipeError:
        raise
    except InfeasibleError as exc:
        return fail(1, "infeasible", str(exc), prog=prog)
    except (ParameterError, OSError, MissingDependencyError) as exc:
        message = str(exc)  # "garesearch reproduce needs ...": the prefix already names it
        return fail(2, "error", message.removeprefix(f"{prog} "), prog=prog)
    except RecursionError:
        return fail(2, "error", "the input nests too deeply to be read", prog=prog)
    except Exception as exc:  # a bug: one line, and an exit status of its own
        return fail(3, "internal error", f"{type(exc).__name__}: {exc} (a bug in garesearch; "
                    "please report it with the command line)", prog=prog)


if __name__ == "__main__":
    sys.exit(main())
