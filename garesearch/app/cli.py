r"""``python -m garesearch epsilon``: the epsilon for a bound on the guessing advantage.

For practitioners: give the attacker's prior of the sensitive attribute, the precision ``r``
of a correct guess and the bound ``delta`` on the advantage; the command prints the epsilon
of Sec. 4.1 (per unit of the attribute's distance), the true value and comparison radius it
was found at, the prior and posterior probability of a correct guess, and the scale of
Laplace noise for a query of the given sensitivity.  ``--json`` prints the same as JSON.

Prior specifications (``--prior`` and ``--attribute NAME=SPEC``):

==========================================  ==============================================
``normal:MU,SIGMA``                         :class:`~garesearch.priors.Normal`
``uniform:LOW,HIGH``                        :class:`~garesearch.priors.Uniform`
``categorical:red=0.2,white=0.1,...``       :class:`~garesearch.priors.Categorical`
                                            (numeric keys: distance ``|x - y|``;
                                            otherwise distance 1 between values)
``piecewise:E0,E1,...,En:W1,...,Wn``        :class:`~garesearch.priors.PiecewiseUniform`
==========================================  ==============================================

JSON of an AND/OR goal's optimum (``--attribute`` with ``--goal``, or ``--att`` with
``--goal-file``; the default ``--construction optimal``), besides ``epsilon`` and the keys of
every report (:func:`garesearch.optimal.worst_record.record_summary` says what each number
certifies):

==========================  ==============================================================
``epsilon``                 the safe end of the certified bracket (no epsilon-DP mechanism
                            exceeds ``delta`` at any true record, or at the one given)
``epsilon_hi``              the other end: a mechanism exceeds ``delta`` there
``rel_width``               ``(epsilon_hi - epsilon) / epsilon_hi``
``record``                  the true record, part by part: ``{"name", "value", "far_tail"}``
                            (``value`` null and ``far_tail`` ``"left"``/``"right"`` for a part
                            whose far-tail limit binds)
``record_is``               ``"worst"`` (found over the priors' supports) or ``"given"``
``record_text``             ``"name = value, ..."`` (``"name = far tail (+inf)"``)
``far_tail``                whether a far-tail limit binds
``record_bracket``          ``[lo, hi]``: the record's own bracket (the full solver at the
                            worst record; for a record given, the bracket itself)
``record_rel_width``        its relative width
``screened_records``        how many true records were screened (null for a record given)
``t``                       part name -> value (null at a far-tail limit)
``norm``                    the records' distance (``--norm``; ``null``: infinity)
==========================  ==============================================================

The text output shows the same as ``worst record`` (or ``true values t``), ``bracket`` and,
where it differs, ``record bracket``.

Exit status and errors:

- 0: the epsilon was found, or every epsilon meets the request (then "no noise needed":
  epsilon is infinite, ``null`` in JSON with ``"no_noise_needed": true``, and the Laplace
  scale 0);
- 1: a valid request that no epsilon > 0 can meet (``infeasible``);
- 2: malformed input (a bad option, prior, goal or file; ``error``);
- 3: an internal error, a bug in garesearch (``internal error``).

Every failure prints one line on stderr, ``garesearch epsilon: <kind>: <message>`` (a file
is named as ``file:line``).  With ``--json`` the failure is also printed on stdout as one
JSON object, ``{"error": {"kind": "infeasible" | "error" | "internal error",
"message": "...", "exit_status": 1 | 2 | 3}}``, so that stdout is always valid JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from ..errors import InfeasibleError, ParameterError
from ._cli_report import (
    _bound_row,
    _finite_or_none,
    _fmt,
    _goal_report,
    _posterior_bound,
    _record_rows,
)
from ._commands import fail as _fail

__all__ = ["MAX_NESTING", "NO_NOISE", "PRIOR_SYNTAX", "build_parser", "fail", "main",
           "parse_goal_expression", "parse_prior"]

#: The prior specifications of ``--prior`` (and ``--attribute NAME=PRIOR``), for ``--help``.
PRIOR_SYNTAX = """\
prior specifications (--prior; --attribute NAME=PRIOR):
  normal:MU,SIGMA                    normal, mean MU, standard deviation SIGMA
                                       e.g. normal:2000,235.7
  uniform:LOW,HIGH                   uniform on [LOW, HIGH]   e.g. uniform:0,10
  categorical:V=P,V=P,...            finitely many values V with probabilities P (summing
                                     to 1); numeric values are at distance |x - y|, names
                                     at distance 1 from each other
                                       e.g. categorical:red=0.2,white=0.1,tabby=0.25,black=0.45
                                       e.g. categorical:0=0.8,1=0.2
  piecewise:E0,E1,...,En:W1,...,Wn   piecewise uniform: mass Wi spread evenly over
                                     [E(i-1), Ei]; edges increasing, weights summing to 1
                                       e.g. piecewise:0,1000,2000,5000:0.2,0.5,0.3
"""

EXAMPLES = PRIOR_SYNTAX + """
examples:
  The paper's cats (Sec. 6.1): guess a cat's colour exactly, advantage at most 0.1
    python -m garesearch epsilon --delta 0.1 --r 0 \\
        --prior categorical:red=0.2,white=0.1,tabby=0.25,black=0.4,tortoise=0.05

  Cats, AND-event: guess gender and colour (Sec. 4.2 / 6.1)
    python -m garesearch epsilon --delta 0.1 --r 0 --goal "gender & colour" \\
        --attribute gender=categorical:M=0.5,F=0.5 \\
        --attribute colour=categorical:red=0.2,white=0.1,tabby=0.25,black=0.4,tortoise=0.05

  Salaries (Sec. 6.2): normal prior, guess within 100, SUM query of sensitivity 1
    python -m garesearch epsilon --prior normal:2000,235.7 --r 100 --delta 0.1 --sensitivity 1

  The same at the true value t = 2000 with the paper's (unsound) comparison set
    python -m garesearch epsilon --prior normal:2000,235.7 --r 100 --delta 0.1 \\
        --t 2000 --construction paper

  PLEAK's attacker file and goal: a path, or the name of an example shipped with
  garesearch (cats.att, cats_and.plc, cats_color.plc, cats_or.plc, employee.att, ...)
    python -m garesearch epsilon --att cats.att --goal-file cats_or.plc --delta 0.1

  For scripts: add --json (failures then print {"error": {"kind", "message",
  "exit_status"}} on stdout as well).

exit status: 0 done (also "no noise needed"), 1 infeasible, 2 malformed input,
  3 internal error.
"""


class _UsageError(Exception):
    """Raised instead of argparse's exit, so that errors stay one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(message)


# ------------------------------------------------------------------------------------------
def _numbers(text: str, name: str, spec: str) -> list[float]:
    out = []
    for part in text.split(","):
        try:
            v = float(part)
        except ValueError:
            raise ParameterError(f"{name}: {part.strip()!r} is not a number in prior {spec!r}") from None
        if not math.isfinite(v):
            raise ParameterError(f"{name}: {part.strip()!r} is not finite in prior {spec!r}")
        out.append(v)
    return out


def parse_prior(spec: str):
    """Read a prior specification (table in the module docstring) into a garesearch prior.

    Raises
    ------
    ParameterError
        Naming the part of ``spec`` that is wrong.

    Examples
    --------
    >>> parse_prior("normal:0,1")
    Normal(0.0, 1.0)
    >>> parse_prior("categorical:red=0.2,white=0.8")
    Categorical({'red': 0.2, 'white': 0.8})
    >>> parse_prior("normal:0")
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: prior 'normal:0': normal takes MU,SIGMA (two numbers)
    """
    from .. import priors

    kind, sep, rest = spec.partition(":")
    kind = kind.strip().lower()
    if not sep or not rest.strip():
        raise ParameterError(
            f"prior {spec!r}: expected KIND:PARAMETERS (normal:MU,SIGMA, uniform:LOW,HIGH, "
            "categorical:A=P,B=P,..., piecewise:E0,...,En:W1,...,Wn)"
        )
    if kind == "normal":
        vals = _numbers(rest, "normal", spec)
        if len(vals) != 2:
            raise ParameterError(f"prior {spec!r}: normal takes MU,SIGMA (two numbers)")
        return priors.Normal(*vals)
    if kind == "uniform":
        vals = _numbers(rest, "uniform", spec)
        if len(vals) != 2:
            raise ParameterError(f"prior {spec!r}: uniform takes LOW,HIGH (two numbers)")
        return priors.Uniform(*vals)
    if kind == "piecewise":
        edges, sep2, weights = rest.partition(":")
        if not sep2:
            raise ParameterError(f"prior {spec!r}: piecewise takes EDGES:WEIGHTS")
        return priors.PiecewiseUniform(
            _numbers(edges, "piecewise edges", spec), _numbers(weights, "piecewise weights", spec)
        )
    if kind == "categorical":
        items = []
        for part in rest.split(","):
            key, eq, prob = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ParameterError(f"prior {spec!r}: categorical entries are VALUE=PROBABILITY; got {part!r}")
            items.append((key, _numbers(prob, f"probability of {key!r}", spec)[0]))
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ParameterError(f"prior {spec!r}: a value is listed twice")
        if all(_is_number(k) for k in keys):
            keys = [float(k) for k in keys]
        return priors.Categorical(dict(zip(keys, (p for _, p in items), strict=True)))
    raise ParameterError(
        f"prior {spec!r}: unknown kind {kind!r}; use normal, uniform, categorical or piecewise"
    )


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# ------------------------------------------------------------------------------------------
#: deepest nesting of parentheses in --goal (deeper goals are refused, not recursed into)
MAX_NESTING = 64


def _clip(text: str, n: int = 80) -> str:
    """``repr(text)``, shortened for one-line messages."""
    r = repr(text)
    return r if len(r) <= n else r[: n - 4] + "...'"


_GOAL_TOKEN = re.compile(r"\s*(?:(?P<op>&&|\|\||[&|()])|(?P<word>[A-Za-z_][A-Za-z0-9_.]*)|(?P<bad>\S))")


def parse_goal_expression(text: str, names) -> Any:
    """Parse ``--goal`` (``a & b``, ``a | (b & c)``, ``AND``/``OR`` also accepted).

    Returns a nested tuple ``("and" | "or", [parts])`` with attribute names as leaves.
    ``&`` binds tighter than ``|``.

    Examples
    --------
    >>> parse_goal_expression("a | b & c", ["a", "b", "c"])
    ('or', ['a', ('and', ['b', 'c'])])
    >>> parse_goal_expression("(a OR b) AND c", ["a", "b", "c"])
    ('and', [('or', ['a', 'b']), 'c'])
    """
    toks = []
    shown = _clip(text)
    for m in _GOAL_TOKEN.finditer(text):
        if m.group("bad"):
            raise ParameterError(f"goal {shown}: unexpected {m.group('bad')!r}")
        tok = m.group("op") or m.group("word")
        toks.append({"and": "&", "&&": "&", "or": "|", "||": "|"}.get(tok.lower(), tok))
    if not toks:
        raise ParameterError("goal: empty expression")
    pos = 0
    depth = 0

    def term():
        nonlocal pos, depth
        if pos >= len(toks):
            raise ParameterError(f"goal {shown}: ends too early")
        tok = toks[pos]
        pos += 1
        if tok == "(":
            depth += 1
            if depth > MAX_NESTING:
                raise ParameterError(
                    f"goal: parentheses nest more than {MAX_NESTING} deep; write the goal flatter "
                    "(AND and OR are associative: a & (b & c) is a & b & c)"
                )
            inner = disj()
            if pos >= len(toks) or toks[pos] != ")":
                raise ParameterError(f"goal {shown}: missing ')'")
            pos += 1
            depth -= 1
            return inner
        if tok in ("&", "|", ")"):
            raise ParameterError(f"goal {shown}: unexpected {tok!r}")
        if tok not in names:
            raise ParameterError(f"goal {shown}: {tok!r} is not an --attribute (known: {', '.join(names)})")
        return tok

    def chain(sub, op, label):
        nonlocal pos
        parts = [sub()]
        while pos < len(toks) and toks[pos] == op:
            pos += 1
            parts.append(sub())
        return parts[0] if len(parts) == 1 else (label, parts)

    def conj():
        return chain(term, "&", "and")

    def disj():
        return chain(conj, "|", "or")

    tree = disj()
    if pos != len(toks):
        raise ParameterError(f"goal {shown}: unexpected {toks[pos]!r}")
    return tree


# ------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m garesearch epsilon`` (its ``--help`` has examples).

    Examples
    --------
    >>> args = build_parser().parse_args(["--prior", "normal:0,1", "--r", "0.5", "--delta", "0.1"])
    >>> args.prior, args.delta, args.construction
    ('normal:0,1', 0.1, 'optimal')
    """
    p = _Parser(
        prog="python -m garesearch epsilon",
        description=(
            "Epsilon of differential privacy that keeps an attacker's advantage in guessing\n"
            "a sensitive attribute within precision r at most delta (Laud and Pankova,\n"
            "Sec. 4.1; AND/OR goals Sec. 4.2-4.3)."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--delta", type=float, required=True, help="bound on the advantage, in (0, 1)")
    p.add_argument("--prior", help="prior of the attribute: normal:MU,SIGMA, uniform:LOW,HIGH, "
                   "categorical:V=P,V=P,... or piecewise:E0,...,En:W1,...,Wn (see below)")
    p.add_argument("--r", default=None,
                   help="precision of a correct guess (0: exact); with several attributes "
                   "one number for all or NAME=R,NAME=R")
    p.add_argument("--attribute", action="append", default=[], metavar="NAME=PRIOR",
                   help="one attribute of an AND/OR goal (repeat), e.g. gender=categorical:M=0.5,F=0.5")
    p.add_argument("--goal", help='AND/OR goal over the attributes, e.g. "gender & colour"')
    p.add_argument("--att", metavar="FILE",
                   help="PLEAK attacker file (.att): a path, or the name of a shipped example (cats.att)")
    p.add_argument("--goal-file", metavar="FILE",
                   help="PLEAK goal (formula, SELECT ... or leak blocks): a path, or the name of a "
                        "shipped example (cats_or.plc)")
    p.add_argument("--t", default=None,
                   help="the true value (default: the worst case over the prior); for a goal NAME=V,NAME=V")
    p.add_argument("--sensitivity", type=float, default=1.0,
                   help="sensitivity of the query w.r.t. the attribute's distance (default 1)")
    p.add_argument("--construction", choices=("optimal", "sound", "paper", "pointwise"), default="optimal",
                   help="optimal (default): the largest epsilon no epsilon-DP mechanism exceeds; "
                        "sound: Eq. (main) with a correct comparison set; paper: Eq. (main) as "
                        "printed; pointwise: the pointwise bound (one numeric attribute)")
    p.add_argument("--sides", choices=("both", "upper", "lower"), default="both",
                   help="bound |post - prior| (both, default), only the attacker's gain (upper) "
                        "or only the loss (lower; optimal construction)")
    p.add_argument("--norm", type=float, default=None,
                   help="for an --attribute goal: the records' distance is the l_NORM norm of the "
                        "attributes' distances, NORM in [1, inf] (default inf)")
    p.add_argument("--R", type=float, default=None, dest="R",
                   help="largest radius of the comparison set (default: whole support)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return p


def _true_value(text, prior):
    if text is None:
        return None
    from ..priors import Categorical

    if isinstance(prior, Categorical) and prior.metric == "discrete":
        return text
    try:
        return float(text)
    except ValueError:
        raise ParameterError(f"--t must be a number for this prior; got {text!r}") from None


def _one_r(text) -> float:
    if text is None:
        raise ParameterError("--r is required (the precision of a correct guess; 0 for exact)")
    try:
        r = float(text)
    except ValueError:
        raise ParameterError(f"--r must be a number; got {text!r}") from None
    return r


NO_NOISE = "any epsilon meets this request: no noise needed"


def _no_noise(out: dict) -> dict:
    """Mark a report whose epsilon is infinite: every epsilon meets the request."""
    if isinstance(out.get("epsilon"), float) and math.isinf(out["epsilon"]):
        out["no_noise_needed"] = True
        out["laplace_scale"] = 0.0
        out["note"] = NO_NOISE
    else:
        out["no_noise_needed"] = False
    return out


def _no_norm(args) -> None:
    if args.norm is not None:
        raise ParameterError("--norm applies to an AND/OR goal over --attribute (the records' distance)")


def _single(args) -> dict:
    from ..attribute import epsilon_for_attribute

    _no_norm(args)
    prior = parse_prior(args.prior)
    if args.construction == "pointwise":
        return _pointwise(args, prior)
    res = epsilon_for_attribute(
        prior, r=_one_r(args.r), delta=args.delta, t=_true_value(args.t, prior), R=args.R,
        sides=args.sides, construction=args.construction,
    )
    if args.construction == "optimal":
        return _optimal_report(res, args, prior)
    return _attribute_report(res, args, prior)


def _optimal_report(res, args, prior) -> dict:
    """The optimal construction: the witness (the kernel that attains the bound) replaces the
    comparison set."""
    out = _report(res, args, prior, method="optimal", construction="optimal")
    out["far_tail"] = res.far_tail
    out["kernel_centre"] = res.centre  # a label under the discrete metric
    out["kernel_metric"] = getattr(prior, "metric", "absolute")
    out["witness"] = None if res.binding == "none" else (
        "laplace_kernel" if res.binding == "upper" else "inverted_kernel")
    return out


def _no_pointwise(args) -> None:
    if args.construction == "pointwise":
        raise ParameterError("--construction pointwise applies to one numeric attribute (--prior)")


def _pointwise(args, prior) -> dict:
    from ..constructions.pointwise import epsilon_pointwise

    if args.R is not None:
        raise ParameterError("--R does not apply to --construction pointwise (it has no comparison set)")
    res = epsilon_pointwise(prior, r=_one_r(args.r), delta=args.delta, t=_true_value(args.t, prior),
                            sides=args.sides)
    return _report(res, args, prior, method="pointwise", construction="pointwise")


def _attribute_report(res, args, prior) -> dict:
    return _report(res, args, prior, method="attribute", construction=res.construction,
                   q=res.q, a=res.a, distance=res.distance)


def _report(res, args, prior, *, method, construction, **comparison) -> dict:
    """The report of one attribute's result; ``comparison`` (q, a, distance) follows the posterior bound."""
    t = res.t.item() if hasattr(res.t, "item") else res.t
    return {
        "method": method,
        "epsilon": res.epsilon,
        "laplace_scale": res.laplace_scale(args.sensitivity),
        "sensitivity": args.sensitivity,
        "t": t,
        "t_given": args.t is not None,
        "r": res.r,
        "delta": res.delta,
        "p": res.p,
        **_posterior_bound(res),
        **comparison,
        "epsilon_upper": res.epsilon_upper,
        "epsilon_lower": res.epsilon_lower,
        "binding": res.binding,
        "construction": construction,
        "prior": repr(prior),
    }


def _pleak_file(text: str, option: str) -> tuple[Path, bool]:
    """The file ``--att`` / ``--goal-file`` names: the path if it exists, else the PLEAK example
    shipped with garesearch of that name (``cats.att``); whether it is the shipped one."""
    path = Path(text)
    if path.exists() or path.name != text:  # an existing file, or a path with a folder
        return path, False
    from .publish import packaged_examples

    folder = packaged_examples()
    if (folder / text).is_file():
        return folder / text, True
    shipped = ", ".join(sorted(p.name for p in folder.iterdir() if p.suffix in (".att", ".plc", ".sql")))
    raise ParameterError(f"{option}: cannot read {text!r}: no such file here, and no PLEAK example "
                         f"of that name is shipped with garesearch (the examples: {shipped})")


def _pleak(args) -> dict:
    from . import pleak

    if not (args.att and args.goal_file):
        raise ParameterError("--att and --goal-file go together (PLEAK's attacker file and goal)")
    att, att_shipped = _pleak_file(args.att, "--att")
    goal_file, goal_shipped = _pleak_file(args.goal_file, "--goal-file")
    know = pleak.read_attacker(att)
    goal = pleak.read_goal(goal_file)
    shipped = [p.name for p, s in ((att, att_shipped), (goal_file, goal_shipped)) if s]
    t = args.t
    if t is not None and "=" in t:
        t = dict(part.partition("=")[::2] for part in t.split(","))
    _no_pointwise(args)
    _goal_sides(args)
    _no_norm(args)
    res = pleak.epsilon_for_pleak_goal(
        know, goal, delta=args.delta, t=t, construction=args.construction, sides=args.sides
    )
    if res.method in ("attribute", "events"):
        if res.method == "events":
            out = _goal_report(res.detail, args)
        elif res.detail.construction == "optimal":
            out = _optimal_report(res.detail, args, res.prior)
        else:
            out = _attribute_report(res.detail, args, res.prior)
        out["columns"] = list(res.columns)
        out["shipped_examples"] = shipped
        return out
    return {
        "method": res.method,
        "columns": list(res.columns),
        "shipped_examples": shipped,
        "epsilon": res.epsilon,
        "laplace_scale": res.laplace_scale(args.sensitivity),
        "sensitivity": args.sensitivity,
        "delta": args.delta,
        "r": res.r,
        "R": res.R,
    }


def _multi(args) -> dict:
    priors = {}
    for item in args.attribute:
        name, eq, spec = item.partition("=")
        name = name.strip()
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
            raise ParameterError(f"--attribute {item!r}: expected NAME=PRIOR, e.g. gender=categorical:M=0.5,F=0.5")
        if name in priors:
            raise ParameterError(f"--attribute: {name!r} is given twice")
        priors[name] = parse_prior(spec)
    if args.prior:
        raise ParameterError("use either --prior (one attribute) or --attribute (several), not both")
    if args.goal is None:
        if len(priors) == 1:
            name = next(iter(priors))
            args.prior = args.attribute[0].partition("=")[2]
            return _single(args) | {"columns": [name]}
        raise ParameterError("several --attribute need a --goal, e.g. --goal \"a & b\"")
    tree = parse_goal_expression(args.goal, list(priors))
    if isinstance(tree, str):
        args.prior = dict(a.partition("=")[::2] for a in args.attribute)[tree]
        return _single(args) | {"columns": [tree]}
    return _goal(args, tree, priors)


def _rs(text, names) -> dict:
    if text is None:
        raise ParameterError("--r is required (one number, or NAME=R,NAME=R for each attribute)")
    if "=" not in text:
        r = _one_r(text)
        return dict.fromkeys(names, r)
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in names:
            raise ParameterError(f"--r: {name!r} is not an --attribute (known: {', '.join(names)})")
        out[name] = _one_r(value)
    missing = [n for n in names if n not in out]
    if missing:
        raise ParameterError(f"--r: no precision for {', '.join(missing)}")
    return out


def _goal_t(text, priors) -> dict | None:
    if text is None:
        return None
    out = {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or name not in priors:
            raise ParameterError(f"--t: for a goal give NAME=VALUE,... over the attributes; got {part!r}")
        out[name] = _true_value(value.strip(), priors[name])
    return out


def _goal(args, tree, priors) -> dict:
    """AND/OR goal over several attributes (Sec. 4.2-4.3, :mod:`garesearch.events`)."""
    from .. import events

    rs = _rs(args.r, list(priors))
    atts = {name: events.Attribute(prior, r=rs[name], name=name) for name, prior in priors.items()}

    def build(node):
        if isinstance(node, str):
            return atts[node]
        parts = [build(p) for p in node[1]]
        return events.AllOf(*parts) if node[0] == "and" else events.AnyOf(*parts)

    if args.R is not None:
        raise ParameterError("--R applies to one attribute; for a goal the radii are optimised")
    _no_pointwise(args)
    _goal_sides(args)
    norm = {} if args.norm is None else {"norm": args.norm}
    res = events.epsilon_for_goal(
        build(tree), delta=args.delta, t=_goal_t(args.t, priors), sides=args.sides,
        construction=args.construction, **norm,
    )
    return _goal_report(res, args)


def _goal_sides(args) -> None:
    if args.sides == "lower":
        raise ParameterError("--sides lower applies to one attribute; for a goal use both or upper")


def _text(out: dict) -> str:
    lines = []

    def row(label, value, note=""):
        lines.append(f"{label:<17}{_fmt(value):<13} {note}".rstrip())

    unit = "per unit of the " + ("records'" if out["method"] == "goal" else "attribute's") + " distance"
    if out.get("no_noise_needed"):
        row("epsilon", out["epsilon"], NO_NOISE)
        row("Laplace scale", 0.0, "(no noise)")
    else:
        row("epsilon", out["epsilon"], unit)
        row("Laplace scale", out["laplace_scale"], f"= sensitivity {_fmt(out['sensitivity'])} / epsilon")
    if out.get("shipped_examples"):
        row("PLEAK files", ", ".join(out["shipped_examples"]), "(examples shipped with garesearch)")
    if "columns" in out:
        row("goal columns", ", ".join(out["columns"]))
    if out["method"] == "goal":
        row("event", out["event"].upper(), f"({out['construction_used']})")
        if out["construction"] == "optimal":
            _record_rows(row, out)
        else:
            row("true values t", ", ".join(f"{k}={_fmt(v)}" for k, v in out["t"].items()),
                "(given)" if out["t_given"] else "(worst case over the priors)")
        row("prior p", out["p"], "Pr[attacker's goal reached]" + (" at that record" if out["construction"] == "optimal" else ""))
        _bound_row(row, out)
        if "a" in out:
            row("radii a", ", ".join(_fmt(x) for x in out["a"]))
            row("distance", out["distance"], "largest distance in the exponent")
        row("binding side", out["binding"], f"(upper {_fmt(out['epsilon_upper'])}, lower {_fmt(out['epsilon_lower'])})")
        if out["construction"] == "optimal":
            if out["rel_width"] == 0:
                tight = "exact: no epsilon-DP mechanism exceeds delta here, one does at any larger epsilon"
            else:
                tight = "the certified bracket above"
            row("construction", "optimal", tight)
        else:
            row("construction", out["construction"])
    elif out["method"] in ("attribute", "pointwise", "optimal"):
        if out.get("far_tail"):
            row("true value t", out["t"], "(the limit at that end of the support: the worst case)")
        else:
            row("true value t", out["t"], "(given)" if out["t_given"] else "(worst case over the prior)")
        row("prior p", out["p"], f"Pr[d(X, t) <= r], r = {_fmt(out['r'])}")
        _bound_row(row, out)
        if out["method"] == "attribute":  # the pointwise bound has no comparison set
            row("radius a", out["a"], f"comparison set mass q = {_fmt(out['q'])}")
            row("distance", out["distance"], "largest distance in the exponent")
        row("binding side", out["binding"], f"(upper {_fmt(out['epsilon_upper'])}, lower {_fmt(out['epsilon_lower'])})")
        if out["method"] == "pointwise":
            row("construction", "pointwise", "each wrong value compared at its own distance")
        elif out["method"] == "optimal":
            row("construction", "optimal", "tight: no epsilon-DP mechanism exceeds delta here, "
                "the likelihood below does at any larger epsilon")
            discrete = out.get("kernel_metric") == "discrete"
            dist = "d(x, c)" if discrete else "|x - c|"
            where = " (d: the discrete metric)" if discrete else ""
            if out["witness"] == "laplace_kernel" and not out["far_tail"]:
                row("worst likelihood", f"exp(-epsilon {dist})",
                    f"c = {_fmt(out['kernel_centre'])}: the Laplace mechanism's output y = c{where}")
            elif out["witness"] == "inverted_kernel" and not out["far_tail"]:
                row("worst likelihood", f"exp(+epsilon {dist})", f"c = {_fmt(out['kernel_centre'])}{where}")
        else:
            row("construction", out["construction"])
        row("prior law", out["prior"])
    else:
        row("method", out["method"], f"only the range is known: worst prior over R = {_fmt(out['R'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    r"""Run the command; returns the exit status (module docstring: 0 done, 1 infeasible,
    2 malformed input, 3 internal error).

    Examples
    --------
    A fair coin guessed exactly, ``delta = 0.1``: :math:`\epsilon = \ln 1.5` (Sec. 4.1):

    >>> import contextlib, io, math
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     status = main(["--prior", "categorical:a=0.5,b=0.5", "--r", "0", "--delta", "0.1",
    ...                    "--json"])
    >>> status, abs(json.loads(out.getvalue())["epsilon"] - math.log(1.5)) < 1e-12
    (0, True)
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    try:
        args = build_parser().parse_args(argv)
    except _UsageError as exc:
        return fail(2, "error", f"{exc} (see --help)", as_json)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        modes = sum(bool(x) for x in (args.prior and not args.attribute, args.attribute, args.att or args.goal_file))
        if modes == 0:
            raise ParameterError("give --prior, --attribute NAME=PRIOR, or --att with --goal-file")
        if args.att or args.goal_file:
            if args.prior or args.attribute:
                raise ParameterError("--att/--goal-file replace --prior and --attribute")
            out = _pleak(args)
        elif args.attribute:
            out = _multi(args)
        else:
            out = _single(args)
        out = _no_noise(out)
    except InfeasibleError as exc:
        return fail(1, "infeasible", _one_line(exc), args.json)
    except (ParameterError, ValueError, OSError) as exc:
        return fail(2, "error", _one_line(exc), args.json)
    except RecursionError:
        return fail(2, "error", "the input nests too deeply to be read", args.json)
    except Exception as exc:  # a bug: one line, and an exit status of its own
        return fail(3, "internal error", f"{type(exc).__name__}: {_one_line(exc)} (a bug in "
                    "garesearch; please report it with the command line)", args.json)
    if args.json:
        print(json.dumps({k: _finite_or_none(v) for k, v in out.items()}, indent=2))
    else:
        print(_text(out))
    return 0


def fail(status: int, kind: str, message: str, as_json: bool) -> int:
    """Report a failure of ``garesearch epsilon`` (module docstring); returns ``status``.

    Examples
    --------
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     fail(2, "error", "delta must lie in (0, 1)", as_json=False)
    2
    >>> err.getvalue().strip()
    'garesearch epsilon: error: delta must lie in (0, 1)'
    """
    return _fail(status, kind, message, as_json, prog="garesearch epsilon")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
