"""Symbolic derivations: statuses, and every counterexample re-checked by an independent route
(direct numpy/mpmath evaluation of the paper's expressions typed here, numerical integration,
optimisation, enumeration or Monte Carlo with a fixed seed)."""

from __future__ import annotations

import itertools
import json
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import integrate, optimize, special, stats

from garesearch import derivations as dv
from garesearch import lambertw as lw
from garesearch import radius as rd
from garesearch.claims import load_pins
from garesearch.paper import _proof as _core
from garesearch.priors import Categorical, Normal

# the claims' cached computations are shared by these modules: one worker runs them all
pytestmark = pytest.mark.xdist_group("claims")

#: the expected status of every derivation, pinned in the package's table of pinned values
#: (typed in tests/pinned_routes.py, decided by reading the paper)
EXPECTED = {cid.removeprefix("derivation "): pin.value for (cid, quantity), pin in load_pins().items()
            if quantity == "status"}


@pytest.fixture(autouse=True)
def _reset_mpmath():
    yield
    mpmath.mp.dps = 15


def ce(name):
    """The counterexample of a derivation, as floats (nested lists kept)."""
    out = {}
    for k, v in dv.get(name).counterexample.items():
        if isinstance(v, mpmath.mpf):
            out[k] = float(v)
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], mpmath.mpf):
            out[k] = [float(t) for t in v]
        else:
            out[k] = v
    return out


# --- the registry -----------------------------------------------------------------------------
def test_every_status_as_expected():
    got = {r.name: r.status for r in dv.all_derivations()}
    assert got == EXPECTED


def test_records_are_complete_and_named_after_their_function():
    for name in dv.names():
        r = dv.get(name)
        assert r.name == name and getattr(dv, name)() is r
        assert r.location and r.latex and r.detail and r.summary
        assert isinstance(r.statement, sp.Basic)
        if r.status == "refuted":
            assert r.counterexample, name
        json.dumps(dv.to_dict(r))


def test_get_unknown_name():
    with pytest.raises(KeyError, match="no derivation named"):
        dv.get("no_such_derivation")


def test_cli_table_and_json(capsys):
    assert dv.main([]) == 0
    text = capsys.readouterr().out
    assert "comparison_set_distance" in text and "refuted" in text
    assert dv.main(["--json", "--status", "refuted"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in records} == {n for n, s in EXPECTED.items() if s == "refuted"}
    assert dv.main(["--name", "alpha_typo"]) == 0
    assert "e^{-alpha}" in capsys.readouterr().out
    assert dv.main(["--name", "nope"]) == 2


def test_command_is_registered():
    from garesearch.__main__ import COMMANDS

    assert COMMANDS["derivations"][0] == "garesearch.derivations"


# --- the proof helpers can fail ---------------------------------------------------------------
def test_proof_helpers_reject_false_identities():
    p, d = sp.symbols("p delta", positive=True)
    with pytest.raises(_core.ProofError):
        _core.require_zero(p - d, "p = delta")
    with pytest.raises(_core.ProofError):
        _core.require_equal_logs(sp.log(p), sp.log(2 * p), "log p = log 2p")
    right = -sp.log(p / (1 - p) * (1 / (d + p) - 1))
    wrong_sign = sp.log(p / (1 - p) * (1 / (d + p) - 1))
    _core.require_equal_logs(right, sp.log((1 - p) * (p + d)) - sp.log(p * (1 - p - d)), "ok")
    with pytest.raises(_core.ProofError):
        _core.require_equal_logs(wrong_sign, right, "sign")


def test_one_formula_check_catches_a_wrong_backend_formula(monkeypatch):
    from garesearch import bound
    from garesearch.paper import sec3_posterior

    def wrong(delta, p, q, a, B):  # drops the log1p(delta/p) term
        return (B.log(q) - B.log1p(-p) + B.log1p(delta / (1 - p - delta))) / a

    monkeypatch.setattr(bound, "eps_main_formula", wrong)
    with pytest.raises(_core.ProofError):
        sec3_posterior.one_formula_eps_main.__wrapped__()


# --- counterexamples, re-checked independently -------------------------------------------------
def test_comparison_set_distance_by_grid():
    c = ce("comparison_set_distance")
    t, r, a = c["t"], c["r"], c["a"]
    xp = np.linspace(t - r, t + r, 201)
    xs = np.concatenate([np.linspace(t - a, t - r - 1e-9, 200), np.linspace(t + r + 1e-9, t + a, 200)])
    dmax = np.max(np.abs(xs[:, None] - xp[None, :]))
    assert dmax == pytest.approx(a + r) and dmax == pytest.approx(c["d(x,x')"])
    assert dmax > a


def test_normal_R_by_scipy():
    c = ce("normal_R")
    dist = stats.norm(c["mu"], c["sigma"])
    radius = 3 * math.sqrt(2) * c["sigma"]
    # Pr[|X - mu| <= 3 sqrt(2) sigma] = erf(3) = 0.9999779...
    assert dist.cdf(c["mu"] + radius) - dist.cdf(c["mu"] - radius) == pytest.approx(math.erf(3), rel=1e-12)
    assert c["paper_R"] - c["radius"] == pytest.approx(c["mu"])  # a location, not a distance
    assert c["radius"] == pytest.approx(1000, abs=0.01)


def f_paper(p, delta, q=1.0):
    """Sec. 4.1's f, typed from the paper (1 - p replaced by q - p)."""
    return -np.log(p / (q - p) * (1 / (delta + p) - 1))


def test_worst_prior_q1_is_a_minimum_numerically():
    c = ce("worst_prior_q1_critical_point")
    d = c["delta"]
    assert f_paper(c["p_other"], d) > f_paper(c["p_critical"], d)
    res = optimize.minimize_scalar(lambda p: f_paper(p, d), bounds=(1e-6, 1 - d - 1e-6), method="bounded")
    assert res.x == pytest.approx((1 - d) / 2, abs=1e-5)
    assert res.fun == pytest.approx(2 * math.log((1 + d) / (1 - d)), rel=1e-9)


def test_general_q_derivative_by_numerical_differentiation():
    c = ce("worst_prior_general_q_derivative")
    with mpmath.workdps(30):
        f = lambda p: -mpmath.log(p / (c["q"] - p) * (1 / (c["delta"] + p) - 1))  # noqa: E731
        numeric = float(mpmath.diff(f, mpmath.mpf(c["p"])))
    assert numeric == pytest.approx(c["correct_df_dp"], rel=1e-12)
    assert abs(numeric - c["paper_df_dp"]) > 0.5


def test_general_q_paper_point_by_brute_force():
    c = ce("worst_prior_general_q_paper_point")
    d, q = c["delta"], c["q"]
    grid = np.linspace(1e-4, 1 - d - 1e-4, 200001)
    vals = f_paper(grid, d, q)
    p_min = grid[np.argmin(vals)]
    assert p_min == pytest.approx(c["correct_p_star"], abs=1e-4)
    assert abs(p_min - c["paper_p"]) > 0.2
    with mpmath.workdps(30):
        f = lambda p: -mpmath.log(p / (q - p) * (1 / (d + p) - 1))  # noqa: E731
        assert abs(mpmath.diff(f, c["paper_p"])) > 1  # not a critical point
    # the printed derivative's own root is (q - delta)/2
    paper_dfdp = lambda p: 1 / ((p + d) - (p + d) ** 2) - 1 / ((q - p) - (q - p) ** 2)  # noqa: E731
    assert optimize.brentq(paper_dfdp, 0.2, 0.5) == pytest.approx((q - d) / 2, abs=1e-12)
    # (and at delta = 0.3, q = 0.8 the printed point (0.3*0.7 + 0.8*0.2)/(2*(0.3 + 0.8 - 1))
    # = 1.85 is not even a probability)


def test_general_q_worst_prior_matches_brute_force_and_package():
    import garesearch as ga

    for d, q in [(0.3, 0.8), (0.1, 0.95), (0.05, 1.0), (0.4, 0.7)]:
        grid = np.linspace(1e-5, min(q, 1 - d) - 1e-5, 400001)
        p_min = grid[np.argmin(f_paper(grid, d, q))]
        p_star = q * d * (1 - d) / (q * d + math.sqrt(q * d * (q + d - 1)))
        assert p_min == pytest.approx(p_star, abs=2e-5)
        assert ga.worst_case_prior(delta=d, q=q) == pytest.approx(p_star, rel=1e-12)


def test_discrete_worst_prior_by_maximising_the_advantage():
    c = ce("discrete_worst_prior")
    e = c["epsilon"]
    adv = lambda p: p / (p + (1 - p) * math.exp(-e)) - p  # noqa: E731
    res = optimize.minimize_scalar(lambda p: -adv(p), bounds=(0, 1), method="bounded",
                                   options={"xatol": 1e-12})
    assert res.x == pytest.approx(c["correct_p"], abs=1e-6)
    assert res.x < 0.5 < c["paper_p"]
    assert -res.fun == pytest.approx(math.tanh(e / 4), rel=1e-9)
    assert adv(c["paper_p"]) < -res.fun - 0.04


def test_discrete_two_nearest_cats_or_set():
    def two_sided(p, d):
        lb = math.log((1 - p) * (p + d) / (p * (1 - p - d))) if p + d < 1 else math.inf
        ub = math.log(p * (1 - p + d) / ((1 - p) * (p - d))) if p > d else math.inf
        return min(lb, ub)

    d = 0.1
    cats = [0.525, 0.55, 0.6, 0.625, 0.7]  # Sec. 6.1 OR-event values
    eps = {p: two_sided(p, d) for p in cats}
    assert min(eps, key=eps.get) == 0.55
    assert eps[0.55] == pytest.approx(0.40134, abs=1e-5)
    assert eps[0.525] == pytest.approx(0.40236, abs=1e-5)
    # the value nearest to (1 - delta)/2 is 0.525, not the worst
    assert min(cats, key=lambda p: abs(p - 0.45)) == 0.525
    second = [0.3, 0.46, 0.5, 0.6]
    eps2 = {p: two_sided(p, d) for p in second}
    assert min(eps2, key=eps2.get) == 0.46  # neighbours of 0.55 are 0.5 and 0.6
    c = dv.get("discrete_two_nearest").counterexample
    assert float(c["true_worst"]) == 0.55 and float(c["true_worst_second_set"]) == 0.46


def test_and_event_distance_by_grid():
    c = ce("and_event_distance")
    r, a = c["r"][0], c["a"][0]
    g = np.linspace(-a, a, 81)
    X, Y = np.meshgrid(g, g)
    pts = np.column_stack([X.ravel(), Y.ravel()])
    inner = np.all(np.abs(pts) <= r + 1e-12, axis=1)
    d = np.max(np.abs(pts[inner][:, None, :] - pts[~inner][None, :, :]).max(axis=2))
    assert d == pytest.approx(a + r) == pytest.approx(c["linf_distance"])


def test_independence_mutual_by_enumeration():
    outcomes = np.array([(b1, b2, b1 ^ b2) for b1, b2 in itertools.product((0, 1), repeat=2)])
    for i, j in itertools.combinations(range(3), 2):
        for vi, vj in itertools.product((0, 1), repeat=2):
            joint = np.mean((outcomes[:, i] == vi) & (outcomes[:, j] == vj))
            assert joint == np.mean(outcomes[:, i] == vi) * np.mean(outcomes[:, j] == vj)
    assert np.mean(np.all(outcomes == 0, axis=1)) == 0.25 != 1 / 8


def test_or_block_distance_by_grid():
    c = ce("or_block_distance")
    r, a = c["r"][0], c["a"][0]
    g = np.linspace(-a, a, 41)
    X, Y = np.meshgrid(g, g)
    pts = np.column_stack([X.ravel(), Y.ravel()])
    in_x0 = np.any(np.abs(pts) <= r + 1e-12, axis=1)
    d = np.max(np.abs(pts[in_x0][:, None, :] - pts[~in_x0][None, :, :]).max(axis=2))
    assert d == pytest.approx(2 * a) == pytest.approx(c["linf_distance"])


def test_or_block_masses_by_monte_carlo():
    c = ce("or_block_masses")
    r, a = c["r"][0], c["a"][0]
    rng = np.random.default_rng(20240611)
    z = np.abs(rng.standard_normal((400_000, 2)))
    hat = np.mean(np.all((z > r) & (z <= a), axis=1))
    assert hat == pytest.approx(c["Pr[Xhat0]_correct"], abs=0.003)
    ring = stats.norm.cdf(a) - stats.norm.cdf(r)
    assert (2 * ring) ** 2 == pytest.approx(c["Pr[Xhat0]_correct"], rel=1e-12)
    assert abs(hat - c["Pr[Xhat0]_paper"]) > 0.05


def test_or_eps_k_delta_term_by_root_finding():
    c = ce("or_eps_k_delta_term")
    alpha, g, P, d = c["alpha_k"], c["g_k(r_k)"], c["Pr[X'] (OR of two such attributes)"], c["delta"]
    bound = lambda e: 1 / (1 + math.exp(-e) / alpha)  # noqa: E731
    e_needed = optimize.brentq(lambda e: bound(e) - (P + d), -5, 5, xtol=1e-14)
    assert e_needed == pytest.approx(c["eps_k_derived"], rel=1e-10)
    assert bound(c["eps_k_printed"]) == pytest.approx(g + d, rel=1e-12)
    assert c["eps_k_printed"] < e_needed  # printed: smaller epsilon, more noise


def test_sequential_composition_needs_independent_randomness():
    rng = np.random.default_rng(7)
    B = rng.integers(0, 2, 100_000)
    for x in (0, 1):
        m1, m2 = x ^ B, B
        assert abs(np.mean(m1) - 0.5) < 0.01 and abs(np.mean(m2) - 0.5) < 0.01
        assert np.all((m1 ^ m2) == x)  # the pair reveals x: no finite epsilon


def test_lambert_iteration_inside_and_outside_by_an_independent_loop():
    def paper(y, n):
        w = [1.0, 1.0 - (math.e - y) / (2 * math.e)]  # w_{-1} = w_0 = 1: Newton first step
        for _ in range(n):
            wn = w[-1]
            w.append(w[-2] - (w[-2] * math.exp(wn) - y) / ((wn + 1) * math.exp(wn)))
        return w

    c = ce("lambert_w_paper_iteration")
    out = paper(10.0, 40)
    assert abs(out[40] - special.lambertw(10.0).real) == pytest.approx(c["error_after_40"], rel=1e-9)
    assert abs(out[40] - special.lambertw(10.0).real) > 0.1
    inside = paper(1.0, 200)
    assert inside[200] == pytest.approx(special.lambertw(1.0).real, abs=1e-14)


def test_noise_scaling_by_quadrature():
    c = ce("noise_scaling")
    a, xi = c["a"], c["xi"]
    lap = lambda t: 0.5 * math.exp(-abs(t))  # noqa: E731
    gc = lambda t: math.sqrt(2) / math.pi / (1 + t**4)  # noqa: E731
    for f, key in [(lap, "laplace"), (gc, "gencauchy")]:
        p = integrate.quad(f, -a, a)[0]
        printed = integrate.quad(lambda t, f=f: f(xi * t) / xi, -a * xi, a * xi, points=[0])[0]
        correct = integrate.quad(lambda t, f=f: f(t / xi) / xi, -a * xi, a * xi, points=[0])[0]
        assert correct == pytest.approx(p, rel=1e-10) == pytest.approx(c[f"{key}_p"], rel=1e-10)
        assert printed == pytest.approx(c[f"{key}_printed"], rel=1e-8)
        assert abs(printed - p) > 0.3


def test_approx_posterior_chain_by_discretisation_and_monte_carlo():
    c = ce("approx_posterior_chain")
    e, d, h = c["epsilon"], c["dp_delta"], c["spike_width_h"]
    # densities on a grid of cells of width h/10 over [0, 1]
    y = (np.arange(10_000) + 0.5) / 10_000
    f0 = np.ones_like(y)
    f1 = (1 - d) + d / h * (y < h)
    cell = 1 / 10_000
    # sup over sets S of Pr[M(i) in S] - e^eps Pr[M(j) in S]: take S = {f_i > e^eps f_j}
    assert np.sum(np.maximum(f1 - math.exp(e) * f0, 0)) * cell <= d
    assert np.sum(np.maximum(f0 - math.exp(e) * f1, 0)) * cell <= d
    assert f1[0] > math.exp(e) * f0[0] + d  # density-level premise fails
    rng = np.random.default_rng(11)
    n = 4_000_000
    x = rng.integers(0, 2, n)
    spike = (x == 1) & (rng.random(n) < d)
    ys = np.where(spike, rng.random(n) * h, rng.random(n))
    sel = ys < h
    post = np.mean(x[sel] == 1)
    assert post == pytest.approx(c["posterior Pr[x = 1 | y < h]"], abs=0.01)
    b1 = 1 / (1 + 1 / (math.exp(e) + d / 1.0) * 1.0)
    assert b1 == pytest.approx(c["B.1 bound"], rel=1e-12)
    assert post > b1 + 0.2


def test_alpha_typo_numbers():
    c = ce("alpha_typo")
    e, al, F = c["epsilon"], c["alpha"], c["F = 1 - delta/chibar"]
    assert math.exp(-al * e) <= F < math.exp(-al)
    got = 1 / (1 + math.exp(-(e - al)) * F)
    target = 1 / (1 + math.exp(-e))
    assert got > target
    # the record's own numbers, recomputed here from its inputs
    assert float(c["bound_at_eps_minus_alpha"]) == pytest.approx(got, rel=1e-12)
    assert float(c["eps_DP_target"]) == pytest.approx(target, rel=1e-12)
    # the values quoted in its text (eps = 2, alpha = 0.5, F = 0.5): 0.8996 > 0.8808
    assert (e, al, F) == (2, 0.5, 0.5)
    assert got == pytest.approx(0.8996, abs=1e-4) and target == pytest.approx(0.8808, abs=1e-4)


def test_bprime_lambert_both_branches_with_scipy():
    c = ce("bprime_lambert")
    Y = c["Y"]
    x0 = -special.lambertw(-1 / Y, 0).real
    x1 = -special.lambertw(-1 / Y, -1).real
    for xv in (x0, x1):
        assert math.exp(xv) / xv == pytest.approx(Y, rel=1e-12)
    assert x0 == pytest.approx(c["x_W0"], rel=1e-12) and x1 == pytest.approx(c["x_W-1"], rel=1e-12)
    grid = np.linspace(0.01, 10, 100_000)
    assert np.min(np.exp(grid) / grid) == pytest.approx(math.e, rel=1e-6)  # Y < e infeasible
    assert abs(special.lambertw(-1 / c["infeasible_Y"]).imag) > 0.1


# --- proved results, spot-checked numerically ---------------------------------------------------
def test_lb_ub_binding_on_a_grid():
    for d in (0.05, 0.1, 0.3):
        p = np.linspace(d + 1e-3, 1 - d - 1e-3, 999)
        lb = np.log((1 - p) * (p + d) / (p * (1 - p - d)))
        ub = np.log(p * (1 - p + d) / ((1 - p) * (p - d)))
        assert np.all((lb <= ub + 1e-12) == (p <= 0.5 + 1e-12))


def test_gencauchy_masses_by_quadrature():
    f = lambda t: math.sqrt(2) / math.pi / (1 + t**4)  # noqa: E731
    assert integrate.quad(f, -np.inf, np.inf)[0] == pytest.approx(1, rel=1e-12)
    m = integrate.quad(f, -1, 1)[0]
    assert m == pytest.approx(0.5 + math.asinh(1) / math.pi, rel=1e-12)
    assert round(m, 2) == 0.78  # the paper's number


def test_laplace_mass_by_quadrature():
    e, p = 0.7, 0.9
    a = -math.log(1 - p) / e
    assert integrate.quad(lambda t: e / 2 * math.exp(-abs(t) * e), -a, a, points=[0])[0] == pytest.approx(p)


def test_optimal_radius_by_numerical_minimisation():
    eps, r = 0.3, 2.0
    res = optimize.minimize_scalar(lambda a: rd.radius_posterior_bound_1d(eps, r, a),
                                   bounds=(r + 1e-9, r + 100), method="bounded",
                                   options={"xatol": 1e-10})
    assert res.x == pytest.approx(rd.optimal_radius_1d(eps, r), rel=1e-6)
    assert res.fun == pytest.approx(1 / (1 + 1 / (math.exp(eps * r + 1) * eps * r)), rel=1e-12)
    n = 3
    res = optimize.minimize_scalar(lambda a: rd.radius_posterior_bound_ndim(eps, 0.1, a, n),
                                   bounds=(0.01, 100), method="bounded", options={"xatol": 1e-10})
    assert res.x == pytest.approx(rd.optimal_radius_ndim(eps, n), rel=1e-6)
    assert res.fun == pytest.approx((eps * math.e * 0.1 / n) ** n, rel=1e-10)


@pytest.mark.parametrize("r, R, delta", [(1, 10, 0.1), (1, 100, 0.05), (0.5, 20, 0.3), (2, 5, 0.2)])
def test_lambert_closed_form_against_brute_force(r, R, delta):
    e_w = rd.lambert_epsilon(r=r, R=R, delta=delta)
    assert rd.bruteforce_epsilon(r=r, R=R, delta=delta) == pytest.approx(e_w, rel=1e-9)
    assert float(rd.lambert_epsilon(r=r, R=R, delta=delta, dps=30)) == pytest.approx(e_w, rel=1e-13)


def test_radius_bad_input():
    from garesearch.errors import ParameterError

    with pytest.raises(ParameterError, match="r/R \\+ delta"):
        rd.lambert_epsilon(r=5, R=10, delta=0.6)
    with pytest.raises(ParameterError, match="a must be > r"):
        rd.radius_posterior_bound_1d(0.1, 1.0, 0.5)
    with pytest.raises(ParameterError, match="n must be"):
        rd.optimal_radius_ndim(0.1, 0)


def test_holder_and_dual_norms_numerically():
    rng = np.random.default_rng(3)
    for _ in range(200):
        d, e = rng.random(4), rng.random(4)
        p = 1 + 4 * rng.random()
        q = p / (p - 1)
        assert d @ e <= np.linalg.norm(d, p) * np.linalg.norm(e, q) + 1e-12
        dstar = e ** (q - 1) / np.linalg.norm(e ** (q - 1), p)
        assert dstar @ e == pytest.approx(np.linalg.norm(e, q), rel=1e-9)
    e = np.array([0.3, 0.1, 0.5])
    l1 = optimize.linprog(-np.r_[e, -e], A_ub=np.ones((1, 6)), b_ub=[1], bounds=(0, None))
    linf = optimize.linprog(-e, bounds=[(-1, 1)] * 3)
    assert -l1.fun == pytest.approx(e.max()) and -linf.fun == pytest.approx(e.sum())


# --- the W iterations ---------------------------------------------------------------------------
def test_convergence_interval():
    lo, hi = lw.convergence_interval()
    assert lo == pytest.approx(-0.5 * math.exp(-0.5)) and hi == math.e
    assert special.lambertw(lo).real == pytest.approx(-0.5) and special.lambertw(hi).real == pytest.approx(1)


@pytest.mark.parametrize("y", [-0.2, 0.1, 0.5, 1.0])
def test_paper_iteration_rate_matches_linearisation(y):
    errs = [float(e) for e in lw.lambertw_errors(y, "paper", maxiter=120, dps=50)]
    tail = [n for n, e in enumerate(errs) if 1e-30 < e < 1e-4]
    n0, n1 = tail[0], tail[-1]
    observed = (errs[n1] / errs[n0]) ** (1 / (n1 - n0))
    assert observed == pytest.approx(lw.paper_iteration_rate(y), abs=0.03)


@pytest.mark.parametrize("y", [3.0, 10.0, -0.33])
def test_paper_iteration_fails_outside_the_interval(y):
    assert lw.paper_iteration_rate(y) > 1
    errs = lw.lambertw_errors(y, "paper", maxiter=150, dps=30)
    assert not errs[-1] < 1e-3


@pytest.mark.parametrize("y", [-0.3, 0.5, 10.0, 100.0])
def test_newton_quadratic_and_halley_cubic(y):
    ref = special.lambertw(y).real
    newton = lw.lambertw_iterates(y, "newton", maxiter=40)
    halley = lw.lambertw_iterates(y, "halley", maxiter=40)
    assert newton[-1] == pytest.approx(ref, rel=1e-14) and halley[-1] == pytest.approx(ref, rel=1e-14)
    rows = lw.convergence_table([y], maxiter=60)
    assert rows[0]["newton_order"] == pytest.approx(2, abs=0.15)
    assert rows[0]["halley_order"] == pytest.approx(3, abs=0.2)
    assert rows[0]["halley_iterations"] <= rows[0]["newton_iterations"]


def test_iterates_bad_input():
    from garesearch.errors import ParameterError

    with pytest.raises(ParameterError, match="method"):
        lw.lambertw_iterates(1.0, "secant")
    with pytest.raises(ParameterError, match="y must be"):
        lw.lambertw_iterates(-1.0)


# --- App. A.1 in code: garesearch.noise's formulas, re-checked by other routes ------------------
_DENSITIES = {  # typed here from App. A.1 (and the standard normal)
    "laplace": lambda t: 0.5 * math.exp(-abs(t)),
    "gencauchy": lambda t: math.sqrt(2) / math.pi / (1 + t**4),
    "gaussian": lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi),
}


def test_old_import_paths_still_work_and_warn():
    import importlib

    for name in ("lambertw", "radius"):
        old = importlib.import_module(f"garesearch.derivations.{name}")
        new = importlib.import_module(f"garesearch.{name}")
        for attr in new.__all__:
            with pytest.warns(DeprecationWarning, match=f"moved to garesearch.{name}"):
                assert getattr(old, attr) is getattr(new, attr)
    with pytest.warns(DeprecationWarning):
        from garesearch.derivations.radius import optimal_radius_1d
    assert optimal_radius_1d is rd.optimal_radius_1d


@pytest.mark.parametrize("kind", sorted(_DENSITIES))
@pytest.mark.parametrize("a, scale", [(0.3, 1.0), (1.0, 1.0), (2.5, 0.7), (5.5, 1 / 0.539)])
def test_noise_mass_and_bound_by_scipy_quadrature(kind, a, scale):
    from garesearch import noise

    f = _DENSITIES[kind]
    expected = integrate.quad(lambda t: f(t / scale) / scale, -a, a, points=[0], epsabs=1e-14)[0]
    assert noise.noise_mass(a, noise=kind, scale=scale) == pytest.approx(expected, rel=1e-11)
    assert float(noise.noise_mass(a, noise=kind, scale=scale, dps=30)) == pytest.approx(expected, rel=1e-11)
    # the inverse by root finding on the quadrature
    back = optimize.brentq(
        lambda b: integrate.quad(lambda t: f(t / scale) / scale, -b, b, points=[0])[0] - expected,
        1e-9, 1e3, xtol=1e-14)
    assert noise.noise_bound(expected, noise=kind, scale=scale) == pytest.approx(back, rel=1e-8)


def test_gencauchy_atan2_branches_with_numpy():
    a = np.concatenate([np.linspace(1e-6, 1 - 1e-6, 500), np.linspace(1 + 1e-6, 50, 500)])
    y, x = math.sqrt(2) * a, 1 - a * a
    expected = np.where(a < 1, np.arctan(y / x), np.pi + np.arctan(y / x))
    assert np.allclose(np.arctan2(y, x), expected, rtol=0, atol=1e-13)
    # the module docstring's form of the antiderivative
    assert np.allclose(np.arctan(y + 1) + np.arctan(y - 1), np.arctan2(y, x), rtol=0, atol=1e-13)
    # continuity at a = 1 of the code's mass (both sides within 1e-9 of 1/2 + asinh(1)/pi)
    from garesearch import noise

    side = noise.noise_mass(np.array([1 - 1e-10, 1.0, 1 + 1e-10]), noise="gencauchy")
    assert np.allclose(side, 0.5 + math.asinh(1) / math.pi, rtol=0, atol=1e-9)


def test_gencauchy_inverse_against_findroot_and_monotone_start():
    from garesearch import noise

    c = 2 * math.sqrt(2) / math.pi
    with mpmath.workdps(30):
        P = lambda a: 2 * mpmath.quad(lambda t: mpmath.sqrt(2) / mpmath.pi / (1 + t**4), [0, a])  # noqa: E731
        for p in ("0.01", "0.78", "0.99999"):
            pv = mpmath.mpf(p)
            root = mpmath.findroot(lambda a, pv=pv: P(a) - pv, mpmath.mpf(1))
            assert float(noise.noise_bound(pv, noise="gencauchy", dps=30)) == pytest.approx(float(root), rel=1e-14)
            # both starting bounds of the Newton iteration lie on the correct side of the root
            assert pv / c <= root <= (c / (3 * (1 - pv))) ** (mpmath.mpf(1) / 3)


def test_one_formula_noise_catches_wrong_formulas(monkeypatch):
    from garesearch import noise
    from garesearch.paper import appA1_noise as _noise

    def atan_instead_of_atan2(a, B):  # right on (0, 1), off by 1 on (1, oo)
        import sympy

        s2 = B.sqrt(2)
        return (B.log1p(2 * s2 * a / (a * a - s2 * a + 1)) + 2 * sympy.atan(s2 * a / (1 - a * a))) / (2 * B.pi)

    monkeypatch.setattr(noise, "gencauchy_mass_formula", atan_instead_of_atan2)
    with pytest.raises(_core.ProofError):
        _noise.one_formula_noise_gencauchy.__wrapped__()
    monkeypatch.setattr(noise, "laplace_bound_formula", lambda p, B: B.log1p(p))
    with pytest.raises(_core.ProofError):
        _noise.one_formula_noise_laplace.__wrapped__()


# --- the pointwise bound (beyond the paper) ------------------------------------------------------
def _laplace_posterior(prior_pdf, lo, hi, y, eps, span=(-14, 14)):
    """Post[X' = [lo, hi] | y] for the Laplace mechanism, by quadrature (continuous prior)."""
    lik = lambda x: prior_pdf(x) * math.exp(-eps * abs(y - x))  # noqa: E731
    inside = integrate.quad(lik, lo, hi, points=[y] if lo < y < hi else None)[0]
    total = inside + integrate.quad(lik, span[0], lo, limit=200, points=[y] if span[0] < y < lo else None)[0] \
        + integrate.quad(lik, hi, span[1], limit=200, points=[y] if hi < y < span[1] else None)[0]
    return inside / total


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(40)


def _J_nested(prior_pdf, lo, hi, eps, span=(-14, 14)):
    """J by its definition: int_{outside} dF(x) / int_{X'} e^{eps|x-x'|} dF(x') (2-d quadrature;
    the inner integrand is smooth for x outside X', so 40-point Gauss-Legendre is exact to
    rounding there)."""
    u = (hi - lo) / 2 * _GL_NODES + (hi + lo) / 2
    wu = (hi - lo) / 2 * _GL_WEIGHTS * prior_pdf(u)

    def inv_L(x):
        return 1 / float(np.sum(wu * np.exp(eps * np.abs(x - u))))

    return (integrate.quad(lambda x: prior_pdf(x) * inv_L(x), span[0], lo, limit=200)[0]
            + integrate.quad(lambda x: prior_pdf(x) * inv_L(x), hi, span[1], limit=200)[0])


def test_pointwise_bound_holds_for_laplace_outputs():
    pdf = stats.norm(0.2, 1.3).pdf
    lo, hi, eps = -0.4, 0.6, 0.8
    bound = 1 / (1 + _J_nested(pdf, lo, hi, eps))
    posts = [_laplace_posterior(pdf, lo, hi, y, eps) for y in np.linspace(-6, 6, 25)]
    assert max(posts) <= bound
    assert max(posts) > bound - 0.1  # not vacuous: the best output comes close


def test_ratio_identity_and_mgf_closed_form_against_nested_quadrature():
    mu, s, lo, hi, eps = 0.3, 1.2, -0.2, 0.5, 0.9
    dist = stats.norm(mu, s)
    J_def = _J_nested(dist.pdf, lo, hi, eps)

    def mgf(k, a, b):  # the closed form of truncated_normal_mgf, typed here
        m = mu + k * s * s
        return math.exp(k * mu + (k * s) ** 2 / 2) * (stats.norm.cdf((b - m) / s) - stats.norm.cdf((a - m) / s))

    J_ratio = mgf(-eps, hi, np.inf) / mgf(-eps, lo, hi) + mgf(eps, -np.inf, lo) / mgf(eps, lo, hi)
    assert J_def == pytest.approx(J_ratio, rel=1e-8)
    for k, a, b in [(0.8, -1.0, 3.0), (-1.5, 0.2, 4.0), (2.0, -np.inf, 0.0)]:
        direct = integrate.quad(lambda x, k=k: math.exp(k * x) * dist.pdf(x), a, b)[0]
        assert mgf(k, a, b) == pytest.approx(direct, rel=1e-9)


def test_truncated_normal_mgf_code_path_deep_in_the_tail():
    """pointwise.log_tilted_interval (the code that uses the closed form) against mpmath at 40 digits,
    including a window 30 sigma out where the plain difference of CDFs underflows."""
    from garesearch.constructions.pointwise import log_tilted_interval

    prior = Normal(1.0, 2.0)
    with mpmath.workdps(40):
        for k, lo, hi, c in [(0.7, -1.0, 2.0, 0.5), (-0.4, 3.0, 9.0, 0.0), (0.1, 61.0, 65.0, 60.0)]:
            # many subintervals: 30 sigma out the integrand falls by e^{-62} across the window
            exact = mpmath.quad(lambda x, k=k, c=c: mpmath.exp(k * (x - c)) * mpmath.npdf(x, 1, 2),
                                mpmath.linspace(lo, hi, 21))
            assert log_tilted_interval(prior, k, lo, hi, c) == pytest.approx(float(mpmath.log(exact)), rel=1e-11)


def test_pointwise_dominates_eq_main_example():
    import re

    detail = dv.get("pointwise_dominates_eq_main").detail
    said = {key: float(re.search(rf"{re.escape(key)} = ([0-9]+\.[0-9]+)", detail).group(1))
            for key in (" p", " q", "Eq. (main) eps", "pointwise eps")}
    r, a, delta = 0.25, 1.0, 0.2
    p = stats.norm.cdf(r) - stats.norm.cdf(-r)
    q = 2 * (stats.norm.cdf(a) - stats.norm.cdf(r))
    assert p == pytest.approx(said[" p"], rel=1e-9) and q == pytest.approx(said[" q"], rel=1e-9)
    eps_main = -math.log(p / q * (1 / (delta + p) - 1)) / (a + r)
    assert eps_main == pytest.approx(said["Eq. (main) eps"], rel=1e-9)
    # the pointwise epsilon from the definition of J (2-d quadrature) and root finding
    target = (1 - p - delta) / (p + delta)
    eps_pw = optimize.brentq(lambda e: _J_nested(stats.norm.pdf, -r, r, e) - target, 0.5, 3, xtol=1e-10)
    assert eps_pw == pytest.approx(said["pointwise eps"], rel=1e-7)
    assert eps_pw > eps_main
    from garesearch.constructions.pointwise import epsilon_pointwise

    res = epsilon_pointwise(Normal(0, 1), r=r, delta=delta, t=0.0, sides="upper")
    assert res.epsilon == pytest.approx(eps_pw, rel=1e-7)
    # at every epsilon the pointwise bound is below Eq. (main)'s bound
    for e in (0.05, 0.5, 2.0):
        J = _J_nested(stats.norm.pdf, -r, r, e)
        assert 1 / (1 + J) <= 1 / (1 + math.exp(-e * (a + r)) * q / p)


def test_pointwise_tight_atom_by_monte_carlo_and_package():
    """Atom at t: the Laplace posterior at outputs near y = t approaches 1/(1+J), and the
    package's pointwise epsilon makes that posterior exactly p + delta."""
    from garesearch.constructions.pointwise import epsilon_pointwise

    xs, ws, t, eps = np.array([-0.8, 0.3, 2.7]), np.array([0.5, 0.2, 0.3]), 0.3, 0.7
    J = sum(w * math.exp(-eps * abs(x - t)) for x, w in zip(xs, ws, strict=True) if x != t) / 0.2
    rng = np.random.default_rng(2024)
    n = 2_000_000
    x = rng.choice(xs, size=n, p=ws)
    y = x + rng.laplace(0, 1 / eps, n)
    near = np.abs(y - t) < 0.01
    assert np.mean(x[near] == t) == pytest.approx(1 / (1 + J), abs=0.015)
    prior = Categorical(dict(zip(xs.tolist(), ws.tolist(), strict=True)))
    delta = 0.15
    res = epsilon_pointwise(prior, r=0.0, delta=delta, t=t, sides="upper")
    e = res.epsilon
    post = 0.2 / sum(w * math.exp(-e * abs(x - t)) for x, w in zip(xs, ws, strict=True))
    assert post == pytest.approx(0.2 + delta, rel=1e-9)


def test_html_table_lists_every_derivation():
    records = dv.all_derivations()
    text = dv.html_table(records)
    assert text.count("<tr><td><code>") == len(records)
    for r in records:
        assert f"<code>{r.name}</code>" in text
    counts = {s: sum(r.status == s for r in records) for s in dv.STATUSES}
    assert f"{counts[dv.REFUTED]} {dv.REFUTED}" in text
