r"""The exact success of the Bayes-optimal attacker behind
:func:`garesearch.releases.reconstruction.reconstruction_advantage`: a finite prior under integer noise
(a sum over the outputs) or continuous noise (the output line cut where the leading ball
changes), two atoms under Gaussian noise (closed form), and a normal or uniform prior under
Laplace or Gaussian noise (log-concave posterior, Gauss-Legendre over the outputs).

Beyond the paper.  :mod:`garesearch.releases.reconstruction`'s docstring derives each case.
"""

from __future__ import annotations

import math

import numpy as np

from .._roots import narrow_bracket
from ..additive import ScaledNoise
from ..errors import ParameterError
from ..priors import Categorical, Normal

_GL16 = np.polynomial.legendre.leggauss(16)


def _ball_sets(x, r):
    """Sets of atoms :math:`\\{i: x_j \\le x_i \\le x_j + 2r\\}` (one per atom ``j``), as a mask."""
    tol = 1e-12 * max(1.0, float(np.max(np.abs(x))))
    return (x[None, :] >= x[:, None]) & (x[None, :] <= x[:, None] + 2 * r + tol)


# ------------------------------------------------------------------------------------------
def _finite_discrete(prior: Categorical, noise: ScaledNoise, s: float, r: float) -> float:
    x, w = prior.points, prior.probs
    if np.any(x != np.round(x)):
        raise ParameterError(f"prior: {noise.name} noise needs integer values; got {prior.values}")
    sets = _ball_sets(x, r).astype(float) * w[None, :]  # (n_sets, n_atoms)
    half = math.ceil(noise.support_halfwidth(s))
    ys = np.arange(x[0] - half, x[-1] + half + 1)
    total = 0.0
    for start in range(0, ys.size, 1 << 14):
        y = ys[start:start + (1 << 14)]
        pm = np.exp(noise.log_pmf(y[:, None] - x[None, :], s))  # (ny, n_atoms)
        total += float(np.sum(np.max(pm @ sets.T, axis=1)))
    return total


def _binary_gaussian(prior: Categorical, s: float) -> float:
    from scipy.special import ndtr

    (x0, x1), (w0, w1) = prior.points, prior.probs
    u = (x1 - x0) / s
    z = u / 2 + math.log(w0 / w1) / u
    return float(w0 * ndtr(z) + w1 * ndtr(u - z))


#: Ties: values of ln h within this relative tolerance of the largest count as equal (the rounding
#: of ln h is a few units in the last place of its largest term).
_TIE = 1e-13
#: Generalised Cauchy noise: a cell keeps its leader when what a missed lead change could add to
#: the success there is below this (absolute) bound, or below a tie (:data:`_TIE`) relative to it.
_CELL_LOSS = 1e-19


def _leader(v):
    r"""The leading candidate set at each output: ``v`` holds :math:`\ln h_j` (last axis over the
    sets); on a tie (within :data:`_TIE`) the lowest index, that is the ball with the smallest centre."""
    top = np.max(v, axis=-1, keepdims=True)
    return np.argmax(v >= top - _TIE * (1.0 + np.abs(top)), axis=-1)


def _gc_slope_range(p, q, s):
    r"""Range of :math:`\frac{d}{dz}\ln f(z) = -4z^3/(s^4 + z^4)` (generalised Cauchy noise of
    scale ``s``) over :math:`z \in [p, q]` (arrays, ``p <= q``): ``(lowest, highest)``.

    With :math:`u = z/s` it is :math:`-\frac4s g(u)`, :math:`g(u) = u^3/(1 + u^4)` odd, increasing
    on :math:`|u| \le 3^{1/4}` and decreasing beyond, so its extremes over an interval are at the
    ends or at :math:`\pm 3^{1/4}`.
    """
    up, uq = p / s, q / s
    ustar = 3.0**0.25

    def g(u):
        return u**3 / (1.0 + u**4)

    gp, gq, gs = g(up), g(uq), g(ustar)
    gmax = np.maximum(gp, gq)
    gmin = np.minimum(gp, gq)
    gmax = np.where((up <= ustar) & (ustar <= uq), gs, gmax)
    gmin = np.where((up <= -ustar) & (-ustar <= uq), -gs, gmin)
    return -4.0 / s * gmax, -4.0 / s * gmin


def _finite_envelope(prior: Categorical, noise: ScaledNoise, s: float, r: float):
    r"""The candidate sets and the pieces of the output line on which each one leads.

    Beyond the paper; the method and why it finds every lead change are in the module docstring.

    Returns
    -------
    sets : ndarray of bool, shape (n_sets, n_atoms)
        The distinct candidate sets :math:`S_j` (runs of consecutive atoms, in the order of their
        first atom).
    cuts : ndarray, shape (n_pieces - 1,)
        Non-decreasing outputs where the leader changes; the pieces are
        :math:`(-\infty, c_1], [c_1, c_2], \dots, [c_{m}, \infty)`.
    leaders : ndarray of int, shape (n_pieces,)
        The set the attacker takes on each piece (on a tie the lowest index, :func:`_leader`).
    """
    x, w = prior.points, prior.probs
    sets = _ball_sets(x, r)
    keep = np.unique(sets, axis=0, return_index=True)[1]
    sets = sets[np.sort(keep)]
    n_sets, n_atoms = sets.shape
    logw = np.where(sets, np.log(w)[None, :], -np.inf)  # (n_sets, n_atoms)
    eps = noise.epsilon_arg(s)
    kern = noise.kernel
    chunk = max(1, (1 << 20) // (n_sets * n_atoms))

    def log_h(y):
        y = np.atleast_1d(np.asarray(y, float))
        out = np.empty((y.size, n_sets))
        for i in range(0, y.size, chunk):
            lf = kern.log_density(y[i:i + chunk, None], x[None, :], eps)  # (ny, n_atoms)
            a = lf[:, None, :] + logw[None, :, :]
            m = np.max(a, axis=2, keepdims=True)
            m = np.where(np.isfinite(m), m, 0.0)
            with np.errstate(divide="ignore"):
                out[i:i + chunk] = np.squeeze(m, 2) + np.log(np.sum(np.exp(a - m), axis=2))
        return out

    def log_h1(y):
        return log_h(y)[0]

    cauchy = noise.name == "gencauchy"
    half = noise.support_halfwidth(s, 1e-20) if not cauchy else 200 * s
    span = x[-1] - x[0] + 2 * half
    step = max(min(s / 16, span / 4000), span / 16000)
    grid = [np.arange(x[0] - half, x[-1] + half + step, step), x, (x[:-1] + x[1:]) / 2]
    if cauchy:
        far = s * np.geomspace(200, 1e12, 200)
        grid += [x[0] - far, x[-1] + far]
    ys = np.unique(np.concatenate(grid))
    vs = log_h(ys)
    lead = _leader(vs)

    def crossing(a, b, j, k, va, vb):
        """Where ``k`` overtakes ``j`` in ``[a, b]`` (``j`` leads at ``a``, ``k`` at ``b``)."""
        da, db = va[j] - va[k], vb[j] - vb[k]
        if not da > 0:  # level at a (a crossing on the grid point, or a tie): cut there
            return a
        if not db < 0:
            return b
        def gap(y):  # ln h_j - ln h_k: > 0 at a, < 0 at b
            v = log_h1(y)
            return float(v[j] - v[k])

        tol = 16 * np.finfo(float).eps * max(abs(a), abs(b), s)
        return narrow_bracket(gap, a, b, tol=tol, meets="hi")[1]

    runs = [(int(i), int(k)) for i, k in zip(np.argmax(sets, axis=1), n_atoms - 1 - np.argmax(sets[:, ::-1], axis=1),
                                              strict=True)]

    def passes(a, b, la):
        """Generalised Cauchy noise: whether the cells ``[a, b]`` (arrays; ``la`` leads at both
        ends) may keep ``la`` throughout.

        For another set ``m``, :math:`h_m - h_\\ell = E_m - E_\\ell` with :math:`E` the weighted
        densities of the atoms in one set and not the other (the shared ones cancel).  The slope of
        :math:`\\ln E` lies between its atoms' slopes (it is their posterior average), so
        :math:`\\ln E_m - \\ln E_\\ell` is bounded on the cell from its ends and the range of the
        slopes (:func:`_gc_slope_range`); with the largest densities on the cell that bounds
        :math:`\\int (h_m - h_\\ell)^+`.  A cell passes when the sum over ``m`` is at most
        :data:`_CELL_LOSS`, or at most a tie (:data:`_TIE`) relative to :math:`h_\\ell` on it.
        """
        lo_z, hi_z = a[:, None] - x[None, :], b[:, None] - x[None, :]
        s_lo, s_hi = _gc_slope_range(lo_z, hi_z, s)  # (cells, atoms)
        lt_a = np.log(w)[None, :] + kern.log_density(a[:, None], x[None, :], eps)  # ln(w_i f(a - x_i))
        lt_b = np.log(w)[None, :] + kern.log_density(b[:, None], x[None, :], eps)
        # largest and smallest density on the cell: at its point nearest to and furthest from the atom
        near = np.where((lo_z <= 0) & (hi_z >= 0), 0.0, np.minimum(np.abs(lo_z), np.abs(hi_z)))
        f_max = np.exp(kern.log_density(near, 0.0, eps)) * w[None, :]
        f_min = np.exp(kern.log_density(np.maximum(np.abs(lo_z), np.abs(hi_z)), 0.0, eps)) * w[None, :]
        width = b - a
        loss = np.zeros(a.size)
        allowed = np.zeros(a.size)
        for lead_set in np.unique(la):
            rows = np.nonzero(la == lead_set)[0]
            il, kl = runs[lead_set]
            allowed[rows] = _TIE * width[rows] * np.sum(f_min[rows, il:kl + 1], axis=1)
            wd = width[rows]
            for m, (im, km) in enumerate(runs):
                if m == lead_set:
                    continue
                if m < lead_set:
                    (e0, e1), (l0, l1) = (im, min(km, il - 1)), (max(il, km + 1), kl)
                else:
                    (e0, e1), (l0, l1) = (max(im, kl + 1), km), (il, min(kl, im - 1))
                if e1 < e0:  # S_m inside S_l: never above it
                    continue
                e_max = np.sum(f_max[rows, e0:e1 + 1], axis=1)
                if l1 < l0:  # S_l inside S_m: above it by E_m everywhere
                    loss[rows] += wd * e_max
                    continue
                d_a = (np.logaddexp.reduce(lt_a[rows, e0:e1 + 1], axis=1)
                       - np.logaddexp.reduce(lt_a[rows, l0:l1 + 1], axis=1))
                d_b = (np.logaddexp.reduce(lt_b[rows, e0:e1 + 1], axis=1)
                       - np.logaddexp.reduce(lt_b[rows, l0:l1 + 1], axis=1))
                slope_hi = np.max(s_hi[rows, e0:e1 + 1], axis=1) - np.min(s_lo[rows, l0:l1 + 1], axis=1)
                slope_lo = np.min(s_lo[rows, e0:e1 + 1], axis=1) - np.max(s_hi[rows, l0:l1 + 1], axis=1)
                # ln E_m - ln E_l at a + t is at most d_a + slope_hi t and d_b - slope_lo (wd - t); the
                # smaller of the two lines is concave in t: largest at t = 0, t = wd or where they meet
                with np.errstate(invalid="ignore", divide="ignore"):
                    meet = (d_b - d_a - slope_lo * wd) / (slope_hi - slope_lo)
                meet = np.clip(np.nan_to_num(meet, nan=0.0), 0.0, wd)
                top = np.full(rows.size, -np.inf)
                for t in (0.0, wd, meet):
                    top = np.maximum(top, np.minimum(d_a + slope_hi * t, d_b - slope_lo * (wd - t)))
                l_max = np.sum(f_max[rows, l0:l1 + 1], axis=1)
                with np.errstate(over="ignore", invalid="ignore"):
                    excess = np.minimum(e_max, l_max * np.expm1(np.maximum(top, 0.0)))
                loss[rows] += wd * excess
        return (loss <= _CELL_LOSS) | (loss <= allowed)

    # Every cell of the grid ends as leaves (a, b, leader) that tile it.  A cell whose ends have
    # different leaders is cut where the later one overtakes the earlier (a root of ln h_j - ln h_k),
    # or split there first when a third set leads at that crossing.  Generalised Cauchy noise:
    # a cell with one leader at both ends is kept when it passes, else bisected.
    leaves_a: list = []
    leaves_b: list = []
    leaves_l: list = []
    pending = []  # (a, b, leader, v(a), v(b), depth): one leader at both ends, to be certified
    same = lead[1:] == lead[:-1]
    idx = np.nonzero(same)[0]
    if cauchy:
        pending = [(ys[idx], ys[idx + 1], lead[idx], vs[idx], vs[idx + 1], np.zeros(idx.size, int))]
    else:
        leaves_a.append(ys[idx])
        leaves_b.append(ys[idx + 1])
        leaves_l.append(lead[idx])
    changing = [(float(ys[i]), float(ys[i + 1]), int(lead[i]), int(lead[i + 1]), vs[i], vs[i + 1], 0)
                for i in np.nonzero(~same)[0]]
    max_depth = 80

    def keep(a, b, la, va, vb, depth):
        if cauchy:
            pending.append((np.array([a]), np.array([b]), np.array([la]), va[None], vb[None],
                            np.array([depth])))
        else:
            leaves_a.append([a])
            leaves_b.append([b])
            leaves_l.append([la])

    while changing or pending:
        while changing:
            a, b, la, lb, va, vb, depth = changing.pop()
            c = crossing(a, b, la, lb, va, vb)
            vc = va if c == a else vb if c == b else log_h1(c)
            top = float(np.max(vc))
            tie = _TIE * (1.0 + abs(top))
            if depth < max_depth and vc[la] < top - tie and vc[lb] < top - tie:  # a third set leads at c
                lc = int(_leader(vc))
                changing += [(a, c, la, lc, va, vc, depth + 1), (c, b, lc, lb, vc, vb, depth + 1)]
            else:
                keep(a, c, la, va, vc, depth + 1)
                keep(c, b, lb, vc, vb, depth + 1)
        if pending:
            a, b, la, va, vb, depth = (np.concatenate(p) for p in zip(*pending, strict=True))
            pending = []
            ok = (passes(a, b, la) | (depth >= max_depth)
                  | (b - a <= 1e-13 * np.maximum(np.maximum(np.abs(a), np.abs(b)), s)))
            leaves_a.append(a[ok])
            leaves_b.append(b[ok])
            leaves_l.append(la[ok])
            a, b, la, va, vb, depth = a[~ok], b[~ok], la[~ok], va[~ok], vb[~ok], depth[~ok] + 1
            if a.size > 1 << 18:
                raise RuntimeError(f"{a.size} cells of the output grid could not be shown to keep their leader "
                                   f"({noise.name} noise, scale {s:g}); please report this prior")
            if a.size:  # bisect
                mid = 0.5 * (a + b)
                vm = log_h(mid)
                lm = _leader(vm)
                for lo, hi, l_lo, l_hi, v_lo, v_hi in ((a, mid, la, lm, va, vm), (mid, b, lm, la, vm, vb)):
                    one = l_lo == l_hi
                    pending.append((lo[one], hi[one], l_lo[one], v_lo[one], v_hi[one], depth[one]))
                    changing += [(float(lo[i]), float(hi[i]), int(l_lo[i]), int(l_hi[i]), v_lo[i], v_hi[i],
                                  int(depth[i])) for i in np.nonzero(~one)[0]]
    a = np.concatenate([np.asarray(v, float) for v in leaves_a])
    b = np.concatenate([np.asarray(v, float) for v in leaves_b])
    lab = np.concatenate([np.asarray(v, int) for v in leaves_l])
    order = np.lexsort((b, a))
    a, b, lab = a[order], b[order], lab[order]
    wide = b > a  # a crossing on a cell's end leaves a piece of width 0
    a, b, lab = a[wide], b[wide], lab[wide]
    if not (a[0] == ys[0] and b[-1] == ys[-1] and np.all(b[:-1] == a[1:])):
        raise AssertionError("the pieces do not tile the output grid")
    start = np.concatenate([[True], lab[1:] != lab[:-1]])
    return sets, a[start][1:], lab[start]


def _finite_continuous(prior: Categorical, noise: ScaledNoise, s: float, r: float) -> float:
    """Success of the Bayes-optimal attacker: each piece of :func:`_finite_envelope` integrated
    with the noise CDFs (beyond the paper)."""
    x, w = prior.points, prior.probs
    sets, cuts, leaders = _finite_envelope(prior, noise, s, r)
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    lo, hi = edges[:-1], edges[1:]
    lp = noise.log_interval(lo[:, None] - x[None, :], hi[:, None] - x[None, :], s)  # (pieces, atoms)
    wp = np.where(sets[leaders], w[None, :], 0.0)
    return float(np.sum(wp * np.exp(lp)))


def _normal_laplace_log_joint(y, lo, hi, mu, sig, b):
    r""":math:`\ln\int_{lo}^{hi} \phi_\sigma(x - \mu)\frac{1}{2b}e^{-|y - x|/b} dx` (tilted normal CDFs)."""
    from scipy.special import log_ndtr

    def log_phi_diff(a, c):  # ln(Phi(c) - Phi(a)), a <= c
        a, c = np.broadcast_arrays(a, c)
        up = a > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            hi_t = np.where(up, log_ndtr(-a), log_ndtr(c))
            lo_t = np.where(up, log_ndtr(-c), log_ndtr(a))
            out = hi_t + np.log(-np.expm1(np.minimum(lo_t - hi_t, 0.0)))
        return np.where(c > a, out, -np.inf)

    k = 1.0 / b
    c = math.log(k / 2) + 0.5 * (k * sig) ** 2
    up = np.minimum(hi, y)  # x < y: e^{-k(y - x)}
    a1 = c - k * (y - mu) + log_phi_diff((lo - mu - k * sig * sig) / sig, (up - mu - k * sig * sig) / sig)
    dn = np.maximum(lo, y)  # x > y: e^{-k(x - y)}
    a2 = c + k * (y - mu) + log_phi_diff((dn - mu + k * sig * sig) / sig, (hi - mu + k * sig * sig) / sig)
    return np.logaddexp(a1, a2)


def _log_concave_continuous(prior, noise: ScaledNoise, s: float, r: float, n_max: int = 3000) -> float:
    """Normal or uniform prior with Laplace or Gaussian noise (module docstring)."""
    eps = noise.epsilon_arg(s)
    kern = noise.kernel
    if isinstance(prior, Normal):
        mu, sig = prior.mu, prior.sigma
        lo_s, hi_s = -np.inf, np.inf
        span = (mu - 12 * sig, mu + 12 * sig)

        def log_prior(x):
            return -0.5 * ((x - mu) / sig) ** 2

        def log_joint(y, lo, hi):
            if noise.name in ("laplace",):
                return _normal_laplace_log_joint(y, lo, hi, mu, sig, s)
            raise AssertionError  # Normal + Gaussian is closed form elsewhere
    else:  # Uniform
        lo_s, hi_s = prior.support
        span = (lo_s, hi_s)
        dens = 1.0 / (hi_s - lo_s)

        def log_prior(x):
            return np.zeros_like(x)

        def log_joint(y, lo, hi):
            a, c = np.maximum(lo, lo_s), np.minimum(hi, hi_s)
            return math.log(dens) + noise.log_interval(y - c, y - a, s)
    half = noise.support_halfwidth(s, 1e-20)
    y_lo, y_hi = span[0] - half, span[1] + half
    n = int(min(n_max, max(200, math.ceil((y_hi - y_lo) / (s / 4)))))
    knots = np.unique(np.concatenate([np.linspace(y_lo, y_hi, n + 1), [v for v in (lo_s, hi_s, lo_s + 2 * r,
                                      hi_s - 2 * r) if np.isfinite(v) and y_lo < v < y_hi]]))
    left, right = knots[:-1], knots[1:]
    xg, wg = _GL16
    ys = (((left + right)[:, None] + (right - left)[:, None] * xg) / 2).ravel()
    wy = (((right - left)[:, None] / 2) * wg).ravel()

    def ell(g):  # log posterior density up to a constant
        return log_prior(g) + kern.log_density(ys, g, eps)

    if isinstance(prior, Normal):
        g_lo, g_hi = np.minimum(ys, mu) - r - 10 * s, np.maximum(ys, mu) + r + 10 * s
    else:
        g_lo, g_hi = np.full_like(ys, lo_s + r), np.full_like(ys, hi_s - r)
    if np.all(g_hi <= g_lo):  # the ball covers the support
        return 1.0
    a, b = g_lo.copy(), g_hi.copy()
    with np.errstate(invalid="ignore"):
        for _ in range(64):
            mid = (a + b) / 2
            d = ell(mid + r) - ell(mid - r)
            up = d > 0  # the upper end is likelier: move right
            a = np.where(up, mid, a)
            b = np.where(up, b, mid)
    g = (a + b) / 2
    vals = np.exp(log_joint(ys, g - r, g + r))
    return float(np.sum(vals * wy))
