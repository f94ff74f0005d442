r"""Interactive widgets for teaching the method of Sec. 3.2 and 4.1 (ipywidgets + matplotlib).

Three widgets, each an :class:`ipywidgets.interactive` whose ``.result`` holds the numbers
shown (so it can be checked without a browser: set a child's ``.value`` and read
``.result`` again):

- :func:`epsilon_widget` -- sliders for ``delta``, the prior mass ``p`` of a correct guess,
  the comparison mass ``q`` and the distance ``a``; shows the epsilon of Eq. (main) beside the
  optimal epsilon (every wrong value within ``a`` of every correct one: no epsilon-DP
  mechanism exceeds the advantage bound, and a larger epsilon lets one exceed it), the
  posterior bound of Sec. 3.2 against epsilon, and epsilon against ``p`` with the worst
  prior :math:`(1-\delta)/2` marked.
- :func:`attribute_widget` -- a prior family picker (normal, uniform, the cats'
  categorical prior) with its parameters, the true value ``t``, ``r``, ``delta``, the
  construction of the comparison set and a radius ``a``; shows, as numbers, the optimal
  epsilon (what :func:`~garesearch.attribute.epsilon_for_attribute` returns by default)
  at its worst true value and at the chosen one, beside the construction's epsilon at both,
  and epsilon against ``a`` with the construction's best ``a`` marked.  Its sliders use
  ``continuous_update=False``: each change triggers an optimisation.
- :func:`goal_widget` -- an AND / OR goal over two normal attributes (Sec. 4.2, 4.3) with
  sliders for the precisions and ``delta`` and a choice of the records' distance; shows the
  optimal epsilon at the worst true record (part by part), its certified bracket and the
  record's own bracket (:mod:`garesearch.optimal.worst_record`), and the record with the
  goal's set on the priors' contours.  Its default distance, :math:`\ell_1`, gives the exact
  optimum in about two seconds; :math:`\ell_\infty` runs the full solver (half a minute or
  more), and the widget names the bracket it shows.

The numbers come from :func:`epsilon_state`, :func:`attribute_state`, :func:`goal_state` and
:func:`comparison_curve`, which work without ipywidgets; :func:`summary` words them as the
widgets print them.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .. import bound
from .._evaluate import scalar_values
from .._optional import require
from ..datasets import COLOURS
from ..errors import InfeasibleError, ParameterError
from ..priors import Categorical, Normal, Prior, Uniform
from ._goal_widget import NORMS, goal_rows, goal_state, plot_goal_state

__all__ = [
    "CATS",
    "attribute_state",
    "attribute_widget",
    "comparison_curve",
    "epsilon_state",
    "epsilon_widget",
    "goal_state",
    "goal_widget",
    "make_prior",
    "summary",
]

#: the colour prior of the paper's cats example (Sec. 6.1)
CATS = COLOURS  #: the colour prior of Sec. 6.1 (:data:`garesearch.datasets.COLOURS`)

_FAMILIES = ("normal", "uniform", "cats")


# ------------------------------------------------------------------------------------------
# Numbers behind the widgets
# ------------------------------------------------------------------------------------------
def epsilon_state(*, delta: float, p: float, q: float | None = None, a: float = 1.0) -> dict:
    r"""Everything :func:`epsilon_widget` shows, for one setting (Sec. 3.2, Eq. (main)).

    With ``q=None`` the comparison set is the rest of the space (``q = 1 - p``) and both
    sides of Sec. 3.2 count (:math:`\min(\epsilon_{lb}, \epsilon_{ub})`, ``a`` playing the
    role of ``R``); with ``q`` given, only the upper side, Eq. (main).

    Beside it, ``epsilon_optimal`` is the optimal epsilon (Def. 7, as
    :func:`garesearch.epsilon_for_attribute` computes it by default) of an attribute whose
    correct guesses have prior mass ``p`` and whose every wrong value lies at distance ``a``
    from every correct one: the two-valued prior ``{"correct": p, "wrong": 1 - p}`` under the
    discrete metric, per unit of distance (divided by ``a``), at its worst true value.  No
    comparison set gives more; with ``q = 1 - p`` the construction attains it.

    Parameters
    ----------
    delta : float
        The advantage bound, in (0, 1).
    p : float
        Prior mass of a correct guess, in (0, 1).
    q : float, optional
        Prior mass of the comparison set; default ``1 - p``.
    a : float
        Distance in the exponent, > 0.

    Returns
    -------
    dict
        ``epsilon`` (``None`` if infeasible or invalid), ``posterior_bound`` at that
        epsilon, ``target`` (``p + delta``), ``worst_p`` (:math:`(1-\delta)/2`), ``message``
        (why there is no epsilon, else ``""``), ``epsilon_optimal`` (``inf`` when no noise
        is needed, ``None`` if invalid), ``t_optimal`` (its worst true value: ``"correct"``,
        the value of prior ``p``, or ``"wrong"``, the other one; both are equally bad),
        ``optimal_message`` and the inputs.

    Examples
    --------
    >>> s = epsilon_state(delta=0.1, p=0.2)  # the cats of Sec. 6.1
    >>> round(s["epsilon"], 3), round(s["posterior_bound"], 12), s["worst_p"]
    (0.539, 0.3, 0.45)
    >>> s = epsilon_state(delta=0.1, p=0.2, q=0.5)  # a lighter comparison set gives less
    >>> round(s["epsilon"], 4), round(s["epsilon_optimal"], 4)
    (0.069, 0.539)
    """
    state: dict[str, Any] = {"delta": delta, "p": p, "q": q, "a": a, "target": None,
                             "worst_p": None, "epsilon": None, "posterior_bound": None,
                             "message": "", "epsilon_optimal": None, "t_optimal": None,
                             "optimal_message": ""}
    try:
        v = scalar_values(delta=delta, p=p, a=a, **({} if q is None else {"q": q}))
    except ParameterError as exc:
        state["message"] = state["optimal_message"] = str(exc)
        return state
    state.update(target=v["p"] + v["delta"], worst_p=(1 - v["delta"]) / 2)
    state.update(_two_valued_optimum(v["delta"], v["p"], v["a"]))
    try:
        eps = float(bound.epsilon_for_advantage(delta=delta, p=p, q=q, a=a))
    except (ParameterError, InfeasibleError) as exc:
        state["message"] = str(exc)
        return state
    state["epsilon"] = eps
    if math.isfinite(eps):
        state["posterior_bound"] = float(bound.posterior_bound(epsilon=eps, p=p, q=q, a=a))
    else:
        state["message"] = "p + delta >= 1: no epsilon can push the posterior above p + delta"
    return state


def _two_valued_optimum(delta: float, p: float, a: float) -> dict:
    """The optimal epsilon per unit of distance of the prior ``{correct: p, wrong: 1 - p}``
    (every wrong value at distance ``a``), at its worst true value (Def. 7)."""
    from ..attribute import epsilon_for_attribute

    try:
        if not 0 < p < 1:
            raise ParameterError(f"p must lie in (0, 1); got {p!r}")
        res = epsilon_for_attribute(Categorical({"correct": p, "wrong": 1 - p}), r=0, delta=delta)
    except (ParameterError, InfeasibleError) as exc:
        return {"epsilon_optimal": None, "t_optimal": None, "optimal_message": str(exc)}
    return {"epsilon_optimal": res.epsilon / a, "t_optimal": res.t, "optimal_message": ""}


def make_prior(family: str, *, location: float = 0.0, scale: float = 1.0) -> Prior:
    r"""The prior a widget's picker stands for (Sec. 4.1 priors; the cats' colours of Sec. 6.1).

    ``"normal"``: :math:`\mathcal N(location, scale^2)`; ``"uniform"``: uniform on
    ``[location - scale, location + scale]``; ``"cats"``: the colour prior of Sec. 6.1
    (location and scale unused).

    Parameters
    ----------
    family : {"normal", "uniform", "cats"}
        The prior family.
    location, scale : float
        Centre and spread of the normal or uniform prior.

    Returns
    -------
    Prior

    Examples
    --------
    >>> make_prior("uniform", location=1.0, scale=2.0).support
    (-1.0, 3.0)
    """
    if family == "normal":
        return Normal(location, scale)
    if family == "uniform":
        return Uniform(location - scale, location + scale)
    if family == "cats":
        return Categorical(CATS)
    raise ParameterError(f"family must be one of {_FAMILIES}; got {family!r}")


def comparison_curve(
    prior: Prior, *, t, r: float, delta: float, construction: str = "sound", R: float | None = None,
    n: int = 400,
) -> dict:
    r"""Epsilon of Eq. (main) as a function of the comparison radius ``a`` (Sec. 4.1).

    - ``construction="paper"``: :math:`\hat X'_a = \{r < |x - t| \le a\}`, ``q = g_t(a) - p``,
      exponent ``a``, for ``a`` in ``(r, R]`` (``R`` default :meth:`Prior.paper_R`).
    - ``construction="sound"``: the comparison set of all points within distance ``D`` of
      every point of :math:`X'` (cut to the support), exponent ``D``; ``a`` is its radius
      around ``t`` (``D - r`` for an interior ``t``).  See :mod:`garesearch.attribute`.

    Only the upper side (the attacker's gain) depends on ``a``.  For a prior with the
    discrete metric there is one point, ``a = 1``.

    Parameters
    ----------
    prior : Prior
        Prior of the attribute.
    t : float or hashable
        The true value.
    r : float
        Precision of a correct guess, ``>= 0``.
    delta : float
        The advantage bound, in (0, 1).
    construction : {"sound", "paper"}
        Construction of the comparison set (above).
    R : float, optional
        Largest radius considered.
    n : int
        Number of radii.

    Returns
    -------
    dict of ndarray
        ``a``, ``distance`` (the factor in the exponent), ``q`` and ``epsilon`` (NaN where no
        epsilon > 0 exists), plus the float ``p``.

    Examples
    --------
    >>> from statistics import NormalDist
    >>> c = comparison_curve(make_prior("normal"), t=0.0, r=0.25, delta=0.1, n=50)
    >>> c["epsilon"].shape, abs(c["p"] - (2 * NormalDist().cdf(0.25) - 1)) < 1e-12
    ((50,), True)
    """
    if isinstance(prior, Categorical) and prior.metric == "discrete":
        p = prior.probability(t)
        eps = bound.epsilon_for_advantage(delta=delta, p=p, q=1 - p, a=1.0, infeasible="nan")
        one = np.ones(1)
        return {"a": one, "distance": one, "q": np.array([1 - p]), "epsilon": np.array([eps]), "p": p}
    if construction == "paper":
        R = prior.paper_R() if R is None else R
        a = np.linspace(r, R, n + 1)[1:]
        p = float(prior.ball_mass(t, r))
        q = np.asarray(prior.ball_mass(t, a), dtype=float) - p
        D = a
    elif construction == "sound":
        lo, hi = prior.correct_extent(t, r)
        p = float(prior.mass(lo, hi))
        low, high = prior.support
        low_f = low if math.isfinite(low) else float(prior.quantile(1e-9))
        high_f = high if math.isfinite(high) else float(prior.quantile(1 - 1e-9))
        if R is not None:
            low_f, high_f = max(low_f, t - R), min(high_f, t + R)
        d_max = max(hi - low_f, high_f - lo)
        D = np.linspace(hi - lo, d_max, n + 1)[1:]
        left, right = np.maximum(hi - D, low_f), np.minimum(lo + D, high_f)
        q = np.asarray(prior.mass(left, right), dtype=float) - p
        a = np.maximum(t - left, right - t)
    else:
        raise ParameterError(f"construction must be 'sound' or 'paper'; got {construction!r}")
    eps = np.full(D.shape, np.nan)
    ok = q > 1e-300
    if not 0 < p < 1:
        raise ParameterError(f"p = {p}: the ball of radius r around t must hold some, not all, mass")
    if np.any(ok):
        eps[ok] = bound.epsilon_for_advantage(
            delta=delta, p=p, q=np.minimum(q[ok], 1 - p), a=D[ok], infeasible="nan"
        )
    return {"a": a, "distance": D, "q": q, "epsilon": eps, "p": p}


@functools.lru_cache(maxsize=64)
def _worst_case(family: str, scale: float, r: float, delta: float, construction: str | None):
    """``epsilon_for_attribute`` at the worst true value (``construction=None``: the optimum),
    remembered: it does not change when a widget moves ``t``, ``a`` or the construction."""
    from ..attribute import epsilon_for_attribute

    kw = {} if construction is None else {"construction": construction}
    return epsilon_for_attribute(make_prior(family, scale=scale), r=r, delta=delta, **kw)


def attribute_state(
    *, family: str = "normal", scale: float = 1.0, t_offset: float = 0.0, r: float = 0.25,
    delta: float = 0.1, construction: str = "sound", a: float | None = None, t=None,
    n: int = 300,
) -> dict:
    """Everything :func:`attribute_widget` shows, for one setting (Sec. 4.1).

    The prior is :func:`make_prior` ``(family, location=0, scale=scale)``; the true value is
    ``t_offset * scale`` (or ``t`` for the cats: a colour).

    Parameters
    ----------
    family : {"normal", "uniform", "cats"}
        The prior family.
    scale : float
        Sigma of the normal prior, or half-width of the uniform one.
    t_offset : float
        True value in units of ``scale`` from the centre.
    r : float
        Precision of a correct guess (0 for the cats).
    delta : float
        The advantage bound, in (0, 1).
    construction : {"sound", "paper"}
        Construction of the comparison set (:func:`comparison_curve`).
    a : float, optional
        A radius at which to read the curve.
    t : str, optional
        The true colour for the cats; default ``"black"``.
    n : int
        Number of radii of the curve.

    Returns
    -------
    dict
        At the chosen true value: ``result`` (the construction's
        :class:`~garesearch.attribute.AttributeResult`, or ``None``), ``epsilon``, ``a_opt``
        (radius at the optimum of the upper side), ``curve`` (:func:`comparison_curve`),
        ``epsilon_at_a`` (upper-side epsilon at the chosen ``a``), ``epsilon_optimal`` (the
        optimal epsilon at this ``t`` over every epsilon-DP mechanism,
        :func:`garesearch.optimal.epsilon_optimal`: no comparison set can exceed it).
        At the worst true value: ``optimal`` (the
        :class:`~garesearch.optimal.OptimalResult` that
        :func:`~garesearch.attribute.epsilon_for_attribute` returns by default, or ``None``),
        ``epsilon_optimal_worst`` and ``t_optimal_worst`` (its epsilon and worst true value),
        ``construction_worst``, ``epsilon_worst`` and ``t_worst`` (the same for the
        construction).  ``message`` and ``optimal_message`` say why a number is missing;
        the inputs are kept too.

    Examples
    --------
    >>> s = attribute_state(family="normal", r=0.25, delta=0.1)
    >>> s["epsilon"] <= s["epsilon_optimal"]  # no comparison set beats the optimum
    True
    >>> s["epsilon_optimal_worst"] <= s["epsilon_optimal"]  # t = 0 is not the worst value
    True
    >>> round(s["epsilon_optimal_worst"], 4), round(abs(s["t_optimal_worst"]), 2)
    (0.6803, 0.88)
    """
    from ..attribute import epsilon_for_attribute

    v = scalar_values(scale=scale, t_offset=t_offset, r=r, delta=delta, **({} if a is None else {"a": a}))
    scale, t_offset, r, delta, a = v["scale"], v["t_offset"], v["r"], v["delta"], v.get("a")
    prior = make_prior(family, scale=scale)
    if family == "cats":
        t = "black" if t is None else t
        r_used = 0.0
    else:
        t = t_offset * scale
        r_used = r
    state: dict[str, Any] = {"family": family, "prior": prior, "t": t, "r": r_used, "delta": delta,
                             "construction": construction, "a": a, "result": None, "epsilon": None,
                             "a_opt": None, "curve": None, "epsilon_at_a": None,
                             "epsilon_optimal": None, "message": "", "optimal": None,
                             "epsilon_optimal_worst": None, "t_optimal_worst": None,
                             "construction_worst": None, "epsilon_worst": None, "t_worst": None,
                             "optimal_message": ""}
    try:
        res = epsilon_for_attribute(prior, r=r_used, delta=delta, t=t, construction=construction)
        state.update(result=res, epsilon=res.epsilon, a_opt=res.a)
    except (ParameterError, InfeasibleError) as exc:
        state["message"] = str(exc)
    try:
        worst = _worst_case(family, scale, r_used, delta, construction)
        state.update(construction_worst=worst, epsilon_worst=worst.epsilon, t_worst=worst.t)
    except (ParameterError, InfeasibleError) as exc:
        state["message"] = state["message"] or str(exc)
    try:  # the default of epsilon_for_attribute: the optimum, at the worst true value
        best = _worst_case(family, scale, r_used, delta, None)
        state.update(optimal=best, epsilon_optimal_worst=best.epsilon, t_optimal_worst=best.t)
        state["epsilon_optimal"] = epsilon_for_attribute(prior, r=r_used, delta=delta, t=t).epsilon
    except (ParameterError, InfeasibleError) as exc:
        state["optimal_message"] = str(exc)
    try:
        curve = comparison_curve(prior, t=t, r=r_used, delta=delta, construction=construction, n=n)
    except ParameterError as exc:
        state["message"] = state["message"] or str(exc)
        return state
    state["curve"] = curve
    if a is not None:
        ok = np.isfinite(curve["a"])
        if np.any(ok):
            i = int(np.argmin(np.abs(curve["a"][ok] - a)))
            val = curve["epsilon"][ok][i]
            state["epsilon_at_a"] = None if np.isnan(val) else float(val)
    return state


# ------------------------------------------------------------------------------------------
# The numbers, in words
# ------------------------------------------------------------------------------------------
def _num(value) -> str:
    if value is None:
        return "none"
    return "any (no noise needed)" if math.isinf(value) else f"{value:.4g}"


def _where(t) -> str:
    return f"{t:.4g}" if isinstance(t, float) else str(t)


def summary(state: dict) -> list[tuple[str, str, str]]:
    """The rows of numbers a widget shows above its plot: ``(what, value, detail)``.

    Not in the paper's words: the first row is always the optimal epsilon (Def. 7), the
    default of :func:`garesearch.epsilon_for_attribute`, at its worst true value; then the
    construction's epsilon (Eq. (main), Sec. 3.2 / 4.1) and, for an attribute, both at the
    chosen true value.  Values are written to 4 significant digits (``"none"`` where no
    epsilon > 0 exists, with the reason in ``detail``).

    Parameters
    ----------
    state : dict
        :func:`epsilon_state`, :func:`attribute_state` or :func:`goal_state`
        (:func:`garesearch.app._goal_widget.goal_rows`).

    Returns
    -------
    list of tuple of str

    Examples
    --------
    >>> for row in summary(epsilon_state(delta=0.1, p=0.2, q=0.5)):
    ...     print(" | ".join(row))
    optimal ε | 0.539 | any ε-DP mechanism; every wrong value at distance a; worst true value: either one (p and 1 - p are equally bad)
    Eq. (main), q = 0.5 | 0.06899 | the comparison set's bound (the attacker's gain only): 0.128 × the optimum
    """
    if "event" in state:  # goal_state
        return goal_rows(state)
    rows = []
    if "family" not in state:  # epsilon_state
        opt = state["epsilon_optimal"]
        rows.append(("optimal ε", _num(opt),
                     state["optimal_message"] or "any ε-DP mechanism; every wrong value at distance a; "
                     "worst true value: either one (p and 1 - p are equally bad)"))
        what = "Sec. 3.2, q = 1 - p" if state["q"] is None else f"Eq. (main), q = {state['q']:.4g}"
        eps = state["epsilon"]
        side = "both sides" if state["q"] is None else "the attacker's gain only"
        if eps is None:
            detail = state["message"]
        elif opt is not None and math.isfinite(opt) and math.isfinite(eps):
            ratio = eps / opt
            detail = f"the comparison set's bound ({side}): " + (
                "the optimum itself" if abs(ratio - 1) < 1e-9 else f"{ratio:.3g} × the optimum")
        else:
            detail = f"the comparison set's bound ({side})"
        rows.append((what, _num(eps), detail))
        return rows
    opt = state["optimal"]
    rows.append(("optimal ε, worst true value",
                 _num(state["epsilon_optimal_worst"]),
                 state["optimal_message"] if opt is None else
                 f"t = {_where(opt.t)} (p = {opt.p:.3g}); any ε-DP mechanism: "
                 "garesearch.epsilon_for_attribute's default"))
    name = f"{state['construction']} construction"
    worst = state["construction_worst"]
    rows.append((f"{name}, worst true value", _num(state["epsilon_worst"]),
                 state["message"] if worst is None else f"t = {_where(worst.t)} (p = {worst.p:.3g})"))
    here = f"t = {_where(state['t'])}"
    rows.append((f"optimal ε at {here}", _num(state["epsilon_optimal"]),
                 state["optimal_message"] or "any ε-DP mechanism"))
    res = state["result"]
    rows.append((f"{name} at {here}", _num(state["epsilon"]),
                 state["message"] if res is None else f"best a = {_where(res.a)}, p = {res.p:.3g}"))
    return rows


def _show_summary(state: dict) -> None:
    """Display :func:`summary` as a table (HTML, with a plain-text fallback); the optimal
    epsilon in bold."""
    import html

    from IPython.display import display

    rows = summary(state)
    text = "\n".join(f"{what:38s} {value:>12s}   {detail}" for what, value, detail in rows)
    cells = []
    for i, (what, value, detail) in enumerate(rows):
        style = "font-weight:bold;font-size:120%" if i == 0 else ""
        cells.append(f"<tr><td style='text-align:left'>{html.escape(what)}</td>"
                     f"<td style='text-align:right;{style}'>{html.escape(value)}</td>"
                     f"<td style='text-align:left'>{html.escape(detail)}</td></tr>")
    table = "<table class='garesearch-widget-numbers'>" + "".join(cells) + "</table>"
    display({"text/plain": text, "text/html": table}, raw=True)


# ------------------------------------------------------------------------------------------
# Plots
# ------------------------------------------------------------------------------------------
def _plot_epsilon_state(state: dict):
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9.0, 3.6))
    d, p, q, a = state["delta"], state["p"], state["q"], state["a"]
    eps, opt = state["epsilon"], state["epsilon_optimal"]
    finite = [e for e in (eps, opt) if e and math.isfinite(e)]
    grid = np.linspace(0, 3 * max(finite) if finite else 3.0, 200)
    try:
        ax1.plot(grid, bound.posterior_bound(epsilon=grid, p=p, q=q, a=a), label="posterior bound")
        if q is not None:  # every wrong value at distance a: the worst case itself
            ax1.plot(grid, bound.posterior_bound(epsilon=grid, p=p, a=a), color="C4", ls="-.",
                     label="q = 1 − p (the optimum)")
    except ParameterError as exc:
        ax1.text(0.5, 0.5, str(exc)[:60], transform=ax1.transAxes, ha="center", fontsize=8)
    ax1.axhline(p + d, color="C1", ls="--", label="p + δ")
    ax1.axhline(p, color="grey", ls=":", label="prior p")
    if eps and math.isfinite(eps):
        ax1.axvline(eps, color="C2", label=f"ε = {eps:.4g}")
    if q is not None and opt and math.isfinite(opt):
        ax1.axvline(opt, color="C4", ls=":", label=f"optimal ε = {opt:.4g}")
    ax1.set_xlabel("ε")
    ax1.set_ylabel("Pr_post[X'] ≤")
    ax1.legend(fontsize=8)
    ps = np.linspace(0.005, 0.995, 300)
    e = bound.epsilon_for_advantage(delta=d, p=ps, a=a)
    ax2.plot(ps, np.where(np.isfinite(e), e, np.nan), label="min(ε_lb, ε_ub)")
    ax2.axvline(state["worst_p"], color="C1", ls="--", label="(1 − δ)/2")
    ax2.axvline(p, color="C2", label="p")
    ax2.set_xlabel("prior p")
    ax2.set_ylabel("ε (q = 1 − p)")
    ax2.legend(fontsize=8)
    if state["message"]:
        fig.suptitle(state["message"][:110], fontsize=8)
    fig.tight_layout()
    plt.show()


def _plot_attribute_state(state: dict):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    curve = state["curve"]
    if curve is not None:
        ax.plot(curve["a"], curve["epsilon"], ".-" if curve["a"].size < 3 else "-",
                label="ε of Eq. (main) (upper side)")
    res = state["result"]
    if res is not None:
        ax.plot([res.a], [res.epsilon_upper], "o", color="C3", label=f"best a = {res.a:.4g} (this construction)")
        if math.isfinite(res.epsilon_lower):
            ax.axhline(res.epsilon_lower, color="C1", ls="--", label="lower side")
        ax.set_title(f"{res.construction} construction at t = {_where(res.t)}: ε = {res.epsilon:.4g}",
                     fontsize=9)
    elif state["message"]:
        ax.set_title(state["message"][:100], fontsize=8)
    if state["a"] is not None and state["epsilon_at_a"] is not None:
        ax.plot([state["a"]], [state["epsilon_at_a"]], "s", color="C2", label="chosen a")
    opt = state.get("epsilon_optimal")
    if opt is not None and math.isfinite(opt):
        ax.axhline(opt, color="C4", ls=":", label=f"optimal ε at this t = {opt:.4g}")
    ax.set_xlabel("radius a of the comparison set")
    ax.set_ylabel("ε per unit distance")
    ax.legend(fontsize=8)
    fig.tight_layout()
    plt.show()


# ------------------------------------------------------------------------------------------
# Widgets
# ------------------------------------------------------------------------------------------
def epsilon_widget(*, delta: float = 0.1, p: float = 0.2, q: float | None = None, a: float = 1.0,
                   plot: bool = True):
    """Sliders for ``delta``, ``p``, ``q`` and ``a`` with the live epsilon (Sec. 3.2, Eq. (main)).

    The checkbox ``q = 1 - p`` (on when ``q=None``) takes the rest of the space as the
    comparison set: the ``q`` slider then follows ``1 - p`` and is disabled.  Each change
    shows :func:`summary` (the optimal epsilon first) above the charts.  ``.result`` is
    :func:`epsilon_state` of the current setting.

    Parameters
    ----------
    delta, p, q, a
        Initial values, as in :func:`epsilon_state`.
    plot : bool
        Show the numbers and draw the two charts on each change.

    Returns
    -------
    ipywidgets.interactive

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # no frontend to draw on
    ...     w = epsilon_widget(delta=0.1, p=0.2, plot=False)
    >>> round(w.result["epsilon"], 3), round(w.result["epsilon_optimal"], 3)
    (0.539, 0.539)
    >>> q = [c for c in w.children if getattr(c, "description", "") == "q"][0]
    >>> round(q.value, 3), q.disabled  # q = 1 - p is ticked: the slider follows p
    (0.8, True)
    """
    w = require("ipywidgets", "notebooks", "the teaching widgets")

    def update(delta, p, rest, q, a):
        state = epsilon_state(delta=delta, p=p, q=None if rest else q, a=a)
        if plot:
            _show_summary(state)
            _plot_epsilon_state(state)
        return state

    slider = dict(step=0.005, readout_format=".3f")
    p_slider = w.FloatSlider(value=p, min=0.005, max=0.995, description="p", **slider)
    rest = w.Checkbox(value=q is None, description="q = 1 − p")
    q_slider = w.FloatSlider(value=1 - p if q is None else q, min=0.005, max=0.995,
                             description="q", disabled=q is None, **slider)

    def follow(_change=None):  # with "q = 1 - p" ticked, q shows 1 - p and cannot be moved
        q_slider.disabled = rest.value
        if rest.value:
            q_slider.value = 1 - p_slider.value

    rest.observe(follow, names="value")
    p_slider.observe(follow, names="value")
    return w.interactive(
        update,
        delta=w.FloatSlider(value=delta, min=0.005, max=0.995, description="δ", **slider),
        p=p_slider,
        rest=rest,
        q=q_slider,
        a=w.FloatSlider(value=a, min=0.05, max=10.0, step=0.05, description="a"),
    )


def attribute_widget(*, family: str = "normal", scale: float = 1.0, t_offset: float = 0.0,
                     r: float = 0.25, delta: float = 0.1, construction: str = "sound",
                     a: float = 1.0, plot: bool = True):
    """Prior picker and sliders for one attribute (Sec. 4.1), with epsilon against ``a``.

    Controls: ``family`` (normal / uniform / cats), ``scale`` (sigma, or half-width of the
    uniform), ``t_offset`` (true value in units of ``scale`` from the centre), ``colour``
    (the true value for the cats), ``r``, ``delta``, ``construction`` and a radius ``a``.
    Every slider has ``continuous_update=False``.  ``.result`` is :func:`attribute_state`.

    Parameters
    ----------
    family, scale, t_offset, r, delta, construction, a
        Initial values, as in :func:`attribute_state`.
    plot : bool
        Show the numbers (:func:`summary`: the optimal epsilon first) and draw the chart on
        each change.

    Returns
    -------
    ipywidgets.interactive

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # no frontend to draw on
    ...     w = attribute_widget(plot=False)
    >>> w.result["epsilon"] <= w.result["epsilon_optimal"]
    True
    """
    w = require("ipywidgets", "notebooks", "the teaching widgets")

    def update(family, scale, t_offset, colour, r, delta, construction, a):
        state = attribute_state(family=family, scale=scale, t_offset=t_offset, r=r, delta=delta,
                                construction=construction, a=a, t=colour if family == "cats" else None)
        if plot:
            _show_summary(state)
            _plot_attribute_state(state)
        return state

    lazy = dict(continuous_update=False)
    return w.interactive(
        update,
        family=w.Dropdown(options=list(_FAMILIES), value=family, description="prior"),
        scale=w.FloatSlider(value=scale, min=0.1, max=5.0, step=0.05, description="scale", **lazy),
        t_offset=w.FloatSlider(value=t_offset, min=-3.0, max=3.0, step=0.05, description="t / scale", **lazy),
        colour=w.Dropdown(options=list(CATS), value="black", description="t (cats)"),
        r=w.FloatSlider(value=r, min=0.0, max=2.0, step=0.01, description="r", **lazy),
        delta=w.FloatSlider(value=delta, min=0.01, max=0.9, step=0.01, description="δ", **lazy),
        construction=w.Dropdown(options=["sound", "paper"], value=construction, description="X̂"),
        a=w.FloatSlider(value=a, min=0.05, max=10.0, step=0.05, description="a", **lazy),
    )


def goal_widget(*, event: str = "and", r_a: float = 2.0, r_b: float = 100.0, delta: float = 0.1,
                norm: float = 1.0, priors=((45.0, 12.0), (2000.0, 235.7)),
                names: tuple[str, str] = ("age", "salary"), plot: bool = True):
    r"""An AND / OR goal over two normal attributes (Sec. 4.2, 4.3): the optimal epsilon at the
    worst true record, its certified bracket and the record's own bracket (beyond the paper).

    Controls: the event (AND / OR), the precisions ``r_a`` and ``r_b``, ``delta`` and the
    records' distance (:data:`garesearch.app._goal_widget.NORMS`: :math:`\ell_1`, exact in
    about two seconds, or :math:`\ell_\infty`, the full solver, half a minute or more); the
    rows shown name the distance of the bracket.  Every slider has ``continuous_update=False``.
    ``.result`` is :func:`goal_state`.

    Parameters
    ----------
    event, r_a, r_b, delta, norm
        Initial values, as in :func:`goal_state` (``norm`` 1 or inf).
    priors : tuple
        ``((mu_a, sigma_a), (mu_b, sigma_b))`` of the two normal priors (fixed).
    names : tuple of str
        The attributes' names.
    plot : bool
        Show the numbers and draw the priors with the worst record on each change.

    Returns
    -------
    ipywidgets.interactive

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # no frontend to draw on
    ...     w = goal_widget(plot=False)
    >>> w.result["record"]["record_text"], w.result["record"]["rel_width"] < 1e-5
    ('age = 45, salary = 2443.4', True)
    """
    w = require("ipywidgets", "notebooks", "the teaching widgets")
    (mu_a, sigma_a), (mu_b, sigma_b) = priors
    labels = {v: k for k, v in NORMS.items()}
    if norm not in labels:
        raise ParameterError(f"norm must be 1 or inf (the widget's two distances); got {norm!r}")

    def update(event, r_a, r_b, delta, norm):
        state = goal_state(event=event, mu_a=mu_a, sigma_a=sigma_a, r_a=r_a, mu_b=mu_b, sigma_b=sigma_b,
                           r_b=r_b, delta=delta, norm=norm, names=names)
        if plot:
            import matplotlib.pyplot as plt

            _show_summary(state)
            plot_goal_state(state)
            plt.show()
        return state

    lazy = dict(continuous_update=False)
    return w.interactive(
        update,
        event=w.ToggleButtons(options=[("AND", "and"), ("OR", "or")], value=event, description="goal"),
        r_a=w.FloatSlider(value=r_a, min=0.1 * sigma_a, max=2 * sigma_a, step=0.05 * sigma_a,
                          description=f"r ({names[0]})", **lazy),
        r_b=w.FloatSlider(value=r_b, min=0.1 * sigma_b, max=2 * sigma_b, step=0.05 * sigma_b,
                          description=f"r ({names[1]})", **lazy),
        delta=w.FloatSlider(value=delta, min=0.01, max=0.5, step=0.01, description="δ", **lazy),
        norm=w.Dropdown(options=list(NORMS.items()), value=float(norm), description="distance"),
    )
