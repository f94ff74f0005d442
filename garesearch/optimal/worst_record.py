r"""The worst true record of a goal and its certified bracket, as the command line, PLEAK's
goal files, the widgets and the notebooks show them (beyond the paper; Sec. 4.2, 4.3).

:func:`garesearch.optimal.goals.epsilon_optimal` (the default of
:func:`garesearch.events.epsilon_for_goal`) with ``t=None`` returns, for a goal with continuous
attributes, the worst true record over the product of the attributes' supports
(:mod:`garesearch.optimal._goal_worst`): every record is screened by the product of the
one-attribute bounds, and the full solver runs once, at the worst record.  Three numbers
describe the answer:

- ``epsilon``, the **safe end**: no :math:`\epsilon`-DP mechanism moves the posterior of the
  goal by more than ``delta`` at any screened record (the screen's level, or the worst
  record's own sound end where that is lower);
- ``epsilon_hi``: at the worst record a mechanism exceeds ``delta`` (so no epsilon above it is
  safe); ``[epsilon, epsilon_hi]`` is the certified bracket, ``rel_width`` its relative width;
- the worst record's **own bracket** (``details["record_bracket"]``): what the full solver
  certifies at that record alone.  Under ``norm=1`` it is the bracket itself (the product
  bound is the optimum); under another norm its sound end can lie above ``epsilon``, since
  between the screened records the answer rests on the product bound.

A part whose far-tail limit binds (``t_i = +-inf``, a prior with a heavy tail) has no value:
the worst case is approached as the true value goes to that end of the support.

:func:`record_summary` gathers these under stable names; :func:`epsilon_along_line` gives the
one-record optimum along a line of records, to see the worst record as the minimum.

Examples
--------
Two numeric categorical attributes guessed exactly (a finite goal: every record is solved):

>>> from garesearch.goals import Attribute
>>> from garesearch.optimal.goals import epsilon_optimal
>>> from garesearch.priors import Categorical
>>> a = Attribute(Categorical({0: 0.3, 1: 0.4, 2: 0.3}), r=0, name="a")
>>> b = Attribute(Categorical({0: 0.5, 1: 0.5}), r=0, name="b")
>>> s = record_summary(epsilon_optimal(a & b, delta=0.1))
>>> s["record_is"], s["record_text"], round(s["epsilon"], 4), s["rel_width"] < 1e-6
('worst', 'a = 0, b = 0', 0.4892, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._plain import plain
from ..errors import ParameterError

__all__ = ["FAR_TAIL", "epsilon_along_line", "record_summary"]

#: how a part at a far-tail limit is written in place of its value
FAR_TAIL = "far tail"

#: the largest number of records :func:`epsilon_along_line` solves
_MAX_POINTS = 201


def _value_text(v: Any) -> str:
    if isinstance(v, float):
        if math.isinf(v):
            return f"{FAR_TAIL} ({'+' if v > 0 else '-'}inf)"
        return f"{v:.6g}"
    return str(v)


def _width(lo: float, hi: float) -> float:
    """``(hi - lo) / hi`` (0 where both ends are ``inf``, ``inf`` where only ``hi`` is)."""
    if math.isinf(hi):
        return 0.0 if math.isinf(lo) else math.inf
    return (hi - lo) / hi if hi > 0 else 0.0


def record_summary(res, *, t_given: bool | None = None) -> dict:
    r"""The true record a goal's optimum was found at, with the certified bracket and the
    record's own bracket, under stable names (Sec. 4.2, 4.3; beyond the paper: the module
    docstring says what each number certifies).

    Parameters
    ----------
    res : OptimalGoalResult
        From :func:`garesearch.optimal.goals.epsilon_optimal` or
        :func:`garesearch.events.epsilon_for_goal` (``construction="optimal"``).
    t_given : bool, optional
        Whether the caller gave the true record (then it is not called the worst); by
        default read from ``res.details`` (a worst record's result has the count of the
        records screened, or the record's own bracket).

    Returns
    -------
    dict
        ``record``: one entry per part, in the goal's order, ``{"name", "value",
        "far_tail"}`` (``value`` ``None`` and ``far_tail`` ``"left"`` or ``"right"`` for a
        part at a far-tail limit, ``far_tail`` ``None`` otherwise); ``record_is``:
        ``"worst"`` or ``"given"``; ``record_text``: ``"name = value, ..."`` (a far-tail part
        as ``"name = far tail (+inf)"``); ``far_tail``: whether some part is at its limit;
        ``epsilon``, ``epsilon_hi``, ``rel_width`` (the certified bracket, its safe end
        first); ``record_bracket`` (``[lo, hi]``, the record's own bracket; the bracket itself
        for a given record, a finite prior's worst record or a far-tail limit) and
        ``record_rel_width``; ``binding``; ``screened_records`` (``None`` where the true
        records were not screened); ``cut_short``.

    Raises
    ------
    ParameterError
        If ``res`` is not the optimum of a goal.

    Examples
    --------
    A record given: its bracket is the answer's.

    >>> from garesearch.goals import Attribute
    >>> from garesearch.optimal.goals import epsilon_optimal
    >>> from garesearch.priors import Normal
    >>> a = Attribute(Normal(0, 1), r=0.5, name="a")
    >>> b = Attribute(Normal(0, 1), r=0.5, name="b")
    >>> s = record_summary(epsilon_optimal(a & b, delta=0.1, t={"a": 0.0, "b": 1.0}, norm=1))
    >>> s["record_is"], s["record_text"], s["record_bracket"] == [s["epsilon"], s["epsilon_hi"]]
    ('given', 'a = 0, b = 1', True)
    """
    if getattr(res, "construction", None) != "optimal" or not hasattr(res, "epsilon_hi") or \
            not isinstance(getattr(res, "t", None), Mapping):
        raise ParameterError("res must be the optimum of a goal (an OptimalGoalResult, "
                             f"construction='optimal'); got {type(res).__name__}")
    details = res.details or {}
    screened = details.get("true_records_total")
    if t_given is None:  # (a worst record: screened, or the discrete metric's closed form)
        t_given = not (screened is not None or "record_bracket" in details or "upper" not in details)
    parts = []
    for name, v in res.t.items():
        v = plain(v.item() if hasattr(v, "item") else v)
        far = isinstance(v, float) and math.isinf(v)
        parts.append({"name": str(name), "value": None if far else v,
                      "far_tail": ("right" if v > 0 else "left") if far else None})
    lo, hi = float(res.epsilon), float(res.epsilon_hi)
    own = details.get("record_bracket")
    rec = [float(own[0]), float(own[1])] if own is not None else [lo, hi]
    return {
        "record": parts,
        "record_is": "given" if t_given else "worst",
        "record_text": ", ".join(f"{p['name']} = {_value_text(v)}" for p, v in zip(parts, res.t.values(), strict=True)),
        "far_tail": any(p["far_tail"] is not None for p in parts),
        "epsilon": lo,
        "epsilon_hi": hi,
        "rel_width": float(res.rel_width),
        "record_bracket": rec,
        "record_rel_width": _width(*rec),
        "binding": res.binding,
        "screened_records": None if t_given else (int(screened) if screened is not None else None),
        "cut_short": bool(res.cut_short),
    }


def epsilon_along_line(goal, *, delta: float, through: Mapping, direction: Mapping, offsets,
                       norm: float = 1.0, sides: str = "both", rtol: float | None = None) -> dict:
    r"""The one-record optimal epsilon at the records ``through + s * direction``, ``s`` in
    ``offsets`` (beyond the paper; Sec. 4.2, 4.3): to see how the safe epsilon varies around a
    record, such as the worst one of :func:`garesearch.optimal.goals.epsilon_optimal`.

    With the default ``norm=1`` each record's optimum is the product of the one-attribute
    kernels (:mod:`garesearch.optimal.goals`, "Proved closed forms"), which is also the bound
    the worst-record screen applies under every norm: its minimum over all records is the
    screen's level.  Each record costs one call of
    :func:`~garesearch.optimal.goals.epsilon_optimal` (about 0.5 s for two normal attributes
    under ``norm=1``; seconds or more under another norm).

    Parameters
    ----------
    goal : Attribute, AllOf or AnyOf
        As for :func:`~garesearch.optimal.goals.epsilon_optimal`.
    delta : float
        Bound on the advantage, in (0, 1).
    through : Mapping
        A true record, part name -> value (every part).
    direction : Mapping
        Part name -> step per unit of offset (numeric parts; a part not named stays fixed).
    offsets : array_like
        The offsets ``s`` (at most 201, finite).
    norm, sides, rtol
        As for :func:`~garesearch.optimal.goals.epsilon_optimal`.

    Returns
    -------
    dict
        ``offsets`` (array), ``records`` (list of dicts), ``epsilon`` and ``epsilon_hi``
        (arrays: each record's certified bracket, its safe end first), ``binding`` (list).

    Raises
    ------
    ParameterError
        A part of ``direction`` that is not in ``through`` or not numeric, bad offsets, or
        what :func:`~garesearch.optimal.goals.epsilon_optimal` refuses.

    Examples
    --------
    >>> from garesearch.goals import Attribute
    >>> from garesearch.priors import Normal
    >>> a = Attribute(Normal(0, 1), r=0.5, name="a")
    >>> b = Attribute(Normal(0, 1), r=0.5, name="b")
    >>> line = epsilon_along_line(a & b, delta=0.1, through={"a": 0.378, "b": 0.378},
    ...                           direction={"a": 1.0}, offsets=[0.0, 0.5])
    >>> [round(float(e), 4) for e in line["epsilon"]]  # the worst record, and one beside it
    [0.5516, 0.5679]
    """
    from .goals import epsilon_optimal

    if not isinstance(through, Mapping) or not isinstance(direction, Mapping):
        raise ParameterError("through and direction must be mappings: part name -> value")
    for name, step in direction.items():
        if name not in through:
            raise ParameterError(f"direction: {name!r} is not a part of through (parts: {', '.join(map(str, through))})")
        if isinstance(step, bool) or not isinstance(step, (int, float, np.integer, np.floating)) or not math.isfinite(step):
            raise ParameterError(f"direction: the step of {name!r} must be a finite number; got {step!r}")
        if isinstance(through[name], bool) or not isinstance(through[name], (int, float, np.integer, np.floating)):
            raise ParameterError(f"direction: {name!r} is not numeric in through ({through[name]!r})")
    try:
        s = np.asarray(offsets, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"offsets must be an array of numbers; got {offsets!r}") from None
    if s.ndim != 1 or not 1 <= s.size <= _MAX_POINTS or not np.all(np.isfinite(s)):
        raise ParameterError(f"offsets must be 1 to {_MAX_POINTS} finite numbers; got {s.size} values")
    records, lo, hi, binding = [], [], [], []
    for off in s:
        rec = {k: (float(v) + float(off) * float(direction[k]) if k in direction else v) for k, v in through.items()}
        res = epsilon_optimal(goal, delta=delta, t=rec, norm=norm, sides=sides, rtol=rtol)
        records.append(rec)
        lo.append(res.epsilon)
        hi.append(res.epsilon_hi)
        binding.append(res.binding)
    return {"offsets": s, "records": records, "epsilon": np.asarray(lo, float),
            "epsilon_hi": np.asarray(hi, float), "binding": binding}
