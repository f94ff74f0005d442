"""Noise, readings, accounting, calibration and releases: other readings of epsilon (App. B and
beyond the paper), privacy profiles and trade-off curves of composed noise, the tail and
average readings, the reconstruction advantage, calibration to any reading, subsampling,
Kazan and Reiter's risk profile, and noisy answers drawn at a calibrated scale (App. A.1,
Sec. 6.1, 6.2).

Its public modules:

- :mod:`garesearch.releases.accounting`
- :mod:`garesearch.releases.calibration`
- :mod:`garesearch.releases.readings`
- :mod:`garesearch.releases.reconstruction`
- :mod:`garesearch.releases.release`
- :mod:`garesearch.releases.risk_profile`
- :mod:`garesearch.releases.subsampled`
- :mod:`garesearch.releases.tail`

The modules named in ``__all__`` are loaded on first use (``garesearch.releases.<module>``), so
that importing one module of the family loads no other.

Examples
--------
>>> from garesearch import releases
>>> releases.accounting.__name__
'garesearch.releases.accounting'
"""

from __future__ import annotations

from .._optional import lazy_attributes

__all__ = [
    "accounting",
    "calibration",
    "readings",
    "reconstruction",
    "release",
    "risk_profile",
    "subsampled",
    "tail",
]

__getattr__, __dir__ = lazy_attributes(__name__, {name: f".{name}" for name in __all__})
