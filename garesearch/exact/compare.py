"""How tight are the bounds?  A mechanism's exact epsilon (:mod:`garesearch.exact`) against
the epsilons of the paper's construction, the comparison set and the pointwise bound (Sec. 4.1,
Sec. 6; beyond the paper)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .. import bound
from .._args import check_sides
from ..attribute import epsilon_for_attribute
from ..constructions.pointwise import epsilon_pointwise
from ..errors import InfeasibleError, ParameterError
from ..mechanisms import Laplace, Mechanism, RandomizedResponse
from ..priors import Categorical, Normal, Prior
from .core import as_target_set, exact_epsilon, or_event

__all__ = ["EpsilonComparison", "compare_epsilons", "comparison_table", "format_comparison"]


# ------------------------------------------------------------------------------------------
# How tight are the bounds?  Exact epsilon of a mechanism against the bounds' epsilons.
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpsilonComparison:
    """One row of :func:`comparison_table`: a mechanism's exact epsilon against three bounds.

    Attributes
    ----------
    label : str
    mechanism : str
    r, delta : float
    exact : float
        :func:`exact_epsilon` of the mechanism.
    pointwise : float
        :func:`garesearch.constructions.pointwise.epsilon_pointwise` (sound for every epsilon-DP mechanism).
    sound : float
        :func:`garesearch.attribute.epsilon_for_attribute`, ``construction="sound"``.
    paper : float
        The same with ``construction="paper"`` (Eq. (main) with exponent ``a``, not sound in
        general); ``nan`` where it is infeasible.
    """

    label: str
    mechanism: str
    r: float
    delta: float
    exact: float
    pointwise: float
    sound: float
    paper: float

    @property
    def exact_over_pointwise(self) -> float:
        """How much larger the mechanism's epsilon is than the pointwise bound's (>= 1)."""
        return self.exact / self.pointwise

    @property
    def exact_over_sound(self) -> float:
        return self.exact / self.sound

    @property
    def exact_over_paper(self) -> float:
        return self.exact / self.paper


def _bounds_discrete(prior, delta, t, sides, correct):
    r"""Sec. 3.2 on the discrete metric (all distances 1): :math:`\min_t \min(\epsilon_{lb},
    \epsilon_{ub})` at :math:`p_t = \Pr[X']`, ``X' = correct(t)``.  The pointwise bound, the sound
    and the paper's construction all reduce to it."""

    ts = prior.values if t is None else [t]
    best = math.inf
    for tt in ts:
        members = as_target_set(prior.values, correct(tt), "correct(t)")
        p = float(sum(prior.probability(v) for v in members))
        e = float(bound.eps_lb(delta=delta, p=p)) if p + delta < 1 else math.inf
        if sides == "both" and p > delta:
            e = min(e, float(bound.eps_ub(delta=delta, p=p)))
        best = min(best, e)
    return best


def compare_epsilons(prior: Prior, *, r: float, delta: float, mechanism: Mechanism | RandomizedResponse | None = None,
                     sides: str = "both", t: Any = None, target: Any = None, correct: Callable | None = None,
                     label: str = "") -> EpsilonComparison:
    r"""Exact epsilon of ``mechanism`` (default Laplace) against the pointwise bound, the sound
    construction and the paper's Eq. (main) (Sec. 3.2, 4.1).

    Every bound is valid for all :math:`\epsilon`-DP mechanisms, so a sound bound never exceeds
    the exact epsilon of an :math:`\epsilon`-DP mechanism; the ratio ``exact / bound`` is how
    much less noise the mechanism at hand would need.

    Parameters
    ----------
    prior, r, delta, sides, t, correct
        As in :func:`exact_epsilon` (``sides`` in ``{"both", "upper"}``).
    mechanism : optional
        Default :class:`~garesearch.mechanisms.Laplace`.
    target : value, collection or callable, optional
        Discrete metric and additive noise: the COUNT's target set (as in
        :func:`exact_advantage`); a callable ``t -> target`` gives a target per true value (for
        example ``correct`` itself: the COUNT of the correct guesses) and the worst true value
        is taken over all.
    label : str
        Name of the row.

    Examples
    --------
    A fair coin, ``r = 0``: Laplace noise on the value is exactly as strong as the bound, so every
    column is :math:`\ln\frac{(p+\delta)(1-p)}{p(1-p-\delta)} = \ln 1.5`:

    >>> import math
    >>> row = compare_epsilons(Categorical({0: 0.5, 1: 0.5}), r=0, delta=0.1)
    >>> all(abs(v - math.log(1.5)) < 1e-9 for v in (row.exact, row.pointwise, row.sound, row.paper))
    True
    """

    check_sides(sides, ("both", "upper"))
    mechanism = Laplace() if mechanism is None else mechanism
    kw = dict(r=r, delta=delta, sides=sides)
    if callable(target):
        ts = prior.values if t is None else [t]
        exact = min(exact_epsilon(prior, mechanism, t=tt, target=target(tt), correct=correct, **kw) for tt in ts)
    else:
        exact = exact_epsilon(prior, mechanism, t=t, target=target, correct=correct, **kw)
    if correct is not None:
        if not (isinstance(prior, Categorical) and prior.metric == "discrete"):
            raise ParameterError("correct applies only to a prior with the discrete metric")
        pointwise = sound = paper = _bounds_discrete(prior, delta, t, sides, correct)
    else:
        pointwise = epsilon_pointwise(prior, t=t, **kw).epsilon
        sound = epsilon_for_attribute(prior, t=t, construction="sound", **kw).epsilon
        try:
            paper = epsilon_for_attribute(prior, t=t, construction="paper", **kw).epsilon
        except InfeasibleError:
            paper = math.nan
    return EpsilonComparison(label=label, mechanism=repr(mechanism), r=float(r), delta=float(delta),
                             exact=float(exact), pointwise=float(pointwise), sound=float(sound), paper=float(paper))


_CAT_COLOURS = {"red": 0.2, "white": 0.1, "tabby": 0.25, "black": 0.4, "tortoise": 0.05}
_SWEEP_R = (0.05, 0.2, 0.5, 1.0, 2.0)
_SWEEP_DELTA = (0.02, 0.05, 0.1, 0.2, 0.3)


def comparison_table(parts: Iterable[str] = ("examples", "r", "delta")) -> list[EpsilonComparison]:
    r"""Exact epsilons against the bounds for the paper's examples and two sweeps (Sec. 6).

    ``parts`` selects rows:

    - ``"examples"``: cats (Sec. 6.1, ``r = 0``, ``delta = 0.1``): the AND event (colour and
      gender) and the colour alone under a Laplace COUNT of the worst single value and under
      k-ary randomized response, and the OR event under a Laplace COUNT of the correct
      guesses and under randomized response; salary (Sec. 6.2, Normal(2000, 235.7),
      ``r = 100``) and ships (Sec. 6.3, the paper's radial 1-D model Normal(0, sqrt(1250)),
      ``r = 10``) with Laplace noise.
    - ``"r"``: Normal(0, 1), ``delta = 0.1``, ``r`` in 0.05, 0.2, 0.5, 1, 2, Laplace.
    - ``"delta"``: Normal(0, 1), ``r = 0.5``, ``delta`` in 0.02, 0.05, 0.1, 0.2, 0.3, Laplace.

    Returns
    -------
    list of EpsilonComparison

    Examples
    --------
    Every sound bound stays at or below the exact epsilon of the Laplace mechanism (takes a few
    seconds):

    >>> rows = comparison_table(["delta"])  # doctest: +SKIP
    >>> len(rows), all(row.sound <= row.exact * (1 + 1e-9) for row in rows)  # doctest: +SKIP
    (5, True)
    """
    from ..mechanisms import RandomizedResponse as RR

    parts = tuple(parts)
    bad = [q for q in parts if q not in ("examples", "r", "delta")]
    if bad:
        raise ParameterError(f"parts must be among 'examples', 'r', 'delta'; got {bad}")
    rows = []
    if "examples" in parts:
        colour = Categorical(_CAT_COLOURS)
        cats = Categorical({(c, g): p / 2 for c, p in _CAT_COLOURS.items() for g in "MF"})
        either = or_event(cats)
        rows += [
            compare_epsilons(cats, r=0, delta=0.1, label="cats AND, COUNT (worst value)"),
            compare_epsilons(cats, r=0, delta=0.1, mechanism=RR(), label="cats AND, randomized response"),
            compare_epsilons(colour, r=0, delta=0.1, label="cats colour, COUNT (worst value)"),
            compare_epsilons(colour, r=0, delta=0.1, mechanism=RR(), label="cats colour, randomized response"),
            compare_epsilons(cats, r=0, delta=0.1, correct=either, target=either,
                             label="cats OR, COUNT of the correct guesses"),
            compare_epsilons(cats, r=0, delta=0.1, correct=either, mechanism=RR(),
                             label="cats OR, randomized response"),
            compare_epsilons(Normal(2000.0, 235.7), r=100, delta=0.1, label="salary N(2000, 235.7), r = 100"),
            compare_epsilons(Normal(0.0, math.sqrt(1250)), r=10, delta=0.1, label="ships N(0, sqrt 1250), r = 10"),
        ]
    if "r" in parts:
        rows += [compare_epsilons(Normal(0.0, 1.0), r=r, delta=0.1, label=f"N(0, 1), r = {r:g}, delta = 0.1")
                 for r in _SWEEP_R]
    if "delta" in parts:
        rows += [compare_epsilons(Normal(0.0, 1.0), r=0.5, delta=d, label=f"N(0, 1), r = 0.5, delta = {d:g}")
                 for d in _SWEEP_DELTA]
    return rows


def format_comparison(rows: Iterable[EpsilonComparison]) -> str:
    """A plain-text table of :func:`comparison_table` rows: epsilons and the ratios exact / bound.

    Examples
    --------
    >>> row = compare_epsilons(Categorical({0: 0.5, 1: 0.5}), r=0, delta=0.1, label="coin")
    >>> lines = format_comparison([row]).splitlines()
    >>> lines[0].split()[:2], lines[2].split()[:2]
    (['case', 'exact'], ['coin', '0.4055'])
    """
    head = (f"{'case':44s} {'exact':>10s} {'pointwise':>10s} {'sound':>10s} {'paper':>10s} "
            f"{'ex/pw':>6s} {'ex/sd':>6s} {'ex/pp':>6s}")
    lines = [head, "-" * len(head)]
    for row in rows:
        lines.append(f"{row.label:44s} {row.exact:10.4g} {row.pointwise:10.4g} {row.sound:10.4g} {row.paper:10.4g} "
                     f"{row.exact_over_pointwise:6.3f} {row.exact_over_sound:6.3f} {row.exact_over_paper:6.3f}")
    return "\n".join(lines)
