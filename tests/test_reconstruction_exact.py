"""The average reading of a finite prior against closed forms derived here, and against quadrature.

Beyond the paper.  Every expected value below is worked out in this file from the densities
(Laplace :math:`e^{-|z|/b}/2b`, Gaussian :math:`\\phi(z/\\sigma)/\\sigma`, generalised Cauchy
:math:`\\sqrt2/(\\pi s (1 + (z/s)^4))`), not taken from the package:

- ``r = 0`` and equal weights: the attacker guesses the nearest atom.  With atoms at spacing 1,
  an end atom loses one tail of the noise beyond 1/2, an interior atom both:
  :math:`S = (2(n-1)F(1/2) - (n-2))/n`.
- ``r = 1/2`` and equal weights at spacing 1: the balls hold two neighbours; by symmetry
  :math:`\\{i, i+1\\}` and :math:`\\{i+1, i+2\\}` cross at the shared atom ``i + 1``, so
  :math:`\\{0, 1\\}` leads up to 1, :math:`\\{i, i+1\\}` on :math:`[i, i+1]`, the last pair from
  ``n - 2`` on: :math:`S = (2/n)((n-2)F(1) - (n-4)/2)`, :math:`\\kappa = 2/n`.
- Unequal weights: two sets cross where their weighted densities are equal, solved by hand.

The package's success is asserted to 1e-12 relative and calibrated scales to 1e-10 relative and
on the safe side; the defect this guards against (a cut at the middle of a grid cell when two
guesses were level on its end) gave errors of 1e-6 to 4.5e-5, and the missed short leads between
grid points errors of 2e-8 to 4e-8.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq, minimize_scalar
from scipy.special import ndtr, ndtri

from garesearch import calibrate
from garesearch.additive import resolve
from garesearch.priors import Categorical
from garesearch.releases.reconstruction import (
    _finite_continuous,
    _finite_envelope,
    reconstruction_advantage,
)

REL = 1e-12


# ---------------------------------------------------------------------------------------------
# densities and CDFs written out
def lap_cdf(z, b):
    return 1.0 - 0.5 * math.exp(-z / b) if z >= 0 else 0.5 * math.exp(z / b)


def gauss_cdf(z, sigma):
    return float(ndtr(z / sigma))


CDF = {"laplace": lap_cdf, "gaussian": gauss_cdf}


def density(name, s):
    if name == "laplace":
        return lambda z: math.exp(-abs(z) / s) / (2 * s)
    if name == "gaussian":
        return lambda z: math.exp(-0.5 * (z / s) ** 2) / (s * math.sqrt(2 * math.pi))
    return lambda z: math.sqrt(2.0) / (math.pi * s * (1.0 + (z / s) ** 4))


def success(prior, name, s, r):
    return reconstruction_advantage(prior, name, scale=s, r=r, prior_free=False).success


def general(prior, name, s, r):
    """The general finite-prior route, without the clamp at the blind guess."""
    return _finite_continuous(prior, resolve(name), s, r)


def equal_prior(n, spacing=1.0):
    return Categorical({spacing * i: 1.0 / n for i in range(n)})


def close(got, want, rel=REL):
    return abs(got - want) <= rel * abs(want)


# ---------------------------------------------------------------------------------------------
# symmetric priors
@pytest.mark.parametrize("s", [0.05, 0.3, 1.0, 2.2407100588622746, 7.0])
def test_fair_coin(s):
    coin = Categorical({0: 0.5, 1: 0.5})
    lap = 1 - 0.5 * math.exp(-1 / (2 * s))
    gau = gauss_cdf(0.5, s)
    assert close(success(coin, "laplace", s, 0), lap)
    assert close(success(coin, "gaussian", s, 0), gau)  # the package's binary closed form
    assert close(general(coin, "gaussian", s, 0), gau)  # and the general route
    adv = reconstruction_advantage(coin, "laplace", scale=s, r=0, prior_free=False).advantage
    assert close(adv, lap - 0.5)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("name", ["laplace", "gaussian"])
@pytest.mark.parametrize("s", [0.1, 0.45, 1.0, 2.24, 6.0])
def test_equal_weights_nearest_atom(n, name, s):
    F = CDF[name]
    want = (2 * (n - 1) * F(0.5, s) - (n - 2)) / n
    assert close(success(equal_prior(n), name, s, 0), want)
    adv = reconstruction_advantage(equal_prior(n), name, scale=s, r=0, prior_free=False).advantage
    assert close(adv, want - 1 / n)
    # the same prior stretched: spacing 3 at three times the scale
    assert close(success(equal_prior(n, 3.0), name, 3 * s, 0), want)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("name", ["laplace", "gaussian"])
@pytest.mark.parametrize("s", [0.2, 0.7, 1.5, 4.0])
def test_equal_weights_balls_of_two(n, name, s):
    F = CDF[name]
    want = 2 / n * ((n - 2) * F(1.0, s) - (n - 4) / 2)
    res = reconstruction_advantage(equal_prior(n), name, scale=s, r=0.5, prior_free=False)
    assert res.baseline == pytest.approx(2 / n, rel=1e-15)
    assert close(res.success, want)
    assert close(res.advantage, want - 2 / n)


def test_symmetric_cuts_sit_on_the_midpoints():
    for name in ("laplace", "gaussian"):
        sets, cuts, leaders = _finite_envelope(equal_prior(5), resolve(name), 0.8, 0.0)
        assert sets.shape == (5, 5)
        assert np.allclose(cuts, [0.5, 1.5, 2.5, 3.5], rtol=0, atol=1e-12)
        assert leaders.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("s", [0.3, 1.0, 3.0])
def test_unequal_spacing(s):
    prior = Categorical({0: 1 / 3, 1: 1 / 3, 3: 1 / 3})
    for name in ("laplace", "gaussian"):
        F = CDF[name]
        # r = 0: cuts at 1/2 and 2; atom 1 keeps [1/2, 2]
        want = (2 * F(0.5, s) + 2 * F(1.0, s) - 1) / 3
        assert close(success(prior, name, s, 0), want)
    # r = 1/2: the sets {0, 1} and {3} ({1} is inside {0, 1}); they are level where
    # f(y) + f(y - 1) = f(y - 3)
    for name in ("laplace", "gaussian"):
        F = CDF[name]
        if name == "laplace":  # between 1 and 3: e^{2y/b} = (1 + e^{1/b}) e^{3/b}
            y = 1.5 + s / 2 * math.log1p(math.exp(1 / s))
            if not 1 <= y <= 3:
                continue
        else:
            def gap(t):  # ln(phi(t) + phi(t - 1)) - ln phi(t - 3), times 2 sigma^2
                return (3 - t) ** 2 - t * t + 2 * s * s * math.log1p(math.exp((2 * t - 1) / (2 * s * s)))

            y = brentq(gap, 0.5, 3 + 40 * s * s, xtol=1e-15, rtol=1e-15)
        want = (F(y, s) + F(y - 1, s) + 1 - F(y - 3, s)) / 3
        assert close(success(prior, name, s, 0.5), want)


# ---------------------------------------------------------------------------------------------
# unequal weights
@pytest.mark.parametrize("w", [0.55, 0.6, 0.7, 0.9])
@pytest.mark.parametrize("b", [0.25, 0.8, 1.5])
def test_two_atoms_unequal_weights_laplace(w, b):
    # w f(y) = (1 - w) f(y - 1) at y* = 1/2 + (b/2) ln(w / (1 - w)) while y* < 1: then
    # S = 1 - sqrt(w (1 - w)) e^{-1/(2b)}; beyond that atom 0 is never beaten: S = w
    lead = b * math.log(w / (1 - w)) < 1
    want = 1 - math.sqrt(w * (1 - w)) * math.exp(-1 / (2 * b)) if lead else w
    for prior in (Categorical({0: w, 1: 1 - w}), Categorical({0: 1 - w, 1: w})):
        assert close(general(prior, "laplace", b, 0), want)


@pytest.mark.parametrize("w", [0.55, 0.7, 0.9])
@pytest.mark.parametrize("sigma", [0.25, 0.8, 3.0])
def test_two_atoms_unequal_weights_gaussian(w, sigma):
    y = 0.5 + sigma**2 * math.log(w / (1 - w))  # w phi(y) = (1 - w) phi(y - 1)
    want = w * gauss_cdf(y, sigma) + (1 - w) * (1 - gauss_cdf(y - 1, sigma))
    prior = Categorical({0: w, 1: 1 - w})
    assert close(success(prior, "gaussian", sigma, 0), want)
    assert close(general(prior, "gaussian", sigma, 0), want)


def test_a_short_lead_inside_one_grid_cell_gaussian():
    """Three atoms at 0, 1, 2, sigma = 1: the middle one leads only on [y01, y01 + 0.001]
    (w_i phi(y - x_i) = w_j phi(y - x_j) at (x_i + x_j)/2 + ln(w_i/w_j)/(x_j - x_i)), moved
    across a few grid cells; the old cut between the two outer leaders dropped it (3.6e-8)."""
    width = 1e-3
    for p in np.linspace(0.6, 0.7, 21):
        w = np.array([math.exp(p), 1.0, math.exp(1 - width - p)])
        w /= w.sum()
        y01 = 0.5 + math.log(w[0] / w[1])
        y12 = 1.5 + math.log(w[1] / w[2])
        assert y12 - y01 == pytest.approx(width)
        want = w[0] * ndtr(y01) + w[1] * (ndtr(y12 - 1) - ndtr(y01 - 1)) + w[2] * (1 - ndtr(y12 - 2))
        prior = Categorical({0: w[0], 1: w[1], 2: w[2]})
        assert close(success(prior, "gaussian", 1.0, 0), want), p


def test_a_short_lead_inside_one_grid_cell_laplace():
    """Atoms 0..3, r = 1/2, b = 1: the sets A = {0,1}, B = {1,2}, C = {2,3}.  A and B are level
    where w0 f(y) = w2 f(y - 2), y_AB = 1 + ln(w0/w2)/2; B and C where w1 f(y - 1) = w3 f(y - 3),
    y_BC = 2 + ln(w1/w3)/2; B leads on [y_AB, y_AB + 0.001] only, moved across grid cells."""
    width = 1e-3
    F = lap_cdf
    for y_ab in np.linspace(1.1, 1.4, 31):
        w = np.array([math.exp(2 * (y_ab - 1)), math.exp(2 * (y_ab + width - 2)), 1.0, 1.0])
        w /= w.sum()
        a = 1 + 0.5 * math.log(w[0] / w[2])
        c = 2 + 0.5 * math.log(w[1] / w[3])
        assert c - a == pytest.approx(width)
        want = (w[0] * F(a, 1) + w[1] * F(a - 1, 1)
                + w[1] * (F(c - 1, 1) - F(a - 1, 1)) + w[2] * (F(c - 2, 1) - F(a - 2, 1))
                + w[2] * (1 - F(c - 2, 1)) + w[3] * (1 - F(c - 3, 1)))
        prior = Categorical(dict(enumerate(w.tolist())))
        assert close(success(prior, "laplace", 1.0, 0.5), want), y_ab


def test_three_atoms_unequal_weights():
    w = np.array([0.5, 0.3, 0.2])
    x = np.array([0.0, 1.0, 2.5])
    prior = Categorical(dict(zip(x.tolist(), w.tolist(), strict=True)))
    for name, s in (("laplace", 0.6), ("laplace", 1.3), ("gaussian", 0.5), ("gaussian", 0.9)):
        F = CDF[name]
        if name == "laplace":
            c01 = 0.5 + s / 2 * math.log(w[0] / w[1])
            c12 = 1.75 + s / 2 * math.log(w[1] / w[2])
            assert 0 < c01 < 1 < c12 < 2.5
        else:
            c01 = 0.5 + s * s * math.log(w[0] / w[1])
            c12 = 1.75 + s * s * math.log(w[1] / w[2]) / 1.5
        assert c01 < c12
        want = (w[0] * F(c01, s) + w[1] * (F(c12 - 1, s) - F(c01 - 1, s))
                + w[2] * (1 - F(c12 - 2.5, s)))
        assert close(success(prior, name, s, 0), want), (name, s)


# ---------------------------------------------------------------------------------------------
# ties over an interval
def test_plateau_ties_take_the_lowest_index():
    """Laplace, b = 1/ln 2, weights 4:2:1 at 0, 1, 2: h_0 = h_1 on [1, inf) and all three are
    level on [2, inf); elsewhere atom 0 leads.  The attacker always (on ties: by the rule, the
    lowest index) guesses 0, so S = 4/7 exactly; the mirrored prior reverses the order of the
    sets (the rule then picks another of the tied sets) and gives the same S."""
    b = 1 / math.log(2)
    laplace = resolve("laplace")
    prior = Categorical({0: 4 / 7, 1: 2 / 7, 2: 1 / 7})
    assert close(general(prior, "laplace", b, 0), 4 / 7)
    _, cuts, leaders = _finite_envelope(prior, laplace, b, 0)
    assert cuts.size == 0 and leaders.tolist() == [0]
    mirrored = Categorical({0: 1 / 7, -1: 2 / 7, -2: 4 / 7})
    assert close(general(mirrored, "laplace", b, 0), 4 / 7)
    # two atoms at the threshold b = 1/ln(w/(1 - w)): level beyond the lighter atom
    for prior in (Categorical({0: 0.8, 1: 0.2}), Categorical({0: 0.2, 1: 0.8})):
        assert close(general(prior, "laplace", 1 / math.log(4), 0), 0.8)
    _, cuts, leaders = _finite_envelope(Categorical({0: 0.2, 1: 0.8}), laplace, 1 / math.log(4), 0)
    assert leaders.tolist() == [0, 1] and abs(cuts[0]) < 1e-12  # tie on (-inf, 0]: the lower index


def test_pieces_tile_the_line():
    rng = np.random.default_rng(11)
    for name in ("laplace", "gaussian", "gencauchy"):
        x = np.sort(rng.uniform(0, 4, 5))
        prior = Categorical(dict(zip(x.tolist(), rng.dirichlet(np.ones(5)).tolist(), strict=True)))
        sets, cuts, leaders = _finite_envelope(prior, resolve(name), 0.5, 0.3)
        assert leaders.size == cuts.size + 1
        assert np.all(np.diff(cuts) >= 0)
        assert np.all(leaders[1:] != leaders[:-1])
        assert np.all((leaders >= 0) & (leaders < sets.shape[0]))


# ---------------------------------------------------------------------------------------------
# generalised Cauchy: two crossings inside one grid cell
def test_gencauchy_short_lead_between_two_crossings():
    """Two atoms, w0 f(y) = w1 f(y - 1) is the quartic w0 (1 + (y - 1)^4) = w1 (1 + y^4) (s = 1).
    With w0/w1 just below max_y f(y - 1)/f(y), atom 1 leads on an interval of width 0.016 near
    y = 1.96, inside one cell of the grid: the old grid missed it (2.8e-8)."""
    ratio = lambda y: (1 + y**4) / (1 + (y - 1) ** 4)  # noqa: E731
    top = minimize_scalar(lambda y: -ratio(y), bounds=(0.5, 3), method="bounded",
                          options={"xatol": 1e-12})
    f = density("gencauchy", 1.0)
    for gap in (1e-4, 3e-4, 1e-3):
        w0 = -top.fun * (1 - gap)
        w0, w1 = w0 / (1 + w0), 1 / (1 + w0)
        roots = np.roots([w0 - w1, -4 * w0, 6 * w0, -4 * w0, 2 * w0 - w1])
        real = np.sort(roots[np.abs(roots.imag) < 1e-9].real)

        def diff(y, w0=w0, w1=w1):
            return w1 * f(y - 1) - w0 * f(y)

        c1, c2 = (brentq(diff, r - 1e-6, r + 1e-6, xtol=1e-15) for r in real)
        extra = quad(diff, c1, c2, epsabs=1e-18, epsrel=1e-14)[0]
        assert extra > 1e-9
        assert close(general(Categorical({0: w0, 1: w1}), "gencauchy", 1.0, 0), w0 + extra), gap


# ---------------------------------------------------------------------------------------------
# an independent quadrature of max_j h_j over y, split where the leader changes
def quad_success(x, w, name, s, r):
    f = density(name, s)
    sets = [[i for i in range(x.size) if x[j] <= x[i] <= x[j] + 2 * r] for j in range(x.size)]
    hs = [lambda y, S=S: sum(w[i] * f(y - x[i]) for i in S) for S in sets]
    breaks = set(x.tolist())
    if r == 0 and name != "gencauchy":  # pairwise crossings by hand
        for i in range(x.size):
            for j in range(i + 1, x.size):
                d = x[j] - x[i]
                if name == "gaussian":
                    breaks.add((x[i] + x[j]) / 2 + s * s * math.log(w[i] / w[j]) / d)
                else:
                    c = (x[i] + x[j]) / 2 + s / 2 * math.log(w[i] / w[j])
                    if x[i] <= c <= x[j]:
                        breaks.add(c)
    else:  # sign changes of each difference on a fine grid, refined by Brent
        grid = np.linspace(x[0] - 30 * s, x[-1] + 30 * s, 60001)
        fv = np.vectorize(f, otypes=[float])  # the same density, over the grid at once
        vals = np.stack([sum((w[i] * fv(grid - x[i]) for i in S), np.zeros_like(grid)) for S in sets], axis=1)
        for j in range(len(hs)):
            for k in range(j + 1, len(hs)):
                d = vals[:, j] - vals[:, k]
                for i in np.nonzero(d[1:] * d[:-1] < 0)[0]:
                    breaks.add(brentq(lambda y, j=j, k=k: hs[j](y) - hs[k](y), grid[i], grid[i + 1],
                                      xtol=1e-15, rtol=1e-15))

    def best(y):
        return max(h(y) for h in hs)

    lo, hi = x[0] - 40 * s, x[-1] + 40 * s
    pts = [lo, *sorted(b for b in breaks if lo < b < hi), hi]
    total = quad(best, -np.inf, lo, epsabs=1e-19)[0] + quad(best, hi, np.inf, epsabs=1e-19)[0]
    for a, b in itertools.pairwise(pts):
        total += quad(best, a, b, epsabs=1e-19, epsrel=1e-13, limit=200)[0]
    return total


@pytest.mark.parametrize("name", ["laplace", "gaussian", "gencauchy"])
@pytest.mark.parametrize("r", [0.0, 0.6])
def test_random_six_atoms_against_quadrature(name, r):
    rng = np.random.default_rng(2024)
    x = np.sort(rng.uniform(0, 5, 6))
    w = rng.dirichlet(np.ones(6))
    prior = Categorical(dict(zip(x.tolist(), w.tolist(), strict=True)))
    for s in (0.35, 1.2):
        want = quad_success(x, w, name, s, r)
        assert close(general(prior, name, s, r), want), s


# ---------------------------------------------------------------------------------------------
# calibration: the scale to 1e-10 and on the safe side
def lap_adv_equal(n, b, r):
    if r == 0:
        return (n - 1) / n * (1 - math.exp(-1 / (2 * b)))  # (2(n-1)F(1/2) - (n-2))/n - 1/n
    return 2 * (n - 2) / n * (0.5 - 0.5 * math.exp(-1 / b))  # S - 2/n


def gau_adv_equal(n, sigma, r):
    if r == 0:
        return (n - 1) / n * (2 * ndtr(0.5 / sigma) - 1)
    return 2 * (n - 2) / n * (ndtr(1 / sigma) - 0.5)


CASES = []
for _delta in (0.1, 0.03):
    CASES.append(("laplace", 2, 0.0, _delta, -1 / (2 * math.log(1 - 2 * _delta))))  # fair coin: 1/(2 ln 1.25)
    CASES.append(("gaussian", 2, 0.0, _delta, 1 / (2 * ndtri(0.5 + _delta))))
for _n in (3, 4, 5):
    _delta = 0.1
    CASES.append(("laplace", _n, 0.0, _delta, -1 / (2 * math.log(1 - _n * _delta / (_n - 1)))))
    CASES.append(("gaussian", _n, 0.0, _delta, 1 / (2 * ndtri(0.5 + _n * _delta / (2 * (_n - 1))))))
    CASES.append(("laplace", _n, 0.5, _delta, -1 / math.log(1 - _n * _delta / (_n - 2))))
    CASES.append(("gaussian", _n, 0.5, _delta, 1 / ndtri(0.5 + _n * _delta / (2 * (_n - 2)))))


@pytest.mark.parametrize("name,n,r,delta,exact", CASES)
def test_calibrated_scale_equal_weights(name, n, r, delta, exact):
    res = calibrate(equal_prior(n), name, r=r, delta=delta, reading="average", rtol=1e-12)
    assert abs(res.scale / exact - 1) <= 1e-10
    adv = (lap_adv_equal if name == "laplace" else gau_adv_equal)(n, res.scale, r)
    assert res.value <= delta
    # safe: the advantage at the returned scale is within delta, up to the closed form's rounding
    assert adv <= delta * (1 + 1e-14)
    assert res.scale >= exact * (1 - 1e-14)


def test_calibrated_fair_coin_is_the_brief_value():
    res = calibrate(Categorical({0: 0.5, 1: 0.5}), "laplace", r=0, delta=0.1, reading="average")
    exact = 1 / (2 * math.log(1.25))
    assert res.scale >= exact * (1 - 1e-14)  # was 2.2400621, where the advantage is 0.1000258
    assert abs(res.scale / exact - 1) <= 1e-8  # the default rtol is 1e-9
    assert 0.5 - 0.5 * math.exp(-1 / (2 * res.scale)) <= 0.1 * (1 + 1e-14)


@pytest.mark.parametrize("w", [0.6, 0.7])
def test_calibrated_two_atoms_unequal_weights_laplace(w):
    delta = 0.1
    # 1 - sqrt(w(1-w)) e^{-1/(2b)} - w = delta (valid while b ln(w/(1-w)) < 1)
    exact = -1 / (2 * math.log((1 - w - delta) / math.sqrt(w * (1 - w))))
    assert exact * math.log(w / (1 - w)) < 1
    res = calibrate(Categorical({0: w, 1: 1 - w}), "laplace", r=0, delta=delta, reading="average", rtol=1e-12)
    assert abs(res.scale / exact - 1) <= 1e-10
    adv = 1 - math.sqrt(w * (1 - w)) * math.exp(-1 / (2 * res.scale)) - w
    assert adv <= delta * (1 + 1e-14)


def test_scale_search_keeps_the_end_that_meets_the_target():
    """A reading that is NaN below 0.5 (and 0.01/s above): the search must not take a NaN for a
    met target on its way down, and returns a scale where the reading was seen to be <= 0.05."""
    from garesearch._roots import smallest_scale

    def metric(s):
        return math.nan if s < 0.5 else 0.01 / s

    scale = smallest_scale(metric, 0.05, 1.0, 1e-9)
    assert 0.5 <= scale <= 0.5 * (1 + 1e-8)
    assert metric(scale) <= 0.05
