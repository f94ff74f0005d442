"""Write the intersphinx inventories bundled in this folder, so that ``make docs`` links to
Python, numpy, scipy, OpenDP and dp_accounting without a network.

The projects' own ``objects.inv`` files (docs.python.org, numpy.org, docs.scipy.org,
docs.opendp.org) could not be downloaded where these were made, so each inventory is
generated from the installed package: its public names, found by introspection, point to
the page the project's documentation gives each of them (the URL patterns below).
dp_accounting publishes no Sphinx site; its names point to their source files in Google's
repository.  Where a project's real ``objects.inv`` can be fetched, it can replace the file
here as it is (``conf.py`` reads whatever is in this folder).

Run from the repository root with the docs environment and ``sphobjinv`` installed
(``pip install sphobjinv``)::

    python docs/_inventories/make_inventories.py
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import sys
from pathlib import Path

import sphobjinv as soi

HERE = Path(__file__).resolve().parent

#: the base URL of each project's documentation, as ``conf.py``'s ``intersphinx_mapping``
URLS = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "opendp": "https://docs.opendp.org/en/stable/",
    "dp_accounting": "https://github.com/google/differential-privacy/blob/main/python/dp_accounting/",
}

_PYTHON_MODULES = ("math", "fractions", "decimal", "json", "pathlib", "dataclasses", "typing",
                   "functools", "itertools", "warnings", "collections.abc", "random")
_SCIPY_MODULES = ("scipy.stats", "scipy.special", "scipy.optimize", "scipy.integrate",
                  "scipy.linalg")
_OPENDP_MODULES = ("opendp.measurements", "opendp.transformations", "opendp.combinators",
                   "opendp.domains", "opendp.metrics", "opendp.measures", "opendp.mod",
                   "opendp.accuracy", "opendp.prelude")
_DP_ACCOUNTING_MODULES = ("dp_accounting", "dp_accounting.dp_event",
                          "dp_accounting.mechanism_calibration", "dp_accounting.pld",
                          "dp_accounting.pld.pld_privacy_accountant",
                          "dp_accounting.pld.privacy_loss_distribution", "dp_accounting.rdp",
                          "dp_accounting.rdp.rdp_privacy_accountant")


def _public(module) -> list[tuple[str, object]]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    found = []
    for name in sorted(set(names)):
        try:
            obj = getattr(module, name)
        except AttributeError:
            continue
        if inspect.ismodule(obj):
            continue
        found.append((name, obj))
    return found


def _role(obj) -> str:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "data"


def _inventory(project: str, version: str, entries: list[tuple[str, str, str, str]]) -> soi.Inventory:
    inv = soi.Inventory()
    inv.project, inv.version = project, version
    seen = set()
    for name, role, uri, dispname in entries:
        if (name, role) in seen:
            continue
        seen.add((name, role))
        inv.objects.append(soi.DataObjStr(name=name, domain="py" if role != "label" else "std",
                                          role=role, priority="1", uri=uri, dispname=dispname))
    return inv


def python_entries() -> list[tuple[str, str, str, str]]:
    entries = [("bltin-boolean-values", "label", "library/stdtypes.html#$", "Boolean Values"),
               ("None", "data", "library/constants.html#$", "-"),
               ("True", "data", "library/constants.html#$", "-"),
               ("False", "data", "library/constants.html#$", "-")]
    for name, obj in _public(builtins):
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            entries.append((name, "exception", "library/exceptions.html#$", "-"))
        elif inspect.isclass(obj) or inspect.isbuiltin(obj) or callable(obj):
            entries.append((name, "class" if inspect.isclass(obj) else "function",
                            "library/functions.html#$", "-"))
    for modname in _PYTHON_MODULES:
        module = importlib.import_module(modname)
        page = f"library/{modname}.html"
        entries.append((modname, "module", f"{page}#module-$", "-"))
        for name, obj in _public(module):
            entries.append((f"{modname}.{name}", _role(obj), f"{page}#$", "-"))
    return entries


def numpy_entries() -> list[tuple[str, str, str, str]]:
    import numpy as np

    entries = [("numpy", "module", "reference/index.html#module-$", "-")]
    for name, obj in _public(np):
        if name[0].isupper() and not inspect.isclass(obj):
            continue  # constants such as numpy.PINF are not documented one per page
        entries.append((f"numpy.{name}", _role(obj),
                        f"reference/generated/numpy.{name}.html#$", "-"))
    for name, obj in _public(np.random):
        entries.append((f"numpy.random.{name}", _role(obj),
                        f"reference/random/generated/numpy.random.{name}.html#$", "-"))
    return entries


def scipy_entries() -> list[tuple[str, str, str, str]]:
    entries = []
    for modname in _SCIPY_MODULES:
        module = importlib.import_module(modname)
        short = modname.split(".", 1)[1]
        entries.append((modname, "module", f"reference/{short}.html#module-$", "-"))
        for name, obj in _public(module):
            entries.append((f"{modname}.{name}", _role(obj),
                            f"reference/generated/{modname}.{name}.html#$", "-"))
    return entries


def opendp_entries() -> list[tuple[str, str, str, str]]:
    entries = []
    for modname in _OPENDP_MODULES:
        module = importlib.import_module(modname)
        page = f"api/python/{modname}.html"
        entries.append((modname, "module", f"{page}#module-$", "-"))
        for name, obj in _public(module):
            if getattr(obj, "__module__", modname) != modname:
                continue  # documented on the page of the module that defines it
            entries.append((f"{modname}.{name}", _role(obj), f"{page}#$", "-"))
    return entries


def dp_accounting_entries() -> list[tuple[str, str, str, str]]:
    import dp_accounting

    root = Path(dp_accounting.__file__).resolve().parent.parent
    entries = []
    for modname in _DP_ACCOUNTING_MODULES:
        module = importlib.import_module(modname)
        source = Path(inspect.getsourcefile(module)).resolve().relative_to(root).as_posix()
        entries.append((modname, "module", f"{source}", "-"))
        for name, obj in _public(module):
            if not str(getattr(obj, "__module__", "")).startswith("dp_accounting"):
                continue  # typing helpers and other imports
            try:
                where = inspect.getsourcefile(obj)
            except TypeError:
                where = None
            path = Path(where).resolve().relative_to(root).as_posix() if where else source
            entries.append((f"{modname}.{name}", _role(obj), path, "-"))
    return entries


def main() -> int:
    from importlib.metadata import version

    made = {
        "python": ("Python", f"{sys.version_info[0]}.{sys.version_info[1]}", python_entries()),
        "numpy": ("NumPy", version("numpy"), numpy_entries()),
        "scipy": ("SciPy", version("scipy"), scipy_entries()),
        "opendp": ("OpenDP", version("opendp"), opendp_entries()),
        "dp_accounting": ("dp_accounting", version("dp-accounting"), dp_accounting_entries()),
    }
    for key, (project, ver, entries) in made.items():
        inv = _inventory(project, ver, entries)
        target = HERE / f"{key}.inv"
        soi.writebytes(target, soi.compress(inv.data_file(contract=True)))
        print(f"{target.name}: {len(inv.objects)} objects ({project} {ver})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
