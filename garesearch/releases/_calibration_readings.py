r"""The readings :func:`garesearch.releases.calibration.calibrate` calibrates to: one object each, and their registry.

Beyond the paper (its Def. 7 is ``"worst"``).  A reading is an object with three members (the
:class:`Reading` protocol):

- ``target``: the names of its target parameters, from ``"delta"``, ``"alpha"`` and ``"beta"``
  (``("delta",)`` for ``"worst"``, ``("delta", "beta")`` for ``"tail"``, ``("alpha", "beta")``
  for ``"error_rates"``); :func:`~garesearch.releases.calibration.calibrate` checks that each lies in
  (0, 1) and refuses the others.
- ``on_labels(pure)``: whether it is defined on a prior of labels (the discrete metric of
  Sec. 4.1), for noise that is pure :math:`\epsilon`-DP (``pure``) or not.
- ``plan(task)``: given the checked request (a :class:`Task`), it refuses what it does not
  support (the noise, the number of releases, a list of releases, subsampling: a
  :class:`~garesearch.errors.ParameterError`) and what cannot or need not be calibrated (an
  :class:`~garesearch.errors.InfeasibleError`, with the reading's limit), before any search;
  then it returns either the answer (a :class:`Found`, where the reading has its own closed form
  or optimum) or a :class:`Search`: the reading's value at a scale, the target, whether the value
  falls (``rises=False``) or rises with the scale, where the bracket starts, the tolerance, and
  how to finish (the value, the worst true value and the method at the scale found).

:func:`run_plan` runs every :class:`Search` the same way, in the manner of dp_accounting's
:func:`dp_accounting.calibrate_dp_mechanism` (a monotone map from the mechanism's parameter to
the privacy value, a bracket grown from a guess, a root of it): the bracket grows from ``start``
by ``factor`` and is narrowed in :math:`\ln` scale to relative ``rtol``
(:func:`garesearch._roots.smallest_scale`), and the scale returned is one at which the value was
evaluated and met the target.

To add a reading, write such an object and register it by name with :func:`register_reading`
(the built-in ones below are registered when this module is imported; the example in
:func:`~garesearch.releases.calibration.calibrate` registers a toy one).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from .._roots import narrow_scale, smallest_scale
from ..additive import ScaledNoise
from ..errors import InfeasibleError, ParameterError
from ..mechanisms import _GC_L
from ..priors import Categorical, Prior
from . import _laplace_pld
from .accounting import Composition

__all__ = ["Found", "Reading", "Search", "Task", "get_reading", "reading_names", "register_reading", "run_plan",
           "unregister_reading"]

#: the target parameters a reading may name, in the order calibrate checks them
TARGET_PARAMETERS = ("delta", "alpha", "beta")


@dataclass(frozen=True)
class Task:
    r"""One request to :func:`~garesearch.releases.calibration.calibrate`, its arguments checked.

    Attributes
    ----------
    reading : str
        The reading's name, as given.
    prior : Prior
    noise : ScaledNoise or Composition
        One mechanism (:func:`garesearch.additive.resolve`), or a list of releases whose common
        factor on the listed scales is the scale calibrated (never all Gaussian: those are one
        Gaussian release).
    r : float
    delta, alpha, beta : float or None
        The target's values (None where not given).
    releases : int
    sides : str
    rtol : float
    sampling_prob : float
        Poisson subsampling probability (1: none; always 1 for a list of releases).
    """

    reading: str
    prior: Prior
    noise: ScaledNoise | Composition
    r: float
    delta: float | None
    alpha: float | None
    beta: float | None
    releases: int
    sides: str
    rtol: float
    sampling_prob: float

    @property
    def composed(self) -> bool:
        """Whether ``noise`` is a list of releases (a :class:`~garesearch.releases.accounting.Composition`)."""
        return isinstance(self.noise, Composition)


@dataclass(frozen=True)
class Found:
    """A reading's answer: the scale, the reading's value there, the worst true value (None where the
    reading has none) and how the value was computed."""

    scale: float
    value: float
    t: float | None = None
    method: str = ""


@dataclass(frozen=True)
class Search:
    """The smallest scale whose ``value`` meets ``target``, for :func:`run_plan`.

    Attributes
    ----------
    value : callable
        The reading at a scale (a sound upper bound where it is not exact); monotone in the scale.
    target : float
    start : float
        Where the bracket starts (a good guess lets ``factor`` lie near 1).
    rtol : float
        Relative tolerance of the scale.
    factor : float
        The bracket grows (or shrinks) from ``start`` by this factor.
    rises : bool
        False: ``value`` falls as the scale grows and must be ``<= target``; True: it rises and
        must be ``>= target`` (a trade-off curve).
    method : str
        How ``value`` is computed (when ``finish`` is None).
    finish : callable, optional
        The :class:`Found` at the scale found (it may move the scale by a finer, still sound,
        computation); default: ``Found(scale, value(scale), None, method)``.
    """

    value: Callable[[float], float]
    target: float
    start: float
    rtol: float
    factor: float = 4.0
    rises: bool = False
    method: str = ""
    finish: Callable[[float], Found] | None = None


@runtime_checkable
class Reading(Protocol):
    """What :func:`~garesearch.releases.calibration.calibrate` asks of a reading (module docstring)."""

    target: tuple[str, ...]

    def on_labels(self, pure: bool) -> bool:
        """Whether the reading is defined on a prior of labels, for pure epsilon-DP noise or not."""
        ...  # pragma: no cover

    def plan(self, task: Task) -> Search | Found:
        """The reading's refusals, then its answer or the search for it."""
        ...  # pragma: no cover


def run_plan(plan: Search | Found) -> Found:
    """The answer of a reading's plan: a :class:`Found` as it is, a :class:`Search` run by
    :func:`garesearch._roots.smallest_scale` (module docstring).

    Examples
    --------
    >>> found = run_plan(Search(value=lambda s: 1.0 / s, target=0.5, start=1.0, rtol=1e-9))
    >>> 1.0 / found.scale <= 0.5 and abs(found.scale - 2.0) <= 2.0 * 2e-9
    True
    """
    if isinstance(plan, Found):
        return plan
    if not isinstance(plan, Search):
        raise ParameterError(f"reading: its plan must return a Search or a Found; got {type(plan).__name__}")
    value = plan.value
    if plan.rises:
        scale = smallest_scale(lambda sc: -value(sc), -plan.target, plan.start, plan.rtol, factor=plan.factor)
    else:
        scale = smallest_scale(value, plan.target, plan.start, plan.rtol, factor=plan.factor)
    return plan.finish(scale) if plan.finish is not None else Found(scale, value(scale), None, plan.method)


# ------------------------------------------------------------------------------------------
# The registry
# ------------------------------------------------------------------------------------------
_REGISTRY: dict[str, Reading] = {}
_BUILT_IN: tuple[str, ...] = ()


def reading_names() -> tuple[str, ...]:
    """The names :func:`~garesearch.releases.calibration.calibrate` accepts as ``reading``, built-in first.

    Examples
    --------
    >>> reading_names()[:5]
    ('worst', 'tail', 'average', 'advantage', 'error_rates')
    """
    return tuple(_REGISTRY)


def get_reading(name) -> Reading:
    """The reading registered as ``name``; a ParameterError naming the registered ones otherwise."""
    if isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name]
    raise ParameterError(f"reading must be one of {reading_names()}; got {name!r}")


def readings_taking(parameter: str) -> str:
    """``"reading='tail' and reading='error_rates'"``: the registered readings whose target names ``parameter``."""
    return " and ".join(f"reading={n!r}" for n, spec in _REGISTRY.items() if parameter in spec.target)


def register_reading(name: str, reading: Reading) -> None:
    """Make ``reading`` (a :class:`Reading`) available to :func:`~garesearch.releases.calibration.calibrate` as ``name``.

    Parameters
    ----------
    name : str
        A new name (a Python identifier), not one already registered.
    reading : Reading
        An object with ``target`` (a tuple of distinct names from ``"delta"``, ``"alpha"``,
        ``"beta"``), ``on_labels(pure)`` and ``plan(task)`` (module docstring).

    Examples
    --------
    The example of :func:`garesearch.releases.calibration.calibrate` registers one.
    """
    if not (isinstance(name, str) and name.isidentifier()):
        raise ParameterError(f"name must be a Python identifier (a string such as 'my_reading'); got {name!r}")
    if name in _REGISTRY:
        raise ParameterError(f"name: a reading {name!r} is registered already; registered: {reading_names()}")
    if not isinstance(reading, Reading):
        raise ParameterError("reading must have a tuple target, on_labels(pure) and plan(task) (the Reading "
                             f"protocol of garesearch.releases.calibration); got {type(reading).__name__}")
    target = reading.target
    if not (isinstance(target, tuple) and target and all(isinstance(p, str) and p in TARGET_PARAMETERS for p in target)
            and len(set(target)) == len(target)):
        raise ParameterError(f"reading.target must be a non-empty tuple of distinct names from {TARGET_PARAMETERS}; "
                             f"got {target!r}")
    _REGISTRY[name] = reading


def unregister_reading(name: str) -> None:
    """Remove a reading :func:`register_reading` added (the built-in ones stay)."""
    if name in _BUILT_IN:
        raise ParameterError(f"name: the built-in readings {_BUILT_IN} cannot be removed; got {name!r}")
    if not (isinstance(name, str) and name in _REGISTRY):
        raise ParameterError(f"name must be a registered reading, one of {reading_names()[len(_BUILT_IN):]}; "
                             f"got {name!r}")
    del _REGISTRY[name]


# ------------------------------------------------------------------------------------------
# Helpers of the built-in readings
# ------------------------------------------------------------------------------------------
#: value discretisation of the accountant while calibrating composed releases (pessimistic, so
#: every scale it accepts is sound; 1e-3 moves delta by about 1e-7 against 1e-4, at a tenth of the time)
_SEARCH_DISCRETIZATION = 1e-3

#: the accountant's resolution in the final bracket (pessimistic too, so every scale it accepts is
#: sound; a quarter of the search's, at about four times its cost per evaluation)
_FINE_DISCRETIZATION = 2.5e-4


def _spread(prior) -> float:
    if isinstance(prior, Categorical):
        x = prior.points
        gaps = np.diff(x)
        return float(np.min(gaps)) if gaps.size else 1.0
    q = np.asarray(prior.quantile(np.array([0.25, 0.75])), float)
    return float(q[1] - q[0]) if q[1] > q[0] else 1.0


def _refine(metric, target, scale, rtol):
    """The smallest scale at which ``metric`` (a finer, still pessimistic, accountant) meets the
    target, searched only in the final bracket just below ``scale`` (found with a coarser one), to
    relative ``rtol``; None if the finer accountant does not meet the target at ``scale`` (then
    ``scale`` stands)."""
    if not metric(scale) <= target:
        return None
    hi = scale
    for width in (1e-5, 1e-3, 1e-2):  # the coarse crossing lies about 1e-6 above the finer one
        lo = scale * (1 - width)
        if not metric(lo) <= target:
            break
        hi = lo
    else:
        return hi  # met at every trial: the smallest of them (sound)
    return narrow_scale(metric, target, lo, hi, rtol)


def _refuse_if_no_noise_is_needed(prior, r, delta) -> None:
    """The average reading's target is met without noise when ``delta >= 1 - kappa``."""
    from .reconstruction import baseline_success

    kappa, _ = baseline_success(prior, r)
    if delta >= 1 - kappa:
        raise InfeasibleError(
            f"no noise is needed: the best blind guess is right with probability {kappa:.6g}, so no attacker's "
            f"success exceeds it by more than {1 - kappa:.6g} even without noise, which already meets "
            f"delta = {delta:g}")


def _subsampled_run(task: Task, reading: str):
    """Poisson-subsampled Gaussian releases (:mod:`garesearch.releases.subsampled`): the reading at a scale,
    after the noise's and the prior's checks."""
    from .subsampled import _binary, subsampled_gaussian_reading

    noise = task.noise
    if noise.name != "gaussian":
        raise ParameterError(f"sampling_prob < 1 is supported for 'gaussian' noise (DP-SGD style); got {noise.name!r}")

    def run(sc, discretization=_SEARCH_DISCRETIZATION):
        return subsampled_gaussian_reading(task.prior, scale=sc, sampling_prob=task.sampling_prob,
                                           steps=task.releases, reading=reading, r=task.r,
                                           delta=task.delta if reading == "tail" else None, sides=task.sides,
                                           discretization=discretization)

    _binary(task.prior)  # the prior's checks, before any work
    return run


def _subsampled_search(task: Task, run, target: float, rtol_floor: float, finish=None, *, t=False) -> Search:
    """The search over subsampled Gaussian scales, from the gap of the binary secret (``t``: the
    result has a worst true value)."""
    gap = float(abs(task.prior.points[1] - task.prior.points[0]))

    def coarse(scale):
        res = run(scale)
        return Found(scale, res.value, res.t if t else None, res.method + ", discretization 1e-3")

    return Search(lambda sc: run(sc).value, target, gap, max(task.rtol, rtol_floor), factor=2.0,
                  finish=finish or coarse)


def _any_dp_worst_epsilon(prior, r, delta, sides) -> tuple[float, str]:
    """The largest epsilon at which every epsilon-DP mechanism meets Def. 7 (the optimum): the one
    place composed and generalised Cauchy releases read it."""
    from ..attribute import epsilon_for_attribute

    return (epsilon_for_attribute(prior, r=r, delta=delta, sides=sides).epsilon,
            "optimal epsilon, valid for every epsilon-DP mechanism")


def _average_composed_binary(task: Task) -> Search:
    """Average reading of ``k`` non-Gaussian releases of a binary secret, by the accountant.

    The success is one hockey-stick divergence of the composed releases
    (:func:`garesearch.releases.reconstruction.binary_success_from_profile`), from a pessimistic privacy
    loss distribution: an upper bound, so the scale found meets the target.  The search starts
    at the Gaussian scale with the same average reading (closed form): for small privacy losses
    a Laplace release of scale ``b`` loses about as much as a Gaussian one of ``sigma = b``.
    """
    from .accounting import privacy_profile
    from .reconstruction import (
        baseline_success,
        binary_success_from_profile,
        reconstruction_advantage,
    )

    prior, noise, r, delta, k, rtol = task.prior, task.noise, task.r, task.delta, task.releases, task.rtol
    if not (isinstance(prior, Categorical) and len(prior.values) == 2 and 2 * r < prior.points[1] - prior.points[0]):
        # reconstruction_advantage raises the ParameterError that says what is supported
        reconstruction_advantage(prior, noise, scale=1.0, r=r, releases=k, prior_free=False)
    gap = float(prior.points[1] - prior.points[0])
    w1 = float(prior.probs[1])
    kappa, _ = baseline_success(prior, r)
    # a list of releases (its scale is the common factor): start where the parts' scales, read as
    # Gaussian ones, combine to the Gaussian scale
    per = 1.0 if isinstance(noise, ScaledNoise) else math.sqrt(math.fsum(1.0 / (sc * sc) for _, sc in noise.parts))
    if isinstance(noise, ScaledNoise) and noise.name == "laplace" and k <= _laplace_pld.MAX_RELEASES:

        def exact(sc):
            prof = privacy_profile(noise, scale=sc, distance=gap, releases=k)
            return binary_success_from_profile(prof.dp_delta, w1) - kappa

        def finish_exact(scale):
            source = privacy_profile(noise, scale=scale, distance=gap, releases=k).source
            return Found(scale, exact(scale), None, f"binary secret, one hockey-stick divergence ({source})")

        s0 = smallest_scale(lambda sc: reconstruction_advantage(prior, "gaussian", scale=sc, r=r, releases=k,
                                                       prior_free=False).advantage, delta, gap, 1e-6)
        return Search(exact, delta, s0, rtol, factor=1.25, finish=finish_exact)

    def metric(sc, discretization=_SEARCH_DISCRETIZATION):
        prof = privacy_profile(noise, scale=sc, distance=gap, releases=k, discretization=discretization)
        return binary_success_from_profile(prof.dp_delta, w1) - kappa

    def finish(scale):
        # the accountant's default resolution (1e-4) is less pessimistic: one secant step down from
        # the coarse scale, kept only if it still meets the target there
        fine = metric(scale, 1e-4)
        source = privacy_profile(noise, scale=scale, distance=gap, releases=k).source
        if source.startswith("dp_accounting"):
            source += ", discretization 1e-4"
        method = f"binary secret, one hockey-stick divergence ({source})"
        if fine < delta:
            step = scale * 1e-3
            slope = (metric(scale - step) - metric(scale)) / step  # > 0: the reading falls with the scale
            if slope > 0:
                cand = scale - (delta - fine) / slope
                value = metric(cand, 1e-4) if cand > 0 else math.inf
                if value <= delta:
                    return Found(cand, value, None, method)
        if fine <= delta:
            return Found(scale, fine, None, method)
        return Found(scale, metric(scale), None, method.replace("1e-4", "1e-3"))

    s0 = smallest_scale(lambda sc: reconstruction_advantage(prior, "gaussian", scale=sc, r=r, releases=k,
                                                   prior_free=False).advantage, delta, gap, 1e-6)
    return Search(metric, delta, s0 * per, rtol, factor=1.25, finish=finish)


# ------------------------------------------------------------------------------------------
# The built-in readings
# ------------------------------------------------------------------------------------------
class WorstReading:
    r"""``reading="worst"`` (Def. 7): :math:`\sup_{t,y}|\Pr_{post} - \Pr_{pre}| \le \delta`.

    Its own closed forms and optima, no search: the Laplace mechanism's exact worst case
    (``b = 1/epsilon``), the Gaussian mechanism's exact worst case (where feasible), and the
    optimal :math:`\epsilon` for composed and generalised Cauchy releases (``k`` releases of scale
    ``b`` being :math:`(kc/b)`-DP).  Subsampled Gaussian noise: infeasible.
    """

    target = ("delta",)

    def on_labels(self, pure: bool) -> bool:
        return pure  # through the optimal epsilon

    def plan(self, task: Task) -> Search | Found:
        if task.composed:
            return self._composed(task)
        if task.sampling_prob < 1:
            run = _subsampled_run(task, "worst")
            run(1.0)  # subsampled Gaussian noise has no worst case: raises InfeasibleError, saying why
            return _subsampled_search(task, run, task.delta, 1e-4)  # pragma: no cover
        from ..exact import exact_advantage, exact_epsilon

        prior, noise, r, delta, k, sides = task.prior, task.noise, task.r, task.delta, task.releases, task.sides
        if noise.name in ("gaussian", "discrete_gaussian"):
            try:
                eps = exact_epsilon(prior, noise.kernel, r=r, delta=delta, sides=sides)
            except InfeasibleError as exc:
                raise InfeasibleError(
                    f"reading='worst' with {noise.name} noise: no scale meets advantage <= {delta} on every output. "
                    "As the output goes to +-infinity the Gaussian posterior of a correct guess tends to 0 (or to 1 "
                    "at the end of a bounded or finite prior) whatever the scale, so on rare outputs it leaves "
                    f"[p - {delta}, p + {delta}]. Use reading='tail' (bound the probability of such outputs) or "
                    f"reading='average', or Laplace noise. ({exc})"
                ) from None
            scale = noise.kernel.scale(eps) * math.sqrt(k)
            value = exact_advantage(prior, noise.kernel, epsilon=eps, r=r, sides=sides)
            return Found(scale, value.advantage, value.t, "exact worst case of the Gaussian mechanism")
        if noise.name in ("laplace", "discrete_laplace") and k == 1 and prior.metric == "absolute":
            from ..mechanisms import Laplace

            # the Laplace mechanism's exact worst-case epsilon: the one place reading="worst" reads it
            eps = exact_epsilon(prior, Laplace(), r=r, delta=delta, sides=sides)
            if not math.isfinite(eps):
                raise InfeasibleError("reading='worst': delta is met without noise")
            value = exact_advantage(prior, noise.kernel, epsilon=eps, r=r, sides=sides)
            return Found(1.0 / eps, value.advantage, value.t, "exact worst case of the Laplace mechanism")
        eps, method = _any_dp_worst_epsilon(prior, r, delta, sides)
        if not math.isfinite(eps):
            raise InfeasibleError("reading='worst': delta is met without noise")
        c = _GC_L if noise.name == "gencauchy" else 1.0
        # k releases of scale b are (k c/b)-DP together: each takes epsilon/k
        return Found(k * c / eps, delta, None,
                     method + (f"; {k} releases of scale b are ({k}c/b)-DP" if k > 1 else ""))

    @staticmethod
    def _composed(task: Task) -> Found:
        from ..additive import resolve

        comp, k, delta = task.noise, task.releases, task.delta
        eps_unit = [resolve(n).pure_epsilon(sc) for n, sc in comp.parts]  # pure epsilon at factor 1
        if not all(math.isfinite(e) for e in eps_unit):
            raise InfeasibleError(
                f"reading='worst' with the releases {comp.label}: a Gaussian release is not epsilon-DP, and on rare "
                f"outputs its posterior leaves [p - {delta}, p + {delta}] whatever the scale. Use reading='tail', "
                "'average', 'advantage' or 'error_rates', or pure epsilon-DP parts (laplace, gencauchy).")
        eps, method = _any_dp_worst_epsilon(task.prior, task.r, delta, task.sides)
        if not math.isfinite(eps):
            raise InfeasibleError("reading='worst': delta is met without noise")
        # at factor c the releases are (k/c) sum_i eps_i-DP together: at most the optimal epsilon
        c = k * math.fsum(eps_unit) / eps
        while k * math.fsum(resolve(n).pure_epsilon(c * sc) for n, sc in comp.parts) > eps:
            c = math.nextafter(c, math.inf)
        return Found(c, delta, None, method + f"; {k} x ({comp.label}) is (k sum_i eps_i)-DP at most the optimum")


class TailReading:
    r"""``reading="tail"``: :math:`\beta = \sup_t \Pr_{y\sim M(t)}[|\Pr_{post} - \Pr_{pre}| > \delta] \le`
    ``beta`` (:func:`garesearch.releases.tail.advantage_tail`); falls as the scale grows."""

    target = ("delta", "beta")

    def on_labels(self, pure: bool) -> bool:
        return False

    def plan(self, task: Task) -> Search:
        from .tail import advantage_tail

        prior, noise, r, delta, k, sides = task.prior, task.noise, task.r, task.delta, task.releases, task.sides
        beta = task.beta
        if task.composed:
            advantage_tail(prior, noise, scale=1.0, r=r, delta=delta, releases=k, sides=sides)  # says what it supports
            raise ParameterError(f"mechanism: the tail reading of {noise.label} is not computed")  # pragma: no cover
        if task.sampling_prob < 1:
            return _subsampled_search(task, _subsampled_run(task, "tail"), beta, 1e-4, t=True)
        hints: list = []

        def metric(sc):
            for h in hints:  # a violation at a known bad t needs no global search
                v = advantage_tail(prior, noise, scale=sc, r=r, delta=delta, t=h, releases=k, sides=sides).beta
                if v > beta:
                    return v
            res = advantage_tail(prior, noise, scale=sc, r=r, delta=delta, releases=k, sides=sides)
            if res.t not in hints:
                hints.append(res.t)
            return res.beta

        def finish(scale):
            res = advantage_tail(prior, noise, scale=scale, r=r, delta=delta, releases=k, sides=sides)
            return Found(scale, res.beta, res.t, res.method)

        return Search(metric, beta, _spread(prior), task.rtol, finish=finish)


class AverageReading:
    r"""``reading="average"``: the Bayes-optimal attacker's success minus the best blind guess's
    :math:`\le \delta` (:func:`garesearch.releases.reconstruction.reconstruction_advantage`); falls as the
    scale grows.  Refused at once where the limit at scale 0 already meets the target."""

    target = ("delta",)

    def on_labels(self, pure: bool) -> bool:
        return False

    def plan(self, task: Task) -> Search:
        from .reconstruction import reconstruction_advantage

        prior, noise, r, delta, k, q = task.prior, task.noise, task.r, task.delta, task.releases, task.sampling_prob
        if task.composed:
            _refuse_if_no_noise_is_needed(prior, r, delta)
            return _average_composed_binary(task)
        if q < 1:
            run = _subsampled_run(task, "average")
            # the limit at scale 0: the record, if ever included, is revealed; with probability (1-q)^k it never is
            x0 = float(prior.points[0])
            w_zero, w_other = (float(prior.probs[0]), float(prior.probs[1])) if x0 == 0 else (
                float(prior.probs[1]), float(prior.probs[0]))
            never = math.exp(k * math.log1p(-q))
            sup = w_other * (1 - never) + max(w_zero, w_other * never) - max(w_zero, w_other)
            if delta >= sup:
                raise InfeasibleError(
                    f"no noise is needed: with sampling_prob={q:g} and {k} releases the record is never included with "
                    f"probability (1 - q)^k = {never:.6g}, so even without noise the average advantage is at most "
                    f"{sup:.6g}, which already meets delta = {delta:g}")

            def finish(scale):  # the 1e-3 crossing lies up to about 1e-6 above the exact one: refine
                refined = _refine(lambda sc: run(sc, _FINE_DISCRETIZATION).value, delta, scale, max(task.rtol, 1e-8))
                if refined is not None:
                    res = run(refined, _FINE_DISCRETIZATION)
                    return Found(refined, res.value, None, res.method + f", discretization {_FINE_DISCRETIZATION:g}")
                res = run(scale)
                return Found(scale, res.value, None, res.method + ", discretization 1e-3")

            return _subsampled_search(task, run, delta, 1e-7, finish)
        _refuse_if_no_noise_is_needed(prior, r, delta)
        if k > 1 and noise.name != "gaussian":
            return _average_composed_binary(task)

        def value(sc):
            return reconstruction_advantage(prior, noise, scale=sc, r=r, releases=k, prior_free=False)

        def finish_average(scale):
            res = value(scale)
            return Found(scale, res.advantage, None, res.method)

        return Search(lambda sc: value(sc).advantage, delta, _spread(prior), task.rtol, finish=finish_average)


def _membership_pair(task: Task) -> tuple[float, float]:
    """The distance of the two values a membership test tells apart, and the probability that the
    record is never included (0 without subsampling), after the reading's refusals."""
    from .reconstruction import _diameter

    prior, reading = task.prior, task.reading
    if task.sampling_prob < 1:
        from .subsampled import _binary

        if task.noise.name != "gaussian":
            raise ParameterError(f"sampling_prob < 1 is supported for 'gaussian' noise (DP-SGD style); got "
                                 f"{task.noise.name!r}")
        x0, x1, _, _ = _binary(prior)
        dist = abs(x1 - x0)
        never = math.exp(task.releases * math.log1p(-task.sampling_prob))  # probability that the record is never included
    else:
        # the discrete metric (labels): every two values are 1 apart (Sec. 4.1)
        dist = _diameter(prior) if prior.metric == "absolute" else float(len(prior.values) > 1)
        never = 0.0
        if not math.isfinite(dist):
            raise InfeasibleError(
                f"reading={reading!r}: the prior's support is unbounded, so its two furthest values are told apart "
                "with certainty at every scale. Use a prior with bounded support (Categorical, Uniform, "
                "PiecewiseUniform), or reading='average' or 'tail'.")
    if dist <= 0:
        raise InfeasibleError(f"reading={reading!r}: the prior has one value: no noise is needed")
    return dist, never


def _membership_profile(task: Task, dist: float):
    """The privacy profile at a scale (the accountant's coarser, pessimistic so sound, discretisation
    where it is used), where the search starts, and the noise's name (``"composition"`` for a list)."""
    from .accounting import privacy_profile

    def profile(sc):
        return privacy_profile(task.noise, scale=sc, distance=dist, releases=task.releases,
                               sampling_prob=task.sampling_prob, discretization=_SEARCH_DISCRETIZATION)

    # a composition's common factor: start where a Gaussian release of the parts' combined scale is 1 apart
    s0 = dist * math.sqrt(sum(1.0 / (sc * sc) for _, sc in task.noise.parts)) if task.composed else dist
    return profile, s0, "composition" if task.composed else task.noise.name


class AdvantageReading:
    r"""``reading="advantage"``: every membership test between the two values of the prior furthest
    apart has true-positive minus false-positive rate at most ``delta``, the total variation of the
    composed outputs (:math:`\delta_{DP}(0)` of the privacy profile); falls as the scale grows."""

    target = ("delta",)

    def on_labels(self, pure: bool) -> bool:
        return True  # a test between two labels 1 apart

    def plan(self, task: Task) -> Search:
        dist, never = _membership_pair(task)
        profile, s0, name = _membership_profile(task, dist)
        q, k, delta = task.sampling_prob, task.releases, task.delta
        accurate = (name == "gaussian" and q == 1) or (name == "laplace" and k <= _laplace_pld.MAX_RELEASES)
        sup = 1.0 - never
        if delta >= sup:
            raise InfeasibleError(
                f"no noise is needed: with sampling_prob={q:g} and {k} releases the record is never included with "
                f"probability {never:.6g}, so no test reaches an advantage above {sup:.6g} even without noise, "
                f"which already meets delta = {delta:g}")

        def value(sc):
            return float(profile(sc).dp_delta(0.0))

        def finish(scale):
            what = "total variation of the composed outputs"
            return Found(scale, value(scale), None, f"{what} between values {dist:g} apart ({profile(scale).source})")

        return Search(value, delta, s0, task.rtol if accurate else max(task.rtol, 1e-6), finish=finish)


class ErrorRatesReading:
    r"""``reading="error_rates"``: no membership test between the two values furthest apart has
    false-positive rate :math:`\le \alpha` and false-negative rate below ``beta``, the trade-off
    curve :math:`f(\alpha) \ge \beta`; the curve rises with the scale."""

    target = ("alpha", "beta")

    def on_labels(self, pure: bool) -> bool:
        return True  # a test between two labels 1 apart

    def plan(self, task: Task) -> Search:
        dist, never = _membership_pair(task)
        profile, s0, name = _membership_profile(task, dist)
        q, k, alpha, beta = task.sampling_prob, task.releases, task.alpha, task.beta
        if beta >= 1 - alpha:
            raise InfeasibleError(
                f"reading='error_rates': a test that ignores the output has false-positive rate alpha = {alpha:g} and "
                f"false-negative rate 1 - alpha = {1 - alpha:g}, so no scale keeps every test's false-negative rate "
                f"at least beta = {beta:g}; choose beta < 1 - alpha")
        floor = min(never * (1 - alpha), max(0.0, 1 - alpha / never)) if never > 0 else 0.0
        if beta <= floor:
            raise InfeasibleError(
                f"no noise is needed: with sampling_prob={q:g} and {k} releases the record is never included with "
                f"probability {never:.6g}, so even without noise every test at false-positive rate {alpha:g} has a "
                f"false-negative rate of at least {floor:.6g} >= beta = {beta:g}")
        exact_curve = (name == "gaussian" and q == 1) or (name == "laplace" and k == 1)

        def fnr(sc):
            # closed form, or exact from the accountant's pessimistic distribution (a lower bound:
            # accountant.tradeoff_from_pld), or pure epsilon-DP's curve (generalised Cauchy)
            return float(profile(sc).tradeoff(alpha))

        def finish(scale):
            kind = "closed form" if exact_curve else (
                "pure epsilon-DP bound" if name == "gencauchy" else
                "exact curve of the pessimistic privacy-loss distribution")
            return Found(scale, fnr(scale), None,
                         f"trade-off curve f(alpha) between values {dist:g} apart ({kind}, {profile(scale).source})")

        return Search(fnr, beta, s0, task.rtol if exact_curve else max(task.rtol, 1e-6), rises=True, finish=finish)


for _name, _reading in (("worst", WorstReading()), ("tail", TailReading()), ("average", AverageReading()),
                        ("advantage", AdvantageReading()), ("error_rates", ErrorRatesReading())):
    register_reading(_name, _reading)
_BUILT_IN = reading_names()
del _name, _reading
