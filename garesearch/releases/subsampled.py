r"""Poisson-subsampled Gaussian releases (DP-SGD style): the readings of a binary secret.

Beyond the paper.  In each of ``k`` steps the record is included with probability ``q``
(independently), an included record adds its attribute value ``x`` to the released sum, and
Gaussian noise :math:`\mathcal N(0, \sigma^2)` is added; the attacker knows everything else.
Step by step the output is distributed as :math:`(1-q)\mathcal N(0, \sigma^2) +
q\,\mathcal N(x, \sigma^2)`.  For a binary secret whose values are ``0`` and ``d`` (a value
that contributes nothing, as a record absent from the sum: a count of an attribute, the
add-or-remove pair of DP-SGD) this pair is the one Google's ``dp_accounting`` composes for
Poisson-subsampled Gaussian noise, so:

- **average** (the Bayes-optimal attacker's success minus the best blind guess): exact up to
  the accountant's pessimistic discretisation (an upper bound), through one hockey-stick
  divergence of the composed pair (:func:`garesearch.releases.reconstruction.binary_success_from_profile`);
- **tail** (:math:`\beta`, the probability that the posterior of the true value moves by more
  than ``delta``): an upper bound from the same privacy profile.  The posterior of the value
  ``t`` is a function of the privacy loss :math:`L = \ln(P_t/P_{t'})`, so :math:`\beta(t)` is
  a tail probability of ``L``, and for any :math:`\epsilon < \ell`,
  :math:`\Pr_{P}[L > \ell] \le \delta(\epsilon)/(1 - e^{\epsilon - \ell})` (since
  :math:`\delta(\epsilon) = E_P[(1 - e^{\epsilon - L})^+]`), and
  :math:`\Pr_{P}[L < -a] = E_{Q}[e^{-L'} 1\{L' > a\}] \le e^{-a}\Pr_Q[L' > a]` for the reverse
  loss :math:`L' = -L`; the bound is minimised over :math:`\epsilon`;
- **worst** (Def. 7): infeasible at every scale, as for Gaussian noise: as the output grows the
  likelihood ratio of the mixtures grows without bound (the included record's Gaussian
  dominates), so on rare outputs the posterior tends to 0 or 1, whatever ``sigma`` and ``q``.

Other binary secrets (neither value 0) are a different pair (both values contribute); they are
not computed here for Poisson subsampling: shift the query so that one value contributes nothing.

Any other noise of :data:`garesearch.additive.MECHANISMS` but generalised Cauchy
(:func:`subsampled_reading`): the same readings through the accountant's pair for that noise.
Sampling without replacement (a batch of ``m`` of ``n`` records in each step,
``sampling_prob = m/n``): replace-one neighbours, the binary secret's values need not include
0, and every record's contribution is assumed to lie within the gap between the two values
(as it does when every record's attribute takes one of them); the pair is dominated by Dong,
Roth and Su's :math:`C_q(f)` (Thm. 4.2, :mod:`garesearch.releases.accounting`), so the average reading
is an upper bound (no longer exact) and the tail reading a bound.  The worst-case reading is
not bounded by the profile: for Laplace noise use the pure epsilon
:math:`\ln(1 + q(e^{\epsilon} - 1))` per step (``PrivacyProfile.epsilon``) with the
worst-case machinery of the package.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._args import check_sides
from .._plain import PlainFields
from ..additive import check_scale
from ..errors import InfeasibleError, ParameterError
from ..priors import Categorical, Prior

__all__ = ["SubsampledResult", "subsampled_gaussian_reading", "subsampled_reading"]


@dataclass(frozen=True)
class SubsampledResult(PlainFields):
    """What :func:`subsampled_gaussian_reading` found.

    Attributes
    ----------
    value : float
        The reading: the average advantage, or the bound on :math:`\\beta`.
    reading : str
    success, baseline : float or None
        Average reading: the Bayes-optimal attacker's success and the best blind guess's.
    t : float or None
        Tail reading: the true value where the bound is largest.
    scale, sampling_prob : float
    steps : int
    method : str
    """

    value: float
    reading: str
    success: float | None
    baseline: float | None
    t: float | None
    scale: float
    sampling_prob: float
    steps: int
    method: str


def _binary(prior, zero: bool = True):
    if not (isinstance(prior, Categorical) and prior.metric == "absolute" and len(prior.values) == 2):
        raise ParameterError("prior: the subsampled readings are computed for a binary secret "
                             "(a Categorical prior with two numeric values)")
    x0, x1 = (float(v) for v in prior.points)
    if zero and 0.0 not in (x0, x1):
        raise ParameterError(
            f"prior: one of the two values must be 0 (a record that contributes nothing, the add-or-remove pair "
            f"of the accountant); got {x0:g} and {x1:g}. Shift the query so that one value contributes 0."
        )
    return x0, x1, float(prior.probs[0]), float(prior.probs[1])


def _tail_bound(delta_fn, ell: float) -> float:
    r""":math:`\min_{0 \le \epsilon < \ell} \delta(\epsilon)/(1 - e^{\epsilon - \ell})`, a bound on :math:`\Pr[L > \ell]`."""
    from scipy.optimize import minimize_scalar

    if ell <= 0:
        return 1.0
    grid = ell * np.concatenate([np.linspace(0.0, 0.95, 20), 1 - np.geomspace(0.05, 1e-5, 8)])
    vals = np.asarray(delta_fn(grid), float) / -np.expm1(grid - ell)
    j = int(np.argmin(vals))
    best = float(vals[j])
    lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
    if hi > lo:
        res = minimize_scalar(lambda e: float(delta_fn(e)) / -math.expm1(e - ell), bounds=(lo, hi),
                              method="bounded", options={"xatol": 1e-6 * max(1.0, ell)})
        best = min(best, float(res.fun))
    return min(1.0, best)


def subsampled_gaussian_reading(prior: Prior, *, scale: float, sampling_prob: float, steps: int = 1,
                                reading: str = "average", r: float = 0.0, delta: float | None = None,
                                sides: str = "both", discretization: float = 1e-4) -> SubsampledResult:
    r"""The average or tail reading of ``steps`` Poisson-subsampled Gaussian releases (beyond the paper).

    :func:`subsampled_reading` with Gaussian noise and Poisson sampling.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> res = subsampled_gaussian_reading(Categorical({0: 0.5, 1: 0.5}), scale=1.0, sampling_prob=1.0)
    >>> round(res.success, 6)  # Phi(1/2): one Gaussian release, the threshold test
    0.691462
    """
    return subsampled_reading(prior, "gaussian", scale=scale, sampling_prob=sampling_prob, steps=steps,
                              reading=reading, r=r, delta=delta, sides=sides, discretization=discretization)


def subsampled_reading(prior: Prior, mechanism="gaussian", *, scale: float, sampling_prob: float,
                       sampling: str = "poisson", steps: int = 1, reading: str = "average", r: float = 0.0,
                       delta: float | None = None, sides: str = "both",
                       discretization: float = 1e-4) -> SubsampledResult:
    r"""The average or tail reading of ``steps`` subsampled releases of any noise (beyond the paper).

    See the module docstring for the model (DP-SGD style: each step includes the record with
    probability ``sampling_prob``), the pair of output distributions, and why the worst case
    is infeasible.

    Parameters
    ----------
    prior : Categorical
        A binary secret, one of whose values is 0 (Poisson sampling).
    mechanism : str or mechanism object
        Noise of :data:`garesearch.additive.MECHANISMS` other than ``"gencauchy"``.
    scale : float
        Noise scale per unit of the attribute, > 0.
    sampling_prob : float
        ``q`` in (0, 1].
    sampling : {"poisson", "without_replacement"}
        See the module docstring.
    steps : int
        ``k`` >= 1.
    reading : {"average", "tail"}
    r : float
        Precision of a correct guess, below half the gap between the two values.
    delta : float
        Tail reading: the advantage threshold, in (0, 1).
    sides : {"both", "upper", "lower"}
        Tail reading: which deviation counts.
    discretization : float
        The accountant's value discretisation (pessimistic: a coarser one is faster and still
        an upper bound).

    Returns
    -------
    SubsampledResult

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> res = subsampled_reading(Categorical({0: 0.5, 1: 0.5}), "laplace", scale=1.0, sampling_prob=1.0)
    >>> round(res.success, 6)  # 1 - e^(-1/2)/2: one Laplace release, the threshold test
    0.696735
    """
    from ..additive import resolve
    from .accounting import _SAMPLING, privacy_profile
    from .reconstruction import binary_success_from_profile

    noise = resolve(mechanism)
    if noise.name == "gencauchy":
        raise ParameterError("mechanism: subsampling is not supported for gencauchy noise (no accountant)")
    if sampling not in _SAMPLING:
        raise ParameterError(f"sampling must be one of {_SAMPLING}; got {sampling!r}")
    x0, x1, w0, w1 = _binary(prior, zero=sampling == "poisson")
    s = check_scale(scale)
    if not (isinstance(sampling_prob, (int, float, np.integer, np.floating)) and 0 < sampling_prob <= 1):
        raise ParameterError(f"sampling_prob must lie in (0, 1]; got {sampling_prob!r}")
    if not (isinstance(steps, (int, np.integer)) and not isinstance(steps, bool) and steps >= 1):
        raise ParameterError(f"steps must be an integer >= 1; got {steps!r}")
    if reading not in ("average", "tail"):
        if reading == "worst" and noise.name != "gaussian":
            raise ParameterError(
                f"reading='worst' of subsampled {noise.name} noise is not bounded by the privacy profile; its "
                "likelihood ratio is at most the pure epsilon ln(1 + q(e^eps - 1)) per step "
                "(privacy_profile(...).epsilon), which the worst-case functions of garesearch read"
            )
        if reading == "worst":
            raise InfeasibleError(
                "reading='worst' with subsampled Gaussian noise: no scale meets the advantage bound on every output "
                "(the likelihood ratio of the mixtures is unbounded, so the posterior tends to 0 or 1 on rare "
                "outputs). Use reading='tail' or reading='average'."
            )
        raise ParameterError(f"reading must be 'average' or 'tail'; got {reading!r}")
    gap = abs(x1 - x0)
    if not (isinstance(r, (int, float, np.integer, np.floating)) and 0 <= r and 2 * r < gap):
        raise ParameterError(f"r must lie in [0, {gap / 2:g}) (the ball holds one value); got {r!r}")
    q, k = float(sampling_prob), int(steps)
    if noise.discrete and gap != round(gap):
        raise ParameterError(f"prior: {noise.name} noise needs integer values; got {prior.values}")
    prof = privacy_profile(noise, scale=s, distance=gap, releases=k, sampling_prob=q, sampling=sampling,
                           discretization=discretization)
    base = dict(scale=s, sampling_prob=q, steps=k)
    if reading == "average":
        success = binary_success_from_profile(prof.dp_delta, w1)
        kappa = max(w0, w1)
        return SubsampledResult(value=success - kappa, reading="average", success=success, baseline=kappa, t=None,
                                method=f"binary secret, one hockey-stick divergence ({prof.source})", **base)
    if not (isinstance(delta, (int, float, np.integer, np.floating)) and 0 < delta < 1):
        raise ParameterError(f"delta must lie in (0, 1) for reading='tail'; got {delta!r}")
    check_sides(sides)
    best, best_t = -1.0, x1
    for t, wt, wo in ((x1, w1, w0), (x0, w0, w1)):
        # posterior of t: wt e^L / (wo + wt e^L), L = ln(P_t / P_other); P_t-probabilities
        total = 0.0
        if sides in ("both", "upper") and wt + delta < 1:
            ell = math.log((wt + delta) * wo / (wt * (wo - delta)))
            total += _tail_bound(prof.dp_delta, ell)
        if sides in ("both", "lower") and wt - delta > 0:
            a = -math.log((wt - delta) * wo / (wt * (wo + delta)))
            total += math.exp(-a) * _tail_bound(prof.dp_delta, a)
        if total > best:
            best, best_t = total, t
    return SubsampledResult(value=min(1.0, best), reading="tail", success=None, baseline=None, t=best_t,
                            method=f"bound from the privacy profile ({prof.source}), minimised over epsilon", **base)
