"""Plots for the claims report (notebook 09): epsilon against the radius of the comparison set
for the salary and ships examples (Sec. 6.2, 6.3), and the two-sided epsilon of the cats OR
event against the prior (Sec. 6.1)."""

from __future__ import annotations

import numpy as np

from ..paper.examples import (
    DELTA,
    EXAMPLES,
    best_a,
    cats_events,
    cats_or_epsilon_against_prior,
    epsilon_against_a,
    example_R,
    two_sided,
)

__all__ = ["plot_cats_or", "plot_epsilon_against_a"]


def plot_epsilon_against_a(name: str, ax=None):
    r"""Eq. (main)'s epsilon against the radius ``a`` for the salary or ships example.

    Draws the paper's construction (exponent ``a``) and the sound one (exponent ``a + r``),
    marks the paper's ``a`` and each construction's best ``a``, and shades the radii where no
    epsilon > 0 exists (Sec. 6.2, 6.3).

    Parameters
    ----------
    name : {"salary", "ships"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> plot_epsilon_against_a("ships").get_xlabel()
    'radius a of the comparison set'
    """
    import matplotlib.pyplot as plt

    ex = EXAMPLES[name]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    r, R = ex["r"], example_R(name)
    a = np.linspace(r * 1.0001, R, 1500)
    top = 0.0
    for construction, style in (("paper", "-"), ("sound", "--")):
        eps = epsilon_against_a(name, a, construction=construction)
        ax.plot(a, eps, style, label=f"{construction} construction")
        best = best_a(name, construction)
        top = max(top, best.epsilon)
        ax.plot([best.a], [best.epsilon], "o", color=ax.lines[-1].get_color())
        # the paper's (upper) curve labelled above its peak, the sound one below its own,
        # where the space between the curves and under them is free
        above = construction == "paper"
        ax.annotate(f"best a = {best.a:.1f}", (best.a, best.epsilon), textcoords="offset points",
                    xytext=(0, 7 if above else -24), ha="center", va="bottom" if above else "top",
                    fontsize=8, color=ax.lines[-1].get_color())
    infeasible = np.isnan(epsilon_against_a(name, a, construction="paper"))
    if infeasible.any():
        ax.axvspan(r, a[infeasible].max(), color="0.85", label="no eps > 0 (paper)")
    ax.axvline(ex["a"], color="k", lw=0.8, ls=":", label=f"paper's a = {ex['a']:g}")
    ax.set_xlabel("radius a of the comparison set")
    ax.set_ylabel("epsilon per unit of distance")
    ax.set_title(f"{name}: t = mu, r = {r:g}, delta = {ex['delta']:g}")
    ax.set_xlim(r, R)
    ax.set_ylim(-0.04 * top, 1.22 * top)  # room for the label above the highest peak
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_cats_or(ax=None, delta: float = DELTA):
    r"""The two-sided epsilon against the prior ``p`` (Sec. 3.2, ``R = 1``) with the cats OR
    values (Sec. 6.1) and both worst points :math:`(1 \pm \delta)/2`.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> plot_cats_or().get_xlabel()
    'prior p of the correct guesses'
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    p = np.linspace(0.005, 0.995, 1000)
    lb, ub, eps = cats_or_epsilon_against_prior(p, delta)
    ax.plot(p, lb, ":", lw=1, label="eps_lb (upper side)")
    ax.plot(p, ub, ":", lw=1, label="eps_ub (lower side)")
    ax.plot(p, eps, "-", lw=2, label="min(eps_lb, eps_ub)")
    for x in ((1 - delta) / 2, (1 + delta) / 2):
        ax.axvline(x, color="0.5", lw=0.8, ls="--")
    values = {}
    for (colour, _), v in cats_events()["or"].items():
        values[colour] = v
    for i, (colour, v) in enumerate(sorted(values.items(), key=lambda kv: kv[1])):
        e = two_sided(v, delta)
        ax.plot([v], [e], "o", color="C3")
        ax.annotate(f"{colour}\n{e:.4f}", (v, e), textcoords="offset points",
                    xytext=(-12, 10 if i % 2 else -24), fontsize=8)
    ax.set_xlim(0.35, 0.75)
    ax.set_ylim(0.38, 0.47)
    ax.set_xlabel("prior p of the correct guesses")
    ax.set_ylabel("epsilon")
    ax.set_title("cats OR event: worst points (1 - delta)/2 and (1 + delta)/2")
    ax.legend(fontsize=8)
    return ax
