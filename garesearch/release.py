r"""Calibrated releases: a garesearch epsilon, a query's sensitivity, and real noise.

Given the epsilon that garesearch computed (per unit of the attribute's distance) and the
sensitivity of the query (its largest change per unit of that distance), the Laplace
mechanism adds noise of scale :math:`\xi = \Delta/\epsilon` (Sec. 6: ``1/0.539 = 1.86`` for the
cats COUNT).  :func:`laplace_release` draws that noise with numpy (``backend="numpy"``,
seedable) or with OpenDP's Laplace measurement (``backend="opendp"``: the optional extra
``pip install garesearch[opendp]``; OpenDP draws from its own secure generator, so
``seed`` is ignored there), and reports the ``confidence`` error interval from
:func:`garesearch.noise.noise_bound`.

Two example tables (synthetic, fixed seed) follow the paper's Sec. 6: a ``cat`` table
(gender uniform, colours ``{red 0.2, white 0.1, tabby 0.25, black 0.4, tortoise 0.05}``) for
``COUNT(*) WHERE gender='F' AND color='tabby'`` (sensitivity 1), and an ``employee`` table with
salaries :math:`N(2000, 235.7^2)` for ``SUM(salary)`` (sensitivity 1 per currency unit, since
epsilon is per unit of salary).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import noise as _noise
from .errors import ParameterError

__all__ = [
    "CAT_COLOURS",
    "Release",
    "count_female_tabby",
    "laplace_noise",
    "laplace_release",
    "opendp_available",
    "salary_sum",
    "synthetic_cats",
    "synthetic_salaries",
]

CAT_COLOURS = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
_BACKENDS = ("numpy", "opendp")


@dataclass(frozen=True)
class Release:
    """A noisy answer and what it means (Sec. 6.1 and 6.2; the error interval of App. A.1).

    Attributes
    ----------
    value : float
        The released (noisy) answer.
    true_value : float
        The exact answer (kept for evaluation; never publish it).
    epsilon, sensitivity, scale : float
        The mechanism: Laplace noise of scale ``sensitivity / epsilon``.
    confidence : float
        Probability of the error interval.
    error_bound : float
        The noise stays within this with probability ``confidence`` (App. A.1).
    interval : tuple
        ``(value - error_bound, value + error_bound)``: covers ``true_value`` with
        probability ``confidence``.
    backend : str
        ``"numpy"`` or ``"opendp"``.
    """

    value: float
    true_value: float
    epsilon: float
    sensitivity: float
    scale: float
    confidence: float
    error_bound: float
    interval: tuple
    backend: str


def opendp_available() -> bool:
    """True if the optional OpenDP package can be imported.

    Not in the paper: a check for the OpenDP library (opendp.org), the optional backend of
    :func:`laplace_release`.

    Returns
    -------
    bool
    """
    try:
        import opendp.prelude  # noqa: F401
    except ImportError:
        return False
    return True


def _opendp_measurement(scale: float, vector: bool):
    try:
        import opendp.prelude as dp
    except ImportError:
        raise ParameterError(
            "backend='opendp' needs the optional OpenDP package: pip install 'garesearch[opendp]'"
        ) from None
    dp.enable_features("contrib")
    try:  # OpenDP >= 0.11 needs non-NaN floats for the absolute/L1 distance
        atom = dp.atom_domain(T=float, nan=False)
    except TypeError:  # OpenDP 0.10 has no ``nan`` argument (and allows the default domain)
        atom = dp.atom_domain(T=float)
    if vector:
        space = dp.vector_domain(atom), dp.l1_distance(T=float)
    else:
        space = atom, dp.absolute_distance(T=float)
    return dp.m.make_laplace(*space, scale=scale)


def _check_backend(backend):
    if backend not in _BACKENDS:
        raise ParameterError(f"backend must be one of {_BACKENDS}; got {backend!r}")


def laplace_noise(size: int, *, scale: float, backend: str = "numpy", seed=None) -> np.ndarray:
    """``size`` independent Laplace(``scale``) draws (Sec. 6.1, the Laplace mechanism).

    The noise of the Laplace mechanism that Sec. 6.1 uses (after Dwork 2006, the paper's
    [Dwork06]).  With OpenDP (not in the paper): OpenDP's Laplace measurement on a vector of
    zeros (one call).

    Parameters
    ----------
    size : int
        Number of draws.
    scale : float
        Laplace scale, > 0.
    backend : {"numpy", "opendp"}
        Where the draws come from.
    seed : int or numpy.random.Generator, optional
        For the numpy backend (OpenDP uses its own secure generator).

    Returns
    -------
    ndarray
        ``size`` draws.
    """
    _check_backend(backend)
    if not (np.isfinite(scale) and scale > 0):
        raise ParameterError(f"scale must lie in (0, inf); got {scale}")
    if backend == "numpy":
        return _noise.sample_noise(size, noise="laplace", scale=scale, rng=seed)
    meas = _opendp_measurement(float(scale), vector=True)
    return np.asarray(meas([0.0] * int(size)), dtype=float)


def laplace_release(
    true_value: float, *, epsilon: float, sensitivity: float = 1.0, confidence: float = 0.95,
    backend: str = "numpy", seed=None,
) -> Release:
    r"""Release ``true_value`` with Laplace noise of scale :math:`\Delta/\epsilon` (Sec. 6.1, 6.2).

    Sec. 6.1 and 6.2 add Laplace noise of scale :math:`1/\epsilon` to a query of sensitivity 1
    (``1/0.539 = 1.86`` for the cats); the error interval is App. A.1's bound
    (:func:`garesearch.noise.noise_bound`).

    Parameters
    ----------
    true_value : float
        The exact answer of the query.
    epsilon : float
        Epsilon per unit of distance (e.g. from :func:`garesearch.epsilon_for_attribute`), > 0.
    sensitivity : float
        Largest change of the query per unit of distance, > 0.
    confidence : float
        Probability of the reported error interval, in (0, 1).
    backend : {"numpy", "opendp"}
        Where the noise comes from (OpenDP: optional, not in the paper).
    seed : int or numpy.random.Generator, optional
        For the numpy backend.

    Returns
    -------
    Release

    Notes
    -----
    With OpenDP the measurement's own privacy map is checked: ``map(sensitivity)`` must
    not exceed ``epsilon`` (up to OpenDP's conservative rounding, relative ``1e-9``).
    """
    _check_backend(backend)
    scale = _noise.laplace_scale(epsilon=epsilon, sensitivity=sensitivity)
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must lie in (0, 1); got {confidence}")
    bound = _noise.noise_bound(confidence, noise="laplace", scale=scale)
    if backend == "numpy":
        value = float(true_value) + float(laplace_noise(1, scale=scale, seed=seed)[0])
    else:
        meas = _opendp_measurement(float(scale), vector=False)
        used = meas.map(float(sensitivity))
        if used > epsilon * (1 + 1e-9):
            raise ParameterError(f"OpenDP reports epsilon {used} > requested {epsilon}")
        value = float(meas(float(true_value)))
    return Release(
        value=value, true_value=float(true_value), epsilon=float(epsilon),
        sensitivity=float(sensitivity), scale=float(scale), confidence=float(confidence),
        error_bound=float(bound), interval=(value - bound, value + bound), backend=backend,
    )


def synthetic_cats(n: int = 1000, *, seed: int = 0) -> dict[str, np.ndarray]:
    """A synthetic ``cat`` table drawn from the priors of Sec. 6.1 (the cats example).

    Gender uniform, colours :data:`CAT_COLOURS`; the table itself is not in the paper.

    Parameters
    ----------
    n : int
        Number of rows, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    dict of ndarray
        Columns ``gender`` (``"M"``/``"F"``) and ``color``.
    """
    if int(n) < 1:
        raise ParameterError(f"n must be a positive integer; got {n}")
    rng = np.random.default_rng(seed)
    gender = rng.choice(np.array(["M", "F"]), size=n)
    colours = np.array(list(CAT_COLOURS))
    color = rng.choice(colours, size=n, p=np.array(list(CAT_COLOURS.values())))
    return {"gender": gender, "color": color}


def count_female_tabby(table: dict[str, np.ndarray]) -> int:
    """``SELECT COUNT(*) FROM cat WHERE gender='F' AND color='tabby'`` (Sec. 6.1, the cats example).

    Its sensitivity w.r.t. the metric of Sec. 6.1 is 1.

    Parameters
    ----------
    table : dict of ndarray
        A ``cat`` table with columns ``gender`` and ``color`` (:func:`synthetic_cats`).

    Returns
    -------
    int
        The number of female tabby cats.
    """
    return int(np.sum((table["gender"] == "F") & (table["color"] == "tabby")))


def synthetic_salaries(n: int = 1000, *, seed: int = 0, mu: float = 2000.0,
                       sigma: float = 235.7) -> dict[str, np.ndarray]:
    r"""A synthetic ``employee`` table drawn from the prior of Sec. 6.2 (the salary example).

    Salaries from :math:`N(\mu, \sigma^2)`, by default the paper's :math:`N(2000, 235.7^2)`;
    the table itself is not in the paper.

    Parameters
    ----------
    n : int
        Number of rows, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``.
    mu, sigma : float
        Mean and standard deviation of the salaries.

    Returns
    -------
    dict of ndarray
        Column ``salary``.
    """
    if int(n) < 1:
        raise ParameterError(f"n must be a positive integer; got {n}")
    rng = np.random.default_rng(seed)
    return {"salary": rng.normal(mu, sigma, size=n)}


def salary_sum(table: dict[str, np.ndarray]) -> float:
    """``SELECT SUM(salary) FROM employee`` (Sec. 6.2, the salary example).

    Its sensitivity is 1 per currency unit (Sec. 6.2: "each currency unit contributes 1 unit
    to the sum").

    Parameters
    ----------
    table : dict of ndarray
        An ``employee`` table with column ``salary`` (:func:`synthetic_salaries`).

    Returns
    -------
    float
        The total salary.
    """
    return float(np.sum(table["salary"]))
