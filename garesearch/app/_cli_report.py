"""The reports of ``python -m garesearch epsilon`` (:mod:`garesearch.app.cli`): the posterior
bound of the binding side, an AND/OR goal's report (the worst record and the certified
bracket, :func:`garesearch.optimal.worst_record.record_summary`) and the rows of its text."""

from __future__ import annotations

import math

__all__: list[str] = []


def _finite_or_none(x):
    """``x`` with every non-finite float (also inside lists and dicts) made ``None``: JSON has
    no infinity."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (list, tuple)):
        return [_finite_or_none(v) for v in x]
    if isinstance(x, dict):
        return {k: _finite_or_none(v) for k, v in x.items()}
    return x


def _posterior_bound(res) -> dict:
    """The bound on the posterior that the binding side of Def. 7 sets at ``epsilon``: the
    largest posterior of a correct guess, at most ``p + delta``, when the attacker's gain binds
    (``upper``); ``p - delta``, below which no posterior falls, when the loss binds
    (``lower``).  ``None`` where no side binds (no noise needed) and for the far-tail limit
    of the lower side (whose ``p`` is 0)."""
    side = res.binding
    far = getattr(res, "far_tail", None)
    if far is None:  # a goal: a part at its far-tail limit
        far = bool((getattr(res, "details", None) or {}).get("far_tail", False))
    if side == "lower":
        value = None if far else res.p - res.delta
    elif side == "upper":
        value = res.posterior_bound()
    else:
        value = None
    return {"posterior_bound": value, "posterior_bound_side": side if value is not None else None}


#: the keys of :func:`garesearch.optimal.worst_record.record_summary` in a goal's report
_RECORD_KEYS = ("record", "record_is", "record_text", "far_tail", "record_bracket", "record_rel_width",
                "screened_records")


def _goal_report(res, args) -> dict:
    """The report of an AND/OR goal: the comparison sets (radii, distance) for
    ``--construction sound`` / ``paper``, the certified bracket for the optimum."""
    if res.construction == "optimal":
        from ..optimal.worst_record import record_summary

        rec = record_summary(res, t_given=args.t is not None)
        how = {"epsilon_hi": res.epsilon_hi, "rel_width": res.rel_width,
               "witness": res.witness.get("kind"), "norm": res.norm,
               **{k: rec[k] for k in _RECORD_KEYS}}
    else:
        how = {"a": list(res.a), "distance": res.distance}
    return {
        "method": "goal",
        "event": res.event,
        "construction_used": res.method,
        "epsilon": res.epsilon,
        "laplace_scale": res.laplace_scale(args.sensitivity),
        "sensitivity": args.sensitivity,
        "t": {k: _finite_or_none(v.item() if hasattr(v, "item") else v) for k, v in res.t.items()},
        "t_given": args.t is not None,
        "delta": res.delta,
        "p": res.p,
        **_posterior_bound(res),
        **how,
        "epsilon_upper": res.epsilon_upper,
        "epsilon_lower": res.epsilon_lower,
        "binding": res.binding,
        "construction": res.construction,
    }


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _bound_row(row, out: dict) -> None:
    """The posterior bound of the binding side (:func:`_posterior_bound`), if there is one."""
    if out["posterior_bound"] is None:
        return
    if out["posterior_bound_side"] == "lower":
        note = f"(p - delta = {_fmt(out['p'] - out['delta'])}; the lower side binds: no posterior falls below it)"
    else:
        note = f"(p + delta = {_fmt(out['p'] + out['delta'])}; the upper side binds: no posterior exceeds it)"
    row("posterior bound", out["posterior_bound"], note)


def _bracket_text(lo, hi) -> str:
    """``[lo, hi]`` with enough digits that the two ends differ where they do (6 to 12)."""
    digits = 6
    if isinstance(lo, float) and isinstance(hi, float) and math.isfinite(lo) and math.isfinite(hi) and lo != hi:
        digits = min(12, max(6, 2 + math.ceil(-math.log10(abs(hi - lo) / max(abs(hi), abs(lo))))))
    return f"[{lo:.{digits}g}, {hi:.{digits}g}]" if isinstance(lo, float) and isinstance(hi, float) else f"[{lo}, {hi}]"


def _record_rows(row, out: dict) -> None:
    """The optimum of a goal: the record it holds at (the worst one, part by part, or the one
    given), the certified bracket, and the record's own bracket where it differs."""
    worst = out["record_is"] == "worst"
    if worst:
        notes = ["the worst true record over the priors' supports"]
        if out.get("screened_records"):
            notes.append(f"{out['screened_records']} records screened")
        if out["far_tail"]:
            notes.append("far tail: approached as that value goes to the end of its support")
        how = "(" + "; ".join(notes) + ")"
    else:
        how = "(given)"
    row("worst record" if worst else "true values t", out["record_text"], how)
    if out.get("no_noise_needed"):
        return
    lo, hi = out["epsilon"], out["epsilon_hi"]
    if out["rel_width"] == 0:
        note = "exact"
    elif math.isinf(out["rel_width"]):
        note = "no epsilon-DP mechanism exceeds delta at epsilon; no witness exceeds it above"
    else:
        at = " at the worst record" if worst else ""
        note = (f"relative width {out['rel_width']:.2g}: epsilon is safe (no epsilon-DP mechanism exceeds "
                f"delta{' at any record' if worst else ''}); at the upper end one does{at}")
    row("bracket", _bracket_text(lo, hi), note)
    rb = out.get("record_bracket")
    if worst and rb is not None and list(rb) != [lo, hi]:
        row("record bracket", _bracket_text(*rb),
            f"relative width {out['record_rel_width']:.2g}: the worst record's own bracket (the full "
            "solver there); epsilon is the product bound's level over every screened record where lower")
