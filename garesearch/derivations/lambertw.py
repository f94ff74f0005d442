"""Deprecated: this module moved to :mod:`garesearch.lambertw` (the numerical side of App. A belongs
to the library; the derivations import it from there)."""

import warnings

from ..lambertw import *  # noqa: F403
from ..lambertw import __all__  # noqa: F401

warnings.warn(
    "garesearch.derivations.lambertw moved to garesearch.lambertw; import it from there",
    DeprecationWarning,
    stacklevel=2,
)
