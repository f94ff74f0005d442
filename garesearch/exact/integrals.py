r"""Integrals of the exact posterior (:mod:`garesearch.exact`): one class per kind of prior
and noise, each giving the log-masses :math:`\ln \int_{X'} f(y \mid x)\, d\pi(x)` of sets of
true values for many outputs at once, the total, and the limits as :math:`y \to \pm\infty`
(Sec. 3.2, first display; beyond the paper in the closed forms and the log space).

Finite priors: sums (:class:`Atoms`); piecewise-uniform priors: the noise CDFs
(:class:`Segments`); a Normal prior with Laplace or Gaussian noise: Gaussian CDFs of the tilted
prior (:class:`NormalClosed`); Laplace noise on a :class:`~garesearch.priors.Continuous` prior:
its tilted masses (:class:`TiltedLaplace`); otherwise composite Gauss-Legendre quadrature in log
space with an error estimate from halving the nodes (:class:`Quadrature`).
:func:`integrator` picks one.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..enclosures.tilted import log_diff_exp
from ..errors import ParameterError
from ..mechanisms import Gaussian, Laplace
from ..priors import Continuous, Normal, PiecewiseUniform, Prior

__all__ = ["Atoms", "NormalClosed", "Quadrature", "Segments", "TiltedLaplace", "integrator", "log_ndtr_diff"]

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


# ------------------------------------------------------------------------------------------
# Integrators: log of  int_{set} f(y | s(x)) dpi(x), vectorised over outputs and sets.
# A "set" is a boolean mask over atoms (finite priors) or an interval (lo, hi).
# ------------------------------------------------------------------------------------------
class Atoms:
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


class Segments:
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

    def _gauss_rel(self, y, A, B):
        r""":math:`\ln \Pr[A \le X \le B]` for :math:`X \sim \mathcal N(y, b^2)`, plus
        :math:`(y - c)^2/(2b^2)` with ``c`` the point of the support nearest ``y`` (arrays broadcast).

        The shift is common to every set at one output, so it cancels in the posterior; without
        it the log-masses of outputs far from the support are huge numbers whose difference is
        lost to rounding.  With :math:`\alpha = (A - y)/b \ge 0` the mass is
        :math:`\varphi(\alpha) M(\alpha) - \varphi(\beta) M(\beta)` (Mills ratio
        :math:`M(z) = \sqrt{\pi/2}\,\mathrm{erfcx}(z/\sqrt2)`), and
        :math:`\ln\varphi(\alpha) + (y - c)^2/(2b^2) = -(A - c)(A + c - 2y)/(2b^2) - \ln\sqrt{2\pi}`
        has no cancellation; mirrored for :math:`\beta = (B - y)/b \le 0`.  Within one noise
        scale of the interval the mass is a difference of ``erf`` values, which does not cancel
        there.  (Rounding of the output itself aside: beyond about :math:`10^{16}` times the
        support's width a float64 output no longer resolves the support.)
        """
        from scipy.special import erf, erfcx

        b = self.mech.scale(self.eps)  # (self.b holds the segments' upper ends)
        y, A, B = np.broadcast_arrays(*(np.asarray(v, float) for v in (y, A, B)))
        c = np.clip(y, *self.support)
        right, left = A >= y, B <= y  # the interval lies right / left of y (or touches it)
        # near end E and far end F of the interval, as seen from y
        E, F = np.where(left, B, A), np.where(left, A, B)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # log(0) = -inf: no mass
            ze, zf = np.abs(E - y) / b, np.abs(F - y) / b
            log_m_e, log_m_f = np.log(erfcx(ze / math.sqrt(2))), np.log(erfcx(zf / math.sqrt(2)))
            # ln(phi(F)/phi(E)) = -(F - E)(E + F - 2y)/(2b^2), >= 0 apart, both factors of one sign
            d = -np.abs(F - E) * np.abs(E + F - 2 * y) / (2 * b * b) + log_m_f - log_m_e
            near = (-(E - c) * (E + c - 2 * y) / (2 * b * b) - 0.5 * math.log(2 * math.pi)
                    + 0.5 * math.log(math.pi / 2) + log_m_e)
            tail = near + np.log(-np.expm1(np.minimum(d, 0.0)))
            # y inside [A, B] or within one noise scale of it: the difference of erf, which
            # cancels only where both ends lie far on one side (there: the Mills ratios)
            shift = (y - c) ** 2 / (2 * b * b)
            close = np.log(0.5 * (erf((B - y) / (b * math.sqrt(2))) - erf((A - y) / (b * math.sqrt(2))))) + shift
        out = np.where((right | left) & (ze > 1.0), tail, close)
        return np.where(B > A, out, -np.inf)

    def log_posterior(self, ys, sets):
        r""":math:`\ln \Pr_{post}` of each set (``(ny, nt)``): ``log_mass - log_total``, for
        Gaussian noise through :meth:`_gauss_rel` (exact for any output, however far), for
        Laplace noise at the output moved to the nearest end of the support (beyond the
        support the posterior of Laplace noise no longer depends on the output).  Heavy-tailed
        noise, at outputs so far that float64 no longer tells the ends of the support apart
        (``y - a == y - b``, so ``|y|`` beyond :math:`2^{52}` widths): its limit, the prior,
        from which the posterior differs there by a factor within :math:`1 \pm 10^{-14}` (the
        weights :math:`f(y - x)/f(y - x_0)` of a density falling like :math:`|z|^{-4}`)."""
        ys = np.asarray(ys, float)
        if isinstance(self.mech, Laplace):
            ys = np.clip(ys, *self.support)
        if not isinstance(self.mech, Gaussian):
            total = self.log_total(ys)
            if self.mech.tail == "heavy":
                far = np.isneginf(total)
                total = np.where(far, 0.0, total)
                out = self.log_mass(ys, sets) - total[:, None]
                with np.errstate(divide="ignore"):  # a set without prior mass: log 0 = -inf
                    lim = np.log(self.prior_mass(sets))
                return np.where(far[:, None], lim[None, :], out)
            return self.log_mass(ys, sets) - total[:, None]
        lo, hi = (np.asarray(v, float) for v in sets)
        A = np.maximum(self.a[None, :], lo[:, None])  # (nt, nb)
        B = np.minimum(self.b[None, :], hi[:, None])
        y = ys[:, None, None]
        part = _lse(self._gauss_rel(y, A[None], B[None]) + self.logd, axis=2)
        total = _lse(self._gauss_rel(ys[:, None], self.a[None, :], self.b[None, :]) + self.logd, axis=1)
        return part - total[:, None]

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


class NormalClosed:
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
        return k * (mu - c) + 0.5 * (k * s) ** 2 + log_ndtr_diff((lo - m) / s, (hi - m) / s)

    def _log_mass_pairs(self, y, lo, hi):
        mu, s, b = self.mu, self.sig, self.b
        if self.mech.tail == "exponential":  # Laplace with rate 1/b
            k = 1.0 / b
            c = math.log(k / 2) + 0.5 * (k * s) ** 2
            up = np.minimum(hi, y)  # part x < y: e^{-k(y - x)}
            a1 = c - k * (y - mu) + log_ndtr_diff((lo - mu - k * s * s) / s, (up - mu - k * s * s) / s)
            dn = np.maximum(lo, y)  # part x > y: e^{-k(x - y)}
            a2 = c + k * (y - mu) + log_ndtr_diff((dn - mu + k * s * s) / s, (hi - mu + k * s * s) / s)
            return np.logaddexp(a1, a2)
        v = s * s + b * b  # Gaussian noise
        m = (mu * b * b + y * s * s) / v
        sd = s * b / math.sqrt(v)
        log_marg = -0.5 * (y - mu) ** 2 / v - 0.5 * math.log(2 * math.pi * v)
        return log_marg + log_ndtr_diff((lo - m) / sd, (hi - m) / sd)

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
            return np.exp(log_ndtr_diff((lo - m) / self.sig, (hi - m) / self.sig))
        return np.zeros_like(lo)

    def quantile(self, u):
        return self.prior.quantile(u)


class TiltedLaplace:
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


class Quadrature:
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
        r"""Mass of ``[lo, hi]`` under the prior tilted by :math:`e^{\pm x/b}`: the prior's
        tilted masses (:meth:`~garesearch.priors.Prior.log_tilted_mass`); 0 where the tilt's
        total diverges (its tail is heavier than the noise's: the posterior runs off to the
        end)."""
        k = sign / self.b
        low, high = self.low, self.high
        lo_c, hi_c = max(lo, low), min(hi, high)
        if not hi_c > lo_c:
            return 0.0
        c = 0.5 * (lo_c + hi_c)
        with np.errstate(all="ignore"):
            part = float(self.prior.log_tilted_mass(k, lo_c, hi_c, c))
            total = float(self.prior.log_tilted_mass(k, -math.inf, math.inf, c))
        if not total < math.inf:
            return 0.0
        return math.exp(min(part - total, 0.0))

    def limit(self, sign, sets):
        r"""The posterior of each set as the output runs to :math:`\pm\infty` (module
        docstring): for exponential noise the prior tilted by :math:`e^{\pm x/b}`; for light
        noise the posterior piles up at the end of the support (an indicator of that end where
        it is finite, 0 where the declared tail runs on: :meth:`~garesearch.priors.Prior.tail`);
        for the heavy generalised Cauchy noise (density :math:`\sim |z|^{-4}`) the prior itself
        where the declared tail has moments beyond the third (the bulk, weighed by
        :math:`f(y - x)/f(y) \to 1`, outweighs the prior near ``y``), 0 where it has fewer (the
        prior near ``y`` wins); exactly three moments leave both in play, which is refused."""
        lo, hi = (np.asarray(v, float) for v in sets)
        end = self.high if sign > 0 else self.low
        side = "right" if sign > 0 else "left"
        tail = self.mech.tail
        if tail == "exponential":
            return np.array([self._tilt(sign, a, c) for a, c in zip(lo, hi, strict=True)])
        if tail == "light":
            if math.isfinite(end):
                return ((lo < end) & (end <= hi) if sign > 0 else (lo <= end) & (end < hi)).astype(float)
            return np.zeros_like(lo)
        if tail == "heavy":
            if math.isfinite(end):  # bounded end: the prior near y is none
                return self.prior_mass(sets)
            moments = self.prior.tail(side).moments
            if moments > 3:
                return self.prior_mass(sets)
            if moments < 3:
                return np.zeros_like(lo)
            raise ParameterError(
                f"prior: its {side} tail has exactly three moments, where the posterior's limit "
                "under generalised Cauchy noise is not known in closed form; use another noise")
        raise ParameterError(f"mechanism: no limit for noise with a {tail!r} tail")

    def quantile(self, u):
        return self.prior.quantile(u)


def integrator(prior, mech, eps, s=None, w=None):
    """The integrator of the posterior's masses for ``prior`` under ``mech`` at ``eps`` (atoms
    ``s`` with weights ``w`` if given; beyond the paper).

    Examples
    --------
    A Normal prior under Laplace noise has closed forms; its prior mass of a ball is the normal
    one:

    >>> from scipy.stats import norm
    >>> integ = integrator(Normal(0.0, 1.0), Laplace(), 1.0)
    >>> type(integ).__name__
    'NormalClosed'
    >>> m = integ.prior_mass((np.array([-1.0]), np.array([1.0])))
    >>> bool(abs(m[0] - (norm.cdf(1) - norm.cdf(-1))) < 1e-12)
    True
    """
    if s is not None:
        return Atoms(s, w, mech, eps)
    if isinstance(prior, PiecewiseUniform):
        return Segments(prior, mech, eps)
    if isinstance(prior, Normal) and mech.tail in ("exponential", "light"):
        return NormalClosed(prior, mech, eps)
    if isinstance(prior, Continuous) and isinstance(mech, Laplace):
        return TiltedLaplace(prior, mech, eps)
    if isinstance(prior, (Normal, Continuous)):
        return Quadrature(prior, mech, eps)
    raise ParameterError(f"prior: unsupported prior type {type(prior).__name__}")
