r"""The paper's example priors (Sec. 6): the data of its worked examples, defined once.

- cats (Sec. 6.1): gender :data:`GENDERS` (``M`` / ``F``, uniform) and colour
  :data:`COLOURS`, independent;
- salary (Sec. 6.2): :math:`N(2000, 55556)`, ``r = 100``, the paper's ``a = 200``;
- ships (Sec. 6.3): radial :math:`N(0, 1250)` in the plane, ``r = 10``, ``a = 20`` (at the
  paper's ``t = 0`` the distance to ``t`` has the one-dimensional prior used here).

:data:`SALARY` and :data:`SHIPS` hold the numbers the paper states, some of them wrong (the
claims of Sec. 6, :mod:`garesearch.claims`, check each one).  The library's examples, tables
and teaching widgets take their data from here; :mod:`garesearch.paper.examples` gives the
same names beside the computations the paper's claims share.

Examples
--------
>>> round(example_prior("salary").sigma, 2)
235.7
>>> from garesearch.priors import Categorical
>>> Categorical(COLOURS).probability("black"), Categorical(GENDERS).probability("F")
(0.4, 0.5)
"""

from __future__ import annotations

import math

import numpy as np

from .errors import ParameterError
from .priors import Normal

__all__ = [
    "COLOURS",
    "DELTA",
    "EXAMPLES",
    "GENDERS",
    "SALARY",
    "SHIPS",
    "epsilon_against_a",
    "example_R",
    "example_prior",
]

DELTA = 0.1  #: the advantage bound of every example in Sec. 6
#: Sec. 6.1: the prior of a cat's colour
COLOURS = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
#: Sec. 6.1: the prior of a cat's gender
GENDERS = {"M": 0.5, "F": 0.5}

#: Sec. 6.2 as printed: mean, variance (and sigma as the paper rounds it, "sigma ~ 235.7": the
#: prior N(2000, 235.7^2) of README's examples, the releases and the benchmark), precision r,
#: radius a, and the stated p, q = g(a), epsilon per unit, epsilon per 200 units ("rescaled")
#: and Laplace scale
SALARY = {"mu": 2000.0, "variance": 55556.0, "sigma": 235.7, "r": 100.0, "a": 200.0, "delta": DELTA,
          "p": 0.42, "q": 0.6, "eps": 0.0038, "rescaled": 0.767, "scale": 1.3}
#: Sec. 6.3 as printed (``R`` = 3 sqrt2 sigma = 150; "sigma ~ 35.4")
SHIPS = {"mu": 0.0, "variance": 1250.0, "sigma": 35.4, "r": 10.0, "a": 20.0, "delta": DELTA, "R": 150.0,
         "p": 0.22, "q": 0.43, "eps": 0.063, "rescaled": 1.25, "scale": 0.8}
#: the continuous examples by name
EXAMPLES = {"salary": SALARY, "ships": SHIPS}


def _example(name: str) -> dict[str, float]:
    if name not in EXAMPLES:
        raise ParameterError(f"name must be one of {sorted(EXAMPLES)}; got {name!r}")
    return EXAMPLES[name]


def example_prior(name: str) -> Normal:
    """The prior of the salary or ships example (Sec. 6.2, 6.3).

    Parameters
    ----------
    name : {"salary", "ships"}

    Returns
    -------
    Normal
        With the paper's variance (not its rounded sigma).

    Examples
    --------
    >>> round(example_prior("ships").sigma ** 2, 9)
    1250.0
    """
    ex = _example(name)
    return Normal(ex["mu"], math.sqrt(ex["variance"]))


def example_R(name: str) -> float:
    """The paper's ``R``: :math:`3\\sqrt2\\sigma` (1000 for salaries, 150 for ships; Sec. 6.2, 6.3).

    Examples
    --------
    >>> round(example_R("ships"), 9)
    150.0
    """
    return 3 * math.sqrt(2 * _example(name)["variance"])


def epsilon_against_a(name: str, a, *, construction: str = "paper"):
    r"""Eq. (main)'s epsilon (per unit of distance) against the radius ``a`` of the comparison
    set, for the paper's examples at their true value ``t = mu`` (Sec. 6.2, 6.3).

    ``construction="paper"``: :math:`\hat X'_a = \{r < |x - t| \le a\}` with exponent ``a``
    (the paper's); ``"sound"``: the same set with its true largest distance ``a + r`` to
    :math:`X'` in the exponent.  NaN where no epsilon > 0 exists (the comparison set is too
    light).

    Parameters
    ----------
    name : {"salary", "ships"}
    a : float or array_like
        Radii, ``a > r``.
    construction : {"paper", "sound"}

    Returns
    -------
    ndarray

    Examples
    --------
    >>> bool(np.isnan(epsilon_against_a("salary", 200.0)))   # the paper's a: no epsilon
    True
    """
    from . import bound

    ex, prior = _example(name), example_prior(name)
    t = ex["mu"]
    a = np.asarray(a, dtype=float)
    r, delta = ex["r"], ex["delta"]
    p = prior.ball_mass(t, r)
    q = prior.ball_mass(t, a) - p
    dist = a if construction == "paper" else a + r
    return np.asarray(
        bound.epsilon_for_advantage(delta=delta, p=p, q=q, a=dist, infeasible="nan"), dtype=float
    )
