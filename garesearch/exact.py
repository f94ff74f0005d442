r"""The exact guessing advantage of a real mechanism, and how tight the paper's bound is.

Eq. (main) (Sec. 3.2, 4.1) bounds the advantage of *every* :math:`\epsilon`-DP mechanism.  Here
the mechanism is fixed (:mod:`garesearch.mechanisms`) and the attacker's posterior is computed
exactly (Sec. 3.2, first display):

.. math::

    \Pr_{post}[X' \mid y] = \frac{\int_{X'} f(y \mid x)\, d\pi(x)}{\int f(y \mid x)\, d\pi(x)},
    \qquad X' = \mathcal B(t, r),

for the query output :math:`s(x)`: the attribute itself (identity; a SUM whose other terms the
attacker knows differs from it by a known constant) for a numeric prior, and
:math:`s(x) = 1\{x \in T\}` (a COUNT of the rows whose value lies in a target set ``T``) for a
prior with the discrete metric.  The advantage of Def. 7 at true value ``t`` is
:math:`\sup_y |\Pr_{post}[X' \mid y] - \Pr_{pre}[X']|`; :func:`exact_advantage` takes the
supremum over ``y`` (the limits :math:`y \to \pm\infty` included, derived analytically) and,
when ``t`` is not given, over ``t``.

Integrals are closed forms where they exist: finite priors (sums), piecewise-uniform priors
(the noise CDFs), a Normal prior with Laplace noise (Gaussian CDFs of the prior tilted by
:math:`e^{\pm\epsilon x}`) or with Gaussian noise (a normal posterior).  Otherwise (a Normal
prior with generalised Cauchy noise, :class:`~garesearch.priors.Continuous`) they are computed
in log space by composite Gauss-Legendre quadrature split at the kinks, with an error estimate
from halving the nodes; with Laplace noise a :class:`~garesearch.priors.Continuous` prior uses
its tilted masses (:meth:`~garesearch.priors.Prior.log_tilted_mass`), accurate far into its tails.

The worst true value (``t=None``) is searched over :meth:`~garesearch.priors.Prior.t_candidates`
(unbounded tails down to mass 1e-30) and, for Laplace noise on an unbounded support, the limit
as ``t`` goes to each infinite end (:func:`_laplace_far_tail`: :math:`1 - e^{-\epsilon r}` for
a tail heavier than every exponential, so that :func:`exact_epsilon` is then at most
:math:`-\ln(1 - \delta)/r`).

Limits of the posterior as :math:`y \to \pm\infty`:

- Laplace: the likelihood ratio of ``x`` to ``x'`` tends to :math:`e^{\pm\epsilon(x - x')}`, so
  the posterior tends to the prior tilted by :math:`e^{\pm\epsilon x}` (for a Normal prior the
  tilt is :math:`\mathcal N(\mu \pm \epsilon\sigma^2, \sigma^2)`; where the tilt diverges the
  posterior of a bounded set tends to 0).  For a prior with bounded support the posterior is
  constant beyond the support.
- Gaussian: the ratio tends to 0 or infinity; the posterior piles up at the end of the support
  (1 if :math:`X'` holds that end, else 0; 0 for a Normal prior).  So the worst-case advantage
  of Gaussian noise is large for every noise scale: it is not :math:`\epsilon`-DP, and Def. 7's
  supremum over outputs sees that.
- Generalised Cauchy: the ratio tends to 1 and the posterior to the prior (priors with a finite
  fourth moment), so the far tails leak nothing.

For Laplace noise on a finite prior the posterior between two neighbouring atoms has the form
:math:`(\alpha u^2 + \beta)/(\gamma u^2 + \kappa)` with :math:`u = e^{\epsilon y}`, monotone in
``y``: its extremes lie at the atoms or at :math:`\pm\infty`, which :func:`exact_advantage`
evaluates exactly.

For Laplace noise and an interval :math:`X' = [l, h]` under any prior, write the posterior as
:math:`1/(1 + O(y)/N(y))` with :math:`N` the integral over :math:`X'` and :math:`O` over the
rest.  For :math:`y \le l`, :math:`N \propto e^{\epsilon y}` and the posterior increases; for
:math:`y \ge h` it decreases; on :math:`[l, h]`, :math:`O'' = \epsilon^2 O` and
:math:`N'' = \epsilon^2 N - 2\epsilon\pi(y)`, so :math:`W = O'N - ON'` has
:math:`W' = 2\epsilon\pi(y) O \ge 0` and :math:`W = 2\epsilon(B_- C(y) - B_+ E(y))` with
:math:`C(y) = \int_l^y e^{\epsilon x} d\pi`, :math:`E(y) = \int_y^h e^{-\epsilon x} d\pi`,
:math:`B_+ = \int_{x<l} e^{\epsilon x} d\pi`, :math:`B_- = \int_{x>h} e^{-\epsilon x} d\pi`.
The posterior is therefore unimodal in ``y``: its supremum is at the root of
:math:`B_- C(y) = B_+ E(y)` in :math:`[l, h]`, its infimum is the smaller of the limits at
:math:`\pm\infty`.  For a Normal prior (tilted normals) and a piecewise-uniform prior (sums of
exponentials) :math:`C`, :math:`E`, :math:`B_\pm` are closed forms: the root is bracketed for all
true values at once, so the worst case needs no grid of outputs.  Elsewhere the supremum is
bracketed on a grid of outputs and refined by Brent's method.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InfeasibleError, ParameterError
from .mechanisms import GenCauchy, Laplace, Mechanism, RandomizedResponse
from .priors import Categorical, Continuous, Normal, PiecewiseUniform, Prior, Uniform
from .tilted import log_diff_exp

__all__ = [
    "AttackerEstimate",
    "EpsilonComparison",
    "ExactAdvantage",
    "bayes_attacker_success",
    "compare_epsilons",
    "comparison_table",
    "exact_advantage",
    "exact_epsilon",
    "format_comparison",
    "log_ndtr_diff",
    "monte_carlo_attacker",
    "or_event",
    "posterior",
    "soundness_counterexamples",
    "soundness_search",
]

_GL_NODES = 24
_GL_TOL = 1e-7


def _lse(a, axis):
    """log-sum-exp along ``axis`` that returns ``-inf`` for all ``-inf`` inputs."""
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def log_ndtr_diff(a, b):
    r""":math:`\ln(\Phi(b) - \Phi(a))` for ``a <= b``, stable in both tails (``-inf`` if
    ``b <= a``; the normal masses of Sec. 4.1, beyond the paper in log space).

    Examples
    --------
    >>> round(float(log_ndtr_diff(40.0, 41.0)), 3)
    -804.608
    """
    from scipy.special import log_ndtr

    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    up = a > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(up, log_diff_exp(log_ndtr(-a), log_ndtr(-b)), log_diff_exp(log_ndtr(b), log_ndtr(a)))
    return np.where(b > a, out, -np.inf)


_log_ndtr_diff = log_ndtr_diff  # former private name


# ------------------------------------------------------------------------------------------
# Integrators: log of  int_{set} f(y | s(x)) dpi(x), vectorised over outputs and sets.
# A "set" is a boolean mask over atoms (finite priors) or an interval (lo, hi).
# ------------------------------------------------------------------------------------------
class _Atoms:
    exact_laplace = True

    def __init__(self, s, w, mech, eps):
        self.s, self.logw = np.asarray(s, float), np.log(np.asarray(w, float))
        self.w = np.asarray(w, float)
        self.mech, self.eps = mech, eps

    def _lf(self, ys):
        return self.mech.log_density(np.asarray(ys, float)[:, None], self.s[None, :], self.eps) + self.logw

    def log_mass(self, ys, sets):
        lf = self._lf(ys)  # (ny, k)
        return _lse(np.where(sets[None, :, :], lf[:, None, :], -np.inf), axis=2)

    def log_total(self, ys):
        return _lse(self._lf(ys), axis=1)

    def prior_mass(self, sets):
        return sets.astype(float) @ self.w

    def limit(self, sign, sets):
        lw = self.logw + self.mech.limit_logweights(self.s, sign, self.eps)
        tot = _lse(lw[None, :], axis=1)
        return np.exp(_lse(np.where(sets, lw[None, :], -np.inf), axis=1) - tot)

    def y_grid(self, scale):
        u = np.unique(self.s)
        lo, hi = u[0], u[-1]
        ext = scale * np.geomspace(0.01, 60.0, 24)
        mids = (u[:-1] + u[1:]) / 2 if u.size > 1 else np.empty(0)
        dense = np.linspace(lo - 3 * scale, hi + 3 * scale, 121)
        return np.unique(np.concatenate([u, mids, lo - ext, hi + ext, dense]))


class _Segments:
    """Piecewise-uniform prior: closed form through the noise's interval probabilities."""

    def __init__(self, prior: PiecewiseUniform, mech, eps):
        keep = prior.weights > 0
        self.a, self.b = prior.edges[:-1][keep], prior.edges[1:][keep]
        self.logd = np.log(prior.density[keep])
        self.support = (float(self.a[0]), float(self.b[-1]))
        self.rate = 1.0 / mech.scale(eps)
        self.prior, self.mech, self.eps = prior, mech, eps

    def log_mass(self, ys, sets):
        lo, hi = sets
        A = np.maximum(self.a[None, :], np.asarray(lo, float)[:, None])  # (nt, nb)
        B = np.minimum(self.b[None, :], np.asarray(hi, float)[:, None])
        y = np.asarray(ys, float)[:, None, None]
        li = self.mech.log_interval(y - B[None], y - A[None], self.eps) + self.logd
        return _lse(li, axis=2)

    def log_total(self, ys):
        return self.log_mass(ys, (np.array([self.a[0]]), np.array([self.b[-1]])))[:, 0]

    def log_mass_pairs(self, y, lo, hi):
        """``log_mass`` for the pairs ``(y[i], [lo[i], hi[i]])`` (1-d arrays of one length)."""
        A = np.maximum(self.a[None, :], lo[:, None])
        B = np.minimum(self.b[None, :], hi[:, None])
        li = self.mech.log_interval(y[:, None] - B, y[:, None] - A, self.eps) + self.logd
        return _lse(li, axis=1)

    def log_tilt(self, sign, lo, hi, c):
        r""":math:`\ln \int_{lo}^{hi} e^{\pm(x - c)/b} d\pi(x)`, segment by segment (arrays broadcast)."""
        kap = sign * self.rate
        lo, hi, c = (np.asarray(v, float)[..., None] for v in np.broadcast_arrays(lo, hi, c))
        A, B = np.maximum(self.a, lo), np.minimum(self.b, hi)
        end = B if kap > 0 else A
        with np.errstate(divide="ignore", invalid="ignore"):
            seg = kap * (end - c) + np.log(-np.expm1(-abs(kap) * (B - A))) - math.log(abs(kap)) + self.logd
        return _lse(np.where(B > A, seg, -np.inf), axis=-1)

    def prior_mass(self, sets):
        return np.asarray(self.prior.mass(*sets), float)

    def limit(self, sign, sets):
        lo, hi = (np.asarray(v, float) for v in sets)
        top = self.b[-1] if sign > 0 else self.a[0]
        if self.mech.tail == "exponential":  # constant beyond the support
            y = np.array([top + sign * self.mech.scale(self.eps)])
            return np.exp(self.log_mass(y, sets)[0] - self.log_total(y)[0])
        if self.mech.tail == "light":
            inside = (lo < top) & (top <= hi) if sign > 0 else (lo <= top) & (top < hi)
            return inside.astype(float)
        return self.prior_mass(sets)

    def quantile(self, u):
        return self.prior.quantile(u)


class _NormalClosed:
    """Normal prior with Laplace noise (tilted-normal CDFs) or Gaussian noise (normal posterior)."""

    def __init__(self, prior: Normal, mech, eps):
        self.mu, self.sig = prior.mu, prior.sigma
        self.prior, self.mech, self.eps = prior, mech, eps
        self.b = mech.scale(eps)
        self.rate = 1.0 / self.b
        self.support = (-math.inf, math.inf)

    def log_mass_pairs(self, y, lo, hi):
        """``log_mass`` for the pairs ``(y[i], [lo[i], hi[i]])`` (arrays of one shape)."""
        return self._log_mass_pairs(y, lo, hi)

    def log_tilt(self, sign, lo, hi, c):
        r""":math:`\ln \int_{lo}^{hi} e^{\pm(x - c)/b} d\pi(x)`: the prior tilted by
        :math:`e^{\pm x/b}` is :math:`\mathcal N(\mu \pm \sigma^2/b, \sigma^2)`."""
        k, mu, s = sign / self.b, self.mu, self.sig
        m = mu + k * s * s
        return k * (mu - c) + 0.5 * (k * s) ** 2 + _log_ndtr_diff((lo - m) / s, (hi - m) / s)

    def _log_mass_pairs(self, y, lo, hi):
        mu, s, b = self.mu, self.sig, self.b
        if self.mech.tail == "exponential":  # Laplace with rate 1/b
            k = 1.0 / b
            c = math.log(k / 2) + 0.5 * (k * s) ** 2
            up = np.minimum(hi, y)  # part x < y: e^{-k(y - x)}
            a1 = c - k * (y - mu) + _log_ndtr_diff((lo - mu - k * s * s) / s, (up - mu - k * s * s) / s)
            dn = np.maximum(lo, y)  # part x > y: e^{-k(x - y)}
            a2 = c + k * (y - mu) + _log_ndtr_diff((dn - mu + k * s * s) / s, (hi - mu + k * s * s) / s)
            return np.logaddexp(a1, a2)
        v = s * s + b * b  # Gaussian noise
        m = (mu * b * b + y * s * s) / v
        sd = s * b / math.sqrt(v)
        log_marg = -0.5 * (y - mu) ** 2 / v - 0.5 * math.log(2 * math.pi * v)
        return log_marg + _log_ndtr_diff((lo - m) / sd, (hi - m) / sd)

    def log_mass(self, ys, sets):
        lo, hi = (np.asarray(v, float)[None, :] for v in sets)
        y = np.asarray(ys, float)[:, None]
        return self._log_mass_pairs(y, lo, hi)

    def log_total(self, ys):
        y = np.asarray(ys, float)
        return self._log_mass_pairs(y, -np.inf * np.ones_like(y), np.inf * np.ones_like(y))

    def prior_mass(self, sets):
        return np.asarray(self.prior.mass(*sets), float)

    def limit(self, sign, sets):
        lo, hi = (np.asarray(v, float) for v in sets)
        if self.mech.tail == "exponential":
            m = self.mu + sign * self.sig**2 / self.b
            return np.exp(_log_ndtr_diff((lo - m) / self.sig, (hi - m) / self.sig))
        return np.zeros_like(lo)

    def quantile(self, u):
        return self.prior.quantile(u)


class _Tilted:
    r"""Laplace noise on a prior with tilted tails (:meth:`~garesearch.priors.Prior.log_tilted_tail`):
    every mass is a tilted mass of the prior, accurate in log space far into its tails.

    With rate :math:`k = 1/b`, :math:`\int_{[lo, hi]} f(y|x)\,d\pi = \frac k2\big(\int_{[lo,
    \min(hi, y)]} e^{k(x - y)} d\pi + \int_{[\max(lo, y), hi]} e^{-k(x - y)} d\pi\big)`,
    both anchored at ``y``.
    """

    def __init__(self, prior: Prior, mech, eps):
        self.prior, self.mech, self.eps = prior, mech, eps
        self.b = mech.scale(eps)
        self.rate = 1.0 / self.b
        self.support = prior.support
        self._log_half_rate = math.log(0.5 * self.rate)

    def log_tilt(self, sign, lo, hi, c):
        r""":math:`\ln \int_{lo}^{hi} e^{\pm(x - c)/b} d\pi(x)` (arrays broadcast)."""
        return self.prior.log_tilted_mass(sign * self.rate, lo, hi, c)

    def log_tails(self, lo, hi, c, c_end=None, e_end=None):
        r"""For :func:`_laplace_argmax`: without ``c_end``, the tails at the ends,
        :math:`\ln\int_{x < lo} e^{k(x - c)} d\pi` and :math:`\ln\int_{x > hi} e^{-k(x - c)}
        d\pi`; with them (``lo = hi = y``), :math:`\ln C(y) = \ln\int_{[l, y]} e^{k(x - c)}
        d\pi` and :math:`\ln E(y) = \ln\int_{[y, h]} e^{-k(x - c)} d\pi` as differences of
        decaying tilted tails (one evaluation of each per step)."""
        k = self.rate
        with np.errstate(invalid="ignore"):
            left = self.prior.log_tilted_tail(k, lo, "left") + k * (lo - c)
            right = self.prior.log_tilted_tail(-k, hi, "right") - k * (hi - c)
            if c_end is None:
                return left, right
            return (log_diff_exp(left, np.minimum(c_end, left)),
                    log_diff_exp(right, np.minimum(e_end, right)))

    def log_mass_pairs(self, y, lo, hi):
        """``log_mass`` for the pairs ``(y[i], [lo[i], hi[i]])`` (arrays of one shape)."""
        low, high = self.support
        y, lo, hi = np.broadcast_arrays(*(np.asarray(v, float) for v in (y, lo, hi)))
        lo, hi = np.maximum(lo, low), np.minimum(hi, high)
        k = self.rate
        with np.errstate(invalid="ignore"):
            below = self.prior.log_tilted_mass(k, lo, np.minimum(hi, y), y)
            above = self.prior.log_tilted_mass(-k, np.maximum(lo, y), hi, y)
            out = self._log_half_rate + np.logaddexp(below, above)
        return np.where(hi >= lo, out, -np.inf)

    def log_mass(self, ys, sets):
        lo, hi = (np.asarray(v, float)[None, :] for v in sets)
        y = np.asarray(ys, float)[:, None]
        return self.log_mass_pairs(y, lo, hi)

    def log_total(self, ys):
        y = np.asarray(ys, float)
        k = self.rate
        with np.errstate(invalid="ignore"):
            return self._log_half_rate + np.logaddexp(self.prior.log_tilted_tail(k, y, "left"),
                                                      self.prior.log_tilted_tail(-k, y, "right"))

    def prior_mass(self, sets):
        return np.asarray(self.prior.mass(*sets), float)

    def limit(self, sign, sets):
        r"""The prior tilted by :math:`e^{\pm x/b}` (module docstring); 0 where that tilt
        diverges (a tail heavier than the noise)."""
        lo, hi = (np.asarray(v, float) for v in sets)
        low, high = self.support
        lo_c, hi_c = np.maximum(lo, low), np.minimum(hi, high)
        c = np.where(hi_c >= lo_c, 0.5 * (lo_c + hi_c), lo_c)
        k = sign * self.rate
        with np.errstate(invalid="ignore", over="ignore"):
            part = self.prior.log_tilted_mass(k, lo_c, hi_c, c)
            total = np.logaddexp(self.prior.log_tilted_tail(k, c, "left"),
                                 self.prior.log_tilted_tail(k, c, "right"))
            out = np.exp(np.minimum(part - total, 0.0))
        return np.where(np.isposinf(total) | (hi_c < lo_c) | np.isnan(out), 0.0, out)

    def quantile(self, u):
        return self.prior.quantile(u)


class _Quadrature:
    r"""Any prior with a log-density: composite Gauss-Legendre in log space.

    The integral over ``[lo, hi]`` is split at the output ``y`` (the kink of Laplace noise), at
    ``y`` plus or minus 1, 6 and 30 noise scales and at prior quantiles; each piece gets
    :data:`_GL_NODES` nodes.  The same pieces with half the nodes give the error estimate; a
    :class:`RuntimeWarning` is issued above a relative error of :data:`_GL_TOL`.
    """

    def __init__(self, prior: Prior, mech, eps):
        self.prior, self.mech, self.eps = prior, mech, eps
        self.b = mech.scale(eps)
        if isinstance(prior, Normal):
            self.logpdf = lambda x: -0.5 * ((x - prior.mu) / prior.sigma) ** 2 - math.log(
                prior.sigma * math.sqrt(2 * math.pi)
            )
        else:
            self.logpdf = prior.dist.logpdf
        low, high = prior.support
        q = np.asarray(prior.quantile(np.array([1e-15, 1e-9, 1e-5, 1e-3, 0.05, 0.3, 0.5, 0.7, 0.95,
                                                  0.999, 1 - 1e-5, 1 - 1e-9, 1 - 1e-15])), float)
        self.anchors = q[np.isfinite(q)]
        self.lo_eff = low if np.isfinite(low) else float(self.anchors[0])
        self.hi_eff = high if np.isfinite(high) else float(self.anchors[-1])
        self.low, self.high = low, high
        x, w = np.polynomial.legendre.leggauss(_GL_NODES)
        xh, wh = np.polynomial.legendre.leggauss(_GL_NODES // 2)
        self.rules = ((x, w), (xh, wh))

    def _pairs(self, y, lo, hi, anchors=()):
        b = self.b
        span = 30 * b
        lo_c = np.maximum(lo, np.maximum(self.low, np.minimum(self.lo_eff, y - span)))
        hi_c = np.minimum(hi, np.minimum(self.high, np.maximum(self.hi_eff, y + span)))
        pts = [y + c * b for c in (-30, -6, -1, 0, 1, 6, 30)]
        pts = np.stack([lo_c, hi_c, *pts, *(np.full(y.shape, a) for a in anchors)], -1)
        pts = np.sort(np.clip(pts, lo_c[..., None], hi_c[..., None]), axis=-1)
        left, right = pts[..., :-1], pts[..., 1:]
        res = []
        for x, w in self.rules:
            half = (right - left)[..., None] / 2
            nodes = ((left + right)[..., None] / 2) + half * x
            with np.errstate(divide="ignore", invalid="ignore"):
                lv = (self.logpdf(nodes) + self.mech.log_density(y[..., None, None], nodes, self.eps)
                      + np.log(half * w))
            lv = np.where(half > 0, lv, -np.inf)
            res.append(_lse(lv.reshape(*lv.shape[:-2], -1), axis=-1))
        fine, coarse = res
        with np.errstate(invalid="ignore"):
            err = np.abs(np.expm1(coarse - fine))
        err = np.where(np.isfinite(fine), err, 0.0)
        if np.any(err > _GL_TOL):
            warnings.warn(
                f"quadrature relative error estimate {np.nanmax(err):.2g} exceeds {_GL_TOL}",
                RuntimeWarning,
                stacklevel=3,
            )
        return np.where(hi_c > lo_c, fine, -np.inf)

    def log_mass(self, ys, sets):
        lo, hi = (np.asarray(v, float) for v in sets)
        y = np.asarray(ys, float)
        Y, LO, HI = np.broadcast_arrays(y[:, None], lo[None, :], hi[None, :])
        wide = np.any(HI - LO > 0.5 * (self.hi_eff - self.lo_eff))
        return self._pairs(Y, LO, HI, self.anchors if wide else ())

    def log_total(self, ys):
        y = np.asarray(ys, float)
        return self._pairs(y, np.full_like(y, -np.inf), np.full_like(y, np.inf), self.anchors)

    def prior_mass(self, sets):
        return np.asarray(self.prior.mass(*sets), float)

    def _tilt(self, sign, lo, hi):
        from scipy.integrate import quad

        k = sign / self.b
        ref = float(self.prior.quantile(0.5))
        f = lambda x: math.exp(k * (x - ref) + float(self.logpdf(x)))  # noqa: E731
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tot = quad(f, self.low, self.high, limit=400, epsrel=1e-11)[0]
            except OverflowError:
                return 0.0
            if not math.isfinite(tot):
                return 0.0
            lo_c, hi_c = max(lo, self.low), min(hi, self.high)
            return quad(f, lo_c, hi_c, limit=200, epsrel=1e-11)[0] / tot if hi_c > lo_c else 0.0

    def limit(self, sign, sets):
        lo, hi = (np.asarray(v, float) for v in sets)
        end = self.high if sign > 0 else self.low
        tail = self.mech.tail
        if tail == "exponential":
            return np.array([self._tilt(sign, a, c) for a, c in zip(lo, hi, strict=True)])
        if tail == "light" and math.isfinite(end):
            return ((lo < end) & (end <= hi) if sign > 0 else (lo <= end) & (end < hi)).astype(float)
        if tail == "heavy" and (isinstance(self.prior, Normal) or _finite_fourth_moment(self.prior)):
            return self.prior_mass(sets)
        if tail == "light" and isinstance(self.prior, Normal):
            return np.zeros_like(lo)
        # no analytic limit known: evaluate far out (documented as numeric)
        y = np.array([end if math.isfinite(end) else self.anchors[-1 if sign > 0 else 0]])
        y = y + sign * 200 * self.b
        return np.exp(self.log_mass(y, sets)[0] - self.log_total(y)[0])

    def quantile(self, u):
        return self.prior.quantile(u)


def _finite_fourth_moment(prior) -> bool:
    try:
        m = float(prior.dist.moment(4))
    except Exception:
        return False
    return math.isfinite(m)


# ------------------------------------------------------------------------------------------
# The problem: prior + mechanism + query + the candidate true values and their sets X'.
# ------------------------------------------------------------------------------------------
@dataclass
class _Problem:
    integ: Any
    ts: list
    sets: Any  # (nt, k) masks or (lo, hi) arrays
    p: np.ndarray
    finite: bool
    continuous_t: bool
    scale: float
    make_set: Callable | None = None  # t -> set, for refining t
    far: Callable | None = None  # () -> (upper advantage as t -> an unbounded end, that end)

    def subset(self, idx):
        idx = np.atleast_1d(idx)
        sets = self.sets[idx] if self.finite else (self.sets[0][idx], self.sets[1][idx])
        return sets, self.p[idx], [self.ts[i] for i in idx]


def _integrator(prior, mech, eps, s=None, w=None):
    if s is not None:
        return _Atoms(s, w, mech, eps)
    if isinstance(prior, PiecewiseUniform):
        return _Segments(prior, mech, eps)
    if isinstance(prior, Normal) and mech.tail in ("exponential", "light"):
        return _NormalClosed(prior, mech, eps)
    if isinstance(prior, Continuous) and isinstance(mech, Laplace):
        return _Tilted(prior, mech, eps)
    if isinstance(prior, (Normal, Continuous)):
        return _Quadrature(prior, mech, eps)
    raise ParameterError(f"prior: unsupported prior type {type(prior).__name__}")


def _as_set(values, target, name):
    if target is None:
        return None
    if isinstance(target, (str, tuple)) or not isinstance(target, Iterable):
        target = [target]
    target = list(target)
    for v in target:
        if v not in values:
            raise ParameterError(f"{name}: {v!r} is not a value of the prior; values: {values}")
    return target


def _problem(prior, mech, eps, r, t, target, correct) -> _Problem:
    if not isinstance(prior, Prior):
        raise ParameterError(f"prior must be a garesearch.priors.Prior; got {type(prior).__name__}")
    if not isinstance(mech, Mechanism):
        raise ParameterError(f"mechanism must be a garesearch.mechanisms.Mechanism; got {mech!r}")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    scale = mech.scale(eps)
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return _discrete_problem(prior, mech, eps, r, t, target, correct, scale)
    if target is not None or correct is not None:
        raise ParameterError("target and correct apply only to a prior with the discrete metric")
    if isinstance(prior, Categorical):
        integ = _integrator(prior, mech, eps, s=prior._x, w=prior.probs)
        ts, sets, make_set = _finite_sets(prior, r, t, None)
        return _Problem(integ, ts, sets, integ.prior_mass(sets), True, False, scale, make_set)
    integ = _integrator(prior, mech, eps)
    far = None
    if t is None:
        ts = prior.t_candidates(r)
        if isinstance(prior, PiecewiseUniform):  # kinks of the advantage in t: t +- r on an edge
            low, high = prior.support
            kinks = np.concatenate([prior.edges - r, prior.edges + r])
            ts = np.unique(np.concatenate([ts, kinks[(kinks >= low) & (kinks <= high)]]))
        if isinstance(integ, _Tilted):
            ts = _resolvable(prior, r, ts)
            far = lambda: _laplace_far_tail(prior, integ.rate, r)  # noqa: E731
        ts = [float(v) for v in ts]
    else:
        ts = [_check_t(prior, t)]
    arr = np.asarray(ts, float)
    sets = (arr - r, arr + r)
    return _Problem(integ, ts, sets, integ.prior_mass(sets), False, t is None, scale,
                    lambda tt: (np.array([tt - r]), np.array([tt + r])), far)


def _resolvable(prior, r, ts):
    """The true values of an unbounded tail at which float64 still resolves the ball (a
    spacing of at most 1e-8 r); beyond them :func:`_laplace_far_tail` stands in."""
    low, high = prior.support
    q_lo, q_hi = (float(v) for v in prior.quantile(np.array([1e-3, 1 - 1e-3])))
    coarse = np.spacing(np.abs(ts)) > 1e-8 * r
    far = ((ts > q_hi) & math.isinf(high)) | ((ts < q_lo) & math.isinf(low))
    return ts[~(coarse & far)]


def _laplace_far_tail(prior, rate, r):
    r"""The Laplace mechanism's upper advantage as ``t`` goes to an unbounded end of the
    support: ``(value, end)`` (beyond the paper).

    Where the density behaves locally like :math:`e^{-\lambda u}` (``u`` toward the end),
    the output :math:`y = c = t + \lambda r/k` (``k = 1/b``) gives, in the limit, outside
    weight over total :math:`\frac{k+\lambda}{2k} e^{-(k-\lambda)s} + \frac{k-\lambda}{2k}
    e^{-(k+\lambda)(2r-s)}` with :math:`s = c - (t - r)`, smallest at :math:`s = r(k +
    \lambda)/k`, so the posterior of :math:`\mathcal B(t, r)` tends to :math:`1 -
    e^{-r(k^2 - \lambda^2)/k}` for :math:`k > \lambda` (0 otherwise: the bulk's weight
    dominates) while :math:`p_t \to 0`.  The lower side tends to 0: :math:`p_t - \inf_y
    \Pr_{post} \in [0, p_t]`.  ``lambda`` comes from
    :meth:`~garesearch.priors.Continuous.tail_class` (conservative: a heavier tail is never
    taken for a lighter one; the value decreases with ``lambda``).
    """
    best = (-math.inf, None)
    for end, side in ((prior.support[0], "left"), (prior.support[1], "right")):
        if math.isfinite(end):
            continue
        kind, lam = prior.tail_class(side)
        lam = 0.0 if kind == "heavy" else float(lam)
        val = 0.0 if kind == "light" or not rate > lam else -math.expm1(-r * (rate - lam) * (rate + lam) / rate)
        if val > best[0]:
            best = (val, end)
    return best


def _finite_sets(prior: Categorical, r, t, correct):
    """True values of a finite prior, their masks of correct guesses X', and t -> mask."""
    values = prior.values
    if prior.metric == "discrete":
        if r >= 1:
            raise ParameterError(f"r must be < 1 under the discrete metric (r >= 1 makes every guess correct); got r={r}")
        if t is None:
            ts = list(values)
        else:
            prior.probability(t)
            ts = [t]

        def make_set(tt):
            members = [tt] if correct is None else _as_set(values, correct(tt), "correct(t)")
            return np.array([v in members for v in values])
    else:
        if correct is not None:
            raise ParameterError("correct applies only to a prior with the discrete metric")
        x = prior._x
        ts = list(x) if t is None else [_check_t(prior, t)]

        def make_set(tt):
            return np.abs(x - tt) <= r

    return ts, np.array([make_set(tt) for tt in ts]), make_set


def _discrete_problem(prior, mech, eps, r, t, target, correct, scale):
    ts, sets, make_set = _finite_sets(prior, r, t, correct)
    values = prior.values
    tgt = _as_set(values, target, "target")
    if tgt is None:
        raise ParameterError(
            "target: a prior with the discrete metric is released through a COUNT of the rows whose "
            "value lies in the target set; pass target=<value or collection of values> "
            "(exact_advantage with target=None takes the worst single-value target)"
        )
    s = np.array([1.0 if v in tgt else 0.0 for v in values])
    integ = _integrator(prior, mech, eps, s=s, w=prior.probs)
    return _Problem(integ, ts, sets, integ.prior_mass(sets), True, False, scale, make_set)


def _check_t(prior, t):
    if not isinstance(t, (int, float, np.integer, np.floating)) or not math.isfinite(t):
        raise ParameterError(f"t must be a finite number; got {t!r}")
    if isinstance(prior, Categorical):
        if not np.any(prior._x == t):
            raise ParameterError(f"t must be a value of the prior; got {t}, values {prior.values}")
        return float(t)
    low, high = prior.support
    if not low <= t <= high:
        raise ParameterError(f"t must lie in the prior's support [{low}, {high}]; got {t}")
    return float(t)


# ------------------------------------------------------------------------------------------
# Suprema over outputs.
# ------------------------------------------------------------------------------------------
def _post(integ, ys, sets):
    ys = np.asarray(ys, float)
    return np.exp(integ.log_mass(ys, sets) - integ.log_total(ys)[:, None])


def _y_grid(pb: _Problem):
    integ = pb.integ
    if isinstance(integ, _Atoms):
        if integ.exact_laplace and isinstance(integ.mech, Laplace):
            return np.unique(integ.s), True
        return integ.y_grid(pb.scale), False
    u = np.concatenate([[1e-12, 1e-9, 1e-6], np.linspace(1e-4, 1 - 1e-4, 81), [1 - 1e-6, 1 - 1e-9, 1 - 1e-12]])
    q = np.asarray(integ.quantile(u), float)
    lo, hi = q[0], q[-1]
    ext = pb.scale * np.geomspace(0.01, 60.0, 24)
    ts = np.asarray(pb.ts, float) if not pb.finite else np.empty(0)
    dense = np.linspace(lo - 3 * pb.scale, hi + 3 * pb.scale, 121)
    return np.unique(np.concatenate([q, lo - ext, hi + ext, dense, ts])), False


def _laplace_closed(pb: _Problem) -> bool:
    """Laplace noise on a prior whose tilted masses have closed forms (Normal, piecewise uniform)."""
    return isinstance(pb.integ.mech, Laplace) and hasattr(pb.integ, "log_tilt")


def _laplace_argmax(integ, lo, hi, tol=1e-10):
    r"""The output maximising the Laplace posterior of :math:`[lo, hi]`, per set (1-d arrays).

    With :math:`k = 1/b`, :math:`l, h` the ends of :math:`X'` cut to the support and
    :math:`C(y) = \int_{[l, y]} e^{kx} d\pi`, :math:`E(y) = \int_{(y, h]} e^{-kx} d\pi`,
    :math:`B_+ = \int_{x < l} e^{kx} d\pi`, :math:`B_- = \int_{x > h} e^{-kx} d\pi`, the
    posterior is :math:`1/(1 + O/N)` with :math:`O = e^{-ky} B_+ + e^{ky} B_-` on
    :math:`[l, h]`, and :math:`O'N - ON' = 2k(B_- C(y) - B_+ E(y))`, increasing in ``y``.  The
    maximiser is the root of :math:`\ln C + \ln B_- = \ln E + \ln B_+` in :math:`[l, h]`
    (``l`` if :math:`B_+ = 0`, ``h`` if :math:`B_- = 0`), found for all sets at once by the
    Illinois variant of regula falsi on that increasing function (bisection while an end of
    the bracket is infinite) until the bracket is below ``tol`` noise scales: the posterior is
    stationary at the root, so its value there is exact to rounding.
    """
    low, high = integ.support
    lo_c, hi_c = np.maximum(lo, low), np.minimum(hi, high)
    c = np.where(hi_c >= lo_c, (lo_c + hi_c) / 2, lo_c)  # keeps the tilts in range
    inf = np.full(lo_c.shape, np.inf)
    b_plus = integ.log_tilt(+1, -inf, lo_c, c)
    b_minus = integ.log_tilt(-1, hi_c, inf, c)
    a, z = lo_c.copy(), np.maximum(hi_c, lo_c)
    ga, gz = np.full(a.shape, -np.inf), np.full(a.shape, np.inf)
    last = np.zeros(a.shape, dtype=int)  # which end moved last (-1: a, +1: z)
    step = tol / integ.rate
    tails = getattr(integ, "log_tails", None)
    if tails is not None:  # C and E from one tail each per step (the ends' tails once)
        c_end, e_end = tails(lo_c, hi_c, c)

    def G(x, i):
        with np.errstate(invalid="ignore"):
            if tails is None:
                log_c = integ.log_tilt(+1, lo_c[i], x, c[i])
                log_e = integ.log_tilt(-1, x, hi_c[i], c[i])
            else:
                log_c, log_e = tails(x, x, c[i], c_end[i], e_end[i])
            g = log_c + b_minus[i] - log_e - b_plus[i]
        g = np.where(b_plus[i] == -np.inf, np.inf, np.where(b_minus[i] == -np.inf, -np.inf, g))
        return np.where(np.isnan(g), -np.inf, g)  # nan counts left of the root, as -inf

    for _ in range(400):
        act = np.flatnonzero(z - a > step)
        if act.size == 0:
            break
        aa, zz, fa, fz = a[act], z[act], ga[act], gz[act]
        with np.errstate(invalid="ignore", over="ignore"):
            x = zz - fz * (zz - aa) / (fz - fa)
        mid = 0.5 * (aa + zz)
        x = np.where(np.isfinite(fa) & np.isfinite(fz) & (x > aa) & (x < zz), x, mid)
        gx = G(x, act)
        left = ~(gx > 0)
        hit = gx == 0
        # Illinois: an end kept twice in a row has its value halved
        keep_z = left & (last[act] == -1)
        keep_a = ~left & (last[act] == 1)
        gz[act] = np.where(left, np.where(keep_z, 0.5 * fz, fz), gx)
        ga[act] = np.where(left, gx, np.where(keep_a, 0.5 * fa, fa))
        a[act] = np.where(left, x, aa)
        z[act] = np.where(left, zz, x)
        last[act] = np.where(left, -1, 1)
        a[act] = np.where(hit, x, a[act])
        z[act] = np.where(hit, x, z[act])
    return (a + z) / 2, lo_c, hi_c


def _laplace_extremes(integ, sets, tol=1e-10):
    r"""Exact (sup, y at sup, inf, y at inf) of the Laplace posterior of each interval set.

    The posterior increases for :math:`y \le l`, has one maximum in :math:`[l, h]`
    (:func:`_laplace_argmax`) and decreases for :math:`y \ge h`: its supremum is at the
    maximiser (the value is checked against the ends ``l`` and ``h``) and its infimum is one of
    the limits :math:`y \to \pm\infty`.
    """
    lo, hi = (np.asarray(v, float) for v in sets)
    y, lo_c, hi_c = _laplace_argmax(integ, lo, hi, tol)
    cand_y = np.stack([y, lo_c, hi_c])
    with np.errstate(invalid="ignore"):
        lp = np.stack([integ.log_mass_pairs(v, lo, hi) - integ.log_total(v) for v in cand_y])
    lp = np.where(np.isnan(lp), -np.inf, lp)
    j = np.argmax(lp, axis=0)
    cols = np.arange(lo.size)
    sup, ysup = np.exp(lp[j, cols]), cand_y[j, cols]
    lim_m, lim_p = integ.limit(-1, sets), integ.limit(+1, sets)
    inf = np.minimum(lim_m, lim_p)
    yinf = np.where(lim_m <= lim_p, -np.inf, np.inf)
    return sup, ysup, inf, yinf


def _extremes(pb: _Problem, sets, p):
    """Grid suprema: (sup post, y at sup, inf post, y at inf) per set, limits included."""
    ys, exact = _y_grid(pb)
    post = _post(pb.integ, ys, sets)
    lim_m, lim_p = pb.integ.limit(-1, sets), pb.integ.limit(+1, sets)
    allp = np.vstack([lim_m[None, :], post, lim_p[None, :]])
    ally = np.concatenate([[-np.inf], ys, [np.inf]])
    i_sup, i_inf = np.argmax(allp, axis=0), np.argmin(allp, axis=0)
    cols = np.arange(allp.shape[1])
    return allp[i_sup, cols], ally[i_sup], allp[i_inf, cols], ally[i_inf], ys, exact


def _refine_y(pb, one_set, ys, y0, sign):
    """Refine a grid extremum of the posterior in y (sign=+1: sup, -1: inf) with Brent's method."""
    from scipy.optimize import minimize_scalar

    if not np.isfinite(y0):
        return None
    j = int(np.searchsorted(ys, y0))
    a, b = ys[max(j - 1, 0)], ys[min(j + 1, ys.size - 1)]
    if not b > a:
        return None

    def f(y):
        v = float(_post(pb.integ, np.array([y]), one_set)[0, 0])
        return -sign * (v if math.isfinite(v) else (0.0 if sign > 0 else 1.0))

    res = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-8 * abs(b - a)})
    return float(res.x), -sign * float(res.fun)


@dataclass(frozen=True)
class ExactAdvantage:
    """What :func:`exact_advantage` found.

    Attributes
    ----------
    advantage : float
        :math:`\\sup_y |\\Pr_{post}[X'|y] - \\Pr_{pre}[X']|` at the worst true value (or the
        upper or lower side alone, as asked).
    t : Any
        The (worst) true value.
    y : float
        An output attaining the supremum (``inf`` or ``-inf`` for a limit; a value of the
        prior for randomized response).
    side : str
        ``"upper"`` (posterior above the prior) or ``"lower"``.
    p : float
        Prior mass :math:`\\Pr_{pre}[X']` at ``t``.
    posterior : float
        Posterior of :math:`X'` at ``y``.
    upper, lower : float
        :math:`\\sup_y \\Pr_{post} - p` and :math:`p - \\inf_y \\Pr_{post}` at ``t``.
    y_upper, y_lower : float
        Outputs attaining them.
    """

    advantage: float
    t: Any
    y: float
    side: str
    p: float
    posterior: float
    upper: float
    lower: float
    y_upper: float
    y_lower: float
    epsilon: float
    r: float
    mechanism: Mechanism = field(repr=False)


def _side_value(upper, lower, sides):
    if sides == "upper":
        return upper
    if sides == "lower":
        return lower
    return np.maximum(upper, lower)


def _evaluate_t(pb, sets, p, sides, refine=True):
    if _laplace_closed(pb):
        # refine=False: the maximiser to 1e-4 noise scales (its posterior exact to about
        # 1e-8: the maximum is flat), enough to rank the true values
        sup, ysup, inf, yinf = _laplace_extremes(pb.integ, sets, 1e-7 if refine else 1e-4)
        return sup - p, p - inf, ysup, yinf, sup, inf
    sup, ysup, inf, yinf, ys, exact = _extremes(pb, sets, p)
    if refine and not exact:
        for k in range(len(p)):
            one = sets[k:k + 1] if pb.finite else (sets[0][k:k + 1], sets[1][k:k + 1])
            r_sup = _refine_y(pb, one, ys, ysup[k], +1)
            if r_sup and r_sup[1] > sup[k]:
                ysup[k], sup[k] = r_sup
            r_inf = _refine_y(pb, one, ys, yinf[k], -1)
            if r_inf and r_inf[1] < inf[k]:
                yinf[k], inf[k] = r_inf
    upper, lower = sup - p, p - inf
    return upper, lower, ysup, yinf, sup, inf


def _advantage(pb: _Problem, eps, sides, refine=True):
    """Worst true value: (index or refined t, ExactAdvantage fields)."""
    first = _evaluate_t(pb, pb.sets, pb.p, sides, refine=False)
    val = _side_value(first[0], first[1], sides)
    order = np.argsort(-val)
    top = order[: (3 if refine else 1)]
    sets, p, ts = pb.subset(top)
    res = _evaluate_t(pb, sets, p, sides, refine=refine)
    val2 = _side_value(res[0], res[1], sides)
    k = int(np.argmax(val2))
    best = dict(t=ts[k], upper=res[0][k], lower=res[1][k], y_upper=res[2][k], y_lower=res[3][k],
                sup=res[4][k], inf=res[5][k], p=float(p[k]))
    if refine and pb.continuous_t:
        best = _refine_t(pb, eps, sides, best)
    if pb.far is not None and sides != "lower":
        lim, end = pb.far()
        if end is not None and lim > _side_value(best["upper"], best["lower"], sides):
            best = dict(t=end, upper=lim, lower=0.0, y_upper=end, y_lower=end, sup=lim, inf=0.0, p=0.0)
    return best


def _refine_t(pb, eps, sides, best):
    from scipy.optimize import minimize_scalar

    ts = np.asarray(pb.ts, float)
    j = int(np.searchsorted(ts, best["t"]))
    a, b = ts[max(j - 1, 0)], ts[min(j + 1, ts.size - 1)]
    if not b > a:
        return best
    if _laplace_closed(pb):
        return _zoom_t(pb, sides, a, b, best)
    cache = {}

    def f(tt):
        sets = pb.make_set(float(tt))
        p = pb.integ.prior_mass(sets)
        res = _evaluate_t(pb, sets, p, sides, refine=True)
        cache[float(tt)] = (res, float(p[0]))
        return -float(_side_value(res[0], res[1], sides)[0])

    opt = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-5 * abs(b - a)})
    if -opt.fun > _side_value(best["upper"], best["lower"], sides):
        res, p = cache[float(opt.x)]
        best = dict(t=float(opt.x), upper=res[0][0], lower=res[1][0], y_upper=res[2][0],
                    y_lower=res[3][0], sup=res[4][0], inf=res[5][0], p=p)
    return best


def _zoom_t(pb, sides, a, b, best, points=33, rounds=4):
    """:func:`_refine_t` for the closed-form Laplace extremes, vectorised: the best of
    ``points`` true values in ``[a, b]`` (ranked by the extremes to 1e-4 noise scales), then
    the same around it, ``rounds`` times (the bracket shrinks 16-fold per round; the maximum
    is flat, so its value is exact to rounding long before the bracket is); the winner is
    evaluated exactly."""
    for _ in range(rounds):
        tt = np.linspace(a, b, points)
        parts = [pb.make_set(float(v)) for v in tt]
        sets = (np.concatenate([s[0] for s in parts]), np.concatenate([s[1] for s in parts]))
        res = _evaluate_t(pb, sets, pb.integ.prior_mass(sets), sides, refine=False)
        val = _side_value(res[0], res[1], sides)
        k = int(np.argmax(np.where(np.isnan(val), -np.inf, val)))
        a, b = tt[max(k - 1, 0)], tt[min(k + 1, points - 1)]
    t = float(tt[k])
    sets = pb.make_set(t)
    p = pb.integ.prior_mass(sets)
    res = _evaluate_t(pb, sets, p, sides)
    if _side_value(res[0], res[1], sides)[0] > _side_value(best["upper"], best["lower"], sides):
        best = dict(t=t, upper=res[0][0], lower=res[1][0], y_upper=res[2][0], y_lower=res[3][0],
                    sup=res[4][0], inf=res[5][0], p=float(p[0]))
    return best


def _check_additive(mechanism):
    if not isinstance(mechanism, Mechanism):
        raise ParameterError(f"mechanism must be an additive-noise garesearch.mechanisms.Mechanism; got {mechanism!r}")


def _check_common(epsilon, sides):
    if not isinstance(epsilon, (int, float, np.integer, np.floating)) or not (
        math.isfinite(float(epsilon)) and float(epsilon) > 0
    ):
        raise ParameterError(f"epsilon must be a finite number > 0; got {epsilon!r}")
    if sides not in ("both", "upper", "lower"):
        raise ParameterError(f"sides must be 'both', 'upper' or 'lower'; got {sides!r}")


def exact_advantage(
    prior: Prior,
    mechanism: Mechanism | RandomizedResponse,
    *,
    epsilon: float,
    r: float,
    t: Any = None,
    sides: str = "both",
    target: Any = None,
    correct: Callable | None = None,
) -> ExactAdvantage:
    r"""Exact worst-case guessing advantage of ``mechanism`` at ``epsilon`` (Def. 7, Sec. 3.2).

    .. math:: \sup_{t}\ \sup_{y \in \mathbb R \cup \{\pm\infty\}}
       \left|\Pr_{post}[\mathcal B(t, r) \mid y] - \Pr_{pre}[\mathcal B(t, r)]\right|

    Parameters
    ----------
    prior : Prior
        The attacker's prior (any :mod:`garesearch.priors` prior).
    mechanism : Mechanism or RandomizedResponse
        :class:`~garesearch.mechanisms.Laplace`, ``Gaussian`` or ``GenCauchy`` noise on the
        query output, or :class:`~garesearch.mechanisms.RandomizedResponse` on the value of a
        :class:`~garesearch.priors.Categorical` prior (then ``y`` in the result is an output
        value and ``target`` does not apply).
    epsilon : float
        Epsilon per unit of the attribute (sets the noise scale), > 0.
    r : float
        Precision of a correct guess, ``>= 0`` (``< 1`` under the discrete metric).
    t : optional
        True value; ``None``: the worst one (all values of a finite prior; for a continuous
        prior a scan of :meth:`Prior.t_candidates` refined by Brent's method).
    sides : {"both", "upper", "lower"}
        Which deviation counts: :math:`|\cdot|` (Def. 7), the posterior's rise, or its fall.
    target : value or collection, optional
        Discrete metric only: the query is :math:`\mathrm{COUNT} = 1\{x \in \text{target}\}`,
        which moves by 1 between any value in the target and any value outside it (sensitivity
        1 under the discrete metric).  ``None``: the worst single-value target.
    correct : callable, optional
        Discrete metric only: ``correct(t)`` returns the values that count as a correct guess
        when the truth is ``t`` (default ``[t]``; an OR-event passes the union of its parts).

    Returns
    -------
    ExactAdvantage

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> from garesearch.mechanisms import Laplace
    >>> res = exact_advantage(Categorical({0: 0.5, 1: 0.5}), Laplace(), epsilon=1.0, r=0)
    >>> round(res.advantage, 6)  # (e - 1) / (2 (e + 1)) = tanh(1/2) / 2
    0.231059
    """
    _check_common(epsilon, sides)
    if isinstance(mechanism, RandomizedResponse):
        return _rr_advantage(prior, mechanism, float(epsilon), r, t, sides, target, correct)
    if isinstance(prior, Categorical) and prior.metric == "discrete" and target is None:
        results = [
            exact_advantage(prior, mechanism, epsilon=epsilon, r=r, t=t, sides=sides, target=v, correct=correct)
            for v in prior.values
        ]
        return max(results, key=lambda res: res.advantage)
    pb = _problem(prior, mechanism, float(epsilon), r, t, target, correct)
    best = _advantage(pb, float(epsilon), sides)
    up, low = float(best["upper"]), float(best["lower"])
    if sides == "lower" or (sides == "both" and low > up):
        side, y, post, adv = "lower", float(best["y_lower"]), float(best["inf"]), low
    else:
        side, y, post, adv = "upper", float(best["y_upper"]), float(best["sup"]), up
    return ExactAdvantage(
        advantage=max(adv, 0.0), t=best["t"], y=y, side=side, p=best["p"], posterior=post,
        upper=up, lower=low, y_upper=float(best["y_upper"]), y_lower=float(best["y_lower"]),
        epsilon=float(epsilon), r=float(r), mechanism=mechanism,
    )


# ------------------------------------------------------------------------------------------
# Randomized response: finitely many outputs, so the supremum over outputs is a maximum.
# ------------------------------------------------------------------------------------------
def _rr_posteriors(prior, mech, eps, r, t, target, correct):
    r"""True values, :math:`\Pr_{pre}[X']` per true value and :math:`\Pr_{post}[X' \mid y]` for every
    (true value, output) pair under k-ary randomized response on the prior's values."""
    if not isinstance(prior, Categorical):
        raise ParameterError(f"prior: randomized response needs a Categorical prior; got {type(prior).__name__}")
    if target is not None:
        raise ParameterError("target: randomized response releases the value itself, not a COUNT")
    if not (isinstance(r, (int, float, np.integer, np.floating)) and math.isfinite(r) and r >= 0):
        raise ParameterError(f"r must be a finite number >= 0; got {r!r}")
    ts, sets, _ = _finite_sets(prior, r, t, correct)
    k = len(prior.values)
    if k < 2:
        raise ParameterError("prior: randomized response needs at least two values")
    joint = prior.probs[:, None] * np.exp(mech.log_likelihood(eps, k))  # (input, output)
    post = (sets.astype(float) @ joint) / joint.sum(axis=0)
    return ts, sets.astype(float) @ prior.probs, post


def _rr_advantage(prior, mech, eps, r, t, sides, target, correct) -> ExactAdvantage:
    r"""Exact advantage of k-ary randomized response (:class:`~garesearch.mechanisms.RandomizedResponse`).

    With :math:`u = e^\epsilon - 1` the posterior after output ``y`` is
    :math:`(p + u\,\pi(y) 1\{y \in X'\}) / (1 + u\,\pi(y))`: largest at the likeliest
    ``y`` in :math:`X'`, smallest at the likeliest ``y`` outside it.
    """
    ts, p, post = _rr_posteriors(prior, mech, eps, r, t, target, correct)
    j_sup, j_inf = np.argmax(post, axis=1), np.argmin(post, axis=1)
    rows = np.arange(len(ts))
    sup, inf = post[rows, j_sup], post[rows, j_inf]
    upper, lower = sup - p, p - inf
    i = int(np.argmax(_side_value(upper, lower, sides)))
    up, low = float(upper[i]), float(lower[i])
    if sides == "lower" or (sides == "both" and low > up):
        side, y, pst, adv = "lower", prior.values[j_inf[i]], float(inf[i]), low
    else:
        side, y, pst, adv = "upper", prior.values[j_sup[i]], float(sup[i]), up
    return ExactAdvantage(
        advantage=max(adv, 0.0), t=ts[i], y=y, side=side, p=float(p[i]), posterior=pst, upper=up,
        lower=low, y_upper=prior.values[j_sup[i]], y_lower=prior.values[j_inf[i]], epsilon=eps,
        r=float(r), mechanism=mech,
    )


def or_event(prior: Categorical) -> Callable:
    r"""``correct`` for an OR-event over tuple values (Sec. 4.3, Sec. 6.1): a guess is correct when it
    matches the truth in at least one component.

    Returns a callable ``t -> [values sharing a component with t]`` to pass as ``correct``.
    """
    if not (isinstance(prior, Categorical) and prior.metric == "discrete"
            and all(isinstance(v, tuple) for v in prior.values)):
        raise ParameterError("prior must be a Categorical over tuples (one component per attribute)")

    def correct(t):
        return [v for v in prior.values if any(a == b for a, b in zip(v, t, strict=True))]

    return correct


def posterior(prior: Prior, mechanism: Mechanism, *, epsilon: float, r: float, t: Any, y,
              target: Any = None, correct: Callable | None = None):
    r"""Exact posterior :math:`\Pr_{post}[\mathcal B(t, r) \mid y]` (Sec. 3.2), vectorised over ``y``.

    ``y = +-inf`` gives the analytic limit.  ``target`` and ``correct`` as in
    :func:`exact_advantage` (discrete metric).  For
    :class:`~garesearch.mechanisms.RandomizedResponse`, ``y`` is a value of the prior or a
    list of values.
    """
    _check_common(epsilon, "both")
    if t is None:
        raise ParameterError("t: give the true value")
    if isinstance(mechanism, RandomizedResponse):
        _, _, post = _rr_posteriors(prior, mechanism, float(epsilon), r, t, target, correct)
        return _rr_lookup(prior, post[0], y)
    pb = _problem(prior, mechanism, float(epsilon), r, t, target, correct)
    y = np.asarray(y, dtype=float)
    flat = y.ravel()
    out = np.empty_like(flat)
    fin = np.isfinite(flat)
    if np.any(fin):
        out[fin] = _post(pb.integ, flat[fin], pb.sets)[:, 0]
    for sign in (-1, 1):
        m = np.isinf(flat) & (np.sign(flat) == sign)
        if np.any(m):
            out[m] = pb.integ.limit(sign, pb.sets)[0]
    out = out.reshape(y.shape)
    return float(out) if out.ndim == 0 else out


def _rr_lookup(prior, post_row, y):
    """Posterior at output ``y`` (a value of the prior, or a list of values)."""
    one = not isinstance(y, list)
    out = []
    for v in [y] if one else y:
        if v not in prior.values:
            raise ParameterError(f"y: randomized response outputs a value of the prior; got {v!r}")
        out.append(float(post_row[prior.values.index(v)]))
    return out[0] if one else np.array(out)


# ------------------------------------------------------------------------------------------
# The largest epsilon whose exact advantage stays within delta.
# ------------------------------------------------------------------------------------------
def _spread(prior):
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return 1.0
    q = np.asarray(prior.quantile(np.array([0.25, 0.75])), float)
    s = float(q[1] - q[0])
    if s > 0:
        return s
    low, high = prior.support
    return float(high - low) if high > low else 1.0


def exact_epsilon(
    prior: Prior,
    mechanism: Mechanism | RandomizedResponse,
    *,
    r: float,
    delta: float,
    t: Any = None,
    sides: str = "both",
    target: Any = None,
    correct: Callable | None = None,
    rtol: float = 1e-10,
) -> float:
    r"""The largest epsilon at which ``mechanism``'s exact advantage stays at most ``delta``.

    Returns the crossing :math:`A(\epsilon) = \delta` of the advantage :math:`A` of
    :func:`exact_advantage` (Def. 7, Sec. 3.2), the epsilon the paper's Eq. (main) would give if
    it were exact for this mechanism; compare it with
    :func:`~garesearch.attribute.epsilon_for_attribute` and
    :func:`~garesearch.pointwise.epsilon_pointwise`.  The crossing is bracketed by doubling (or
    quartering) from a scale set by the prior's spread, then found by Brent's method in
    :math:`\ln\epsilon`; the value returned satisfies :math:`A(\epsilon) \le \delta` and lies
    within relative ``rtol`` below the crossing.  :math:`A` grows with epsilon in every case
    garesearch computes; were it not monotone, the crossing found would be one inside the
    bracket.

    Parameters are those of :func:`exact_advantage`, with ``delta`` in (0, 1) and ``rtol`` in
    (0, 0.1).

    Raises
    ------
    InfeasibleError
        If the advantage exceeds ``delta`` at every epsilon (for instance Gaussian noise: its
        posterior tends to 0 or 1 in the far tails whatever the scale).
    """
    from scipy.optimize import brentq

    if not (isinstance(delta, (int, float, np.integer, np.floating)) and 0 < delta < 1):
        raise ParameterError(f"delta must lie in (0, 1); got {delta!r}")
    if not (isinstance(rtol, (int, float, np.integer, np.floating)) and 1e-14 <= rtol < 0.1):
        raise ParameterError(f"rtol must lie in [1e-14, 0.1); got {rtol!r}")

    hints: list = []  # worst true values seen so far: a violation there needs no full search
    full: dict = {}

    def adv(e):
        if e not in full:
            res = exact_advantage(prior, mechanism, epsilon=e, r=r, t=t, sides=sides, target=target,
                                  correct=correct)
            if t is None and target is None and res.t not in hints and not (
                    isinstance(res.t, float) and math.isinf(res.t)):
                hints.append(res.t)
            full[e] = res.advantage
        return full[e]

    def violated(e):
        for h in hints:
            if exact_advantage(prior, mechanism, epsilon=e, r=r, t=h, sides=sides, target=target,
                               correct=correct).advantage > delta:
                return True
        return adv(e) > delta

    e0 = 1.0 / _spread(prior)
    lo, hi = None, None
    if not violated(e0):
        lo, e = e0, e0
        for _ in range(80):
            e *= 2
            if violated(e):
                hi = e
                break
            lo = e
        else:
            return math.inf
    else:
        hi, e = e0, e0
        for _ in range(12):
            e /= 4
            if not violated(e):
                lo = e
                break
            hi = e
        else:
            raise InfeasibleError(
                f"the exact advantage of {mechanism!r} exceeds delta={delta} at every epsilon down to "
                f"{e:.3g} (worst side over all outputs); "
                + ("Gaussian noise is not epsilon-DP: its posterior tends to 0 or 1 as the output "
                   "goes to infinity, whatever the scale; use sides='upper' or the Bayes attacker"
                   if mechanism.tail == "light" else "use a larger delta")
            )
    bracket = [lo, hi]  # A(lo) <= delta < A(hi), narrowed by every evaluation inside

    def f(x):
        e = math.exp(x)
        val = adv(e) - delta
        if bracket[0] < e < bracket[1]:
            bracket[0 if val <= 0 else 1] = e
        return val

    if bracket[1] / bracket[0] > 1 + rtol:
        brentq(f, math.log(lo), math.log(hi), xtol=rtol / 4, rtol=4 * np.finfo(float).eps)
    while bracket[1] / bracket[0] > 1 + rtol:  # Brent's last step may leave one side wide
        f(0.5 * (math.log(bracket[0]) + math.log(bracket[1])))
    return bracket[0]


# ------------------------------------------------------------------------------------------
# How tight are the bounds?  Exact epsilon of a mechanism against the bounds' epsilons.
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpsilonComparison:
    """One row of :func:`comparison_table`: a mechanism's exact epsilon against three bounds.

    Attributes
    ----------
    label : str
    mechanism : str
    r, delta : float
    exact : float
        :func:`exact_epsilon` of the mechanism.
    pointwise : float
        :func:`garesearch.pointwise.epsilon_pointwise` (sound for every epsilon-DP mechanism).
    sound : float
        :func:`garesearch.attribute.epsilon_for_attribute`, ``construction="sound"``.
    paper : float
        The same with ``construction="paper"`` (Eq. (main) with exponent ``a``, not sound in
        general); ``nan`` where it is infeasible.
    """

    label: str
    mechanism: str
    r: float
    delta: float
    exact: float
    pointwise: float
    sound: float
    paper: float

    @property
    def exact_over_pointwise(self) -> float:
        """How much larger the mechanism's epsilon is than the pointwise bound's (>= 1)."""
        return self.exact / self.pointwise

    @property
    def exact_over_sound(self) -> float:
        return self.exact / self.sound

    @property
    def exact_over_paper(self) -> float:
        return self.exact / self.paper


def _bounds_discrete(prior, delta, t, sides, correct):
    r"""Sec. 3.2 on the discrete metric (all distances 1): :math:`\min_t \min(\epsilon_{lb},
    \epsilon_{ub})` at :math:`p_t = \Pr[X']`, ``X' = correct(t)``.  The pointwise bound, the sound
    and the paper's construction all reduce to it."""
    from . import bound

    ts = prior.values if t is None else [t]
    best = math.inf
    for tt in ts:
        members = _as_set(prior.values, correct(tt), "correct(t)")
        p = float(sum(prior.probability(v) for v in members))
        e = float(bound.eps_lb(delta=delta, p=p)) if p + delta < 1 else math.inf
        if sides == "both" and p > delta:
            e = min(e, float(bound.eps_ub(delta=delta, p=p)))
        best = min(best, e)
    return best


def compare_epsilons(prior: Prior, *, r: float, delta: float, mechanism: Mechanism | RandomizedResponse | None = None,
                     sides: str = "both", t: Any = None, target: Any = None, correct: Callable | None = None,
                     label: str = "") -> EpsilonComparison:
    r"""Exact epsilon of ``mechanism`` (default Laplace) against the pointwise bound, the sound
    construction and the paper's Eq. (main) (Sec. 3.2, 4.1).

    Every bound is valid for all :math:`\epsilon`-DP mechanisms, so a sound bound never exceeds
    the exact epsilon of an :math:`\epsilon`-DP mechanism; the ratio ``exact / bound`` is how
    much less noise the mechanism at hand would need.

    Parameters
    ----------
    prior, r, delta, sides, t, correct
        As in :func:`exact_epsilon` (``sides`` in ``{"both", "upper"}``).
    mechanism : optional
        Default :class:`~garesearch.mechanisms.Laplace`.
    target : value, collection or callable, optional
        Discrete metric and additive noise: the COUNT's target set (as in
        :func:`exact_advantage`); a callable ``t -> target`` gives a target per true value (for
        example ``correct`` itself: the COUNT of the correct guesses) and the worst true value
        is taken over all.
    label : str
        Name of the row.
    """
    from .attribute import epsilon_for_attribute
    from .pointwise import epsilon_pointwise

    if sides not in ("both", "upper"):
        raise ParameterError(f"sides must be 'both' or 'upper'; got {sides!r}")
    mechanism = Laplace() if mechanism is None else mechanism
    kw = dict(r=r, delta=delta, sides=sides)
    if callable(target):
        ts = prior.values if t is None else [t]
        exact = min(exact_epsilon(prior, mechanism, t=tt, target=target(tt), correct=correct, **kw) for tt in ts)
    else:
        exact = exact_epsilon(prior, mechanism, t=t, target=target, correct=correct, **kw)
    if correct is not None:
        if not (isinstance(prior, Categorical) and prior.metric == "discrete"):
            raise ParameterError("correct applies only to a prior with the discrete metric")
        pointwise = sound = paper = _bounds_discrete(prior, delta, t, sides, correct)
    else:
        pointwise = epsilon_pointwise(prior, t=t, **kw).epsilon
        sound = epsilon_for_attribute(prior, t=t, construction="sound", **kw).epsilon
        try:
            paper = epsilon_for_attribute(prior, t=t, construction="paper", **kw).epsilon
        except InfeasibleError:
            paper = math.nan
    return EpsilonComparison(label=label, mechanism=repr(mechanism), r=float(r), delta=float(delta),
                             exact=float(exact), pointwise=float(pointwise), sound=float(sound), paper=float(paper))


_CAT_COLOURS = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
_SWEEP_R = (0.05, 0.2, 0.5, 1.0, 2.0)
_SWEEP_DELTA = (0.02, 0.05, 0.1, 0.2, 0.3)


def comparison_table(parts: Iterable[str] = ("examples", "r", "delta")) -> list[EpsilonComparison]:
    r"""Exact epsilons against the bounds for the paper's examples and two sweeps (Sec. 6).

    ``parts`` selects rows:

    - ``"examples"``: cats (Sec. 6.1, ``r = 0``, ``delta = 0.1``): the AND event (colour and
      gender) and the colour alone under a Laplace COUNT of the worst single value and under
      k-ary randomized response, and the OR event under a Laplace COUNT of the correct
      guesses and under randomized response; salary (Sec. 6.2, Normal(2000, 235.7),
      ``r = 100``) and ships (Sec. 6.3, the paper's radial 1-D model Normal(0, sqrt(1250)),
      ``r = 10``) with Laplace noise.
    - ``"r"``: Normal(0, 1), ``delta = 0.1``, ``r`` in 0.05, 0.2, 0.5, 1, 2, Laplace.
    - ``"delta"``: Normal(0, 1), ``r = 0.5``, ``delta`` in 0.02, 0.05, 0.1, 0.2, 0.3, Laplace.

    Returns
    -------
    list of EpsilonComparison
    """
    from .mechanisms import RandomizedResponse as RR

    parts = tuple(parts)
    bad = [q for q in parts if q not in ("examples", "r", "delta")]
    if bad:
        raise ParameterError(f"parts must be among 'examples', 'r', 'delta'; got {bad}")
    rows = []
    if "examples" in parts:
        colour = Categorical(_CAT_COLOURS)
        cats = Categorical({(c, g): p / 2 for c, p in _CAT_COLOURS.items() for g in "MF"})
        either = or_event(cats)
        rows += [
            compare_epsilons(cats, r=0, delta=0.1, label="cats AND, COUNT (worst value)"),
            compare_epsilons(cats, r=0, delta=0.1, mechanism=RR(), label="cats AND, randomized response"),
            compare_epsilons(colour, r=0, delta=0.1, label="cats colour, COUNT (worst value)"),
            compare_epsilons(colour, r=0, delta=0.1, mechanism=RR(), label="cats colour, randomized response"),
            compare_epsilons(cats, r=0, delta=0.1, correct=either, target=either,
                             label="cats OR, COUNT of the correct guesses"),
            compare_epsilons(cats, r=0, delta=0.1, correct=either, mechanism=RR(),
                             label="cats OR, randomized response"),
            compare_epsilons(Normal(2000.0, 235.7), r=100, delta=0.1, label="salary N(2000, 235.7), r = 100"),
            compare_epsilons(Normal(0.0, math.sqrt(1250)), r=10, delta=0.1, label="ships N(0, sqrt 1250), r = 10"),
        ]
    if "r" in parts:
        rows += [compare_epsilons(Normal(0.0, 1.0), r=r, delta=0.1, label=f"N(0, 1), r = {r:g}, delta = 0.1")
                 for r in _SWEEP_R]
    if "delta" in parts:
        rows += [compare_epsilons(Normal(0.0, 1.0), r=0.5, delta=d, label=f"N(0, 1), r = 0.5, delta = {d:g}")
                 for d in _SWEEP_DELTA]
    return rows


def format_comparison(rows: Iterable[EpsilonComparison]) -> str:
    """A plain-text table of :func:`comparison_table` rows: epsilons and the ratios exact / bound."""
    head = (f"{'case':44s} {'exact':>10s} {'pointwise':>10s} {'sound':>10s} {'paper':>10s} "
            f"{'ex/pw':>6s} {'ex/sd':>6s} {'ex/pp':>6s}")
    lines = [head, "-" * len(head)]
    for row in rows:
        lines.append(f"{row.label:44s} {row.exact:10.4g} {row.pointwise:10.4g} {row.sound:10.4g} {row.paper:10.4g} "
                     f"{row.exact_over_pointwise:6.3f} {row.exact_over_sound:6.3f} {row.exact_over_paper:6.3f}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------
# The Bayes-optimal attacker: exact success probability and a Monte Carlo estimate.
# ------------------------------------------------------------------------------------------
def _guess_sets(prior, r, correct, target):
    """Candidate guesses and their sets (for finite priors)."""
    if prior.metric == "discrete":
        pb_sets = []
        for v in prior.values:
            members = [v] if correct is None else _as_set(prior.values, correct(v), "correct(t)")
            pb_sets.append([u in members for u in prior.values])
        return list(prior.values), np.array(pb_sets)
    x = prior._x
    # an optimal ball can be shifted until its left end meets an atom
    guesses = x + r
    return list(guesses), np.array([np.abs(x - g) <= r + 1e-12 * max(1.0, abs(g)) for g in guesses])


def _outputs(prior, target):
    if prior.metric == "discrete":
        tgt = _as_set(prior.values, target, "target")
        if tgt is None:
            raise ParameterError("target: the COUNT query needs a target value or set (discrete metric)")
        return np.array([1.0 if v in tgt else 0.0 for v in prior.values])
    return prior._x


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
    """
    _check_additive(mechanism)
    _check_common(epsilon, "both")
    eps = float(epsilon)
    b = mechanism.scale(eps)
    if isinstance(prior, Categorical):
        s = _outputs(prior, target)
        _, sets = _guess_sets(prior, r, correct, target)
        integ = _Atoms(s, prior.probs, mechanism, eps)
        prior_success = float(np.max(integ.prior_mass(sets)))
        lo, hi = s.min(), s.max()
        mids = (s[:, None] + s[None, :]).ravel() / 2  # where symmetric guesses tie
        knots = np.unique(np.concatenate([s, mids, np.linspace(lo - 3 * b, hi + 3 * b, 2000), _far(lo, hi, b)]))

        def h(ys):
            return np.exp(np.max(integ.log_mass(ys, sets), axis=1))
    else:
        if target is not None or correct is not None:
            raise ParameterError("target and correct apply only to a prior with the discrete metric")
        integ = _integrator(prior, mechanism, eps)
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
    """
    from scipy.stats import norm

    _check_additive(mechanism)
    _check_common(epsilon, "both")
    if not (isinstance(n, (int, np.integer)) and n > 0):
        raise ParameterError(f"n must be a positive integer; got {n!r}")
    eps = float(epsilon)
    rng = np.random.default_rng(seed)
    draw = _sample_prior(prior, n, rng)
    if isinstance(prior, Categorical):
        s = _outputs(prior, target)
        ys = mechanism.sample(s[draw], eps, rng)
        _, sets = _guess_sets(prior, r, correct, target)
        integ = _Atoms(s, prior.probs, mechanism, eps)
        best = np.argmax(integ.log_mass(ys, sets), axis=1)
        hits = sets[best, draw]
        prior_success = float(np.max(integ.prior_mass(sets)))
    else:
        ys = mechanism.sample(draw, eps, rng)
        integ = _integrator(prior, mechanism, eps)
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


# ------------------------------------------------------------------------------------------
# Soundness search: can an epsilon from the paper's formulas let the exact advantage exceed delta?
# ------------------------------------------------------------------------------------------
def _random_categorical(rng, k):
    gaps = rng.uniform(0.2, 3.0, k - 1)
    x = np.round(np.concatenate([[0.0], np.cumsum(gaps)]), 3)
    w = rng.dirichlet(np.full(k, 0.7))
    w = np.maximum(w, 0.01)
    return Categorical(dict(zip(x.tolist(), (w / w.sum()).tolist(), strict=True)))


def _random_mixture(rng):
    """A narrow spike (nearly an atom) inside a wide piecewise-uniform body."""
    width = rng.uniform(5.0, 12.0)
    at = rng.uniform(0.0, width - 0.05)
    edges = np.unique(np.round([0.0, at, at + 0.05, width], 4))
    w = rng.dirichlet(np.ones(edges.size - 1))
    w = np.maximum(w, 0.02)
    return PiecewiseUniform(edges, w / w.sum())


def _search_cases(size: str):
    """A fixed list of (label, prior, r, delta): asymmetric atoms, mixtures, skewed and normal priors."""
    from scipy import stats

    rng = np.random.default_rng(20240607)
    n_cat, n_mix = (6, 1) if size == "small" else (40, 12)
    cases = [
        ("atoms at t-r, t, t+a", Categorical({-1.0: 0.3, 0.0: 0.02, 2.0: 0.68}), 1.0, 0.1),
        ("atoms at t-r, t, t+a, far", Categorical({-1.0: 0.2, 0.0: 0.05, 2.0: 0.5, 40.0: 0.25}), 1.0, 0.1),
    ]
    for i in range(n_cat):
        prior = _random_categorical(rng, int(rng.integers(3, 7)))
        cases.append((f"random atoms #{i}", prior, float(rng.choice([0.5, 1.0, 1.5])),
                      float(rng.choice([0.05, 0.1, 0.2]))))
    for i in range(n_mix):
        cases.append((f"spike + body #{i}", _random_mixture(rng), float(rng.choice([0.5, 1.0])),
                      float(rng.choice([0.1, 0.2]))))
    if size != "small":
        cases.append(("Normal(0, 1)", Normal(0.0, 1.0), 0.5, 0.1))
        cases.append(("Uniform(0, 10)", Uniform(0.0, 10.0), 1.0, 0.1))
        cases.append(("Normal(0, 1), r=0.25", Normal(0.0, 1.0), 0.25, 0.05))
        cases.append(("gamma(2)", Continuous(stats.gamma(2.0)), 0.5, 0.1))
        cases.append(("lognormal(0.6)", Continuous(stats.lognorm(0.6)), 0.5, 0.1))
    return cases


def _paper_R(prior):
    try:
        return prior.paper_R()
    except ParameterError:
        q = np.asarray(prior.quantile(np.array([1e-5, 1 - 1e-5])), float)
        return float(q[1] - q[0])


def _check_case(label, prior, r, delta, construction, sides, mechanism, tol):
    from .attribute import epsilon_for_attribute

    R = _paper_R(prior) if construction == "paper" else None
    try:
        with warnings.catch_warnings():  # Brent's method inside sees -inf where q is infeasible
            warnings.simplefilter("ignore", RuntimeWarning)
            res = epsilon_for_attribute(prior, r=r, delta=delta, construction=construction, R=R, sides=sides)
    except (InfeasibleError, ParameterError):
        return None
    if not math.isfinite(res.epsilon):
        return None
    ex = exact_advantage(prior, mechanism, epsilon=res.epsilon, r=r, sides=sides)
    return dict(source=f"epsilon_for_attribute(construction={construction!r}, sides={sides!r})", label=label,
                prior=prior, r=r, delta=delta, epsilon=res.epsilon, t=ex.t, y=ex.y, side=ex.side,
                p=ex.p, exact_advantage=ex.advantage, violated=ex.advantage > delta + tol)


def _check_eq_main(label, prior, r, delta, a, t, mechanism, tol):
    """Eq. (main) with q = g_t(a) - g_t(r) and exponent a, at one true value t (upper side)."""
    from . import bound

    p = float(prior.ball_mass(t, r))
    q = float(prior.ball_mass(t, a)) - p
    if not (0 < p < 1 and q > 0):
        return None
    eps = float(bound.epsilon_for_advantage(delta=delta, p=p, q=q, a=a, infeasible="nan"))
    if not (math.isfinite(eps) and eps > 0):
        return None
    ex = exact_advantage(prior, mechanism, epsilon=eps, r=r, t=t, sides="upper")
    return dict(source=f"bound.epsilon_for_advantage(q=g(a)-g(r), a={a:g})", label=label, prior=prior,
                r=r, delta=delta, epsilon=eps, t=t, y=ex.y, side="upper", p=p,
                exact_advantage=ex.advantage, violated=ex.advantage > delta + tol)


def soundness_search(construction: str = "paper", *, size: str = "small", mechanism: Mechanism | None = None,
                     tol: float = 1e-6, eq_main: bool | None = None) -> list[dict]:
    r"""Search fixed, seeded families of priors for an epsilon that lets the exact advantage exceed delta.

    For each case (asymmetric finite priors, spike-plus-body mixtures, Normal, Uniform and, with
    ``size="large"``, skewed scipy priors) the epsilon of
    :func:`~garesearch.attribute.epsilon_for_attribute` with the given ``construction`` is fed
    to ``mechanism`` (default Laplace, which is :math:`\epsilon`-DP), and the exact worst-case
    advantage is compared with ``delta``.  With ``construction="paper"`` (and ``eq_main``
    true, its default there) it also tries Eq. (main) with :math:`q = g(a) - g(r)` and exponent
    ``a`` directly (:func:`garesearch.bound.epsilon_for_advantage`) at every atom, or at the
    mean, for several ``a``.

    Returns
    -------
    list of dict
        One record per case checked: ``source``, ``label``, ``prior``, ``r``, ``delta``,
        ``epsilon``, ``t``, ``y``, ``side``, ``p``, ``exact_advantage`` and ``violated``
        (``exact_advantage > delta + tol``).
    """
    if construction not in ("paper", "sound"):
        raise ParameterError(f"construction must be 'paper' or 'sound'; got {construction!r}")
    if size not in ("small", "large"):
        raise ParameterError(f"size must be 'small' or 'large'; got {size!r}")
    mechanism = Laplace() if mechanism is None else mechanism
    eq_main = construction == "paper" if eq_main is None else eq_main
    out = []
    for label, prior, r, delta in _search_cases(size):
        for sides in ("both", "upper"):
            rec = _check_case(label, prior, r, delta, construction, sides, mechanism, tol)
            if rec is not None:
                out.append(rec)
        if not eq_main:
            continue
        if isinstance(prior, Categorical):
            ts = prior._x
        else:
            ts = np.asarray(prior.quantile(np.array([0.02, 0.1, 0.3, 0.5])), float)
        for t in ts:
            for a in (1.5 * r, 2 * r, 3 * r, 5 * r):
                rec = _check_eq_main(label, prior, r, delta, a, float(t), mechanism, tol)
                if rec is not None:
                    out.append(rec)
    return out


def soundness_counterexamples() -> list[dict]:
    r"""Counterexamples to the soundness of Eq. (main) with exponent ``a``, recomputed on each call.

    The prior puts mass 0.3 at ``t - r = -1``, 0.02 at the true value ``t = 0`` and 0.68 at
    ``t + a = 2`` (``r = 1``, ``a = 2``), the shape :func:`soundness_search` finds.  Eq. (main)
    at ``t`` takes ``p = g(r) = 0.32``, ``q = g(a) - g(r) = 0.68`` and exponent ``a = 2``, but the
    atoms at -1 and 2 are ``a + r = 3`` apart.  The Laplace mechanism (and the generalised
    Cauchy one, both :math:`\epsilon`-DP) at that epsilon lets the posterior of
    :math:`X' = [-1, 1]` exceed ``p + delta``.  Each entry: ``source``, ``label``, ``prior``,
    ``r``, ``delta``, ``epsilon``, ``t``, ``y``, ``side``, ``p``, ``exact_advantage``,
    ``violated``, ``mechanism``.
    """
    prior = Categorical({-1.0: 0.3, 0.0: 0.02, 2.0: 0.68})
    out = []
    for delta in (0.05, 0.1, 0.2):
        for mech in (Laplace(), GenCauchy()):
            rec = _check_eq_main("atoms at t-r, t, t+a", prior, 1.0, delta, 2.0, 0.0, mech, 0.0)
            rec["mechanism"] = repr(mech)
            if rec["violated"]:
                out.append(rec)
    return out
