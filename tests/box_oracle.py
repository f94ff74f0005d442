r"""An AND-box of two normal attributes under :math:`\ell_\infty`: the cell relaxation with a
box about the bands and the prior beyond attached to the edge cells, built with
``scipy.optimize.linprog`` and ``scipy.stats.norm`` (nothing from the package), and the
posterior of a shifted pyramid by ``scipy.integrate.quad`` over the layer-cake formula; for
tests/test_goal_compact.py and tests/test_goal_compact_unequal.py.

``spec``: per coordinate ``(mean, standard deviation, radius, true value, cell side, cells of
margin beyond the band)``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import stats
from scipy.integrate import quad
from scipy.special import ndtr


def edges_of(mu, sd, r, t, h, m):
    return t - r - m * h + h * np.arange(round(2 * r / h) + 2 * m + 1)


def cell_masses(d, e):
    """Masses of the cells between the edges ``e`` (the upper tail from the survival function)."""
    return np.where(e[1:] <= d.mean(), d.cdf(e[1:]) - d.cdf(e[:-1]), d.sf(e[:-1]) - d.sf(e[1:]))


def beyond(d, e, h, up, k, decay=1.0):
    r"""Bound on :math:`\int L\,dF_c` beyond one end of the box along a coordinate, in units of
    the edge cell's average: virtual cells :math:`j = 1..J` (out to the prior's 1e-17
    quantile) at :math:`e^{k j h}` times their masses, the rest at :math:`e^{k |x - f|}` (``f``
    the far edge of the edge cell; a normal's tilted tail in closed form)."""
    mu, sd = d.mean(), d.std()
    if up:
        near, far = e[-1], e[-2]
        J = min(max(math.ceil((d.isf(1e-17) - near) / h), 1), 4000)
        j = np.arange(1, J + 1)
        virt = d.sf(near + h * (j - 1)) - d.sf(near + h * j)
        rest = math.exp(k * (mu - far) + (k * sd) ** 2 / 2) * stats.norm.sf((near + h * J - mu - k * sd ** 2) / sd)
    else:
        near, far = e[0], e[1]
        J = min(max(math.ceil((near - d.ppf(1e-17)) / h), 1), 4000)
        j = np.arange(1, J + 1)
        virt = d.cdf(near - h * (j - 1)) - d.cdf(near - h * j)
        rest = math.exp(k * (far - mu) + (k * sd) ** 2 / 2) * stats.norm.cdf((near - h * J - mu + k * sd ** 2) / sd)
    return float(np.sum(virt * np.exp(decay * k * h * j))) + rest


def oracle_bound(spec, eps, upper, factor=1.0, drop=None, decay=1.0, extra=True, reach=(None, 2)):
    """The largest (``upper``) or smallest posterior of the AND-box over the cell relaxation,
    built here: cells of sides ``h_c`` over the bands widened by the margins; every pair of
    cells at offset ``v`` with ``|v_s| <= 2k + 1`` (the smaller side), ``|v_b| <= 2`` has
    averages in ratio at most ``factor`` :math:`e^{\\epsilon \\max_c |v_c| h_c}` (offsets in
    ``drop`` left out); the prior beyond the box (outside :math:`X'`) attached to its edge cells,
    with the lower bounds of :func:`beyond` for ``upper``, else the upper ones, multiplied over
    the coordinates beyond, and along one coordinate ``c`` widened by
    :math:`e^{\\pm\\epsilon \\max(0, h_o - h_c)}` (``extra``, as the package takes it)."""
    import scipy.sparse as sp
    from scipy.optimize import linprog

    dists = [stats.norm(mu, sd) for mu, sd, *_ in spec]
    edges = [edges_of(*s) for s in spec]
    hs = [s[4] for s in spec]
    masses = [cell_masses(d, e) for d, e in zip(dists, edges, strict=True)]
    shape = tuple(len(m) for m in masses)
    F = np.outer(*masses).ravel()
    centres = np.meshgrid(*[(e[:-1] + e[1:]) / 2 for e in edges], indexing="ij")
    inside = np.all([np.abs(g - s[3]) <= s[2] for g, s in zip(centres, spec, strict=True)], axis=0).ravel()
    k = -eps if upper else eps  # (the prior beyond lies outside X': its lower bound raises the posterior)
    tail = np.zeros(F.size)
    idx = np.arange(F.size).reshape(shape)
    for pattern in itertools.product((-1, 0, 1), repeat=2):
        if not any(pattern):
            continue
        per, sel = [], []
        for c, side in enumerate(pattern):
            if side == 0:
                per.append(np.ones(shape[c]))
                sel.append(slice(None))
            else:
                edge = -1 if side > 0 else 0
                per.append(np.array([beyond(dists[c], edges[c], hs[c], side > 0, k, decay) / masses[c][edge]]))
                sel.append(slice(-1, None) if side > 0 else slice(0, 1))
        coef = np.outer(*per).ravel()
        if extra and 0 in pattern:
            c = pattern.index(0)
            coef *= math.exp(k * max(0.0, hs[c] - hs[1 - c]))
        tail[idx[tuple(sel)].ravel()] += coef
    small = int(np.argmin(hs))
    kk = round(max(hs) / min(hs))
    lim = [0, 0]
    lim[small], lim[1 - small] = reach[0] or 2 * kk + 1, reach[1]
    offsets = [v for v in itertools.product(range(-lim[0], lim[0] + 1), range(-lim[1], lim[1] + 1))
               if any(v) and v > (0, 0)]  # (one of each +-v; both directions below)
    if drop:
        offsets = [v for v in offsets if v not in drop and tuple(-x for x in v) not in drop]
    rows, cols, vals = [], [], []
    r = 0
    for v in offsets:
        f = factor * math.exp(eps * max(abs(v[0]) * hs[0], abs(v[1]) * hs[1]))
        for u in (v, tuple(-x for x in v)):
            src = tuple(slice(max(0, -x), s - max(0, x)) for x, s in zip(u, shape, strict=True))
            dst = tuple(slice(max(0, x), s - max(0, -x)) for x, s in zip(u, shape, strict=True))
            a, b = idx[src].ravel(), idx[dst].ravel()
            m = a.size  # w_a / F_a <= f w_b / F_b
            rows += [r + np.arange(m)] * 2
            cols += [a, b]
            vals += [np.ones(m), -f * F[a] / F[b]]
            r += m
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, F.size))
    obj = inside.astype(float)
    res = linprog(-obj if upper else obj, A_ub=A, b_ub=np.zeros(r), A_eq=(1.0 + tail)[None, :], b_eq=[1.0],
                  bounds=(0, None), method="highs-ds",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return -res.fun if upper else res.fun


def pyramid_posterior(spec, eps, low, high, inverted=False):
    """Posterior of the AND-box under the (inverted) shifted pyramid on the box ``[low, high]``
    (layer cake, ``quad`` split where a side of :math:`C_s` meets a band's edge)."""
    cdfs = [lambda x, mu=mu, sd=sd: float(ndtr((x - mu) / sd)) for mu, sd, *_ in spec]
    sfs = [lambda x, mu=mu, sd=sd: float(ndtr((mu - x) / sd)) for mu, sd, *_ in spec]
    bands = [(t - r, t + r) for _, _, r, t, *_ in spec]

    def mass(c, lo, hi):
        if hi <= lo:
            return 0.0
        return cdfs[c](hi) - cdfs[c](lo) if hi <= spec[c][0] else sfs[c](lo) - sfs[c](hi)

    def levels(s):
        tot = ins = 1.0
        for c, (lo, hi) in enumerate(bands):
            a, b = low[c] - s, high[c] + s
            tot *= mass(c, a, b)
            ins *= mass(c, max(a, lo), min(b, hi))
        return tot, ins

    def beyond(s):  # 1 - F(C_s), without the cancellation
        return -math.expm1(sum(math.log1p(-(cdfs[c](low[c] - s) + sfs[c](high[c] + s))) for c in range(2)))

    p_in = math.prod(mass(c, lo, hi) for c, (lo, hi) in enumerate(bands))
    kinks = sorted({x for (lo, hi), a, b in zip(bands, low, high, strict=True)
                    for x in (a - lo, a - hi, lo - b, hi - b) if x > 0})
    reach = 40.0 * max(s[1] for s in spec)
    pts = [0.0] + [x for x in kinks if x < reach] + [reach]
    opts = dict(limit=200, epsabs=1e-14, epsrel=1e-10)

    def integral(f):
        return sum(quad(f, u, v, **opts)[0] for u, v in itertools.pairwise(pts) if v - u > 1e-12)

    if not inverted:
        ins = integral(lambda s: eps * math.exp(-eps * s) * levels(s)[1])
        out = integral(lambda s: eps * math.exp(-eps * s) * (levels(s)[0] - levels(s)[1]))
    else:
        ins = p_in + integral(lambda s: eps * math.exp(eps * s) * (p_in - levels(s)[1]))
        out = 1.0 - p_in + integral(lambda s: eps * math.exp(eps * s) * (beyond(s) - (p_in - levels(s)[1])))
    return ins / (ins + out)
