"""Teaching widgets, headless: set a child's ``.value`` and check the recomputed ``.result``
against typed closed forms (Sec. 3.2 eps_lb / eps_ub, Eq. (main)) and brute-force maxima."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy.special import erf

pytest.importorskip("ipywidgets")

from garesearch.app import widgets
from garesearch.priors import Normal


def eps_lb(p, d, R=1.0):
    return -math.log(p / (1 - p) * (1 / (d + p) - 1)) / R


def eps_ub(p, d, R=1.0):
    return -math.log((1 - p) / p * (1 / (d + 1 - p) - 1)) / R


def child(w, name):
    (found,) = [c for c in w.children if getattr(c, "description", None) == name]
    return found


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_epsilon_widget_recomputes_on_slider_changes():
    w = widgets.epsilon_widget(plot=False)
    assert w.result["epsilon"] == pytest.approx(eps_lb(0.2, 0.1), rel=1e-12)  # cats: 0.539
    child(w, "p").value = 0.3
    assert w.result["epsilon"] == pytest.approx(min(eps_lb(0.3, 0.1), eps_ub(0.3, 0.1)), rel=1e-12)
    child(w, "a").value = 2.0
    assert w.result["epsilon"] == pytest.approx(min(eps_lb(0.3, 0.1), eps_ub(0.3, 0.1)) / 2, rel=1e-12)
    child(w, "q = 1 − p").value = False
    child(w, "q").value = 0.5
    expect = -math.log(0.3 / 0.5 * (1 / 0.4 - 1)) / 2  # Eq. (main)
    assert w.result["epsilon"] == pytest.approx(expect, rel=1e-12)
    assert w.result["posterior_bound"] == pytest.approx(0.4, rel=1e-12)  # = p + delta
    child(w, "δ").value = 0.2
    assert w.result["target"] == pytest.approx(0.5)


def test_epsilon_widget_reports_infeasible_and_invalid_settings():
    w = widgets.epsilon_widget(p=0.3, q=0.05, plot=False)
    # q = 0.05 < p(1 - p - delta)/(p + delta) = 0.45: no epsilon > 0
    assert w.result["epsilon"] is None and "too light" in w.result["message"]
    child(w, "q").value = 0.9  # p + q > 1
    assert w.result["epsilon"] is None and "p + q" in w.result["message"]
    child(w, "q = 1 − p").value = True
    child(w, "p").value = 0.95  # p + delta >= 1 and p > delta: only the lower side binds
    assert w.result["epsilon"] == pytest.approx(eps_ub(0.95, 0.1), rel=1e-12)


def test_attribute_widget_sliders_do_not_update_continuously():
    w = widgets.attribute_widget(plot=False)
    sliders = [c for c in w.children if type(c).__name__ == "FloatSlider"]
    assert sliders and all(s.continuous_update is False for s in sliders)


def test_attribute_widget_normal_paper_construction_matches_a_brute_force_maximum():
    w = widgets.attribute_widget(plot=False)
    child(w, "X̂").value = "paper"
    child(w, "r").value = 0.5
    res = w.result["result"]
    # N(0, 1), t = 0, r = 0.5: p = erf(0.5/sqrt2); q(a) = erf(a/sqrt2) - p, exponent a
    p = erf(0.5 / math.sqrt(2))
    a = np.linspace(0.5001, 3 * math.sqrt(2), 400001)
    up = -np.log(p / (erf(a / math.sqrt(2)) - p) * (1 / (0.1 + p) - 1)) / a
    assert res.p == pytest.approx(p, rel=1e-12)
    assert res.epsilon_upper == pytest.approx(up.max(), rel=1e-8)
    assert res.a == pytest.approx(a[np.argmax(up)], abs=1e-3)
    curve = w.result["curve"]
    i = int(np.nanargmax(curve["epsilon"]))
    assert curve["epsilon"][i] == pytest.approx(up.max(), rel=1e-4)  # the plotted optimum
    assert w.result["a_opt"] == pytest.approx(curve["a"][i], abs=0.02)


def test_attribute_widget_uniform_sound_construction():
    w = widgets.attribute_widget(family="uniform", scale=1.0, t_offset=0.0, r=0.25, plot=False)
    res = w.result["result"]
    # Uniform(-1, 1), X' = [-0.25, 0.25], p = 0.25; points within D of X': [0.25 - D, D - 0.25]
    D = np.append(np.linspace(0.5001, 1.25, 100001), 1.25)
    q = (np.minimum(D - 0.25, 1) - np.maximum(0.25 - D, -1)) / 2 - 0.25
    up = -np.log(0.25 / q * (1 / 0.35 - 1)) / D
    assert res.epsilon_upper == pytest.approx(up.max(), rel=1e-9)
    child(w, "t / scale").value = 0.5
    assert w.result["result"].t == pytest.approx(0.5)
    assert w.result["result"].p == pytest.approx(0.25)


def test_attribute_widget_cats_and_scale():
    w = widgets.attribute_widget(family="cats", plot=False)
    assert w.result["epsilon"] == pytest.approx(math.log(1.5), rel=1e-12)  # black, p = 0.4
    child(w, "t (cats)").value = "white"
    assert w.result["epsilon"] == pytest.approx(eps_lb(0.1, 0.1), rel=1e-12)
    child(w, "prior").value = "normal"
    r = child(w, "r").value
    single = widgets.attribute_state(family="normal", scale=1.0, r=r, delta=0.1)
    # N(0, s^2) with precision s r is N(0, 1) with precision r in units of s: epsilon / s
    child(w, "scale").value = 2.0
    child(w, "r").value = 2 * r
    assert w.result["epsilon"] == pytest.approx(single["epsilon"] / 2, rel=1e-6)


def test_chosen_a_reads_the_curve():
    state = widgets.attribute_state(family="normal", scale=1.0, r=0.25, delta=0.1,
                                    construction="paper", a=1.0)
    # Eq. (main) at a = 1 (nearest grid point), N(0, 1), t = 0, r = 0.25
    p = erf(0.25 / math.sqrt(2))
    curve_a = state["curve"]["a"][np.argmin(np.abs(state["curve"]["a"] - 1.0))]
    expect = -math.log(p / (erf(curve_a / math.sqrt(2)) - p) * (1 / (0.1 + p) - 1)) / curve_a
    assert state["epsilon_at_a"] == pytest.approx(expect, rel=1e-10)


def test_comparison_curve_rejects_bad_construction_and_empty_ball():
    with pytest.raises(ValueError, match="construction"):
        widgets.comparison_curve(Normal(0, 1), t=0, r=0.1, delta=0.1, construction="other")
    state = widgets.attribute_state(family="uniform", t_offset=3.0, r=0.25)
    assert state["result"] is None and state["message"]


def test_widgets_draw_with_agg():
    w = widgets.epsilon_widget(plot=True)
    child(w, "p").value = 0.25
    assert len(plt.get_fignums()) >= 1
    w = widgets.attribute_widget(plot=True)
    child(w, "r").value = 0.3
    assert w.result["epsilon"] > 0


def test_attribute_state_shows_the_optimum_above_every_comparison_set():
    """At t = mu for N(0, 1), r = 0.5, the optimum (over every mechanism) is never below the
    comparison set's epsilon, and equals the optimal construction at that t."""
    import garesearch as ga
    from garesearch.app.widgets import attribute_state
    from garesearch.priors import Normal

    state = attribute_state(family="normal", scale=1.0, t_offset=0.0, r=0.5, delta=0.1)
    assert state["epsilon_optimal"] >= state["epsilon"]
    assert state["epsilon_optimal"] == ga.epsilon_for_attribute(Normal(0, 1), r=0.5, delta=0.1, t=0.0).epsilon


# ------------------------------------------------------------------------------------------
# The optimal epsilon the widgets show, against independent routes
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("delta", [0.01, 0.1, 0.3, 0.45])
@pytest.mark.parametrize("a", [1.0, 2.5])
def test_epsilon_state_optimum_of_a_fair_coin(delta, a):
    """p = 1/2: the optimum is 2 artanh(2 delta) = ln((1/2 + delta)/(1/2 - delta)) per unit
    of distance, whatever comparison set the widget is showing."""
    for q in (None, 0.3):
        state = widgets.epsilon_state(delta=delta, p=0.5, q=q, a=a)
        assert state["epsilon_optimal"] == pytest.approx(2 * math.atanh(2 * delta) / a, rel=1e-12)
        assert state["epsilon_optimal"] == pytest.approx(math.log((0.5 + delta) / (0.5 - delta)) / a,
                                                         rel=1e-12)
        assert state["t_optimal"] in ("correct", "wrong")


@pytest.mark.parametrize(("p", "delta"), [(0.2, 0.1), (0.3, 0.1), (0.45, 0.1), (0.7, 0.05), (0.95, 0.1)])
def test_epsilon_state_optimum_is_the_two_sided_bound(p, delta):
    """Every wrong value at distance a: the optimum is min(eps_lb, eps_ub) / a (Sec. 3.2, R = a),
    at or above Eq. (main) for any lighter comparison set."""
    expect = min(eps_lb(p, delta) if p + delta < 1 else math.inf,
                 eps_ub(p, delta) if p - delta > 0 else math.inf) / 2.0
    state = widgets.epsilon_state(delta=delta, p=p, q=0.9 * (1 - p), a=2.0)
    assert state["epsilon_optimal"] == pytest.approx(expect, rel=1e-12)
    if p + delta < 1:  # Eq. (main) bounds the attacker's gain only: at most its optimum
        assert 0 < state["epsilon"] < eps_lb(p, delta) / 2.0
    else:  # no gain beyond p + delta is possible, but the loss still binds
        assert state["epsilon"] == math.inf and state["epsilon_optimal"] < math.inf


def test_epsilon_state_optimum_when_no_noise_is_needed_and_for_bad_input():
    state = widgets.epsilon_state(delta=0.8, p=0.3)  # p + delta >= 1 and p - delta <= 0
    assert state["epsilon_optimal"] == math.inf
    assert widgets.summary(state)[0][1] == "any (no noise needed)"
    bad = widgets.epsilon_state(delta=0.1, p=1.5)
    assert bad["epsilon_optimal"] is None and "p" in bad["optimal_message"]


def test_epsilon_widget_q_follows_one_minus_p():
    w = widgets.epsilon_widget(p=0.2, plot=False)
    q, rest, p = child(w, "q"), child(w, "q = 1 − p"), child(w, "p")
    assert q.disabled and q.value == pytest.approx(0.8)
    p.value = 0.35
    assert q.value == pytest.approx(0.65) and w.result["q"] is None
    rest.value = False
    assert not q.disabled and q.value == pytest.approx(0.65)
    q.value = 0.4
    p.value = 0.3
    assert q.value == pytest.approx(0.4) and w.result["q"] == pytest.approx(0.4)
    rest.value = True
    assert q.disabled and q.value == pytest.approx(0.7)
    assert widgets.epsilon_widget(p=0.2, q=0.5, plot=False).children[3].disabled is False


def _normal_optimum(t, r, delta):
    """The optimal epsilon for N(0, 1) at the true value t, from the definitions (Def. 7):
    the posterior of [t - r, t + r] under a Laplace kernel exp(-eps|x - c|) (upper side) or
    the inverted kernel exp(+eps|x - c|) (lower side), c in the ball, in closed form with
    Phi (phi(x) e^{kx} = e^{k^2/2} phi(x - k)); the largest eps with both sides within delta."""
    from scipy.optimize import brentq, minimize_scalar
    from scipy.special import ndtr

    lo, hi = t - r, t + r
    p = ndtr(hi) - ndtr(lo)

    def posterior(eps, c, s):  # s = +1: Laplace kernel, s = -1: the inverted one
        left_in = np.exp(-s * eps * c) * (ndtr(c - s * eps) - ndtr(lo - s * eps))
        right_in = np.exp(s * eps * c) * (ndtr(hi + s * eps) - ndtr(c + s * eps))
        total = np.exp(-s * eps * c) * ndtr(c - s * eps) + np.exp(s * eps * c) * ndtr(-(c + s * eps))
        return (left_in + right_in) / total

    def worst(eps):
        cs = np.linspace(lo, hi, 2001)
        out = []
        for s, sign in ((1, 1.0), (-1, -1.0)):
            vals = sign * posterior(eps, cs, s)
            i = int(np.argmax(vals))
            a, b = cs[max(i - 1, 0)], cs[min(i + 1, cs.size - 1)]
            best = minimize_scalar(lambda c, s=s, sign=sign: -sign * posterior(eps, c, s),
                                   bounds=(a, b), method="bounded", options={"xatol": 1e-12})
            out.append(max(vals[i], -best.fun))
        return max(out[0] - p, p + out[1]) - delta  # out[1] = -min posterior

    return brentq(worst, 1e-6, 20.0, xtol=1e-14, rtol=1e-13)


def test_attribute_state_optimum_for_a_normal_prior_matches_the_definition():
    state = widgets.attribute_state(family="normal", scale=1.0, t_offset=0.0, r=0.25, delta=0.1)
    assert state["epsilon_optimal"] == pytest.approx(_normal_optimum(0.0, 0.25, 0.1), rel=1e-7)
    t_worst = state["t_optimal_worst"]
    eps_worst = state["epsilon_optimal_worst"]
    assert eps_worst == pytest.approx(_normal_optimum(t_worst, 0.25, 0.1), rel=1e-7)
    # the worst true value: no t of a grid does worse, and the grid's worst is close to it
    grid = [_normal_optimum(t, 0.25, 0.1) for t in np.linspace(0.0, 3.0, 31)]
    assert min(grid) >= eps_worst * (1 - 1e-9)
    assert min(grid) == pytest.approx(eps_worst, rel=2e-3)
    assert eps_worst < state["epsilon_optimal"]  # t = 0 is not the worst value
    # the construction at its own worst value is at most the optimum there
    assert state["epsilon_worst"] <= eps_worst


def test_summary_puts_the_optimum_first():
    state = widgets.attribute_state(family="normal", scale=1.0, t_offset=0.0, r=0.25, delta=0.1)
    rows = widgets.summary(state)
    assert rows[0][0] == "optimal ε, worst true value"
    assert rows[0][1] == f"{state['epsilon_optimal_worst']:.4g}"
    assert f"t = {state['t_optimal_worst']:.4g}" in rows[0][2]
    assert [r[0] for r in rows[1:]] == ["sound construction, worst true value",
                                        "optimal ε at t = 0", "sound construction at t = 0"]
    assert rows[3][1] == f"{state['epsilon']:.4g}"
    cats = widgets.summary(widgets.attribute_state(family="cats", t="white", delta=0.1))
    # Sec. 6.1's colours: the worst is black (p = 0.4, both sides: ln 1.5); white (p = 0.1)
    assert cats[0][1] == f"{math.log(1.5):.4g}" and "t = black" in cats[0][2]
    assert cats[2][0] == "optimal ε at t = white" and cats[2][1] == f"{eps_lb(0.1, 0.1):.4g}"


def test_widgets_show_the_numbers_when_drawing(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append(obj))
    w = widgets.attribute_widget(plot=True)
    child(w, "t / scale").value = 1.0
    html = [o["text/html"] for o in shown if isinstance(o, dict) and "text/html" in o]
    assert html and "optimal ε, worst true value" in html[-1]
    assert f"{w.result['epsilon_optimal_worst']:.4g}" in html[-1]
