"""Command line: ``python -m garesearch <command> [options]``.

Commands are provided by the modules that implement them (each exposes ``main(argv)``).
"""

from __future__ import annotations

import importlib
import sys

# command -> (module, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("garesearch.demo", "the paper's cats example through the public API"),
    "reproduce": ("garesearch.reproduce", "reproduce every notebook, figure and the claims report"),
    "notebooks": ("garesearch.publish", "copy the notebooks and PLEAK examples out, to open in JupyterLab"),
    "figures": ("garesearch.figures", "redraw the paper's three figures into figures/"),
    "derivations": ("garesearch.derivations", "every derivation re-derived with sympy: proved or refuted"),
    "claims": ("garesearch.claims", "every claim of the paper, checked, with a verdict"),
    "epsilon": ("garesearch.cli", "epsilon for a prior, a precision r and an advantage bound delta"),
    "calibrate": ("garesearch.cli_calibrate", "noise scale for a target under the worst, tail or average reading"),
    "bench": ("garesearch.bench", "measure speed and accuracy against the targets (--json)"),
}


def _usage() -> str:
    lines = ["usage: python -m garesearch [--version] <command> [options]", "", "commands:"]
    for name, (_, text) in COMMANDS.items():
        lines.append(f"  {name:<12} {text}")
    lines.append("")
    lines.append("Run 'python -m garesearch <command> --help' for a command's options.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
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
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
