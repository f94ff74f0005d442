r"""Sec. 6.1, the cats: gender and colour of a cat, the AND event (guess both) and the OR event
(guess at least one); every claim of the example, checked."""

from __future__ import annotations

import math

from .. import bound, priors
from ._claim import Check, Evidence, claim
from .examples import COLOURS, DELTA, cats_events, cats_goal_worst, two_sided


@claim("S6.cats_prior", location="Sec 6.1, colour prior",
       statement="sums to 1")
def _s6_cats_prior():
    total = math.fsum(COLOURS.values())
    priors.Categorical(COLOURS)  # raises unless the probabilities sum to 1
    return Evidence(
        paper=1.0, computed=total,
        checks=(Check("sum of the colour probabilities", "result", "close", total, 1.0),),
        explanation="Holds: 0.2 + 0.1 + 0.25 + 0.4 + 0.05 = 1.",
    )


_PAPER_AND = {"red": 0.1, "white": 0.05, "tabby": 0.125, "black": 0.2, "tortoise": 0.025}
_PAPER_OR = {"red": 0.6, "white": 0.55, "tabby": 0.625, "black": 0.7, "tortoise": 0.525}


@claim("S6.cats_AND_probs", location="Sec 6.1, AND-event list",
       statement="0.1,0.05,0.125,0.2,0.025 (x2)")
def _s6_cats_and_probs():
    probs = cats_events()["and"]
    checks = tuple(
        Check(f"Pr[{c} and {g}]", "result", "approx", probs[(c, g)], _PAPER_AND[c], 3)
        for c in COLOURS for g in ("M", "F")
    )
    return Evidence(
        paper="0.1, 0.05, 0.125, 0.2, 0.025 (x2)",
        computed=", ".join(f"{probs[(c, 'M')]:g}" for c in COLOURS) + " (x2)",
        checks=checks,
        explanation="Holds: with gender uniform and independent of colour, Pr[colour and gender] = Pr[colour]/2.",
    )


@claim("S6.cats_AND_eps", location="Sec 6.1, AND-event",
       statement="-ln(0.2/0.8*0.7/0.3) ~ 0.539")
def _s6_cats_and_eps():
    eps = two_sided(0.2)
    printed_expr = -math.log(0.2 / 0.8 * 0.7 / 0.3)
    return Evidence(
        paper=0.539, computed=eps,
        checks=(
            Check("two-sided eps at p = 0.2, delta = 0.1, R = 1", "result", "approx", eps, 0.539, 3),
            Check("the printed intermediate -ln(0.2/0.8 * 0.7/0.3)", "printed", "approx", printed_expr, 0.539, 3),
        ),
        explanation=f"Holds: eps_lb(0.2) = -ln(0.25 * 7/3) = {eps:.5f} (eps_lb binds since p < 1/2).",
    )


def _and_worst():
    probs = cats_events()["and"]
    eps = {k: two_sided(v) for k, v in probs.items()}
    k = min(eps, key=eps.get)
    return k, probs[k], eps[k]


@claim("S6.cats_AND_worst", location="Sec 6.1, AND-event",
       statement="worst = black (p=0.2)")
def _s6_cats_and_worst():
    k, p, e = _and_worst()
    return Evidence(
        paper="black (p = 0.2)", computed=f"{k[0]} and {k[1]} (p = {p:g}, eps = {e:.4f})",
        checks=(
            Check("colour of the value with the smallest eps", "result", "eq", k[0], "black"),
            Check("worst colour of the AND goal in garesearch.events", "result", "eq",
                  cats_goal_worst("and")[0], "black"),
        ),
        explanation="Holds: eps_lb decreases towards p = 0.45, and black (p = 0.2, both genders) is the value closest to it; its eps 0.539 is the smallest.",
    )


@claim("S6.cats_AND_scale", location="Sec 6.1, Laplace scale",
       statement="1/0.539 ~ 1.86")
def _s6_cats_and_scale():
    scale = 1 / _and_worst()[2]
    return Evidence(
        paper=1.86, computed=scale,
        checks=(Check("Laplace scale 1/eps (sensitivity 1)", "result", "approx", scale, 1.86, 2),),
        explanation=f"Holds: the Laplace scale for a COUNT (sensitivity 1) is 1/eps = 1/{_and_worst()[2]:.5f} = {scale:.4f}.",
    )


@claim("S6.cats_OR_probs", location="Sec 6.1, OR-event list",
       statement="(red v M):0.6, (white ^ M):0.55, ... 0.525")
def _s6_cats_or_probs():
    probs = cats_events()["or"]
    and_probs = cats_events()["and"]
    checks = [Check(f"Pr[{c} or {g}]", "result", "approx", probs[(c, g)], _PAPER_OR[c], 3)
              for c in COLOURS for g in ("M", "F")]
    # the list labels all but (red v M) with "and": Pr[white and M] is not 0.55
    checks.append(Check("Pr[white and M] (as labelled) equals the listed 0.55", "printed",
                        "approx", and_probs[("white", "M")], 0.55, 2))
    return Evidence(
        paper="(red v M):0.6, (white ^ M):0.55, ... 0.525",
        computed=", ".join(f"{probs[(c, 'M')]:g}" for c in COLOURS) + " (x2)",
        checks=tuple(checks),
        explanation="The values are right: Pr[colour or gender] = 0.5 + Pr[colour]/2 gives 0.6, 0.55, 0.625, 0.7, 0.525. But every label except (red v M) is written with 'and' (e.g. '(white ^ M)', whose probability is 0.05): all should read 'or' (v).",
    )


@claim("S6.cats_OR_whichbound", location="Sec 6.1, OR-event",
       statement="'We have p <= 1-p' (p=0.525); formula with 0.475/0.525 and 1/(0.1+0.475)")
def _s6_cats_or_whichbound():
    p = 0.525
    lb, ub = float(bound.eps_lb(delta=DELTA, p=p)), float(bound.eps_ub(delta=DELTA, p=p))
    printed_formula = -math.log(0.475 / 0.525 * (1 / (0.1 + 0.475) - 1))
    return Evidence(
        paper="'We have p <= 1-p' (p=0.525); formula with 0.475/0.525 and 1/(0.1+0.475)",
        computed=f"p = 0.525 > 1 - p; eps_lb = {lb:.4f}, eps_ub = {ub:.4f}: eps_ub binds; the printed formula is eps_ub = {printed_formula:.4f}",
        checks=(
            Check("the printed formula equals min(eps_lb, eps_ub) at p = 0.525", "result",
                  "close", printed_formula, min(lb, ub)),
            Check("p <= 1 - p at p = 0.525", "printed", "le", p, 1 - p),
        ),
        explanation="The formula used is right: it is eps_ub (p and 1 - p swapped), the binding side for p > 1/2. But the sentence 'We have p <= 1-p' is false for p = 0.525; it should read 'We have 1 - p <= p, so it suffices to take eps_ub'.",
    )


@claim("S6.cats_OR_intermediate", location="Sec 6.1, OR-event",
       statement="= -ln(0.475/0.425 * 0.425/0.575)")
def _s6_cats_or_intermediate():
    printed = -math.log(0.475 / 0.425 * 0.425 / 0.575)
    meant = -math.log(0.475 / 0.525 * 0.425 / 0.575)
    return Evidence(
        paper=printed, computed=meant,
        checks=(
            Check("-ln(0.475/0.525 * 0.425/0.575) equals eps at p = 0.525 (0.402)", "result",
                  "approx", meant, 0.402, 3),
            Check("printed -ln(0.475/0.425 * 0.425/0.575) equals 0.402", "printed", "approx",
                  printed, 0.402, 3),
        ),
        explanation=f"Typo: the printed intermediate -ln(0.475/0.425 * 0.425/0.575) = {printed:.4f}; the step meant is -ln(0.475/0.525 * 0.425/0.575) = {meant:.4f} (1/(0.1 + 0.475) - 1 = 0.425/0.575), which gives the printed 0.402.",
    )


@claim("S6.cats_OR_eps", location="Sec 6.1, OR-event (p=0.525)",
       statement="~ 0.402")
def _s6_cats_or_eps():
    eps = two_sided(0.525)
    return Evidence(
        paper=0.402, computed=eps,
        checks=(Check("two-sided eps at p = 0.525", "result", "approx", eps, 0.402, 3),),
        explanation=f"Holds for p = 0.525: eps_ub = {eps:.5f}.",
    )


def _or_worst():
    probs = cats_events()["or"]
    eps = {k: two_sided(v) for k, v in probs.items()}
    k = min(eps, key=eps.get)
    return k, probs[k], eps[k]


@claim("S6.cats_OR_worst", location="Sec 6.1, OR-event",
       statement="worst prior in the set is 0.525 (tortoise), eps ~ 0.402",
       derivations={"discrete_two_nearest": "result"})
def _s6_cats_or_worst():
    k, p, e = _or_worst()
    tort = two_sided(0.525)
    return Evidence(
        paper=0.402, computed=e,
        checks=(
            Check("worst value in the set is tortoise (p = 0.525)", "result", "eq", k[0], "tortoise"),
            Check("worst colour of the OR goal in garesearch.events is tortoise", "result", "eq",
                  cats_goal_worst("or")[0], "tortoise"),
            Check("smallest eps over the set, to 3 decimals", "result", "approx", e, 0.402, 3),
        ),
        explanation=(
            f"Wrong: the two-sided eps is smallest at {k[0]} (p = {p:g}): eps = 2 ln(0.55/0.45) "
            f"= {e:.4f} < {tort:.4f} at tortoise (p = 0.525). The OR probabilities lie above "
            "1/2, where the lower side (eps_ub, worst at (1+delta)/2 = 0.55) binds; the paper "
            "looked for the value nearest (1-delta)/2 = 0.45."
        ),
    )


@claim("S6.cats_OR_scale", location="Sec 6.1, Laplace scale (OR)",
       statement="1/0.402 ~ 2.49")
def _s6_cats_or_scale():
    e = _or_worst()[2]
    scale = 1 / e
    return Evidence(
        paper=2.49, computed=scale,
        checks=(
            Check("Laplace scale 1/eps at the true worst value", "result", "approx", scale, 2.49, 2),
            Check("printed arithmetic 1/0.402", "printed", "approx", 1 / 0.402, 2.49, 2),
        ),
        explanation=f"Holds to the printed precision: 1/0.402 = {1 / 0.402:.4f}, and with the true worst value (white, eps = {e:.4f}) the scale is {scale:.4f}, also 2.49.",
    )


