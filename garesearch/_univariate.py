"""What the one-attribute constructions share (:mod:`garesearch.attribute`,
:mod:`garesearch.constructions.pointwise`, :mod:`garesearch.optimal`): the checks of their common
arguments and the Laplace scale of a result's epsilon.

It sits below the three modules, so that none of them imports another to reach these.
"""

from __future__ import annotations

import math

import numpy as np

from . import noise
from ._args import check_sides
from .errors import ParameterError
from .priors import Prior

__all__ = ["check_common", "laplace_scale"]


def check_common(prior, r, delta, sides, allowed=("both", "upper")) -> None:
    """Checks shared by the one-attribute entry points (Def. 7's ``r``, ``delta``, ``sides``).

    Parameters
    ----------
    prior : Prior
    r, delta : float
        Finite; ``r >= 0`` and ``0 < delta < 1``.
    sides : str
        One of ``allowed``.
    allowed : tuple of str
        The sides the caller supports.

    Raises
    ------
    ParameterError
        Naming the first argument out of its range.

    Examples
    --------
    >>> from garesearch.priors import Normal
    >>> check_common(Normal(0, 1), 1.0, 0.1, "both")
    >>> check_common(Normal(0, 1), 1.0, 1.5, "both")
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: delta must lie in (0, 1); got 1.5
    """
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    for name, v in (("r", r), ("delta", delta)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise ParameterError(f"{name} must be a finite real number; got {v!r}")
    if not 0 < delta < 1:
        raise ParameterError(f"delta must lie in (0, 1); got {delta}")
    if r < 0:
        raise ParameterError(f"r must be >= 0; got {r}")
    check_sides(sides, allowed)


def laplace_scale(self, sensitivity: float = 1.0) -> float:
    """Scale ``b = sensitivity / epsilon`` of Laplace noise that achieves the result's epsilon
    (:func:`garesearch.noise.laplace_scale`; 0 when no noise is needed). Shared as a method by
    the one-attribute results.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> laplace_scale(SimpleNamespace(epsilon=0.5), 2.0)
    4.0
    >>> laplace_scale(SimpleNamespace(epsilon=math.inf))
    0.0
    """
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, (int, float, np.integer, np.floating)):
        raise ParameterError(f"sensitivity must be a finite number > 0; got {sensitivity!r}")
    if math.isinf(self.epsilon) and math.isfinite(sensitivity) and sensitivity > 0:
        return 0.0
    return float(noise.laplace_scale(epsilon=self.epsilon, sensitivity=sensitivity))
