"""App. B: (epsilon, delta)-DP and guessing advantage, each step checked independently."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from garesearch.approx_dp import (
    adp_posterior_bound,
    advantage_with_confidence,
    average_advantage,
    beta_bound,
    bprime_interval,
    confidence_for_advantage,
    epsilon_for_pdp_advantage,
    posterior_bound_chi,
    search_smooth_laplace,
    smooth_laplace_dp_delta,
    smooth_laplace_ratio,
)
from garesearch.errors import InfeasibleError, ParameterError

MP = mpmath.mpf


@pytest.fixture(autouse=True)
def _reset_mpmath():
    yield
    mpmath.mp.dps = 15


def _lap(y, mu, scale):
    return math.exp(-abs(y - mu) / scale) / (2 * scale)


def test_b1_bound_holds_for_a_concrete_mechanism():
    """Laplace(scale 1) on a two-point prior: X' = {t} with q(t) = 0, X-hat = {x} with
    q(x) = shift.  Choose eps0 below the pure-DP level and the smallest density-level delta
    with f(y|t) <= e^eps0 f(y|x) + delta; then for every y within d(delta') of q(t) the
    Bayes posterior is at most p + advantage."""
    shift, scale, eps0, p, q = 1.0, 1.0, 0.5, 0.3, 0.7
    ys = np.linspace(-30, 30, 60001)
    ft = np.exp(-np.abs(ys) / scale) / (2 * scale)
    fx = np.exp(-np.abs(ys - shift) / scale) / (2 * scale)
    delta = float(np.max(np.maximum(ft - math.exp(eps0) * fx, 0)))
    assert delta > 0
    res = advantage_with_confidence(epsilon=eps0, dp_delta=delta, confidence=0.9, p=p, q=q,
                                    shift=shift, scale=scale)
    d = -math.log(0.1) * scale  # Laplace: Pr[|noise| <= d] = 0.9
    assert res.noise_radius == pytest.approx(d, rel=1e-14)
    good = np.abs(ys) <= d
    post = p * ft[good] / (p * ft[good] + q * fx[good])
    assert np.max(post) - p <= res.advantage + 1e-12
    assert 0 <= res.advantage < 1 - p


def test_b1_chain_value():
    # B.chain1 evaluated in mpmath against the library
    with mpmath.workdps(50):
        e, d, chi, p, q = MP("0.7"), MP("0.02"), MP("0.05"), MP("0.25"), MP("0.5")
        expected = 1 / (1 + (q / p) / (mpmath.exp(e) + d / chi))
        got = posterior_bound_chi(epsilon="0.7", dp_delta="0.02", chi="0.05", p="0.25", q="0.5",
                                  dps=50)
        assert abs(got - expected) < MP(10) ** -45


def test_b1_fixed_advantage_required_chi():
    # B.eps_fixed: at chi* the posterior bound equals p + advantage exactly
    e, d, p, q, adv = 0.4, 0.01, 0.2, 0.6, 0.15
    res = confidence_for_advantage(epsilon=e, dp_delta=d, advantage=adv, p=p, q=q, shift=0.5)
    with mpmath.workdps(40):
        s = MP(p) + MP(adv)
        chi = MP(d) / (s / (1 - s) * MP(q) / MP(p) - mpmath.exp(MP(e)))
        assert float(chi) == pytest.approx(float(res.chi), rel=1e-12)
        post = 1 / (1 + (MP(q) / MP(p)) / (mpmath.exp(MP(e)) + MP(d) / chi))
        assert float(post) == pytest.approx(p + adv, rel=1e-12)
    # the noise density at shift + d equals chi*, and the confidence is Pr[|eta| <= d]
    assert _lap(0.5 + float(res.noise_radius), 0, 1) == pytest.approx(float(res.chi), rel=1e-10)
    assert float(res.confidence) == pytest.approx(1 - math.exp(-float(res.noise_radius)), rel=1e-12)
    # the round trip with the fixed-confidence direction
    back = advantage_with_confidence(epsilon=e, dp_delta=d, confidence=float(res.confidence), p=p,
                                     q=q, shift=0.5)
    assert back.advantage == pytest.approx(adv, rel=1e-9)


def test_b1_infeasible_cases():
    # even delta = 0 cannot meet a tiny advantage at large epsilon
    with pytest.raises(InfeasibleError, match="pure"):
        confidence_for_advantage(epsilon=3.0, dp_delta=0.01, advantage=0.01, p=0.2, q=0.8)
    # the density at the shift is already below chi*
    with pytest.raises(InfeasibleError, match="density"):
        confidence_for_advantage(epsilon=0.1, dp_delta=0.4, advantage=0.05, p=0.2, q=0.8,
                                 shift=3.0)


def test_average_advantage():
    # B.average: eps' delta' + (1 - delta') = 1 + (eps' - 1) delta'
    assert average_advantage(advantage=0.1, confidence=0.9) == pytest.approx(0.1 * 0.9 + 0.1)


def test_adp_chain_identity_sympy():
    # B.adp_chain: the intermediate and final forms agree
    import sympy as sp

    e, d, cb, p, q = sp.symbols("epsilon delta chibar p q", positive=True)
    first = 1 / (1 + 1 / (sp.exp(e) + d / (sp.exp(-e) * (cb - d))) * q / p)
    final = 1 / (1 + sp.exp(-e) * (1 - d / cb) * q / p)
    assert sp.simplify(first - final) == 0
    got = adp_posterior_bound(epsilon=0.8, dp_delta=0.05, chibar=0.4, p=0.3, q=0.6)
    assert got == pytest.approx(float(final.subs({e: 0.8, d: 0.05, cb: 0.4, p: 0.3, q: 0.6})),
                                rel=1e-14)
    with pytest.raises(InfeasibleError):
        adp_posterior_bound(epsilon=0.8, dp_delta=0.5, chibar=0.4, p=0.3, q=0.6)


def test_smooth_laplace_substitution():
    # B.laplace_subst: delta / chibar with chibar = b/(2c)
    eps, b, beta, c = 2.0, 0.7, 0.3, 0.9
    with mpmath.workdps(40):
        delta = 2 * mpmath.exp(MP(eps) - 1 - (MP(eps) - MP(b)) / MP(beta))
        ratio = delta / (MP(b) / (2 * MP(c)))
    assert smooth_laplace_dp_delta(epsilon=eps, b=b, beta=beta) == pytest.approx(float(delta), rel=1e-14)
    assert smooth_laplace_ratio(epsilon=eps, b=b, beta=beta, c=c) == pytest.approx(float(ratio), rel=1e-14)
    with pytest.raises(ParameterError):
        smooth_laplace_dp_delta(epsilon=1.0, b=0.8, beta=0.3)


@pytest.mark.parametrize("C", [1.0, 5.0])
def test_beta_bound_makes_ratio_c_over_C(C):
    # B.beta_bound: at beta = (eps-b)/(eps-1-ln(b/(4C))) the ratio is exactly c/C
    eps, b, c = 3.0, 0.5, 0.8
    beta = beta_bound(epsilon=eps, b=b, C=C)
    with mpmath.workdps(40):
        r = 4 * mpmath.exp(MP(eps) - 1 - (MP(eps) - MP(b)) / MP(beta)) * MP(c) / MP(b)
    assert float(r) == pytest.approx(c / C, rel=1e-12)
    # a denominator <= 0 (possible only for C < 1/4) puts no limit on beta: here
    # eps - 1 - ln(b/(4C)) = 1 - 1 - ln(0.5/0.2) = -ln 2.5 < 0
    assert beta_bound(epsilon=1.0, b=0.5, C=0.05) == math.inf


def _requirement(eps, alpha, beta, c, b):
    e1 = eps - alpha
    return 1 - 4 * mpmath.exp(e1 - 1 - (e1 - b) / beta) * c / b - mpmath.exp(-alpha)


def test_lambert_ends_substituted_back():
    # B.bprime: both branches solve the equality; inside the interval the inequality holds
    eps, alpha, beta, c = MP(2), MP("0.3"), MP("0.2"), MP("0.5")
    with mpmath.workdps(50):
        low, high = bprime_interval(epsilon=eps, alpha=alpha, beta=beta, c=c, dps=50)
        assert abs(_requirement(eps, alpha, beta, c, low)) < MP(10) ** -40
        assert abs(_requirement(eps, alpha, beta, c, high)) < MP(10) ** -40
        assert _requirement(eps, alpha, beta, c, (low + high) / 2) > 0
        assert _requirement(eps, alpha, beta, c, low / 2) < 0
        assert _requirement(eps, alpha, beta, c, high * 2) < 0
    # infeasible iff the argument of W is below -1/e
    assert bprime_interval(epsilon=2.0, alpha=1e-6, beta=0.2, c=0.5) is None


@pytest.mark.parametrize(("eps", "beta", "c"), [(2.0, 0.2, 0.5), (1.0, 0.1, 1.0), (5.0, 1.0, 0.01)])
def test_search_returns_feasible_and_best(eps, beta, c):
    res = search_smooth_laplace(epsilon=eps, beta=beta, c=c)
    with mpmath.workdps(50):
        e, a, be, cc, b = (MP(x) for x in (eps, res.alpha, beta, c, res.b))
        assert _requirement(e, a, be, cc, b) >= 0
        assert e - a - be - b >= 0 and b > 0 and 0 < a <= e
        # the (eps - alpha, delta) guarantee is at least as strong as pure eps-DP
        r = 4 * mpmath.exp(e - a - 1 - (e - a - b) / be) * cc / b
        assert mpmath.exp(-(e - a)) * (1 - r) >= mpmath.exp(-e)
        assert float(2 * mpmath.exp(e - a - 1 - (e - a - b) / be)) == pytest.approx(res.dp_delta, rel=1e-12)
    assert res.noise_scale == pytest.approx(c / res.b)
    # the paper's brute-force search over alpha and b' finds nothing better
    best = 0.0
    for alpha in np.linspace(0, eps - beta, 301)[1:-1]:
        bs = np.linspace(0, eps - alpha - beta, 301)[1:]
        e1 = eps - alpha
        ok = 1 - 4 * np.exp(e1 - 1 - (e1 - bs) / beta) * c / bs >= np.exp(-alpha)
        if np.any(ok):
            best = max(best, float(np.max(bs[ok])))
    assert best <= res.b * (1 + 1e-6)
    assert best >= res.b * 0.97  # and the grid comes close to it


def test_search_beta_zero_is_pure_dp():
    res = search_smooth_laplace(epsilon=1.5, beta=0.0, c=2.0)
    assert (res.alpha, res.dp_delta, res.b, res.noise_scale) == (0.0, 0.0, 1.5, 2.0 / 1.5)


def test_search_infeasible():
    with pytest.raises(InfeasibleError):
        search_smooth_laplace(epsilon=3.0, beta=0.5, c=2.0)


def test_paper_requirement_typo_weakens_guarantee():
    # B.alpha_typo: with e^{-alpha eps} (as printed) and eps > 1 the (eps - alpha, delta) bound
    # is weaker than pure eps-DP at the W_{-1} end; with e^{-alpha} it is exactly as strong.
    eps, alpha, beta, c = 2.0, 0.3, 0.2, 0.5
    _, high = bprime_interval(epsilon=eps, alpha=alpha, beta=beta, c=c, requirement="paper")
    e1 = eps - alpha
    r = 4 * math.exp(e1 - 1 - (e1 - high) / beta) * c / high
    assert r == pytest.approx(1 - math.exp(-alpha * eps), rel=1e-10)
    assert math.exp(-e1) * (1 - r) < math.exp(-eps)
    _, high2 = bprime_interval(epsilon=eps, alpha=alpha, beta=beta, c=c)
    r2 = 4 * math.exp(e1 - 1 - (e1 - high2) / beta) * c / high2
    assert math.exp(-e1) * (1 - r2) == pytest.approx(math.exp(-eps), rel=1e-10)


def test_pdp_uses_pure_epsilon():
    eps, fail = epsilon_for_pdp_advantage(delta=0.1, p=0.2, failure=1e-6)
    assert round(eps, 3) == 0.539  # the paper's cats AND-event (Sec. 6.1)
    assert fail == 1e-6
