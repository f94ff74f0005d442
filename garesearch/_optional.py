"""Optional packages: import them with an install hint instead of a bare ModuleNotFoundError."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["MissingDependencyError", "require"]


class MissingDependencyError(ModuleNotFoundError):
    """An optional package is not installed; the message says which extra installs it."""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` with the command that installs
    it: ``pip install 'garesearch[extra]'`` (the extras of ``pyproject.toml``).

    Parameters
    ----------
    module : str
        Module to import, e.g. ``"ipywidgets"``.
    extra : str
        The optional extra of garesearch that provides it, e.g. ``"notebooks"``.
    purpose : str
        What needs it, for the message (``"the teaching widgets"``).

    Returns
    -------
    module

    Examples
    --------
    >>> require("math", "notebooks", "a test").sqrt(4.0)
    2.0
    >>> require("no_such_module_x", "notebooks", "the widgets")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    garesearch._optional.MissingDependencyError: ...pip install 'garesearch[notebooks]'...
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingDependencyError(
            f"{purpose} needs the optional package {top}, which is not installed: "
            f"pip install 'garesearch[{extra}]' (or pip install {top})",
            name=top,
        ) from exc
