r"""The numbers and the picture behind :func:`garesearch.app.widgets.goal_widget`: an AND / OR
goal over two normal attributes (Sec. 4.2, 4.3), its optimal epsilon at the worst true record
with the certified bracket and the record's own bracket (beyond the paper;
:mod:`garesearch.optimal.worst_record`).

The widget's distance between records is the :math:`\ell_1` norm of the attributes' distances
by default: there the product of the one-attribute kernels is the optimum, so the bracket is
exact to about 1e-6 and one setting takes about two seconds.  Under :math:`\ell_\infty`
(Theorem 1's distance, the default of :func:`garesearch.events.epsilon_for_goal`) the full
solver at the worst record takes half a minute or more; the widget says which bracket it shows.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._evaluate import scalar_values
from ..errors import InfeasibleError, ParameterError

__all__ = ["NORMS", "goal_rows", "goal_state", "plot_goal_state"]

#: the distances the widget offers, by label: the l_1 norm (fast, exact) and l_inf (the full solver)
NORMS = {"ℓ1 (exact, ~2 s)": 1.0, "ℓ∞ (full solver, 30 s or more)": math.inf}


def goal_state(*, event: str = "and", mu_a: float = 45.0, sigma_a: float = 12.0, r_a: float = 2.0,
               mu_b: float = 2000.0, sigma_b: float = 235.7, r_b: float = 100.0, delta: float = 0.1,
               norm: float = 1.0, names: tuple[str, str] = ("age", "salary")) -> dict:
    r"""Everything the goal widget shows, for one setting: the optimal epsilon of the goal
    ``a & b`` or ``a | b`` over :math:`a \sim N(\mu_a, \sigma_a^2)` guessed within ``r_a`` and
    :math:`b \sim N(\mu_b, \sigma_b^2)` within ``r_b`` (Sec. 4.2, 4.3), at its worst true record.

    Parameters
    ----------
    event : {"and", "or"}
        The goal: both guesses right, or either.
    mu_a, sigma_a, r_a, mu_b, sigma_b, r_b : float
        The two normal priors and the precisions of a correct guess.
    delta : float
        The advantage bound, in (0, 1).
    norm : float
        The records' distance, the :math:`\ell_{norm}` norm of the two distances (1 or inf).
    names : tuple of str
        The attributes' names.

    Returns
    -------
    dict
        ``result`` (the :class:`~garesearch.optimal.goals.OptimalGoalResult`, or ``None``),
        ``record`` (:func:`garesearch.optimal.worst_record.record_summary`, or ``None``),
        ``message`` (why there is no number), and the inputs.

    Examples
    --------
    >>> s = goal_state(event="and", delta=0.1)   # age N(45, 12), r = 2; salary N(2000, 235.7), r = 100
    >>> s["record"]["record_text"], round(s["record"]["epsilon"], 5)
    ('age = 45, salary = 2443.4', 0.01451)
    """
    from ..optimal.worst_record import record_summary

    v = scalar_values(mu_a=mu_a, sigma_a=sigma_a, r_a=r_a, mu_b=mu_b, sigma_b=sigma_b, r_b=r_b, delta=delta)
    if event not in ("and", "or"):
        raise ParameterError(f"event must be 'and' or 'or'; got {event!r}")
    if not (isinstance(norm, (int, float)) and norm in (1, math.inf)):
        raise ParameterError(f"norm must be 1 or inf (the widget's two distances); got {norm!r}")
    state: dict[str, Any] = {"event": event, "delta": v["delta"], "norm": float(norm), "names": tuple(names),
                             "priors": ((v["mu_a"], v["sigma_a"]), (v["mu_b"], v["sigma_b"])),
                             "r": (v["r_a"], v["r_b"]), "result": None, "record": None, "message": ""}
    try:
        res = _optimum(event, v["mu_a"], v["sigma_a"], v["r_a"], v["mu_b"], v["sigma_b"], v["r_b"],
                       v["delta"], float(norm), tuple(names))
    except (ParameterError, InfeasibleError) as exc:
        state["message"] = str(exc)
        return state
    state.update(result=res, record=record_summary(res, t_given=False))
    return state


@functools.lru_cache(maxsize=32)
def _optimum(event, mu_a, sigma_a, r_a, mu_b, sigma_b, r_b, delta, norm, names):
    """The goal's optimum at its worst record, remembered (a widget returns to a setting)."""
    from ..goals import Attribute
    from ..optimal.goals import epsilon_optimal
    from ..priors import Normal

    a = Attribute(Normal(mu_a, sigma_a), r=r_a, name=names[0])
    b = Attribute(Normal(mu_b, sigma_b), r=r_b, name=names[1])
    return epsilon_optimal(a & b if event == "and" else a | b, delta=delta, norm=norm)


def _num(value) -> str:
    if value is None:
        return "none"
    return "any (no noise needed)" if math.isinf(value) else f"{value:.4g}"


def _bracket(lo: float, hi: float) -> str:
    digits = 4
    if math.isfinite(lo) and math.isfinite(hi) and hi > lo > 0:
        digits = min(10, max(4, 2 + math.ceil(-math.log10((hi - lo) / hi))))
    return f"[{lo:.{digits}g}, {hi:.{digits}g}]"


def goal_rows(state: dict) -> list[tuple[str, str, str]]:
    """The rows ``(what, value, detail)`` the goal widget shows above its picture: the
    optimal epsilon at the worst record, the certified bracket and the record's own bracket.

    Examples
    --------
    >>> for row in goal_rows(goal_state(event="and", delta=0.1)):
    ...     print(" | ".join(row))  # doctest: +NORMALIZE_WHITESPACE
    optimal ε, worst record | 0.01451 | age = 45, salary = 2443.4 (p = 0.008206; the upper side binds)
    certified bracket (ℓ1) | [0.0145129794, 0.0145129863] | relative width 4.8e-07: safe at every record at the lower end; a mechanism exceeds δ at the worst record at the upper end
    """
    res, rec = state["result"], state["record"]
    if res is None:
        return [("optimal ε, worst record", "none", state["message"])]
    dist = "ℓ1" if state["norm"] == 1 else "ℓ∞"
    rows = [("optimal ε, worst record", _num(rec["epsilon"]),
             f"{rec['record_text']} (p = {res.p:.4g}; the {res.binding} side binds)"
             if res.binding != "none" else f"{rec['record_text']} (no side binds)")]
    if math.isinf(rec["epsilon"]):
        return rows
    width = rec["rel_width"]
    rows.append((f"certified bracket ({dist})", _bracket(rec["epsilon"], rec["epsilon_hi"]),
                 "exact" if width == 0 else
                 f"relative width {width:.2g}: safe at every record at the lower end; a mechanism "
                 "exceeds δ at the worst record at the upper end"))
    own = rec["record_bracket"]
    if own != [rec["epsilon"], rec["epsilon_hi"]]:
        rows.append(("the worst record's own bracket", _bracket(*own),
                     f"relative width {rec['record_rel_width']:.2g}: the full solver at that record; "
                     "between records the answer rests on the product bound"))
    return rows


def plot_goal_state(state: dict):
    """The two priors' density (contours), the goal's set :math:`X'` at the worst record (a
    box for AND, a cross for OR) and the worst record; returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    (ma, sa), (mb, sb) = state["priors"]
    ra, rb = state["r"]
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    xa = np.linspace(ma - 4 * sa, ma + 4 * sa, 161)
    xb = np.linspace(mb - 4 * sb, mb + 4 * sb, 161)
    ga, gb = np.meshgrid(xa, xb, indexing="ij")
    dens = np.exp(-0.5 * ((ga - ma) / sa) ** 2 - 0.5 * ((gb - mb) / sb) ** 2)
    ax.contour(ga, gb, dens, levels=[0.011, 0.135, 0.607], colors="grey", linewidths=0.8)
    rec, res = state["record"], state["result"]
    if res is not None:
        ta, tb = (p["value"] for p in rec["record"])
        style = dict(color="C1", alpha=0.3, lw=0)
        if state["event"] == "and":
            ax.add_patch(Rectangle((ta - ra, tb - rb), 2 * ra, 2 * rb, **style))
        else:
            ax.axvspan(ta - ra, ta + ra, **style)
            ax.axhspan(tb - rb, tb + rb, **style)
        ax.plot([ta], [tb], "o", color="C3", label=f"worst record ({rec['record_text']})")
        ax.set_title(f"optimal ε = {rec['epsilon']:.4g} in {_bracket(rec['epsilon'], rec['epsilon_hi'])}",
                     fontsize=9)
        ax.legend(fontsize=8, loc="upper left")
    else:
        ax.set_title(state["message"][:100], fontsize=8)
    ax.set_xlim(xa[0], xa[-1])
    ax.set_ylim(xb[0], xb[-1])
    ax.set_xlabel(state["names"][0])
    ax.set_ylabel(state["names"][1])
    fig.tight_layout()
    return fig
