r"""The exact privacy profile of ``k`` Laplace releases (beyond the paper).

For two inputs ``d`` apart and Laplace noise of scale ``b`` (``m = d/b``) one release's privacy
loss :math:`\ell = \ln(p_0/p_1)(y)`, :math:`y \sim p_0`, has an atom ``+m`` (mass 1/2), an atom
``-m`` (mass :math:`e^{-m}/2`) and the density :math:`e^{-m/2}e^{\ell/2}/4` on ``(-m, m)``;
that is, its law is :math:`e^{-m/2}e^{\ell/2}\nu(d\ell)` with
:math:`\nu = (\delta_m + \delta_{-m})/2 + \mathrm{Leb}_{[-m, m]}/4`.  The tilt factorises, so
the loss :math:`L` of ``k`` releases has the law :math:`e^{-km/2}e^{s/2}\nu^{*k}(ds)`, and
:math:`\nu^{*k}` is a binomial mixture of atoms convolved with Irwin--Hall densities (uniform
B-splines): a finite sum of piecewise polynomials.  The pair is symmetric, so the hockey-stick
divergence is

.. math:: \delta(\epsilon) = \Pr[L > \epsilon] - e^\epsilon \Pr[L < -\epsilon]
          = E[(1 - e^{\epsilon - L})^+].

Every piece is kept in Bernstein form, whose coefficients of a B-spline are non-negative and
are obtained from one another by sums of non-negative numbers (the convolution with a uniform
is an integral); the integrals of :math:`e^{au}` against Bernstein polynomials are the positive
series of Kummer's function :math:`{}_1F_1`.  No step subtracts, so the profile is accurate to
a few units in the last place, for any ``k`` up to :data:`MAX_RELEASES`.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

#: the largest number of releases composed exactly (cost grows as k^3)
MAX_RELEASES = 200
#: the largest ``m = d/b`` computed exactly; beyond it the bound 1 is returned (the inputs are told
#: apart except on a set of probability below e^{-MAX_M/2})
MAX_M = 500.0


@lru_cache(maxsize=8)
def _irwin_hall_bernstein(jmax: int) -> tuple:
    """Bernstein coefficients of the Irwin--Hall density of ``j`` uniforms, ``j = 1..jmax``.

    Entry ``j - 1`` is an array of shape ``(j, j)``: row ``l`` holds the coefficients (degree
    ``j - 1``) of the density on ``[l, l + 1]`` in the local variable ``u``.
    """
    out = [np.ones((1, 1))]
    for j in range(1, jmax):
        prev = out[-1]  # j pieces, degree j - 1
        nxt = np.zeros((j + 1, j + 1))
        for piece in range(j + 1):
            if piece < j:  # int_0^u of piece `piece`: cumulative sums
                nxt[piece, 1:] += np.cumsum(prev[piece])
            if piece >= 1:  # int_u^1 of piece `piece - 1`: reverse cumulative sums
                nxt[piece, :j] += np.cumsum(prev[piece - 1][::-1])[::-1]
        out.append(nxt / j)
    return tuple(out)


def _bernstein_exp_integrals(a: float, d: int) -> np.ndarray:
    r""":math:`\int_0^1 e^{au} B_r^d(u)\,du = {}_1F_1(r+1; d+2; a)/(d+1)`, ``r = 0..d`` (positive series)."""
    r = np.arange(d + 1, dtype=float)
    if a >= 0:
        first, x, scale = r + 1, a, 1.0
    else:  # Kummer's transformation: e^a 1F1(d+1-r; d+2; -a), a positive series again
        first, x, scale = d + 1 - r, -a, math.exp(a)
    n_terms = int(x + 12 * math.sqrt(x) + 40)
    n = np.arange(n_terms, dtype=float)
    ratios = (first[:, None] + n[None, :]) / (d + 2 + n[None, :]) * x / (n[None, :] + 1)
    terms = np.concatenate([np.ones((d + 1, 1)), np.cumprod(ratios, axis=1)], axis=1)
    return scale * terms.sum(axis=1) / (d + 1)


def _de_casteljau_right(coef: np.ndarray, u: float) -> np.ndarray:
    """Bernstein coefficients, on ``[u, 1]`` rescaled to ``[0, 1]``, of the polynomial ``coef``."""
    c = np.array(coef, dtype=float)
    d = c.size - 1
    right = np.empty_like(c)
    for step in range(d + 1):
        right[d - step] = c[-1]
        c = (1 - u) * c[:-1] + u * c[1:]
    return right


def laplace_composed_delta(epsilon: float, m: float, k: int) -> float:
    r"""Hockey-stick divergence :math:`\delta(\epsilon)` of ``k`` Laplace releases, ``m = d/b`` (module docstring).

    Examples
    --------
    >>> import math
    >>> abs(laplace_composed_delta(0.2, 1.0, 1) - (1 - math.exp((0.2 - 1.0) / 2))) < 1e-12  # one release
    True
    """
    c, m, k = float(epsilon), float(m), int(k)
    if c >= k * m:
        return 0.0
    if m > MAX_M:
        return 1.0  # an upper bound
    tables = _irwin_hall_bernstein(k) if k >= 1 else ()
    thr = c / m  # threshold on x = L/m
    up = 0.0  # E[e^{(x - k) m/2} 1{x > thr}]
    down = 0.0  # E[e^{-(x + k) m/2} 1{x > thr}] (times e^c below)
    log_half = -k * math.log(2.0)
    for j in range(k + 1):
        n_atoms = k - j
        lw_j = math.lgamma(k + 1) - math.lgamma(j + 1) - math.lgamma(n_atoms + 1) + (
            j * math.log(m / 2) if j else 0.0) + log_half + j * math.log(2.0)
        # x = 2 (l + u) + 2 i - k with the atoms' count i in 0..n_atoms and the piece l in 0..j-1
        if j == 0:
            for i in range(n_atoms + 1):
                x = 2 * i - k
                if x > thr:
                    lw = lw_j + math.log(math.comb(n_atoms, i))
                    up += math.exp(lw + (x - k) * m / 2)
                    down += math.exp(lw - (x + k) * m / 2)
            continue
        coef = tables[j - 1]
        d = j - 1
        e_up = _bernstein_exp_integrals(m, d)
        e_dn = _bernstein_exp_integrals(-m, d)
        whole_up, whole_dn = coef @ e_up, coef @ e_dn  # per piece, from u = 0
        for i in range(n_atoms + 1):
            lw = lw_j + math.log(math.comb(n_atoms, i))
            for piece in range(j):
                base = 2 * (piece + i) - k  # x at u = 0
                ustar = (thr - base) / 2
                if ustar >= 1:
                    continue
                if ustar <= 0:
                    up += math.exp(lw + (base - k) * m / 2) * whole_up[piece]
                    down += math.exp(lw - (base + k) * m / 2) * whole_dn[piece]
                    continue
                right = _de_casteljau_right(coef[piece], ustar)
                w = 1 - ustar
                up += math.exp(lw + (base + 2 * ustar - k) * m / 2) * w * float(
                    right @ _bernstein_exp_integrals(m * w, d))
                down += math.exp(lw - (base + 2 * ustar + k) * m / 2) * w * float(
                    right @ _bernstein_exp_integrals(-m * w, d))
    # every term is a product or a sum of non-negative numbers: the rounding error of each part is
    # far below 1e-13 of it; that much is added, so the value returned is an upper bound
    gc = math.exp(c) * down
    return min(1.0, max(0.0, up - gc + 1e-13 * (up + gc)))
