"""Gaussian and integer noise, composed releases, and the worst / tail / average readings.

Reference values are obtained independently of the code under test: riskcal 1.5.1's published
sigmas, closed forms evaluated with mpmath at 40 digits, scipy quadrature, Monte Carlo with
fixed seeds, and brute-force sums.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

import garesearch as ga
from garesearch import InfeasibleError, ParameterError
from garesearch.additive import resolve
from garesearch.priors import Categorical, Normal, Uniform
from garesearch.releases.accounting import (
    dp_accounting_available,
    gaussian_dp_delta,
    gaussian_tradeoff,
    laplace_tradeoff,
    privacy_profile,
)
from garesearch.releases.calibration import calibrate
from garesearch.releases.reconstruction import baseline_success, reconstruction_advantage
from garesearch.releases.tail import advantage_tail

needs_accounting = pytest.mark.skipif(
    not dp_accounting_available(),
    reason="Google's dp_accounting is not installed (pip install 'garesearch[accounting]')",
)


# ------------------------------------------------------------------------------------------
# riskcal 1.5.1, Gaussian mechanism, sensitivity 1, binary secret: published sigmas
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "prior1, gain, sigma",
    [(0.2, 0.1, 0.462471), (0.2, 0.05, 0.658493), (0.45, 0.1, 1.344487), (0.5, 0.05, 3.978948)],
)
def test_average_calibration_matches_riskcal(prior1, gain, sigma):
    res = calibrate(Categorical({0: 1 - prior1, 1: prior1}), "gaussian", r=0, delta=gain, reading="average")
    assert res.scale == pytest.approx(sigma, rel=2e-6)  # riskcal prints 6 digits
    assert res.value == pytest.approx(gain, abs=1e-9)
    assert res.mu == pytest.approx(1 / res.scale) and res.rho == pytest.approx(0.5 / res.scale**2)


def _bayes_binary_mp(w1, sigma, dps=40):
    """Bayes success for atoms 0, 1 with N(0, sigma^2) noise: the threshold and erfc at 40 digits."""
    with mpmath.workdps(dps):
        w1 = mpmath.mpf(w1)
        w0, s = 1 - w1, mpmath.mpf(sigma)
        y = mpmath.mpf(1) / 2 + s * s * mpmath.log(w0 / w1)
        return float(w0 * mpmath.ncdf(y / s) + w1 * mpmath.ncdf((1 - y) / s))


@pytest.mark.parametrize("w1, sigma", [(0.2, 0.3), (0.45, 1.7), (0.5, 4.0), (0.01, 0.2)])
def test_binary_gaussian_success_against_mpmath(w1, sigma):
    res = reconstruction_advantage(Categorical({0: 1 - w1, 1: w1}), "gaussian", scale=sigma, r=0)
    assert res.success == pytest.approx(_bayes_binary_mp(w1, sigma), abs=1e-14)
    assert res.baseline == pytest.approx(max(w1, 1 - w1))


@pytest.mark.parametrize("w1, sigma", [(0.2, 0.6), (0.5, 2.0)])
def test_binary_success_from_the_tradeoff_curve_equals_the_threshold(w1, sigma):
    from garesearch.releases.reconstruction import binary_success_from_tradeoff

    f = lambda a: gaussian_tradeoff(a, mu=1 / sigma)  # noqa: E731
    assert binary_success_from_tradeoff(f, w1) == pytest.approx(_bayes_binary_mp(w1, sigma), abs=1e-9)


# ------------------------------------------------------------------------------------------
# average reading: quadrature and Monte Carlo
# ------------------------------------------------------------------------------------------
def _success_quad(prior: Categorical, noise_pdf, r, lo, hi):
    x, w = prior.points, prior.probs
    guesses = x + r

    def h(y):
        return max(sum(wi * noise_pdf(y - xi) for xi, wi in zip(x, w, strict=True) if abs(xi - g) <= r + 1e-12)
                   for g in guesses)

    edges = np.linspace(lo, hi, int((hi - lo) / 0.3) + 1)  # short pieces: the envelope has kinks
    return sum(integrate.quad(h, a, b, epsabs=1e-15, epsrel=1e-12)[0] for a, b in itertools.pairwise(edges))


@pytest.mark.parametrize("name, pdf", [("laplace", lambda z: 0.5 / 1.3 * math.exp(-abs(z) / 1.3)),
                                       ("gaussian", lambda z: math.exp(-0.5 * (z / 1.3) ** 2) / (1.3 * math.sqrt(2 * math.pi)))])
def test_finite_prior_success_against_quadrature(name, pdf):
    prior = Categorical({0: 0.3, 1: 0.2, 3: 0.4, 7: 0.1})
    res = reconstruction_advantage(prior, name, scale=1.3, r=1)
    want = _success_quad(prior, pdf, 1, -40, 47)
    assert res.success == pytest.approx(want, abs=1e-8)
    assert res.baseline == pytest.approx(0.6)  # the ball [1, 3] holds 0.2 + 0.4
    assert res.advantage == pytest.approx(want - 0.6, abs=1e-8)


def test_integer_noise_success_against_brute_force_sum():
    prior = Categorical({0: 0.3, 1: 0.2, 3: 0.4, 7: 0.1})
    s = 1.3
    for name, logw in (("discrete_laplace", lambda k: -np.abs(k) / s), ("discrete_gaussian", lambda k: -k * k / (2 * s * s))):
        ks = np.arange(-400, 401)
        pmf = np.exp(logw(ks))
        pmf /= pmf.sum()
        ys = np.arange(-300, 310)
        best = np.zeros(ys.size)
        for g0 in prior.points:  # balls [g0, g0 + 2r]
            members = [(xi, wi) for xi, wi in zip(prior.points, prior.probs, strict=True) if g0 <= xi <= g0 + 2]
            h = sum(wi * np.interp(ys - xi, ks, pmf) for xi, wi in members)
            best = np.maximum(best, h)
        res = reconstruction_advantage(prior, name, scale=s, r=1)
        assert res.success == pytest.approx(float(best.sum()), abs=1e-12), name


def test_normal_gaussian_success_is_closed_form_and_matches_monte_carlo():
    prior, s, r = Normal(2000.0, 235.7), 300.0, 100.0
    res = reconstruction_advantage(prior, "gaussian", scale=s, r=r)
    with mpmath.workdps(40):
        post_sd = mpmath.mpf(235.7) * s / mpmath.sqrt(mpmath.mpf(235.7) ** 2 + s * s)
        want = float(mpmath.erf(r / (post_sd * mpmath.sqrt(2))))
    assert res.success == pytest.approx(want, abs=1e-14)
    mc = ga.monte_carlo_attacker(prior, ga.Gaussian(), epsilon=math.sqrt(2) / s, r=r, n=8000, seed=3)
    assert mc.low <= res.success <= mc.high


def test_uniform_laplace_issue_example_and_prior_free_bound():
    # Uniform(0, 1000), r = 50, Laplace at the Laplace mechanism's worst-case epsilon (delta = 0.1)
    prior = Uniform(0.0, 1000.0)
    eps = ga.exact_epsilon(prior, ga.Laplace(), r=50, delta=0.1)
    res = reconstruction_advantage(prior, "laplace", scale=1 / eps, r=50)
    # independent: scipy quadrature of max_g over a dense grid of guesses
    b = 1 / eps
    gs = np.linspace(50, 950, 1801)

    def cdf(z):  # stats.laplace.cdf(z, scale=b), scipy's formula without its per-call overhead
        x = z / b
        with np.errstate(over="ignore"):
            return np.where(x > 0, 1.0 - 0.5 * np.exp(-x), 0.5 * np.exp(x))

    def best(y):
        lo, hi = gs - 50, gs + 50
        mass = (cdf(y - lo) - cdf(y - hi)) / 1000
        return float(mass.max())

    want = integrate.quad(best, -40 * b, 1000 + 40 * b, points=[0, 1000], limit=400)[0]
    assert res.success == pytest.approx(want, abs=2e-5)
    assert round(res.success, 3) == 0.179
    assert res.baseline == pytest.approx(0.1)
    # Laplace trade-off at mu = 1000 eps: 1 - e^{-mu}/(4 kappa) in the middle branch
    mu = 1000 * eps
    assert res.prior_free_bound == pytest.approx(1 - math.exp(-mu) / 0.4, rel=1e-12)
    assert round(res.prior_free_bound, 3) == 0.604


def test_normal_laplace_success_against_monte_carlo():
    prior = Normal(0.0, 1.0)
    res = reconstruction_advantage(prior, "laplace", scale=0.8, r=0.3)
    mc = ga.monte_carlo_attacker(prior, ga.Laplace(), epsilon=1 / 0.8, r=0.3, n=8000, seed=7)
    assert mc.low <= res.success <= mc.high


def test_gaussian_releases_are_one_release_of_scale_over_sqrt_k():
    prior = Categorical({0: 0.7, 2: 0.3})
    one = reconstruction_advantage(prior, "gaussian", scale=3.0 / 2, r=0)
    four = reconstruction_advantage(prior, "gaussian", scale=3.0, r=0, releases=4)
    assert four.success == pytest.approx(one.success, abs=1e-15)
    # Monte Carlo of four releases, attacker with the full likelihood
    rng = np.random.default_rng(11)
    n = 40000
    x = np.where(rng.random(n) < 0.3, 2.0, 0.0)
    y = x[:, None] + 3.0 * rng.standard_normal((n, 4))
    ll2 = math.log(0.3) - ((y - 2) ** 2).sum(1) / 18
    ll0 = math.log(0.7) - (y**2).sum(1) / 18
    hit = np.mean(np.where(ll2 > ll0, 2.0, 0.0) == x)
    assert abs(hit - four.success) < 4 * math.sqrt(0.25 / n)


@needs_accounting
def test_composed_laplace_binary_secret_against_monte_carlo():
    prior = Categorical({0: 0.5, 1: 0.5})
    res = reconstruction_advantage(prior, "laplace", scale=2.0, r=0, releases=3)
    rng = np.random.default_rng(5)
    n = 60000
    x = (rng.random(n) < 0.5).astype(float)
    y = x[:, None] + rng.laplace(0, 2.0, (n, 3))
    guess = (np.abs(y).sum(1) > np.abs(y - 1).sum(1)).astype(float)
    hit = np.mean(guess == x)
    # the accountant's curve is pessimistic (success an upper bound), within 2e-3 of the truth
    assert hit - 4 * math.sqrt(0.25 / n) <= res.success <= hit + 4 * math.sqrt(0.25 / n) + 2e-3


def test_baseline_success():
    assert baseline_success(Normal(0, 1), 0.5)[0] == pytest.approx(math.erf(0.5 / math.sqrt(2)))
    assert baseline_success(Categorical({0: 0.3, 1: 0.2, 3: 0.4, 7: 0.1}), 1)[0] == pytest.approx(0.6)


# ------------------------------------------------------------------------------------------
# tail reading
# ------------------------------------------------------------------------------------------
def _tail_mc(prior, mech, eps, r, delta, t, n, seed, scale):
    rng = np.random.default_rng(seed)
    y = t + scale * mech.std_sample(rng, n)
    post = ga.exact.posterior(prior, mech, epsilon=eps, r=r, t=t, y=y)
    p = float(prior.mass(t - r, t + r))
    return np.mean(np.abs(post - p) > delta)


@pytest.mark.parametrize("t", [0.0, 0.7, 2.0])
def test_tail_normal_gaussian_against_monte_carlo_and_generic_path(t):
    prior, s = Normal(0.0, 1.0), 2.0
    res = advantage_tail(prior, "gaussian", scale=s, r=0.5, delta=0.1, t=t)
    n = 200000
    mc = _tail_mc(prior, ga.Gaussian(), math.sqrt(2) / s, 0.5, 0.1, t, n, 1, s)
    assert abs(res.beta - mc) <= 4 * math.sqrt(max(mc * (1 - mc), 1e-4) / n)
    # the closed form agrees with the generic root-finding path through garesearch.exact.posterior
    from garesearch.releases import tail

    up, low, *_ = tail._unimodal_beta(prior, resolve("gaussian"), s, 0.5, 0.1, t, "both")
    assert res.beta == pytest.approx(up + low, abs=1e-11)


def test_tail_closed_form_against_mpmath():
    # N(0, 1) prior, sigma = 2, t = 0.7: bad set from the normal posterior, 40 digits
    mu, sig, s, r, delta, t = 0, 1, 2, 0.5, 0.1, 0.7
    with mpmath.workdps(40):
        v = mpmath.mpf(sig) ** 2 * s**2 / (sig**2 + s**2)
        sd = mpmath.sqrt(v)
        G = lambda d: mpmath.ncdf((r - d) / sd) - mpmath.ncdf((-r - d) / sd)  # noqa: E731
        p = mpmath.ncdf(t + r) - mpmath.ncdf(t - r)
        du = mpmath.findroot(lambda d: G(d) - (p + delta), 0.1)
        dl = mpmath.findroot(lambda d: G(d) - (p - delta), 1.0)
        mt = (mu * s**2 + mpmath.mpf(t) * sig**2) / (sig**2 + s**2)
        tau = mpmath.mpf(sig) ** 2 * s / (sig**2 + s**2)
        inside = lambda d: mpmath.ncdf((t + d - mt) / tau) - mpmath.ncdf((t - d - mt) / tau)  # noqa: E731
        want = float(inside(du) + 1 - inside(dl))
    res = advantage_tail(Normal(0.0, 1.0), "gaussian", scale=2.0, r=0.5, delta=0.1, t=0.7)
    assert res.beta == pytest.approx(want, abs=1e-13)


def test_tail_worst_t_is_global_for_normal_gaussian():
    prior = Normal(0.0, 1.0)
    res = advantage_tail(prior, "gaussian", scale=2.0, r=0.5, delta=0.1)
    ts = np.linspace(-30, 30, 12001)
    dense = [advantage_tail(prior, "gaussian", scale=2.0, r=0.5, delta=0.1, t=float(t)).beta for t in ts[::20]]
    assert res.beta >= max(dense) - 1e-9


@pytest.mark.parametrize("name, mech", [("laplace", ga.Laplace()), ("gaussian", ga.Gaussian())])
def test_tail_finite_prior_against_monte_carlo(name, mech):
    prior = Categorical({0: 0.3, 1: 0.2, 3: 0.4, 7: 0.1})
    s = 1.3
    res = advantage_tail(prior, name, scale=s, r=1, delta=0.1, t=3.0)
    n = 100000
    mc = _tail_mc(prior, mech, mech.scale(1.0) / s, 1, 0.1, 3.0, n, 2, s)
    assert abs(res.beta - mc) <= 4 * math.sqrt(max(mc * (1 - mc), 1e-4) / n)


def test_tail_integer_noise_against_brute_force():
    prior = Categorical({0: 0.3, 1: 0.2, 3: 0.4, 7: 0.1})
    s, r, delta, t = 2.5, 1, 0.1, 1.0
    ks = np.arange(-300, 301)
    for name, logw in (("discrete_laplace", -np.abs(ks) / s), ("discrete_gaussian", -ks * ks / (2 * s * s))):
        pmf = np.exp(logw)
        pmf /= pmf.sum()
        ys = t + ks
        joint = {xi: wi * np.interp(ys - xi, ks, pmf) for xi, wi in zip(prior.points, prior.probs, strict=True)}
        num = sum(v for xi, v in joint.items() if abs(xi - t) <= r)
        with np.errstate(invalid="ignore"):  # 0/0 far out, where the noise has no mass
            post = num / sum(joint.values())
        p = 0.5
        want = float(np.sum(pmf[np.abs(post - p) > delta]))
        res = advantage_tail(prior, name, scale=s, r=r, delta=delta, t=t)
        assert res.beta == pytest.approx(want, abs=1e-12), name


def test_tail_falls_with_the_scale_and_composes_for_gaussian():
    prior = Normal(0.0, 1.0)
    betas = [advantage_tail(prior, "gaussian", scale=s, r=0.5, delta=0.1).beta for s in (0.5, 1, 2, 4, 8)]
    assert all(a >= b for a, b in itertools.pairwise(betas))
    one = advantage_tail(prior, "gaussian", scale=1.0, r=0.5, delta=0.1, t=0.3).beta
    four = advantage_tail(prior, "gaussian", scale=2.0, r=0.5, delta=0.1, t=0.3, releases=4).beta
    assert four == pytest.approx(one, abs=1e-15)


# ------------------------------------------------------------------------------------------
# worst reading and calibration
# ------------------------------------------------------------------------------------------
def test_worst_reading_laplace_is_the_exact_laplace_epsilon():
    prior = Normal(2000.0, 235.7)
    res = calibrate(prior, "laplace", r=100, delta=0.1)
    assert res.scale == pytest.approx(1 / ga.exact_epsilon(prior, ga.Laplace(), r=100, delta=0.1), rel=1e-9)
    assert round(res.epsilon, 6) == 0.001925  # README: exact, Laplace, salary
    assert res.value <= 0.1 + 1e-9


def test_worst_reading_gaussian_is_infeasible_and_says_why():
    with pytest.raises(InfeasibleError, match="reading='tail'"):
        calibrate(Normal(0.0, 1.0), "gaussian", r=0.5, delta=0.1)


def test_tail_calibration_meets_beta_and_is_tight():
    prior = Normal(0.0, 1.0)
    res = calibrate(prior, "gaussian", r=0.5, delta=0.1, reading="tail", beta=1e-3)
    assert res.value <= 1e-3
    assert advantage_tail(prior, "gaussian", scale=res.scale * (1 - 1e-6), r=0.5, delta=0.1).beta > 1e-3


def test_average_calibration_normal_gaussian_closed_form():
    prior, r, target = Normal(0.0, 1.0), 0.5, 0.05
    res = calibrate(prior, "gaussian", r=r, delta=target, reading="average")
    with mpmath.workdps(40):
        kappa = mpmath.erf(mpmath.mpf(r) / mpmath.sqrt(2))
        sd = mpmath.findroot(lambda v: mpmath.erf(r / (v * mpmath.sqrt(2))) - kappa - target, 0.8)
        sigma = float(sd / mpmath.sqrt(1 - sd**2))  # posterior sd = s / sqrt(1 + s^2)
    assert res.scale == pytest.approx(sigma, rel=1e-8)


def test_discrete_laplace_worst_equals_laplace_on_integer_prior():
    prior = Categorical({0: 0.2, 1: 0.3, 2: 0.4, 5: 0.1})
    a = calibrate(prior, "discrete_laplace", r=0, delta=0.1)
    b = calibrate(prior, "laplace", r=0, delta=0.1)
    assert a.scale == pytest.approx(b.scale, rel=1e-12)


# ------------------------------------------------------------------------------------------
# privacy profiles and trade-off curves
# ------------------------------------------------------------------------------------------
def test_gaussian_profile_against_mpmath():
    mu = 1.3
    with mpmath.workdps(40):
        for e in (0.0, 0.5, 2.0, 6.0):
            e = mpmath.mpf(e)
            want = mpmath.ncdf(-e / mu + mpmath.mpf(mu) / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mpmath.mpf(mu) / 2)
            assert gaussian_dp_delta(float(e), mu=mu) == pytest.approx(float(want), rel=1e-12, abs=1e-300)


def test_laplace_tradeoff_is_the_neyman_pearson_curve():
    # brute force: likelihood-ratio tests between Lap(0, 1) and Lap(mu, 1)
    mu = 1.2
    for thr in np.linspace(-1, 2.2, 9):
        alpha = stats.laplace.sf(thr)  # reject when y > thr (P = Lap(0))
        beta = stats.laplace.cdf(thr - mu)
        assert laplace_tradeoff(alpha, mu=mu) == pytest.approx(beta, abs=1e-12)


@needs_accounting
def test_accountant_matches_closed_forms():
    g = privacy_profile("gaussian", scale=1.5, sampling_prob=1.0)
    for mech, scale in (("laplace", 0.8),):
        closed = privacy_profile(mech, scale=scale)
        pld = privacy_profile(mech, scale=scale, sampling_prob=1 - 1e-12)
        e = np.array([0.0, 0.3, 0.9])
        assert np.allclose(pld.dp_delta(e), closed.dp_delta(e), atol=2e-4)
    four = privacy_profile("laplace", scale=2.0, releases=4)
    # composed Laplace: delta(eps) by convolution of the privacy loss, quadrature over 4 draws is
    # heavy; check the two ends instead: delta(0) = TV of the product measures (by Monte Carlo)
    rng = np.random.default_rng(0)
    y = rng.laplace(0, 2.0, (200000, 4))
    loss = (np.abs(y - 1) - np.abs(y)).sum(1) / 2.0
    tv = np.mean(np.maximum(0, 1 - np.exp(-loss)))
    assert four.dp_delta(0.0) == pytest.approx(tv, abs=5e-3)
    assert g.mu == pytest.approx(1 / 1.5)


def test_gaussian_profile_composes_in_closed_form():
    one = privacy_profile("gaussian", scale=1.0)
    nine = privacy_profile("gaussian", scale=3.0, releases=9)
    assert nine.dp_delta(1.0) == pytest.approx(one.dp_delta(1.0), rel=1e-14)
    assert nine.rho == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(scale=0), dict(scale=float("nan")), dict(r=-1), dict(delta=1.5),
                                dict(releases=0), dict(mechanism="cauchy")])
def test_bad_input_names_the_parameter(kw):
    args = dict(scale=1.0, r=0.5, delta=0.1, mechanism="gaussian", releases=1)
    args.update(kw)
    mech = args.pop("mechanism")
    with pytest.raises(ParameterError):
        advantage_tail(Normal(0, 1), mech, **args)


def test_calibrate_bad_input():
    with pytest.raises(ParameterError, match="beta"):
        calibrate(Normal(0, 1), "gaussian", r=0.5, delta=0.1, reading="tail")
    with pytest.raises(ParameterError, match="reading"):
        calibrate(Normal(0, 1), "gaussian", r=0.5, delta=0.1, reading="median")
    with pytest.raises(ParameterError, match="integers"):
        calibrate(Normal(0, 1), "discrete_gaussian", r=0.5, delta=0.1, reading="average")
    with pytest.raises(ParameterError, match="releases"):
        advantage_tail(Normal(0, 1), "laplace", scale=1.0, r=0.5, delta=0.1, releases=2)


# ------------------------------------------------------------------------------------------
# command line
# ------------------------------------------------------------------------------------------
def test_cli_calibrate_json_and_exit_statuses(capsys):
    import json

    from garesearch.__main__ import main

    assert main(["calibrate", "--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.1",
                 "--mechanism", "gaussian", "--reading", "average", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scale"] == pytest.approx(0.462471, rel=2e-6)  # riskcal
    assert main(["calibrate", "--prior", "normal:0,1", "--r", "0.5", "--delta", "0.1",
                 "--mechanism", "gaussian"]) == 1
    assert "reading='tail'" in capsys.readouterr().err
    assert main(["calibrate", "--prior", "normal:0,1", "--r", "0.5", "--delta", "2"]) == 2
