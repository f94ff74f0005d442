"""Float64 paths against 50-digit references over log-spaced extreme arguments.

Each reference is typed here from the paper's printed expressions or from the densities of
App. A.1 (not taken from garesearch), and evaluated with mpmath at 50 digits from the same
float inputs (exact binary values).  The float path must agree to 1e-12 relative wherever
the reference lies in the float64 range; where it lies beyond, the float path must refuse
(:class:`~garesearch.ParameterError`) rather than return ``inf`` or 0.  ``max_rel_err`` of
each test is the number quoted for that function.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from garesearch import approx_dp, bound, noise
from garesearch.errors import InfeasibleError, ParameterError

mp = mpmath.mpf
TOL = 1e-12
TINY, HUGE = mp("1e-300"), mp("1e300")

# log-spaced towards 0 and towards 1 (down to the last float below 1)
_half = np.concatenate([[5e-324, 1e-310], np.geomspace(1e-300, 0.5, 26)])
PROBS = np.unique(np.concatenate([_half, 1 - _half[_half >= 2**-53], [1 - 2**-53]]))
DELTAS = np.unique(np.concatenate([[5e-324], np.geomspace(1e-300, 0.5, 18), 1 - np.geomspace(2**-53, 0.4, 6)]))


def max_rel_err(pairs) -> float:
    """Largest |float - reference| / |reference| over pairs whose reference is in range."""
    worst = 0.0
    for got, ref in pairs:
        if ref is None or mpmath.isinf(ref):
            assert got is None or got == math.inf, (got, ref)
            continue
        if not TINY <= abs(ref) <= HUGE:
            continue
        worst = max(worst, float(abs(mp(float(got)) - ref) / abs(ref)))
    return worst


# --- references, typed from the paper (Sec. 3.2 and Eq. (main)) ---------------------------------
# The printed arguments of the logarithms are rational in the (float, hence rational) inputs:
# they are evaluated exactly with Fractions, and their logarithm at 50 digits (near 1 as
# log1p(argument - 1), which keeps 50 significant digits however close to 1 the argument is).
def _neg_log(x: Fraction):
    """-ln(x) at 50 digits for an exact rational x > 0 (near 1 through log1p(x - 1))."""
    with mpmath.workdps(50):
        if Fraction(1, 2) <= x <= 2:
            y = x - 1
            return -mpmath.log1p(mp(y.numerator) / y.denominator)
        return -(mpmath.log(x.numerator) - mpmath.log(x.denominator))


def ref_eps_lb(delta, p, R=1.0):
    """Sec. 3.2 printed: eps_lb R = -ln(p/(1-p) (1/(delta+p) - 1)); inf if p + delta >= 1."""
    d, p = Fraction(delta), Fraction(p)
    if p + d >= 1:
        return mpmath.inf
    with mpmath.workdps(50):
        return _neg_log(p / (1 - p) * (1 / (d + p) - 1)) / mp(R)


def ref_eps_ub(delta, p, R=1.0):
    """Sec. 3.2 printed: eps_ub R = -ln((1-p)/p (1/(delta+1-p) - 1)); inf if p <= delta."""
    d, p = Fraction(delta), Fraction(p)
    if p <= d:
        return mpmath.inf
    with mpmath.workdps(50):
        return _neg_log((1 - p) / p * (1 / (d + 1 - p) - 1)) / mp(R)


def ref_eps_main(delta, p, q, a=1.0):
    """Eq. (main) printed: -ln(p/q (1/(delta+p) - 1))/a (None where it is <= 0: infeasible)."""
    d, p, q = Fraction(delta), Fraction(p), Fraction(q)
    if p + d >= 1:
        return mpmath.inf
    arg = p / q * (1 / (d + p) - 1)
    if arg >= 1:
        return None
    with mpmath.workdps(50):
        return _neg_log(arg) / mp(a)


def ref_worst_prior(delta, q):
    """Sec. 4.1 corrected: p* = q delta (1-delta) / (q delta + sqrt(q delta (q + delta - 1)))
    (at 700 digits: with delta down to 5e-324 Eq. (main) at p* cancels to ~4 delta)."""
    with mpmath.workdps(700):
        d, q = mp(delta), mp(q)
        return q * d * (1 - d) / (q * d + mpmath.sqrt(q * d * (q + d - 1)))


def _eps(fn, **kw):
    try:
        return fn(**kw)
    except InfeasibleError:
        return None


# --- bound -------------------------------------------------------------------------------------
def _representable(ref) -> bool:
    return mpmath.isinf(ref) or TINY <= abs(ref) <= HUGE


@pytest.mark.parametrize("a", [1.0, 1e-3, 1e5])
def test_epsilon_both_sides(a):
    P, D = (x.ravel() for x in np.meshgrid(PROBS, DELTAS))
    refs = {(d, p): (ref_eps_lb(d, p, a), ref_eps_ub(d, p, a)) for d, p in zip(D, P, strict=True)}
    for sides, pick in (("both", min), ("upper", lambda lb, ub: lb), ("lower", lambda lb, ub: ub)):
        ref = np.array([pick(*refs[d, p]) for d, p in zip(D, P, strict=True)], dtype=object)
        keep = np.array([_representable(r) for r in ref])
        got = bound.epsilon_for_advantage(delta=D[keep], p=P[keep], a=a, sides=sides)
        assert max_rel_err(zip(got, ref[keep], strict=True)) < TOL
        for d, p, r in list(zip(D[~keep], P[~keep], ref[~keep], strict=True))[:5]:
            if r > HUGE:  # beyond float64: refused, never inf
                with pytest.raises(ParameterError, match=r"^a: "):
                    bound.epsilon_for_advantage(delta=d, p=p, a=a, sides=sides)


def test_epsilon_with_q_towards_the_edge_of_feasibility():
    pairs = []
    for p in PROBS[::3]:
        for d in DELTAS[::3]:
            if p + d >= 1 or p >= 1:
                continue
            with mpmath.workdps(50):
                qmin = mp(p) * (1 - mp(p) - mp(d)) / (mp(p) + mp(d))
            for k in (1, 3, 6, 9, 12, 15):
                q = float(qmin * (1 + mp(10) ** -k))
                if not (0 < q and q + p <= 1):
                    continue
                ref = ref_eps_main(d, p, q)
                try:
                    got = _eps(bound.epsilon_for_advantage, delta=d, p=p, q=q)
                except ParameterError:  # refused only where epsilon lies beyond float64
                    assert not _representable(ref)
                    continue
                pairs.append((got, ref))
    assert max_rel_err(pairs) < TOL


def test_worst_case_prior_and_epsilon():
    pairs_p, pairs_e = [], []
    for d in DELTAS:
        with mpmath.workdps(50):
            qs = {1.0, float(1 - mp(d) * (1 - mp("1e-12"))), float(1 - mp(d) / 2), 1 - 2**-53}
        for q in qs:
            if not (q + d > 1 and q <= 1):
                continue
            ref_p = ref_worst_prior(d, q)
            pairs_p.append((bound.worst_case_prior(delta=d, q=q), ref_p))
            with mpmath.workdps(700):
                pp = ref_p
                ref_e = -mpmath.log(pp / (mp(q) - pp) * (1 / (mp(d) + pp) - 1))
            try:
                got = bound.worst_case_epsilon(delta=d, q=q)
            except ParameterError:  # an epsilon below the float64 range is refused
                assert ref_e < mp("1e-300")
                continue
            pairs_e.append((got, ref_e))
    assert max_rel_err(pairs_p) < TOL
    assert max_rel_err(pairs_e) < TOL


def test_posterior_bound_and_advantage():
    P, E = (x.ravel() for x in np.meshgrid(PROBS[::2], np.concatenate([[0.0], np.geomspace(1e-300, 700, 13)])))
    post = bound.posterior_bound(epsilon=E, p=P)
    adv = bound.advantage_for_epsilon(epsilon=E, p=P)
    pairs_post, pairs_adv = [], []
    for gp, ga_, e, p in zip(post, adv, E, P, strict=True):
        with mpmath.workdps(700):  # the differences below cancel to about p (1-p) epsilon
            e, p = mp(e), mp(p)
            upper = p / (p + (1 - p) * mpmath.exp(-e))  # Sec. 3.2, q = 1 - p, a = 1
            lower = p * mpmath.exp(-e) / (p * mpmath.exp(-e) + 1 - p)
            pairs_post.append((gp, upper))
            pairs_adv.append((ga_, max(upper - p, p - lower)) if upper - p > 0 else (0.0, None))
    assert max_rel_err(pairs_post) < TOL
    assert max_rel_err(p for p in pairs_adv if p[1] is not None) < TOL


# --- noise (App. A.1) ---------------------------------------------------------------------------
A_GRID = np.concatenate([[5e-324], np.geomspace(1e-300, 1e300, 61), [1e308]])
P_GRID = np.concatenate([np.geomspace(1e-300, 0.5, 20), 1 - np.geomspace(2**-53, 0.5, 20)])


def ref_mass(kind, a):
    with mpmath.workdps(50):
        a = mp(a)
        if kind == "laplace":
            return -mpmath.expm1(-a)
        if kind == "gaussian":
            return mpmath.erf(a / mpmath.sqrt(2))
        # sqrt2/(pi (1+x^4)) integrated over [-a, a]; by quadrature, as 1 - tail for large a
        f = lambda x: 1 / (1 + x**4)  # noqa: E731
        c = 2 * mpmath.sqrt(2) / mpmath.pi
        return c * mpmath.quad(f, [0, a]) if a < 1 else 1 - c * mpmath.quad(f, [a, mpmath.inf])


@pytest.mark.parametrize("kind", ["laplace", "gaussian", "gencauchy"])
def test_noise_mass(kind):
    grid = A_GRID[::2] if kind == "gencauchy" else A_GRID
    got = noise.noise_mass(grid, noise=kind)
    assert max_rel_err((g, ref_mass(kind, a)) for g, a in zip(got, grid, strict=True)) < TOL


@pytest.mark.parametrize("kind", ["laplace", "gaussian", "gencauchy"])
def test_noise_bound(kind):
    grid = P_GRID[::3] if kind == "gencauchy" else P_GRID
    got = noise.noise_bound(grid, noise=kind)
    pairs = []
    for g, p in zip(got, grid, strict=True):
        with mpmath.workdps(50):
            p = mp(p)
            if kind == "laplace":
                ref = -mpmath.log1p(-p)
            elif kind == "gaussian":
                ref = mpmath.sqrt(2) * mpmath.erfinv(p)
            else:
                c = 2 * mpmath.sqrt(2) / mpmath.pi
                start = p / c if p < 0.5 else mpmath.cbrt(c / (3 * (1 - p)))
                ref = mpmath.findroot(lambda a, p=p: ref_mass("gencauchy", a) - p if p < 0.5
                                      else (1 - ref_mass("gencauchy", a)) - (1 - p), start)
        pairs.append((g, ref))
    assert max_rel_err(pairs) < TOL


INVERSES = {  # the x >= 0 with f(x) = u, for App. A.1's densities (and the Gaussian)
    "laplace": (lambda: mp(1) / 2, lambda u: -mpmath.log(2 * u)),
    "gencauchy": (lambda: mpmath.sqrt(2) / mpmath.pi,
                  lambda u: (mpmath.sqrt(2) / (mpmath.pi * u) - 1) ** (mp(1) / 4)),
    "gaussian": (lambda: 1 / mpmath.sqrt(2 * mpmath.pi),
                 lambda u: mpmath.sqrt(-2 * mpmath.log(u * mpmath.sqrt(2 * mpmath.pi)))),
}


@pytest.mark.parametrize("kind", sorted(INVERSES))
@pytest.mark.parametrize("scale", [1.0, 3.7, 1e-200, 1e200])
def test_noise_density_inverse(kind, scale):
    top, inverse = INVERSES[kind]
    with mpmath.workdps(50):
        peak = top() / mp(scale)
        ys = [float(peak * (1 - mp(10) ** -k)) for k in range(1, 16)]
        ys += [float(peak * mp(10) ** -k) for k in (1, 10, 100, 250)]
    ys = [y for y in ys if y > 0]
    got = noise.noise_density_inverse(np.array(ys), noise=kind, scale=scale)
    pairs = []
    for g, y in zip(got, ys, strict=True):
        with mpmath.workdps(50):
            pairs.append((g, inverse(mp(y) * mp(scale)) * mp(scale)))
    assert max_rel_err(pairs) < TOL


# --- App. B ---------------------------------------------------------------------------------------
def test_adp_posterior_bound_near_chibar_equal_delta():
    pairs = []
    for eps in (0.0, 1e-300, 0.5, 30.0, 700.0):
        for delta in (1e-300, 1e-5, 0.1, 0.9):
            for k in (1, 4, 8, 12, 15):
                chibar = delta * (1 + 10.0**-k)
                for p, q in ((0.2, 0.5), (1e-300, 0.5), (0.5, 1e-300)):
                    got = approx_dp.adp_posterior_bound(epsilon=eps, dp_delta=delta, chibar=chibar,
                                                        p=p, q=q)
                    with mpmath.workdps(50):
                        ref = 1 / (1 + mpmath.exp(-mp(eps)) * (1 - mp(delta) / mp(chibar))
                                   * mp(q) / mp(p))
                    pairs.append((got, ref))
    assert max_rel_err(pairs) < TOL


def test_bprime_interval():
    pairs = []
    for eps, alpha, beta, c in [(2.0, 0.3, 0.2, 0.5), (5.743, 5.7e-6, 1e-3, 1.0), (1.0, 1e-300, 0.5, 1e-3),
                                (50.0, 10.0, 2.0, 1e10), (3.0, 1.0, 1e-200, 1.0), (10.0, 1e-8, 0.05, 0.01)]:
        with mpmath.workdps(60):
            e, al, be, cc = (mp(x) for x in (eps, alpha, beta, c))
            z = -4 * cc * mpmath.exp(e - al - 1 - (e - al) / be) / (-mpmath.expm1(-al) * be)
            ref = None if z < -1 / mpmath.e else \
                (-be * mpmath.lambertw(z, 0).real, -be * mpmath.lambertw(z, -1).real)
        got = approx_dp.bprime_interval(epsilon=eps, alpha=alpha, beta=beta, c=c)
        assert (got is None) == (ref is None), (eps, alpha, beta, c, got)
        if ref is not None:
            pairs += list(zip(got, ref, strict=True))
    assert max_rel_err(pairs) < TOL
