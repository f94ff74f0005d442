"""Optional packages: import them with an install hint instead of a bare ModuleNotFoundError."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from types import ModuleType

__all__ = ["JUPYTER_STACK", "MissingDependencyError", "lazy_attributes", "missing_jupyter_stack",
           "require", "require_jupyter_stack"]

#: What ``garesearch reproduce`` needs to execute the notebooks and write offline HTML: the
#: distributions of the ``reproduce`` extra, each with the module that shows it is installed
#: (``None``: a distribution of data files only, MathJax).
JUPYTER_STACK: dict[str, str | None] = {
    "nbclient": "nbclient",
    "nbformat": "nbformat",
    "nbconvert": "nbconvert",
    "ipykernel": "ipykernel",
    "ipywidgets": "ipywidgets",
    "django-static-mathjax": None,
}


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


def _installed(distribution: str, module: str | None) -> bool:
    if module is None:
        try:
            importlib.metadata.distribution(distribution)
        except importlib.metadata.PackageNotFoundError:
            return False
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module without a spec
        return False


def missing_jupyter_stack(extra: str = "reproduce") -> list[str]:
    """The packages of the Jupyter stack that are not installed (:data:`JUPYTER_STACK`, plus
    ``jupyterlab`` for the ``notebooks`` extra), without importing any of them.

    Parameters
    ----------
    extra : {"reproduce", "notebooks"}
        The extra whose packages are checked.

    Returns
    -------
    list of str
        Distribution names, in the order of :data:`JUPYTER_STACK`; empty when all are there.

    Examples
    --------
    >>> import sys
    >>> saved = sys.modules.get("nbclient")
    >>> sys.modules["nbclient"] = None  # as if it were not installed
    >>> "nbclient" in missing_jupyter_stack()
    True
    >>> if saved is None: del sys.modules["nbclient"]
    ... else: sys.modules["nbclient"] = saved
    """
    wanted = dict(JUPYTER_STACK)
    if extra == "notebooks":
        wanted["jupyterlab"] = "jupyterlab"
    return [dist for dist, module in wanted.items() if not _installed(dist, module)]


def require_jupyter_stack(command: str, extra: str = "reproduce") -> None:
    """Raise :class:`MissingDependencyError` naming the extra to install when a package of the
    Jupyter stack is missing (:func:`missing_jupyter_stack`); the commands that run or open
    notebooks call it before they do any work.

    Parameters
    ----------
    command : str
        The command, for the message (``"garesearch reproduce"``).
    extra : {"reproduce", "notebooks"}
        The extra of ``pyproject.toml`` that installs what the command needs.

    Examples
    --------
    >>> import sys
    >>> saved = sys.modules.get("nbconvert")
    >>> sys.modules["nbconvert"] = None
    >>> try:
    ...     require_jupyter_stack("garesearch reproduce")
    ... except MissingDependencyError as exc:
    ...     print(exc)  # doctest: +ELLIPSIS
    garesearch reproduce needs the Jupyter stack: pip install "garesearch[reproduce]" (missing: ...nbconvert...)
    >>> if saved is None: del sys.modules["nbconvert"]
    ... else: sys.modules["nbconvert"] = saved
    """
    missing = missing_jupyter_stack(extra)
    if missing:
        raise MissingDependencyError(
            f'{command} needs the Jupyter stack: pip install "garesearch[{extra}]" '
            f"(missing: {', '.join(missing)})",
            name=missing[0],
        )


def lazy_attributes(package: str, names: dict[str, str]):
    """PEP 562 ``__getattr__`` and ``__dir__`` for a package whose attributes load on first use.

    ``names`` maps each attribute to the module (relative to ``package``) that holds it; an
    attribute named after that module itself (``{"cli": ".cli"}``) is the module.  A loaded
    attribute is kept in the package's namespace, so each loads once.

    Examples
    --------
    >>> getattr_, dir_ = lazy_attributes("garesearch", {"bound": ".bound"})
    >>> getattr_("bound").__name__
    'garesearch.bound'
    """
    import sys

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(names[name], package)
        value = module if names[name].rsplit(".", 1)[-1] == name else getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__
