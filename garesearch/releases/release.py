r"""Calibrated releases: a garesearch epsilon, a query's sensitivity, and real noise.

Given the epsilon that garesearch computed (per unit of the attribute's distance) and the
sensitivity of the query (its largest change per unit of that distance), the Laplace
mechanism adds noise of scale :math:`\xi = \Delta/\epsilon` (Sec. 6: ``1/0.539 = 1.86`` for the
cats COUNT).  :func:`laplace_release` draws that noise with OpenDP's Laplace measurement
when OpenDP is installed (the optional extra ``pip install 'garesearch[opendp]'``; OpenDP
samples from its own secure generator without floating-point leaks), and otherwise, or when
a ``seed`` is given, with numpy.  numpy's floating-point Laplace sampler is open to the
attack of I. Mironov, "On significance of the least significant bits for differential
privacy", CCS 2012: its outputs reveal more than epsilon allows.  Every release drawn with
numpy says so with an :class:`InsecureNoiseWarning` and in its ``backend`` field; use it to
teach and to test, not to publish.  The release reports the ``confidence`` error interval
from :func:`garesearch.noise.noise_bound`.

A :class:`Release` never holds the exact answer: printing, logging or serialising one
cannot leak it.

:func:`gaussian_release` is the Gaussian counterpart (beyond the paper): noise
:math:`\mathcal N(0, (s\Delta)^2)` for a noise scale ``s`` per unit of the attribute's distance,
as :func:`garesearch.calibrate` returns it for ``"gaussian"`` (or its integer variant, the
discrete Gaussian of ``"discrete_gaussian"``), or for a :math:`\rho`-zCDP budget,
:math:`s = 1/\sqrt{2\rho}`.  OpenDP's Gaussian measurement draws it (``make_gaussian`` on a
float or an integer domain, exact samplers); numpy's floating-point samplers are the fallback,
with the same :class:`InsecureNoiseWarning`.  A :class:`GaussianRelease` does not keep the exact
answer either.

Two example tables (synthetic, fixed seed) follow the paper's Sec. 6: a ``cat`` table
(gender uniform, colours ``{red 0.2, white 0.1, tabby 0.25, black 0.4, tortoise 0.05}``) for
``COUNT(*) WHERE gender='F' AND color='tabby'`` (sensitivity 1), and an ``employee`` table with
salaries :math:`N(2000, 235.7^2)` for ``SUM(salary)`` (sensitivity 1 per currency unit, since
epsilon is per unit of salary).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .. import noise as _noise
from .._evaluate import as_float_array, scalar_values
from .._plain import PlainFields
from ..datasets import COLOURS, GENDERS, SALARY
from ..errors import ParameterError
from ._release_accuracy import (
    NoiseAccuracy,
    _discrete_gaussian_bound,
    expected_abs_error,
    noise_accuracy,
)
from ._release_opendp import (
    _MAX_DRAWS,
    _backend,
    _opendp_gaussian,
    _opendp_measurement,
    _why_numpy,
    gaussian_noise,
    laplace_noise,
    opendp_available,
)

__all__ = [
    "CAT_COLOURS",
    "GaussianRelease",
    "InsecureNoiseWarning",
    "NoiseAccuracy",
    "Release",
    "count_female_tabby",
    "expected_abs_error",
    "gaussian_noise",
    "gaussian_release",
    "laplace_noise",
    "laplace_release",
    "noise_accuracy",
    "opendp_available",
    "salary_sum",
    "synthetic_cats",
    "synthetic_salaries",
]

CAT_COLOURS = COLOURS  #: the colour prior of Sec. 6.1 (:data:`garesearch.datasets.COLOURS`)
_NUMPY_NOTE = (
    "numpy's floating-point Laplace sampler is open to the attack of Mironov (CCS 2012): "
    "its output can reveal the exact answer; use it to teach and to test, not to publish. "
)
_NUMPY_NOTE_GAUSSIAN = (
    "numpy's floating-point Gaussian sampler is open to attacks of the kind Mironov showed for "
    "Laplace noise (CCS 2012; for Gaussian samplers, Jin et al., IEEE S&P 2022): its output can reveal "
    "the exact answer; use it to teach and to test, not to publish. "
)
_NUMPY_LABEL = "numpy (floating-point sampler, not for publication: Mironov 2012)"


class InsecureNoiseWarning(UserWarning):
    """A release drew its noise with numpy's floating-point sampler (Mironov, CCS 2012)."""


@dataclass(frozen=True)
class Release(PlainFields):
    """A noisy answer and what it means (Sec. 6.1 and 6.2; the error interval of App. A.1).

    The exact answer is deliberately not kept: a release can be printed, logged and
    serialised without leaking it.

    Attributes
    ----------
    value : float
        The released (noisy) answer.
    epsilon, sensitivity, scale : float
        The mechanism: Laplace noise of scale ``sensitivity / epsilon``.
    confidence : float
        Probability of the error interval.
    error_bound : float
        The noise stays within this with probability ``confidence`` (App. A.1).
    interval : tuple
        ``(value - error_bound, value + error_bound)``: covers the exact answer with
        probability ``confidence``.
    backend : str
        ``"opendp"`` (OpenDP's Laplace measurement) or ``"numpy (floating-point sampler,
        not for publication: Mironov 2012)"``.
    expected_error : float
        The mean absolute error of the release, :math:`E|Z|` = ``scale`` (the price of the
        privacy, beside the risk; :meth:`accuracy` gives the bound at any level).
    """

    value: float
    epsilon: float
    sensitivity: float
    scale: float
    confidence: float
    error_bound: float
    interval: tuple
    backend: str
    expected_error: float

    def accuracy(self, alpha: float = 0.05) -> NoiseAccuracy:
        """The noise's mean absolute error and the bound it exceeds with probability at most
        ``alpha`` (:func:`noise_accuracy`)."""
        return noise_accuracy("laplace", scale=self.scale, alpha=alpha)


def _result_epsilon(epsilon):
    """The epsilon to release with: ``epsilon`` itself, or the safe epsilon of a result of
    :func:`garesearch.epsilon_for_attribute` / :func:`garesearch.epsilon_for_goal` (its
    ``epsilon``: for the optimum, the certified lower end of its bracket)."""
    if isinstance(epsilon, (int, float, np.integer, np.floating, np.ndarray)) or epsilon is None:
        return epsilon
    from ..attribute import AttributeResult
    from ..constructions.comparison_sets import GoalResult
    from ..constructions.pointwise import PointwiseResult
    from ..optimal.attribute import OptimalResult
    from ..optimal.goals import OptimalGoalResult

    if not isinstance(epsilon, (OptimalResult, OptimalGoalResult, PointwiseResult, AttributeResult, GoalResult)):
        return epsilon  # scalar_values names it as a bad epsilon
    if getattr(epsilon, "construction", None) == "paper":
        raise ParameterError(
            "epsilon: a result of construction='paper' (Eq. (main) as printed) is not sound in "
            "general; release with the default construction (the optimum) or 'sound'"
        )
    value = float(epsilon.epsilon)
    if math.isinf(value):
        raise ParameterError(
            "epsilon: the result needs no noise (epsilon = inf: every epsilon-DP mechanism keeps "
            "the advantage within delta); there is no Laplace scale to release with"
        )
    return value


def laplace_release(
    true_value: float, *, epsilon: float, sensitivity: float = 1.0, confidence: float = 0.95,
    backend: str | None = None, seed=None,
) -> Release:
    r"""Release ``true_value`` with Laplace noise of scale :math:`\Delta/\epsilon` (Sec. 6.1, 6.2).

    Sec. 6.1 and 6.2 add Laplace noise of scale :math:`1/\epsilon` to a query of sensitivity 1
    (``1/0.539 = 1.86`` for the cats); the error interval is App. A.1's bound
    (:func:`garesearch.noise.noise_bound`).  The returned :class:`Release` does not keep
    ``true_value``.

    Parameters
    ----------
    true_value : float
        The exact answer of the query (finite).
    epsilon : float or result
        Epsilon per unit of distance, > 0, or the result of
        :func:`garesearch.epsilon_for_attribute` or :func:`garesearch.epsilon_for_goal`
        (an ``OptimalResult``, ``OptimalGoalResult``, ``PointwiseResult``, or the sound
        comparison set's result): its ``epsilon``, the safe end (for the optimum, the
        certified lower end of its bracket).  A result of ``construction="paper"`` is
        refused (not sound in general), as is one that needs no noise.
    sensitivity : float
        Largest change of the query per unit of distance, > 0.
    confidence : float
        Probability of the reported error interval, in (0, 1).
    backend : {"opendp", "numpy"}, optional
        Where the noise comes from.  Default: OpenDP's Laplace measurement when OpenDP is
        installed and no ``seed`` is given; otherwise numpy, with an
        :class:`InsecureNoiseWarning` (floating-point noise, Mironov 2012: not for
        publication) that says why numpy was used.
    seed : int or numpy.random.Generator, optional
        Reproducible numpy draws.  OpenDP's sampler draws from a cryptographically
        secure generator and cannot be seeded, so a seed selects numpy (by default): for
        teaching and tests, not for releases.

    Returns
    -------
    Release

    Warns
    -----
    InsecureNoiseWarning
        Whenever the noise comes from numpy.

    See Also
    --------
    garesearch.attribute.epsilon_for_attribute : The epsilon to release at.
    garesearch.releases.release.gaussian_release : Gaussian noise.
    garesearch.noise.noise_bound : The error interval (App. A.1).

    Notes
    -----
    With OpenDP the measurement's own privacy map is checked: ``map(sensitivity)`` must
    not exceed ``epsilon`` (up to OpenDP's conservative rounding, relative ``1e-9``).

    Examples
    --------
    >>> import math
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     rel = laplace_release(12, epsilon=0.539, seed=0)  # the cats of Sec. 6.1
    >>> round(rel.scale, 2), abs(rel.error_bound - rel.scale * math.log(20)) < 1e-12  # App. A.1, 95%
    (1.86, True)
    """
    requested, backend = backend, _backend(backend, seed)
    epsilon = _result_epsilon(epsilon)
    v = scalar_values(true_value=true_value, epsilon=epsilon, sensitivity=sensitivity,
                      confidence=confidence)
    scale = _noise.laplace_scale(epsilon=v["epsilon"], sensitivity=v["sensitivity"])
    if not 0 < v["confidence"] < 1:
        raise ParameterError(f"confidence must lie in (0, 1); got {v['confidence']}")
    bound = _noise.noise_bound(v["confidence"], noise="laplace", scale=scale)
    if backend == "numpy":
        warnings.warn(_NUMPY_NOTE + _why_numpy(requested, seed), InsecureNoiseWarning, stacklevel=2)
        value = v["true_value"] + float(laplace_noise(1, scale=scale, backend="numpy", seed=seed)[0])
        label = _NUMPY_LABEL
    else:
        meas = _opendp_measurement(float(scale), vector=False)
        used = meas.map(v["sensitivity"])
        if not used <= v["epsilon"] * (1 + 1e-9):
            raise ParameterError(f"OpenDP reports epsilon {used} > requested {v['epsilon']}")
        value = float(meas(v["true_value"]))
        label = "opendp"
    if not np.isfinite(value):
        raise ParameterError("the noisy value overflows float64: true_value or the scale is too large")
    return Release(
        value=value, epsilon=v["epsilon"], sensitivity=v["sensitivity"], scale=float(scale),
        confidence=v["confidence"], error_bound=float(bound),
        interval=(value - bound, value + bound), backend=label, expected_error=float(scale),
    )


@dataclass(frozen=True)
class GaussianRelease(PlainFields):
    r"""A noisy answer with Gaussian noise and what it means (beyond the paper).

    The exact answer is deliberately not kept: a release can be printed, logged and
    serialised without leaking it.

    Attributes
    ----------
    value : float
        The released (noisy) answer (an integer-valued float for the discrete Gaussian).
    scale : float
        Standard deviation of the noise, :math:`s\Delta`.
    unit_scale : float
        The noise scale ``s`` per unit of the attribute's distance (as from
        :func:`garesearch.calibrate`).
    sensitivity : float
        Largest change of the query per unit of distance.
    rho : float
        The release is :math:`\rho`-zCDP per unit of distance, :math:`\rho = 1/(2s^2)` (the
        discrete Gaussian too: Canonne, Kamath and Steinke, NeurIPS 2020, Thm. 4).
    mu : float or None
        :math:`\mu`-GDP per unit of distance, :math:`\mu = 1/s` (continuous noise only).
    integer : bool
        Discrete Gaussian noise on an integer answer.
    confidence : float
        Probability of the error interval.
    error_bound : float
        The noise stays within this with probability at least ``confidence``.
    interval : tuple
        ``(value - error_bound, value + error_bound)``.
    backend : str
        ``"opendp"`` or ``"numpy (floating-point sampler, not for publication: Mironov 2012)"``.
    expected_error : float
        The mean absolute error of the release, :math:`E|Z|` (:math:`s\Delta\sqrt{2/\pi}`, or the
        exact sum for the discrete Gaussian; :meth:`accuracy` gives the bound at any level).
    """

    value: float
    scale: float
    unit_scale: float
    sensitivity: float
    rho: float
    mu: float | None
    integer: bool
    confidence: float
    error_bound: float
    interval: tuple
    backend: str
    expected_error: float

    def accuracy(self, alpha: float = 0.05) -> NoiseAccuracy:
        """The noise's mean absolute error and the bound it exceeds with probability at most
        ``alpha`` (:func:`noise_accuracy`)."""
        return noise_accuracy("discrete_gaussian" if self.integer else "gaussian", scale=self.scale, alpha=alpha)


def gaussian_release(
    true_value: float, *, scale=None, rho: float | None = None, sensitivity: float = 1.0,
    integer: bool | None = None, confidence: float = 0.95, backend: str | None = None, seed=None,
) -> GaussianRelease:
    r"""Release ``true_value`` with Gaussian noise of standard deviation :math:`s\Delta` (beyond the paper).

    The Gaussian counterpart of :func:`laplace_release` (Sec. 6.1, 6.2 release with Laplace
    noise).  Give the noise scale ``s`` per unit of the attribute's distance, or the result of
    :func:`garesearch.calibrate` for ``"gaussian"`` / ``"discrete_gaussian"`` noise (its
    ``scale``), or a :math:`\rho`-zCDP budget per unit of distance (:math:`s = 1/\sqrt{2\rho}`).
    The returned :class:`GaussianRelease` does not keep ``true_value``.

    Parameters
    ----------
    true_value : float
        The exact answer of the query (finite; an integer for the discrete Gaussian).
    scale : float or CalibrationResult, optional
        ``s`` > 0, or a calibration result; exactly one of ``scale`` and ``rho``.
    rho : float, optional
        zCDP budget per unit of distance, > 0.
    sensitivity : float
        Largest change of the query per unit of distance, > 0 (an integer for the discrete
        Gaussian).
    integer : bool, optional
        Discrete Gaussian noise on an integer answer (OpenDP's ``make_gaussian`` on an integer
        domain).  Default: as the calibration result says, else False.
    confidence : float
        Probability of the reported error interval, in (0, 1).
    backend : {"opendp", "numpy"}, optional
        Default: OpenDP's Gaussian measurement when OpenDP is installed and no ``seed`` is
        given; otherwise numpy, with an :class:`InsecureNoiseWarning` that says why.
    seed : int or numpy.random.Generator, optional
        Reproducible numpy draws (OpenDP's sampler cannot be seeded, so a seed selects numpy
        by default): for teaching and tests, not for releases.

    Returns
    -------
    GaussianRelease

    Warns
    -----
    InsecureNoiseWarning
        Whenever the noise comes from numpy.

    See Also
    --------
    garesearch.releases.calibration.calibrate : The scale for a target under the tail or average reading.
    garesearch.releases.release.laplace_release : Laplace noise (pure epsilon-DP).

    Notes
    -----
    With OpenDP the measurement's own privacy map is checked: ``map(sensitivity)`` must not
    exceed :math:`\rho` (relative ``1e-9``).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", InsecureNoiseWarning)
    ...     rel = gaussian_release(120.0, rho=0.5, seed=1)
    >>> rel.scale, rel.rho, rel.mu
    (1.0, 0.5, 1.0)
    >>> "120.0" in repr(rel)  # the exact answer is not kept
    False
    """
    from .calibration import CalibrationResult

    requested, backend = backend, _backend(backend, seed)
    if (scale is None) == (rho is None):
        raise ParameterError("give exactly one of scale (noise scale per unit of distance) and rho (zCDP budget)")
    if isinstance(scale, CalibrationResult):
        if scale.mechanism not in ("gaussian", "discrete_gaussian"):
            raise ParameterError(f"scale: a calibration for {scale.mechanism!r} noise, not Gaussian noise")
        if integer is None:
            integer = scale.mechanism == "discrete_gaussian"
        scale = scale.scale
    integer = bool(integer) if integer is not None else False
    v = scalar_values(true_value=true_value, sensitivity=sensitivity, confidence=confidence)
    if rho is not None:
        r = scalar_values(rho=rho)["rho"]
        if not 0 < r < math.inf:
            raise ParameterError(f"rho must lie in (0, inf); got {rho!r}")
        unit = 1.0 / math.sqrt(2.0 * r)
    else:
        unit = scalar_values(scale=scale)["scale"]
        if not 0 < unit < math.inf:
            raise ParameterError(f"scale must lie in (0, inf); got {scale!r}")
    if not 0 < v["sensitivity"] < math.inf:
        raise ParameterError(f"sensitivity must lie in (0, inf); got {sensitivity!r}")
    if not 0 < v["confidence"] < 1:
        raise ParameterError(f"confidence must lie in (0, 1); got {v['confidence']}")
    if integer:
        for name in ("true_value", "sensitivity"):
            if v[name] != round(v[name]) or abs(v[name]) >= 2.0**53:
                raise ParameterError(f"{name} must be an integer (below 2^53) for the discrete Gaussian; got {v[name]!r}")
    s = unit * v["sensitivity"]
    if not math.isfinite(s):
        raise ParameterError("the noise scale times the sensitivity overflows float64")
    bound = _discrete_gaussian_bound(v["confidence"], s) if integer else float(
        _noise.noise_bound(v["confidence"], noise="gaussian", scale=s))
    rho_unit = 1.0 / (2.0 * unit * unit)
    if backend == "numpy":
        warnings.warn(_NUMPY_NOTE_GAUSSIAN + _why_numpy(requested, seed), InsecureNoiseWarning, stacklevel=2)
        value = v["true_value"] + float(gaussian_noise(1, scale=s, integer=integer, backend="numpy", seed=seed)[0])
        label = _NUMPY_LABEL
    else:
        meas = _opendp_gaussian(float(s), integer, vector=False)
        d_in = int(v["sensitivity"]) if integer else v["sensitivity"]
        used = meas.map(d_in)
        if not used <= rho_unit * (1 + 1e-9):
            raise ParameterError(f"OpenDP reports rho {used} > requested {rho_unit}")
        value = float(meas(int(v["true_value"]) if integer else v["true_value"]))
        label = "opendp"
    if not np.isfinite(value):
        raise ParameterError("the noisy value overflows float64: true_value or the scale is too large")
    return GaussianRelease(
        value=value, scale=float(s), unit_scale=float(unit), sensitivity=v["sensitivity"], rho=rho_unit,
        mu=None if integer else 1.0 / unit, integer=integer, confidence=v["confidence"], error_bound=bound,
        interval=(value - bound, value + bound), backend=label,
        expected_error=expected_abs_error("discrete_gaussian" if integer else "gaussian", s),
    )


def _rows_rng(n, seed):
    """Check a table size ``n`` and return ``numpy.random.default_rng(seed)``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= _MAX_DRAWS:
        raise ParameterError(f"n must be an integer in [1, {_MAX_DRAWS}]; got {n!r}")
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise ParameterError(f"seed must be an integer >= 0 or a numpy Generator; got {seed!r}") from None


def _column(table, name: str) -> np.ndarray:
    try:
        return np.asarray(table[name])
    except (KeyError, TypeError, IndexError, ValueError):
        raise ParameterError(f"table must be a mapping with a column {name!r} (a 1-d array)") from None


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

    Examples
    --------
    >>> cats = synthetic_cats(20_000, seed=0)
    >>> abs(float((cats["color"] == "black").mean()) - 0.4) < 0.02  # the colour prior of Sec. 6.1
    True
    """
    rng = _rows_rng(n, seed)
    gender = rng.choice(np.array(list(GENDERS)), size=n)  # uniform, as GENDERS says
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

    Examples
    --------
    >>> import numpy as np
    >>> count_female_tabby({"gender": np.array(["F", "M", "F"]), "color": np.array(["tabby", "tabby", "black"])})
    1
    """
    gender, color = _column(table, "gender"), _column(table, "color")
    if gender.shape != color.shape:
        raise ParameterError(f"table: columns gender and color differ in length ({gender.shape}, {color.shape})")
    return int(np.sum((gender == "F") & (color == "tabby")))


def synthetic_salaries(n: int = 1000, *, seed: int = 0, mu: float = SALARY["mu"],
                       sigma: float = SALARY["sigma"]) -> dict[str, np.ndarray]:
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

    Examples
    --------
    >>> table = synthetic_salaries(20_000, seed=0)
    >>> abs(float(table["salary"].mean()) - 2000) < 10  # N(2000, 235.7^2) of Sec. 6.2
    True
    """
    rng = _rows_rng(n, seed)
    v = scalar_values(mu=mu, sigma=sigma)
    if not v["sigma"] > 0:
        raise ParameterError(f"sigma must be > 0; got {sigma!r}")
    return {"salary": rng.normal(v["mu"], v["sigma"], size=n)}


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

    Examples
    --------
    >>> import numpy as np
    >>> salary_sum({"salary": np.array([1000.0, 2500.5])})
    3500.5
    """
    salary = as_float_array("table['salary']", _column(table, "salary"))
    with np.errstate(all="ignore"):
        total = float(np.sum(salary))
    if not np.isfinite(total):
        raise ParameterError("table['salary'] must hold finite numbers whose sum is finite")
    return total
