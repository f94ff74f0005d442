r"""The one-dimensional side of the cell relaxation (:mod:`garesearch.optimal._goal_cells`):
which priors it takes (log-concave densities, for the translation lemma), the range its cells
cover, and the log prior masses of the cells, accurate in the tails (beyond the paper;
Sec. 4.2, 4.3).

Log-concavity is decided by an explicit rule per prior class, never assumed:

- :class:`~garesearch.priors.Normal`: always; :class:`~garesearch.priors.Uniform` (and a
  :class:`~garesearch.priors.PiecewiseUniform` whose bins all have the same density, the same
  thing): always;
- :class:`~garesearch.priors.Continuous`: by the scipy family (location and scale do not
  change it) and its shape parameters, from the family's density (:data:`LOG_CONCAVE`): for
  example ``gamma`` with shape :math:`a \ge 1` (:math:`(a - 1)\log x - x`), ``weibull_min``
  with :math:`c \ge 1`, ``beta`` with both shapes :math:`\ge 1`; and only where scipy
  computes its CDF and survival function in closed form (:func:`garesearch._priors_continuous.cdf_error`
  is ``(LIB_RTOL, 0)``), so that the cell masses are accurate;
- anything else (mixtures, heavy tails, a categorical prior on a numeric axis): no.
"""

from __future__ import annotations

import math

import numpy as np

from ..priors import Continuous, Normal, PiecewiseUniform, Prior

__all__ = ["LOG_CONCAVE", "ball_fractions", "cell_range", "is_log_concave", "log_cell_masses", "window_rows"]

#: scipy families with a log-concave density, and the condition on their shape parameters
#: (in scipy's order); ``None``: every shape
LOG_CONCAVE = {
    "norm": None, "uniform": None, "expon": None, "laplace": None, "logistic": None,
    "gumbel_r": None, "gumbel_l": None, "halfnorm": None, "truncnorm": None, "rayleigh": None,
    "maxwell": None,
    "truncexpon": lambda b: b > 0,
    "gamma": lambda a: a >= 1,
    "erlang": lambda a: a >= 1,
    "weibull_min": lambda c: c >= 1,
    "beta": lambda a, b: a >= 1 and b >= 1,
    "chi": lambda df: df >= 1,
    "chi2": lambda df: df >= 2,
    "powerlaw": lambda a: a >= 1,
}


def is_log_concave(prior: Prior) -> bool:
    """Whether ``prior`` has a log-concave density by the rules of the module docstring.

    Examples
    --------
    >>> import scipy.stats as st
    >>> from garesearch.priors import Continuous, Normal, Uniform
    >>> is_log_concave(Normal(0, 1)), is_log_concave(Uniform(0, 2))
    (True, True)
    >>> is_log_concave(Continuous(st.gamma(3.0))), is_log_concave(Continuous(st.gamma(0.5)))
    (True, False)
    """
    if isinstance(prior, Normal):
        return True
    if isinstance(prior, PiecewiseUniform):
        d = prior.density
        return bool(np.all(d > 0) and np.ptp(d) <= 1e-12 * np.max(d))
    if isinstance(prior, Continuous):
        from .._priors_continuous import cdf_error

        gen = prior.dist.dist
        rule = LOG_CONCAVE.get(gen.name, False)
        if rule is False or cdf_error(prior.dist)[1] != 0.0:
            return False
        if rule is None:
            return True
        shapes, _, _ = gen._parse_args(*prior.dist.args, **prior.dist.kwds)
        return bool(rule(*(float(s) for s in shapes)))
    return False


def cell_range(prior: Prior, t: float, r: float, q: float) -> tuple[float, float]:
    """The range the cells of one coordinate cover: the band ``[t - r, t + r]`` and the prior's
    central ``1 - 2 q`` (a finite end of the support itself), cut to the support (cells beyond
    it would hold no mass)."""
    lo_s, hi_s = prior.support
    lo = lo_s if math.isfinite(lo_s) else float(prior.quantile(q))
    hi = hi_s if math.isfinite(hi_s) else float(prior.upper_quantile(q))
    lo, hi = min(lo, t - r), max(hi, t + r)
    return max(lo, lo_s), min(hi, hi_s)


def log_cell_masses(prior: Prior, e: np.ndarray) -> np.ndarray:
    """``log F([e_k, e_{k+1}])`` for consecutive edges ``e`` (``-inf`` for no mass), accurate
    in both tails: by ``log_ndtr`` for a normal prior, from the closed-form CDF for a uniform
    one, and from scipy's ``logcdf`` below the median and ``logsf`` above it otherwise (the
    difference taken as ``log a + log1p(-b / a)``).

    Examples
    --------
    >>> import numpy as np, scipy.stats as st
    >>> from garesearch.priors import Continuous
    >>> m = log_cell_masses(Continuous(st.expon()), np.array([30.0, 31.0]))
    >>> bool(abs(m[0] - (-30 + np.log1p(-np.exp(-1)))) < 1e-12)
    True
    """
    e = np.asarray(e, float)
    a, b = e[:-1], e[1:]
    if isinstance(prior, Normal):
        from ._goal_kernels import log_diff_ndtr

        return log_diff_ndtr((a - prior.mu) / prior.sigma, (b - prior.mu) / prior.sigma)
    with np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(prior, PiecewiseUniform):
            return np.log(np.asarray(prior.mass(a, b), float))
        dist = prior.dist
        med = float(dist.median())
        up = a >= med
        dn = b <= med
        lc_a, lc_b = dist.logcdf(a), dist.logcdf(b)
        ls_a, ls_b = dist.logsf(a), dist.logsf(b)
        low = lc_b + np.log1p(-np.exp(np.minimum(lc_a - lc_b, 0.0)))
        high = ls_a + np.log1p(-np.exp(np.minimum(ls_b - ls_a, 0.0)))
        mid = np.log(np.clip(1.0 - np.exp(lc_a) - np.exp(ls_b), 0.0, 1.0))
        out = np.where(up, high, np.where(dn, low, mid))
    return np.where(b > a, np.where(np.isnan(out), -np.inf, out), -np.inf)


def window_rows(logF: np.ndarray, c0: int, K: int, log_factor: float, start: int, first: int):
    r"""The constraints :math:`a_{i,\alpha} \le e^{\lambda} a_{j,\beta}` for every pair of
    distinct atoms :math:`\alpha, \beta` and numeric cells :math:`|i - j| < K` (``log_factor``
    :math:`= \lambda`), through a sparse table of window minima: auxiliary averages
    :math:`z^{(L)}_{j,\beta} \le \min_{j \le j' < j + 2^L} a_{j',\beta}` (two rows each, from
    level :math:`L - 1`) and :math:`a_{i,\alpha} \le e^\lambda z^{(L)}_{j,\beta}` for the two
    blocks of length :math:`2^L` that cover the window of ``i``.  Any feasible point of the
    pairs extends to one of these (take each ``z`` the minimum it bounds) and every feasible
    point of these satisfies the pairs: the same relaxation with
    :math:`O(n \log K)` rows instead of :math:`O(n K)`.

    ``logF`` holds the cells' log masses (numeric axis ``c0``, atoms along the other; an
    atom of no mass is left out); the variables are the posterior masses ``w = a F`` of the
    cells (columns in ``logF``'s flat order) and the auxiliaries scaled alike (``z F`` of the
    block's first cell; columns from ``first``); rows are numbered from ``start``.  Returns
    ``rows, cols, vals`` and, per auxiliary, the cell whose upper bound it inherits
    (:math:`z \le a` of that cell).

    Examples
    --------
    >>> import numpy as np
    >>> r, c, v, aux = window_rows(np.zeros((4, 2)), 0, 2, 1.0, 0, 8)
    >>> aux.size, int(r.max()) + 1  # 3 blocks of 2 per atom; 2 rows each, 2 x 2 x 4 window rows
    (6, 28)
    """
    arr = np.moveaxis(np.asarray(logF, float), c0, 0)
    idx = np.moveaxis(np.arange(arr.size).reshape(logF.shape), c0, 0).reshape(arr.shape[0], -1)
    arr = arr.reshape(arr.shape[0], -1)
    nn = arr.shape[0]
    atoms = np.flatnonzero(np.all(np.isfinite(arr), axis=0))
    rows, cols, vals = [], [], []
    row = [start]

    def add(r_cols, r_vals):  # one row per entry of the arrays' first axis
        k = r_cols[0].size
        rr = row[0] + np.arange(k)
        for cc, vv in zip(r_cols, r_vals, strict=True):
            rows.append(rr)
            cols.append(cc)
            vals.append(vv)
        row[0] += k

    col = {0: idx[:, atoms]}  # level -> (nn - 2^L + 1, atoms) columns
    aux_cells = []
    nxt = first
    lmax = math.floor(math.log2(max(1, min(2 * K - 1, nn))))
    for lev in range(1, lmax + 1):
        half, size = 2 ** (lev - 1), nn - 2 ** lev + 1
        cur = nxt + np.arange(size * atoms.size).reshape(size, atoms.size)
        nxt += cur.size
        aux_cells.append(idx[:size, atoms].ravel())
        prev = col[lev - 1]
        lf = arr[:, atoms]
        ones = np.ones(cur.size)
        add((cur.ravel(), prev[:size].ravel()), (ones, -ones))
        add((cur.ravel(), prev[half:half + size].ravel()), (ones, -np.exp(lf[:size] - lf[half:half + size]).ravel()))
        col[lev] = cur
    i = np.arange(nn)
    lo, hi = np.maximum(0, i - K + 1), np.minimum(nn - 1, i + K - 1)
    lev = np.floor(np.log2(hi - lo + 1)).astype(int)
    for blk in (lo, hi - 2 ** lev + 1):
        for a in atoms:
            for ib, b in enumerate(atoms):
                if a == b:
                    continue
                zc = np.array([col[L][j, ib] for L, j in zip(lev, blk, strict=True)])
                add((idx[i, a], zc), (np.ones(nn), -np.exp(log_factor + arr[i, a] - arr[blk, b])))
    aux_of = np.concatenate(aux_cells) if aux_cells else np.zeros(0, dtype=int)
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), aux_of


def ball_fractions(priors, t, r: float, p: float, lo: np.ndarray, hi: np.ndarray, slabs: int = 32):
    r"""Certified enclosure ``(m_lo, m_hi)`` of :math:`F(C \cap B) / F(C)` for cells
    :math:`C = [lo_0, hi_0] \times [lo_1, hi_1]` (rows of ``lo``, ``hi``) under the product
    prior ``priors`` and the closed :math:`\ell_p` ball :math:`B` of radius ``r`` about ``t``.
    The cell is cut into ``slabs`` slabs along the first coordinate; over a slab the ball's
    chord along the second coordinate, :math:`t_1 \pm (r^p - |x_0 - t_0|^p)^{1/p}`, lies between
    its values at the slab's farthest and nearest points, so the slab's mass in the ball lies
    between the slab's mass times the prior mass of the cell's part of the shorter chord and
    of the longer one (a relative margin of 1e-9 for rounding).

    Examples
    --------
    >>> import numpy as np
    >>> from garesearch.priors import Normal
    >>> lo, hi = np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]])
    >>> m_lo, m_hi = ball_fractions([Normal(0, 1), Normal(0, 1)], (0.0, 0.0), 1.0, 2.0, lo, hi)
    >>> from scipy.stats import norm
    >>> exact = (1 - np.exp(-0.5)) / 4 / (norm.cdf(1.0) - 0.5) ** 2  # (the quarter disc in polar form)
    >>> bool(m_lo[0] <= exact <= m_hi[0]) and bool(m_hi[0] - m_lo[0] < 0.05)
    True
    """
    from scipy.special import logsumexp

    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    u = np.linspace(0.0, 1.0, slabs + 1)
    x = lo[:, :1] + (hi[:, :1] - lo[:, :1]) * u  # (cells, slabs + 1)
    xa, xb = x[:, :-1], x[:, 1:]
    near = np.maximum(0.0, np.maximum(xa - t[0], t[0] - xb))
    far = np.maximum(np.abs(xa - t[0]), np.abs(xb - t[0]))

    def pair_masses(prior, a, b):  # log F([a, b]) elementwise (-inf where a >= b)
        e = np.stack([a.ravel(), b.ravel()], axis=1).ravel()
        return log_cell_masses(prior, e)[::2].reshape(a.shape)

    def chord(d):  # log prior mass of the cell's part of the chord at |x_0 - t_0| = d
        with np.errstate(invalid="ignore"):
            w = np.where(d <= r, r - d if p == 1 else (r if math.isinf(p) else (r**p - np.minimum(d, r)**p) ** (1 / p)),
                         -1.0)
        a = np.maximum(lo[:, 1:2], t[1] - w)
        b = np.minimum(hi[:, 1:2], t[1] + w)
        return pair_masses(priors[1], np.where(w >= 0, a, 0.0), np.where(w >= 0, b, 0.0))

    slab = pair_masses(priors[0], xa, xb)
    cell = pair_masses(priors[0], lo[:, 0], hi[:, 0]) + pair_masses(priors[1], lo[:, 1], hi[:, 1])
    with np.errstate(divide="ignore"):
        m_hi = np.exp(logsumexp(slab + chord(near), axis=1) - cell) * (1 + 1e-9)
        m_lo = np.exp(logsumexp(slab + chord(far), axis=1) - cell) * (1 - 1e-9)
    return np.clip(m_lo, 0.0, 1.0), np.clip(m_hi, 0.0, 1.0)
