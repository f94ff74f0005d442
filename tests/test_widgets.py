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

from garesearch import widgets
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
    state = widgets.attribute_state(family="uniform", t_offset=3.0, r=0.1)
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
    from garesearch.priors import Normal
    from garesearch.widgets import attribute_state

    state = attribute_state(family="normal", scale=1.0, t_offset=0.0, r=0.5, delta=0.1)
    assert state["epsilon_optimal"] >= state["epsilon"]
    assert state["epsilon_optimal"] == ga.epsilon_for_attribute(Normal(0, 1), r=0.5, delta=0.1, t=0.0).epsilon
