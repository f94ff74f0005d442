"""Shared behaviour of the ``python -m garesearch`` commands: one-line errors, exit statuses.

Every command exits with 0 when done, 1 when a valid request cannot be met
(:class:`~garesearch.errors.InfeasibleError`), 2 for malformed input (a bad option, value or
file; also a missing optional package) and 3 for an internal error; each failure is one line
on stderr.  Output cut short by a closed pipe (``... | head``) ends quietly with 141, the
status of a process stopped by SIGPIPE.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

__all__ = ["BROKEN_PIPE", "OneLineParser", "fail", "quiet_broken_pipe"]

#: exit status after a closed pipe (128 + SIGPIPE, as a shell reports it)
BROKEN_PIPE = 141


class OneLineParser(argparse.ArgumentParser):
    """:class:`argparse.ArgumentParser` whose usage errors are one line, exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def fail(status: int, kind: str, message: str, as_json: bool = False, prog: str = "garesearch") -> int:
    """Report a failure: ``prog: kind: message`` on stderr and, if ``as_json``, the object
    ``{"error": {"kind", "message", "exit_status"}}`` on stdout; returns ``status``.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     fail(2, "error", "delta must lie in (0, 1)", as_json=True)
    {"error": {"kind": "error", "message": "delta must lie in (0, 1)", "exit_status": 2}}
    2
    >>> err.getvalue().strip()
    'garesearch: error: delta must lie in (0, 1)'
    """
    message = " ".join(str(message).split())
    print(f"{prog}: {kind}: {message}", file=sys.stderr)
    if as_json:
        print(json.dumps({"error": {"kind": kind, "message": message, "exit_status": status}}))
    return status


def quiet_broken_pipe() -> int:
    """After a :class:`BrokenPipeError` on stdout: send the rest of the output to the null
    device (so that the interpreter's final flush stays silent) and return 141.

    Examples
    --------
    >>> quiet_broken_pipe.__name__  # called by a command after BrokenPipeError; it redirects stdout
    'quiet_broken_pipe'
    >>> BROKEN_PIPE  # the exit status it returns, 128 + SIGPIPE
    141
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
        pass
    return BROKEN_PIPE
