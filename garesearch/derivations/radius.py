"""Deprecated: this module moved to :mod:`garesearch.radius` (the numerical side of App. A
belongs to the library; the derivations import it from there).  Every public name is still
found here, with a :class:`DeprecationWarning`."""

import importlib
import warnings

_NEW = "garesearch.radius"


def __getattr__(name: str):
    new = importlib.import_module(_NEW)
    if name not in new.__all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"garesearch.derivations.radius moved to {_NEW}; import {name} from there",
                  DeprecationWarning, stacklevel=2)
    return getattr(new, name)

