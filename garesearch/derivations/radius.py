"""Deprecated: this module moved to :mod:`garesearch.radius` (the numerical side of App. A belongs
to the library; the derivations import it from there)."""

import warnings

from ..radius import *  # noqa: F403
from ..radius import __all__  # noqa: F401

warnings.warn(
    "garesearch.derivations.radius moved to garesearch.radius; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
