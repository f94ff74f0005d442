r"""Calibrate the noise scale to a target on the attacker's advantage, under one of three readings.

Beyond the paper, which calibrates pure :math:`\epsilon` to its worst-case reading (Def. 7).
:func:`calibrate` returns a noise scale (``b`` for Laplace, :math:`\sigma` for Gaussian, per
unit of the attribute's distance) at which the target is certified, with the mechanism's
standard privacy parameters at that scale and the reading's value there.  It is the smallest
scale the reading's computation can certify: the smallest scale that meets the target where the
reading is computed exactly (closed forms, the exact composition of Laplace releases, the
Laplace mechanism's own worst case), and otherwise the smallest scale at which an upper bound on
the reading meets it (the accountant's pessimistic profile, the bound valid for every
:math:`\epsilon`-DP mechanism), which may lie above the true smallest one.


- ``reading="worst"`` (Def. 7): :math:`\sup_{t,y}|\Pr_{post} - \Pr_{pre}| \le \delta`.  Laplace
  noise (and its integer variant on an integer prior, whose posterior at integer outputs is the
  Laplace posterior; the supremum sits at atoms or in the limits): the Laplace mechanism's own
  exact worst case (:func:`garesearch.exact.exact_epsilon`), ``b = 1/epsilon``.  Composed
  Laplace releases and generalised Cauchy noise: the optimal :math:`\epsilon`, at which no
  :math:`\epsilon`-DP mechanism exceeds ``delta`` (:func:`garesearch.optimal.epsilon_optimal`,
  through :func:`garesearch.attribute.epsilon_for_attribute`), ``k`` releases of scale ``b``
  being :math:`(k c/b)`-DP together (``c = 1`` for Laplace), so each release takes
  :math:`\epsilon/k`.  This is the true smallest scale for a mechanism class that is only known
  to be :math:`\epsilon`-DP, and a safe one for ``k`` Laplace releases (whose own composed worst
  case may allow a little less noise).  Gaussian noise: its exact worst case, which is
  infeasible whenever the posterior's limits on rare outputs (0 or 1) are further than
  ``delta`` from the prior -- an :class:`~garesearch.errors.InfeasibleError` that says so.
- ``reading="tail"``: :math:`\beta = \sup_t \Pr_{y\sim M(t)}[|\Pr_{post} - \Pr_{pre}| > \delta]
  \le` ``beta`` (:func:`garesearch.releases.tail.advantage_tail`).
- ``reading="average"``: the Bayes-optimal attacker's success minus the best blind guess's
  :math:`\le \delta` (:func:`garesearch.releases.reconstruction.reconstruction_advantage`).  ``k``
  Laplace releases of a binary secret are read exactly (one hockey-stick divergence of the exact
  composition, :mod:`garesearch.releases.accounting`), so the scale is the exact one to ``rtol``.
- ``reading="advantage"`` (riskcal's advantage calibration; Kulynych et al., NeurIPS 2024):
  every membership test between the two values of the prior furthest apart (distance ``D``)
  has true-positive minus false-positive rate at most ``delta``: the total variation distance of
  the ``k``-fold output distributions, :math:`\delta_{DP}(0)` of the composed privacy profile.
  Gaussian noise: :math:`2\Phi(\sqrt k D/(2\sigma)) - 1`, so at ``k = 1``
  :math:`\sigma = D/(2\Phi^{-1}((1 + \delta)/2))`; Laplace noise: exact for any ``k``
  (``k = 1``: :math:`1 - e^{-D/(2b)}`).  A prior with unbounded support has no such pair: the
  request is infeasible.
- ``reading="error_rates"`` (riskcal's calibration to attack error rates): no such test has
  false-positive rate :math:`\le` ``alpha`` and false-negative rate below ``beta``, that is the
  trade-off curve :math:`f(\alpha) \ge \beta` (:mod:`garesearch.releases.accounting`; Gaussian:
  :math:`\Phi(\Phi^{-1}(1-\alpha) - \sqrt k D/\sigma) \ge \beta`).  ``delta`` does not
  apply.  Only :math:`\beta < 1 - \alpha` can be met (a test that ignores the output reaches
  :math:`1 - \alpha`).

A list of different releases (a :class:`~garesearch.releases.accounting.Composition`, or a list of
``(noise name, scale)`` pairs) is calibrated by one common factor ``c`` on the listed scales
(``scale`` is ``c``, ``parts`` the releases at ``c``).  All Gaussian: one Gaussian release of
scale :math:`c(\sum_i s_i^{-2})^{-1/2}` (the precision-weighted mean of the outputs is
sufficient), every reading as for it.  Otherwise the readings the composed privacy profile
bounds: ``"average"`` (a binary secret), ``"advantage"`` and ``"error_rates"``, through the
accountant's pessimistic privacy-loss distribution (sound); ``"worst"`` only when every part is
pure :math:`\epsilon`-DP, through the optimum: the releases are
:math:`(k \sum_i \epsilon_i / c)`-DP together, at most the optimal :math:`\epsilon`.

A prior of labels (a :class:`~garesearch.priors.Categorical` with non-numeric keys, under the
discrete metric of Sec. 4.1) has no value to add noise to: there ``reading="worst"`` of pure
:math:`\epsilon`-DP noise goes through the optimal :math:`\epsilon` (valid for every
mechanism whose outputs move by at most one unit between two labels, such as a count), and
``"advantage"`` and ``"error_rates"`` read a test between two labels 1 apart; the other
readings need numeric values (a :class:`~garesearch.errors.ParameterError` says so).

Every result reports the price beside the risk: the mean absolute error of each release
(``expected_error``) and, through :meth:`CalibrationResult.accuracy`, the bound the noise stays
within at a level (:func:`garesearch.releases.release.noise_accuracy`).

Before searching, the reading's limit as the scale goes to 0 (its largest value) is computed
where it can lie below the target: the average reading cannot exceed :math:`1 - \kappa`, and
with Poisson subsampling (probability ``q``, ``k`` steps) the record is never included with
probability :math:`(1-q)^k`, which caps the average reading, the advantage at
:math:`1 - (1-q)^k` and keeps the trade-off curve above
:math:`\min((1-q)^k(1 - \alpha), 1 - \alpha/(1-q)^k)`.  A target that this limit already meets
needs no noise, and :class:`~garesearch.errors.InfeasibleError` says so at once, with the limit.

Every reading moves one way as the scale grows (more noise is a garbling of less: Gaussian and
Laplace noise of a larger scale is the smaller one plus independent noise): the advantages fall,
the false-negative rate of the trade-off curve rises.  So, where a reading has no closed form of
its own, the scale is found by one shared search, in the manner of dp_accounting's
:func:`dp_accounting.calibrate_dp_mechanism`: bracketing and Brent's method in :math:`\ln`
scale, to relative ``rtol``.

Each reading is an object (the :class:`Reading` protocol), registered by name: its target
parameters (``target``), whether it is defined on labels (``on_labels``), and ``plan(task)``,
which refuses what it does not support or need not compute, then returns its answer
(:class:`Found`: a closed form, an optimum) or the search for it (:class:`Search`: its value at
a scale, the target, which way the value moves, where the bracket starts).  :func:`calibrate`
checks the arguments, looks the reading up, and runs its plan.  To add a reading, write such an
object and :func:`register_reading` it (an example in :func:`calibrate`); :func:`reading_names`
lists the names ``reading`` takes, :data:`READINGS` the built-in ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._args import check_sides
from ..additive import ScaledNoise, resolve
from ..errors import ParameterError
from ..priors import Categorical, Prior
from ._calibration_readings import (
    TARGET_PARAMETERS,
    Found,
    Reading,
    Search,
    Task,
    get_reading,
    reading_names,
    readings_taking,
    register_reading,
    run_plan,
    unregister_reading,
)
from .accounting import as_composition

__all__ = ["READINGS", "CalibrationResult", "Found", "Reading", "Search", "Task", "calibrate", "reading_names",
           "register_reading", "unregister_reading"]

#: the built-in readings (:func:`reading_names` adds the registered ones)
READINGS = ("worst", "tail", "average", "advantage", "error_rates")


@dataclass(frozen=True)
class CalibrationResult:
    r"""What :func:`calibrate` found.

    Attributes
    ----------
    scale : float
        Noise scale per release (``b`` for Laplace, :math:`\sigma` for Gaussian), per unit of the
        attribute's distance; multiply by the query's sensitivity.
    value : float
        The reading at ``scale``: the worst-case advantage (or its bound), :math:`\beta`, or the
        average advantage.
    reading, mechanism : str
    delta : float or None
        The target (None for ``reading="error_rates"``).
    beta : float or None
        ``reading="tail"``: the bound on the tail probability; ``"error_rates"``: the
        false-negative rate every test at false-positive rate ``alpha`` must reach.
    releases : int
    r : float
    t : float or None
        The worst true value where the reading has one.
    epsilon : float
        Pure epsilon of all releases together per unit of distance (``inf`` for Gaussian noise).
    mu, rho : float or None
        :math:`\mu`-GDP and :math:`\rho`-zCDP of all releases together (Gaussian noise without
        subsampling).
    method : str
    sampling_prob : float
        Poisson subsampling probability of each release (1: none).
    alpha : float or None
        ``reading="error_rates"``: the false-positive rate.
    parts : tuple
        A list of releases (``mechanism`` a :class:`~garesearch.releases.accounting.Composition`):
        ``(noise name, scale)`` of each release at the calibrated factor, which is ``scale``
        (each listed scale times it); empty for one mechanism.
    expected_error : float or tuple
        The price of the privacy, beside the risk: the mean absolute error :math:`E|Z|` of
        each release per unit of distance (times the query's sensitivity in its units), a
        tuple with one per part for a list of releases (:func:`garesearch.releases.release.expected_abs_error`);
        :meth:`accuracy` gives the bound at a level.
    """

    scale: float
    value: float
    reading: str
    mechanism: str
    delta: float
    beta: float | None
    releases: int
    r: float
    t: float | None
    epsilon: float
    mu: float | None
    rho: float | None
    method: str
    _noise: ScaledNoise = field(repr=False)
    sampling_prob: float = 1.0
    alpha: float | None = None
    parts: tuple = ()
    expected_error: float | tuple | None = None

    def accuracy(self, alpha: float = 0.05, sensitivity: float = 1.0):
        r"""The error each release pays: its mean absolute error and the bound it exceeds with
        probability at most ``alpha`` (:func:`garesearch.releases.release.noise_accuracy`), for a query of
        ``sensitivity`` (> 0) per unit of distance; a tuple, one per part, for a list of releases.

        Examples
        --------
        >>> import math
        >>> from garesearch.priors import Categorical
        >>> res = calibrate(Categorical({0: 0.5, 1: 0.5}), "gaussian", r=0, delta=0.1, reading="advantage")
        >>> acc = res.accuracy(alpha=0.05)
        >>> abs(acc.bound - res.scale * 1.959963984540054) < 1e-9  # sigma Phi^-1(0.975)
        True
        >>> abs(acc.expected_error - res.scale * math.sqrt(2 / math.pi)) < 1e-12
        True
        """
        from ..additive import check_scale
        from .release import noise_accuracy

        sens = check_scale(sensitivity, "sensitivity")
        if self.parts:
            return tuple(noise_accuracy(n, scale=sc * sens, alpha=alpha) for n, sc in self.parts)
        return noise_accuracy(self.mechanism, scale=self.scale * sens, alpha=alpha)

    def privacy_profile(self, distance: float = 1.0):
        """The :class:`~garesearch.releases.accounting.PrivacyProfile` of all releases at this scale."""
        from .accounting import privacy_profile

        return privacy_profile(self._noise, scale=self.scale, distance=distance, releases=self.releases,
                               sampling_prob=self.sampling_prob)

    def dp_epsilon(self, dp_delta: float, distance: float = 1.0) -> float:
        r"""The :math:`\epsilon` of :math:`(\epsilon, \delta_{DP})`-DP of all releases at ``dp_delta``."""
        return self.privacy_profile(distance).dp_epsilon(dp_delta)

    def dp_delta(self, epsilon: float, distance: float = 1.0) -> float:
        r"""The :math:`\delta_{DP}` of :math:`(\epsilon, \delta_{DP})`-DP of all releases at ``epsilon``."""
        return self.privacy_profile(distance).dp_delta(epsilon)


def calibrate(prior: Prior, mechanism, *, r: float, delta: float | None = None, reading: str = "worst",
              beta: float | None = None, releases: int = 1, sides: str = "both",
              rtol: float = 1e-9, sampling_prob: float = 1.0, alpha: float | None = None) -> CalibrationResult:
    r"""The smallest noise scale the reading can certify for a target on the attacker's advantage.

    Beyond the paper (module docstring); ``reading="worst"`` is Def. 7 (Sec. 4.1).  Where the
    reading is computed exactly (closed forms, the exact composition of Laplace releases, the
    Laplace mechanism's own worst case) the scale is the smallest that meets the target, to
    relative ``rtol`` and never below it; where only an upper bound on the reading is available
    (the accountant's pessimistic profile, the optimum over every :math:`\epsilon`-DP mechanism
    for composed or generalised Cauchy releases under ``reading="worst"``) it is the smallest
    scale at which the bound meets the target, at or above the true smallest.

    Parameters
    ----------
    prior : Prior
        The attacker's prior: numeric values, or labels (module docstring: the readings
        defined on labels).
    mechanism : str, mechanism object, Composition or list of (str, float)
        ``"laplace"``, ``"gaussian"``, ``"gencauchy"``, ``"discrete_laplace"``,
        ``"discrete_gaussian"`` or a mechanism object; or different releases
        (:class:`~garesearch.releases.accounting.Composition`), calibrated by a common factor on their
        scales (module docstring).
    r : float
        Precision of a correct guess, >= 0.
    delta : float
        Target on the advantage, in (0, 1): the worst-case bound, the tail reading's
        threshold, the bound on the average advantage, or on a membership test's true-positive
        minus false-positive rate (``reading="advantage"``).  Not used by
        ``reading="error_rates"`` (giving it there is a ParameterError).
    reading : {"worst", "tail", "average", "advantage", "error_rates"}
        Or the name of a reading added with :func:`register_reading` (:func:`reading_names`).
    beta : float, optional
        ``reading="tail"``: the largest acceptable probability :math:`\beta`, in (0, 1).
        ``reading="error_rates"``: the smallest false-negative rate any test may reach at
        false-positive rate ``alpha``, in (0, 1 - alpha) (riskcal's ``beta``).
    releases : int
        Independent releases of the attribute, >= 1 (module docstring for how each reading
        composes them).
    sides : {"both", "upper", "lower"}
        Worst and tail readings: which deviation counts.
    rtol : float
        Relative tolerance of the scale, in [1e-12, 0.01].  With subsampling the accountant's
        (pessimistic) discretisation limits it: the average reading searches at 1e-3 and refines
        the final bracket at 2.5e-4 (within about 1e-7 of the exact scale, above it), the tail
        reading stops at 1e-4.
    sampling_prob : float
        Poisson subsampling probability of each release, in (0, 1] (DP-SGD style: ``releases``
        steps, each including the record with this probability); below 1 for ``"gaussian"``
        noise and a binary secret one of whose values is 0 (:mod:`garesearch.releases.subsampled`):
        the average reading exactly (through the accountant), the tail reading as a bound, the
        worst case infeasible.
    alpha : float, optional
        ``reading="error_rates"`` only: the false-positive rate, in (0, 1) (riskcal's ``alpha``).

    Returns
    -------
    CalibrationResult

    Raises
    ------
    InfeasibleError
        When no scale meets the target (for example ``reading="worst"`` with Gaussian noise), or
        when every scale does (no noise is needed; the message gives the reading's limit).

    See Also
    --------
    garesearch.releases.tail.advantage_tail : The tail reading at a given scale.
    garesearch.releases.reconstruction.reconstruction_advantage : The average reading at a given scale.
    garesearch.attribute.epsilon_for_attribute : The worst-case epsilon (Laplace scale ``1/epsilon``).
    garesearch.releases.release.gaussian_release : A release at the calibrated scale.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> res = calibrate(Categorical({0: 0.8, 1: 0.2}), "gaussian", r=0, delta=0.1, reading="average")
    >>> round(res.scale, 5)  # riskcal: sigma = 0.462471
    0.46247
    >>> adv = calibrate(Categorical({0: 0.5, 1: 0.5}), "gaussian", r=0, delta=0.1, reading="advantage")
    >>> round(adv.scale, 6)  # riskcal: sigma = 3.978948, i.e. 1 / (2 Phi^-1(0.55))
    3.978948
    >>> err = calibrate(Categorical({0: 0.5, 1: 0.5}), "gaussian", r=0, reading="error_rates", alpha=0.05, beta=0.5)
    >>> round(err.scale, 6)  # 1 / Phi^-1(0.95)
    0.607957
    >>> two = calibrate(Categorical({0: 0.5, 1: 0.5}), [("gaussian", 3.0), ("gaussian", 4.0)], r=0, delta=0.1,
    ...                 reading="advantage")
    >>> round(two.scale * 2.4, 6)  # one Gaussian release of scale (1/9 + 1/16)^(-1/2) = 2.4 times the factor
    3.978948

    Adding a reading: an object with ``target``, ``on_labels`` and ``plan`` (:class:`Reading`),
    registered by name.  Here the total variation distance of one Laplace release between two
    values 1 apart, :math:`1 - e^{-1/(2b)}`, which falls as ``b`` grows:

    >>> import math
    >>> class LaplaceTV:
    ...     target = ("delta",)
    ...     def on_labels(self, pure):
    ...         return False
    ...     def plan(self, task):  # refuse here what the reading does not support
    ...         return Search(value=lambda b: -math.expm1(-1 / (2 * b)), target=task.delta, start=1.0,
    ...                       rtol=task.rtol, method="total variation, closed form")
    >>> register_reading("laplace_tv", LaplaceTV())
    >>> tv = calibrate(Categorical({0: 0.5, 1: 0.5}), "laplace", r=0, delta=0.1, reading="laplace_tv")
    >>> round(tv.scale, 6)  # b = -1 / (2 ln(1 - 0.1))
    4.745611
    >>> unregister_reading("laplace_tv")
    """
    spec = get_reading(reading)
    # the target first (delta, alpha; and beta where the reading's target has no delta), then the run
    # arguments, then beta beside delta
    _check_target(reading, spec.target, ("delta", "alpha") if "delta" in spec.target else TARGET_PARAMETERS,
                  delta=delta, alpha=alpha, beta=beta)
    if not (isinstance(releases, (int, np.integer)) and not isinstance(releases, bool) and releases >= 1):
        raise ParameterError(f"releases must be an integer >= 1; got {releases!r}")
    check_sides(sides)
    if not (isinstance(rtol, (int, float)) and 1e-12 <= rtol <= 0.01):
        raise ParameterError(f"rtol must lie in [1e-12, 0.01]; got {rtol!r}")
    if "delta" in spec.target:
        _check_target(reading, spec.target, ("beta",), delta=delta, alpha=alpha, beta=beta)
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    comp = as_composition(mechanism)
    noise = resolve(mechanism) if comp is None else None
    k = int(releases)
    if not (isinstance(sampling_prob, (int, float, np.integer, np.floating)) and 0 < sampling_prob <= 1):
        raise ParameterError(f"sampling_prob must lie in (0, 1]; got {sampling_prob!r}")
    q = float(sampling_prob)
    _check_labels(prior, reading, spec, noise, comp)
    delta, alpha, beta = (None if v is None else float(v) for v in (delta, alpha, beta))
    if comp is not None:
        return _calibrate_composition(prior, comp, float(r), delta, reading, spec, beta, k, sides, rtol, q, alpha)
    if noise.discrete and not (isinstance(prior, Categorical) and prior.metric == "absolute"
                               and np.all(prior.points == np.round(prior.points))):
        raise ParameterError(f"prior: {noise.name} noise needs a Categorical prior on integers")
    found = run_plan(spec.plan(Task(reading, prior, noise, float(r), delta, alpha, beta, k, sides, rtol, q)))
    scale, value, t, method = found.scale, found.value, found.t, found.method
    gauss = noise.name in ("gaussian", "discrete_gaussian") and q == 1
    mu = math.sqrt(k) / scale if gauss else None
    return CalibrationResult(
        scale=float(scale), value=float(value), reading=reading, mechanism=noise.name, delta=delta, beta=beta,
        releases=k, r=float(r), t=None if t is None else float(t),
        epsilon=k * noise.pure_epsilon(scale), mu=mu, rho=None if mu is None else mu * mu / 2,
        method=method, _noise=noise, sampling_prob=q, alpha=alpha, expected_error=_expected_error(noise.name, scale),
    )


def _check_target(reading, target, names, **values) -> None:
    """Each of ``names`` the reading's ``target`` holds lies in (0, 1); each other one is not given."""
    for name in names:
        v = values[name]
        if name in target:
            if not (isinstance(v, (int, float, np.integer, np.floating)) and 0 < v < 1):
                where = "" if name == "delta" else f" for reading={reading!r}"
                raise ParameterError(f"{name} must lie in (0, 1){where}; got {v!r}")
        elif v is not None:
            if name == "delta":
                raise ParameterError(f"delta does not apply to reading={reading!r} (its target is "
                                     f"{' and '.join(target)})")
            raise ParameterError(f"{name} applies only to {readings_taking(name)}")


def _expected_error(name: str, scale: float) -> float:
    from .release import expected_abs_error

    return expected_abs_error(name, float(scale))


def _check_labels(prior, reading, spec, noise, comp) -> None:
    """A prior of labels (the discrete metric, Sec. 4.1) has no numeric value to add noise to: the
    readings defined there (``spec.on_labels``) are the worst case of pure-DP noise (through the
    optimal epsilon) and the tests between two labels (``"advantage"``, ``"error_rates"``: any two
    are 1 apart)."""
    if prior.metric == "absolute":
        return
    pure = all(math.isfinite(resolve(n).pure_epsilon(1.0)) for n, _ in comp.parts) if comp is not None else (
        math.isfinite(noise.pure_epsilon(1.0)))
    if spec.on_labels(pure):
        return
    raise ParameterError(
        f"prior: its values are labels ({', '.join(map(repr, prior.values[:3]))}"
        f"{', ...' if len(prior.values) > 3 else ''}), but reading={reading!r} with additive noise needs numeric "
        "values (a Categorical with numeric keys, or a continuous prior). On labels (any two 1 apart) calibrate "
        "reads reading='worst' of pure epsilon-DP noise (laplace, gencauchy: through the optimal epsilon) and "
        "reading='advantage' or 'error_rates' (a test between two labels).")


def _calibrate_composition(prior, comp, r, delta, reading, spec, beta, k, sides, rtol, q, alpha) -> CalibrationResult:
    """:func:`calibrate` for a list of releases: the common factor on the listed scales."""
    if q < 1:
        raise ParameterError("sampling_prob: a list of releases is calibrated without subsampling "
                             "(sampling_prob = 1); subsample one mechanism instead")

    def finish(c, value, t, method, mu=None):
        parts = tuple((n, c * sc) for n, sc in comp.parts)
        total = k * sum(resolve(n).pure_epsilon(sc) for n, sc in parts)
        return CalibrationResult(
            scale=float(c), value=float(value), reading=reading, mechanism=comp.label, delta=delta,
            beta=beta, releases=k, r=r, t=None if t is None else float(t),
            epsilon=total, mu=mu, rho=None if mu is None else mu * mu / 2, method=method, _noise=comp,
            sampling_prob=q, alpha=alpha, parts=parts,
            expected_error=tuple(_expected_error(n, sc) for n, sc in parts))

    if comp.all_gaussian:
        # the precision-weighted mean of the releases is sufficient: one release of the equivalent scale
        s_eq = comp.gaussian_scale
        one = calibrate(prior, "gaussian", r=r, delta=delta, reading=reading, beta=beta, releases=k, sides=sides,
                        rtol=rtol, alpha=alpha)
        c = one.scale / s_eq
        while c * s_eq < one.scale:  # never below the calibrated scale by a rounding
            c = math.nextafter(c, math.inf)
        return finish(c, one.value, one.t, one.method + f"; the releases are one Gaussian release of scale "
                      f"(sum 1/s_i^2)^(-1/2) = {s_eq:g} times the factor", mu=math.sqrt(k) / (c * s_eq))
    found = run_plan(spec.plan(Task(reading, prior, comp, r, delta, alpha, beta, k, sides, rtol, q)))
    return finish(found.scale, found.value, found.t, found.method)
