"""The Bayes attacker's success against a mechanism, exactly and by Monte Carlo (Sec. 3.2,
Def. 7; :mod:`garesearch.exact`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..mechanisms import Mechanism
from ..priors import Categorical, Normal, Prior
from .core import as_target_set, check_additive, check_exact_args
from .integrals import Atoms, integrator

__all__ = ["AttackerEstimate", "bayes_attacker_success", "monte_carlo_attacker"]


# ------------------------------------------------------------------------------------------
# The Bayes-optimal attacker: exact success probability and a Monte Carlo estimate.
# ------------------------------------------------------------------------------------------
def _guess_sets(prior, r, correct, target):
    """Candidate guesses and their sets (for finite priors)."""
    if prior.metric == "discrete":
        pb_sets = []
        for v in prior.values:
            members = [v] if correct is None else as_target_set(prior.values, correct(v), "correct(t)")
            pb_sets.append([u in members for u in prior.values])
        return list(prior.values), np.array(pb_sets)
    x = prior.points
    # an optimal ball can be shifted until its left end meets an atom
    guesses = x + r
    return list(guesses), np.array([np.abs(x - g) <= r + 1e-12 * max(1.0, abs(g)) for g in guesses])


def _outputs(prior, target):
    if prior.metric == "discrete":
        tgt = as_target_set(prior.values, target, "target")
        if tgt is None:
            raise ParameterError("target: the COUNT query needs a target value or set (discrete metric)")
        return np.array([1.0 if v in tgt else 0.0 for v in prior.values])
    return prior.points


def _ball_grid(pb, ys, lo, hi, n=401):
    """log int_{B(g,r)} f(y|x) dpi over a grid of centres g; returns (logmass (ny, n), g)."""
    g = np.linspace(lo, hi, n)
    r = pb["r"]
    return pb["integ"].log_mass(ys, (g - r, g + r)), g


def bayes_attacker_success(prior: Prior, mechanism: Mechanism, *, epsilon: float, r: float,
                           target: Any = None, correct: Callable | None = None,
                           n_y: int = 4000) -> dict:
    r"""Exact success probability of the Bayes-optimal attacker, and of the best blind guess.

    The attacker sees ``y`` and guesses the centre ``g`` maximising
    :math:`\Pr_{post}[\mathcal B(g, r) \mid y]`; its success probability is

    .. math:: \int \max_g \int_{\mathcal B(g,r)} f(y \mid x)\, d\pi(x)\, dy,

    computed by composite Gauss-Legendre quadrature in ``y`` (``n_y`` nodes split at the
    atoms; for a continuous prior the inner maximum over ``g`` is taken on a grid refined by a
    parabola).  Without the output the best guess succeeds with
    :math:`\max_g \pi(\mathcal B(g, r))`.  The difference is the attacker's average gain, which
    Def. 7's supremum over outputs bounds from above.

    Returns
    -------
    dict
        ``success``, ``prior_success`` and ``advantage`` (their difference).

    Examples
    --------
    A fair coin with Laplace noise of scale :math:`1/\epsilon`: the attacker guesses 1 when
    :math:`y > 1/2`, and is right with probability :math:`1 - e^{-\epsilon/2}/2`.

    >>> import math
    >>> from garesearch.mechanisms import Laplace
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> res = bayes_attacker_success(coin, Laplace(), epsilon=1.0, r=0)
    >>> abs(res["success"] - (1 - math.exp(-0.5) / 2)) < 1e-9, res["prior_success"]
    (True, 0.5)
    """
    check_additive(mechanism)
    check_exact_args(epsilon, "both")
    eps = float(epsilon)
    b = mechanism.scale(eps)
    if isinstance(prior, Categorical):
        s = _outputs(prior, target)
        _, sets = _guess_sets(prior, r, correct, target)
        integ = Atoms(s, prior.probs, mechanism, eps)
        prior_success = float(np.max(integ.prior_mass(sets)))
        lo, hi = s.min(), s.max()
        mids = (s[:, None] + s[None, :]).ravel() / 2  # where symmetric guesses tie
        knots = np.unique(np.concatenate([s, mids, np.linspace(lo - 3 * b, hi + 3 * b, 2000), _far(lo, hi, b)]))

        def h(ys):
            return np.exp(np.max(integ.log_mass(ys, sets), axis=1))
    else:
        if target is not None or correct is not None:
            raise ParameterError("target and correct apply only to a prior with the discrete metric")
        integ = integrator(prior, mechanism, eps)
        q = np.asarray(prior.quantile(np.array([1e-9, 1 - 1e-9])), float)
        glo, ghi = float(q[0]), float(q[1])
        gg = np.linspace(glo, ghi, 2001)
        prior_success = float(np.max(prior.mass(gg - r, gg + r)))
        knots = np.unique(np.concatenate([np.linspace(glo - 3 * b, ghi + 3 * b, 201), _far(glo, ghi, b)]))

        def h(ys):
            lm, g = _ball_grid({"integ": integ, "r": r}, ys, glo, ghi)
            return np.exp(_parabolic_max(lm, g))
    x, w = np.polynomial.legendre.leggauss(8)
    per = max(1, n_y // (8 * (knots.size - 1)))
    edges = np.unique(np.concatenate([np.linspace(knots[i], knots[i + 1], per + 1) for i in range(knots.size - 1)]))
    left, right = edges[:-1], edges[1:]
    nodes = ((left + right)[:, None] + (right - left)[:, None] * x) / 2
    weights = ((right - left)[:, None] / 2) * w
    ys = nodes.ravel()
    success = float(np.sum(h(ys) * weights.ravel()))
    return {"success": success, "prior_success": prior_success, "advantage": success - prior_success}


def _far(lo, hi, b):
    """Knots reaching 1e6 noise scales beyond [lo, hi] (the generalised Cauchy tail is heavy)."""
    ext = b * np.geomspace(3.0, 1e6, 80)
    return np.concatenate([lo - ext, hi + ext])


def _parabolic_max(lm, g):
    """Row-wise maximum of a sampled smooth function, refined by a parabola through the peak."""
    i = np.clip(np.argmax(lm, axis=1), 1, g.size - 2)
    rows = np.arange(lm.shape[0])
    y0, y1, y2 = lm[rows, i - 1], lm[rows, i], lm[rows, i + 1]
    den = y0 - 2 * y1 + y2
    with np.errstate(invalid="ignore", divide="ignore"):
        peak = y1 - (y2 - y0) ** 2 / (8 * den)
    peak = np.where(np.isfinite(peak) & (den < 0), np.maximum(peak, y1), y1)
    return np.maximum(peak, np.max(lm, axis=1))


@dataclass(frozen=True)
class AttackerEstimate:
    """A Monte Carlo estimate of the Bayes attacker's success, with a Wilson interval."""

    success: float
    low: float
    high: float
    n: int
    prior_success: float
    advantage: float
    advantage_low: float
    advantage_high: float


def _wilson(k, n, z):
    ph = k / n
    den = 1 + z * z / n
    c = (ph + z * z / (2 * n)) / den
    h = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / den
    return c - h, c + h


def _sample_prior(prior, n, rng):
    if isinstance(prior, Categorical):
        return rng.choice(len(prior.values), size=n, p=prior.probs)
    if isinstance(prior, Normal):
        return prior.mu + prior.sigma * rng.standard_normal(n)
    return np.asarray(prior.quantile(rng.random(n)), float)


def monte_carlo_attacker(prior: Prior, mechanism: Mechanism, *, epsilon: float, r: float, n: int = 20000,
                         seed: int = 0, target: Any = None, correct: Callable | None = None,
                         confidence: float = 0.99) -> AttackerEstimate:
    r"""Simulate the Bayes-optimal attacker and estimate its success with a Wilson interval.

    Draws the attribute from the prior, releases it through ``mechanism`` (numpy Generator,
    ``seed``), lets the attacker guess the centre of the ball of radius ``r`` with the largest
    posterior mass (exactly over the candidate balls of a finite prior, on a grid of 401
    centres refined by a parabola for a continuous prior), and counts the correct guesses.
    Compare with :func:`bayes_attacker_success`.

    Examples
    --------
    The interval covers the exact success :math:`1 - e^{-\epsilon/2}/2` of
    :func:`bayes_attacker_success`:

    >>> import math
    >>> from garesearch.mechanisms import Laplace
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> est = monte_carlo_attacker(coin, Laplace(), epsilon=1.0, r=0, n=5000, seed=1)
    >>> est.low < 1 - math.exp(-0.5) / 2 < est.high
    True
    """
    from scipy.stats import norm

    check_additive(mechanism)
    check_exact_args(epsilon, "both")
    if not (isinstance(n, (int, np.integer)) and n > 0):
        raise ParameterError(f"n must be a positive integer; got {n!r}")
    eps = float(epsilon)
    rng = np.random.default_rng(seed)
    draw = _sample_prior(prior, n, rng)
    if isinstance(prior, Categorical):
        s = _outputs(prior, target)
        ys = mechanism.sample(s[draw], eps, rng)
        _, sets = _guess_sets(prior, r, correct, target)
        integ = Atoms(s, prior.probs, mechanism, eps)
        best = np.argmax(integ.log_mass(ys, sets), axis=1)
        hits = sets[best, draw]
        prior_success = float(np.max(integ.prior_mass(sets)))
    else:
        ys = mechanism.sample(draw, eps, rng)
        integ = integrator(prior, mechanism, eps)
        q = np.asarray(prior.quantile(np.array([1e-9, 1 - 1e-9])), float)
        g = np.linspace(q[0], q[1], 401)
        lm = integ.log_mass(ys, (g - r, g + r))
        i = np.clip(np.argmax(lm, axis=1), 1, g.size - 2)
        rows = np.arange(n)
        y0, y1, y2 = lm[rows, i - 1], lm[rows, i], lm[rows, i + 1]
        den = y0 - 2 * y1 + y2
        with np.errstate(invalid="ignore", divide="ignore"):
            shift = np.where(den < 0, 0.5 * (y0 - y2) / den, 0.0)
        guess = g[i] + np.clip(np.nan_to_num(shift), -1, 1) * (g[1] - g[0])
        hits = np.abs(draw - guess) <= r
        gg = np.linspace(q[0], q[1], 2001)
        prior_success = float(np.max(prior.mass(gg - r, gg + r)))
    k = int(np.sum(hits))
    z = float(norm.ppf(0.5 + confidence / 2))
    lo, hi = _wilson(k, n, z)
    return AttackerEstimate(success=k / n, low=lo, high=hi, n=n, prior_success=prior_success,
                            advantage=k / n - prior_success, advantage_low=lo - prior_success,
                            advantage_high=hi - prior_success)
