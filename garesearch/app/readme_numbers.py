r"""The numbers README.md quotes, computed: the side-by-side table of epsilons for the worked
examples (Sec. 6), the claims summary line and the counts (claims, derivations, notebooks).

Not in the paper: a view of garesearch's results for the project's front page.
``make reproduce`` writes them to ``output/readme_numbers.md`` (:func:`write`), and the test
suite checks that README.md says exactly this (:func:`snippets`), with the rounding it
displays.  ``python -m garesearch.app.readme_numbers`` prints them.

Examples
--------
>>> counts()["derivations"] == len(__import__("garesearch.derivations").derivations.names())
True
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..datasets import COLOURS, GENDERS, SALARY, SHIPS, epsilon_against_a

__all__ = ["counts", "main", "notebook_names", "side_by_side", "snippets", "summary_line", "write"]

#: the continuous examples of the table, as README names them (the salary's sigma rounded as
#: the paper prints it; the ships: the paper's one-dimensional model of the distance at t = 0)
_SALARY = {"mu": SALARY["mu"], "sigma": SALARY["sigma"], "r": SALARY["r"]}
_SHIPS = {"mu": SHIPS["mu"], "sigma": math.sqrt(SHIPS["variance"]), "r": SHIPS["r"]}


def _cats_rows(delta: float) -> list[dict[str, Any]]:
    import garesearch as ga
    from garesearch.optimal.goals import epsilon_optimal
    from garesearch.priors import Categorical

    gender = ga.Attribute(Categorical(GENDERS), r=0, name="gender")
    colour = ga.Attribute(Categorical(COLOURS), r=0, name="colour")
    joint = Categorical({(c, g): p * q for c, p in COLOURS.items() for g, q in GENDERS.items()})

    def correct_or(t):  # the (colour, gender) records that share the colour or the gender
        return [v for v in joint.values if v[0] == t[0] or v[1] == t[1]]

    rows = []
    for name, goal, cmp_kw in (
        ("cats AND (`p = 0.2`)", gender & colour, {}),
        ("cats OR", gender | colour, {"correct": correct_or, "target": correct_or}),
    ):
        # the paper takes both sides for the cats (Sec. 6.1), the upper one elsewhere
        paper = ga.epsilon_for_goal(goal, delta=delta, construction="paper")
        sound = ga.epsilon_for_goal(goal, delta=delta, construction="sound").epsilon
        cmp = ga.compare_epsilons(joint, r=0, delta=delta, **cmp_kw)
        rows.append({
            "example": name,
            "paper": paper.epsilon, "paper_t": paper.t["colour"],
            "sound": sound, "pointwise": cmp.pointwise,
            "optimal": epsilon_optimal(goal, delta=delta).epsilon, "laplace": cmp.exact,
        })
    return rows


def _continuous_row(name: str, ex: dict[str, float], delta: float) -> dict[str, Any]:
    import garesearch as ga
    from garesearch.priors import Normal

    prior, r = Normal(ex["mu"], ex["sigma"]), ex["r"]
    optimal = ga.epsilon_for_attribute(prior, r=r, delta=delta)
    return {
        "example": name,
        "paper": ga.epsilon_for_attribute(prior, r=r, delta=delta, sides="upper",
                                          construction="paper").epsilon,
        "sound": ga.epsilon_for_attribute(prior, r=r, delta=delta, construction="sound").epsilon,
        "pointwise": ga.epsilon_pointwise(prior, r=r, delta=delta).epsilon,
        "optimal": optimal.epsilon, "optimal_t": float(optimal.t), "centre": float(optimal.centre),
        "laplace": ga.exact_epsilon(prior, ga.Laplace(), r=r, delta=delta),
    }


def side_by_side(delta: float = 0.1) -> str:
    r"""README's table "Epsilon for the worked examples, side by side" and the paragraph after
    it, as Markdown (every number computed; the paper's printed values from
    :mod:`garesearch.datasets`).

    Parameters
    ----------
    delta : float
        The advantage bound (0.1, as in every example of Sec. 6).

    Returns
    -------
    str

    Examples
    --------
    >>> side_by_side().splitlines()[2].startswith("| cats AND")  # doctest: +SKIP
    True
    """
    cats = _cats_rows(delta)
    salary = _continuous_row(f"salary, N({_SALARY['mu']:g}, {_SALARY['sigma']:g}), r = {_SALARY['r']:g}",
                             _SALARY, delta)
    ships = _continuous_row(f"ships, radial N(0, 1250), r = {_SHIPS['r']:g}", _SHIPS, delta)

    def none_at(name: str, ex: dict) -> str:
        infeasible = math.isnan(float(epsilon_against_a(name, ex["a"])))
        return " (no epsilon > 0 exists at its a)" if infeasible else ""

    printed = {
        cats[0]["example"]: "0.539",
        cats[1]["example"]: "0.402 (tortoise)",
        salary["example"]: f"{SALARY['eps']:g}{none_at('salary', SALARY)}",
        ships["example"]: f"{SHIPS['eps']:g}{none_at('ships', SHIPS)}",
    }
    lines = [
        "| example | paper's printed | Eq. (main) as printed, best a (not sound) | sound comparison set "
        "| pointwise bound | **optimal (any epsilon-DP mechanism)** | exact, Laplace |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in cats:
        paper = f"{row['paper']:.4f}" + (f" ({row['paper_t']})" if row is cats[1] else "")
        lines.append(f"| {row['example']} | {printed[row['example']]} | {paper} | {row['sound']:.4f} "
                     f"| {row['pointwise']:.4f} | **{row['optimal']:.4f}** | {row['laplace']:.4f} |")
    for row in (salary, ships):
        lines.append(f"| {row['example']} | {printed[row['example']]} | {_sig(row['paper'], 3)} "
                     f"| {_sig(row['sound'], 3)} | {_sig(row['pointwise'], 4)} "
                     f"| **{_sig(row['optimal'], 5)}** | {_sig(row['laplace'], 4)} |")
    shift = abs(salary["optimal_t"] - _SALARY["mu"])
    further = abs(salary["centre"] - salary["optimal_t"])
    lines += [
        "",
        "The optimum is attained by a Laplace kernel `exp(-epsilon |x - c|)` (the Laplace mechanism's",
        "output `y = c`) when the attacker's gain binds, or by the inverted kernel",
        "`exp(+epsilon |x - c|)` when the loss binds; for the salary the worst true value is",
        f"`mu +- {shift:.0f}` (not the mean) and the output `c` lies {further:.0f} units further out. The comparison set",
        f"of Eq. (main) made sound costs a factor {salary['optimal'] / salary['sound']:.1f} in noise there; the **pointwise bound**",
        "(`garesearch.epsilon_pointwise`) compares each wrong value with each correct value at its own",
        f"distance and comes within {100 * (salary['optimal'] / salary['pointwise'] - 1):.0f} % (notebook 14).",
    ]
    return "\n".join(lines)


def _sig(x: float, digits: int) -> str:
    """``x`` with ``digits`` significant digits, in positional notation (0.000721)."""
    exponent = math.floor(math.log10(abs(x)))
    return f"{x:.{max(digits - 1 - exponent, 0)}f}"


def summary_line(results: Sequence | None = None) -> str:
    """The claims summary line, in bold, as README shows it (:func:`garesearch.claims.summary_line`;
    ``results``: the checked claims, default all).

    Examples
    --------
    >>> print(summary_line([]))
    **0 claims: 0 CONFIRMED, 0 TYPO, 0 WRONG (of the paper's list of 0: 0 CONFIRMED, 0 TYPO, 0 WRONG)**
    """
    from garesearch import claims

    return f"**{claims.summary_line(claims.check_all() if results is None else results)}**"


def notebook_names() -> list[str]:
    """The notebooks, by name (without ``.ipynb``), in order.

    Examples
    --------
    >>> notebook_names()[0]
    '01_tour'
    """
    folder = Path(__file__).resolve().parents[2] / "notebooks"
    if not folder.is_dir():  # installed: the notebooks ship inside the package
        folder = Path(str(resources.files("garesearch").joinpath("notebooks")))
    return sorted(p.stem for p in folder.glob("*.ipynb"))


def counts() -> dict[str, int]:
    """The counts README quotes: ``claims``, ``paper_list`` (the paper's own list of claims),
    ``derivations``, ``pinned`` (pinned values of ``claims --verify``) and ``notebooks``.

    Examples
    --------
    >>> counts()["paper_list"]
    68
    """
    from garesearch import claims, derivations

    return {
        "claims": len(claims.claim_ids()),
        "paper_list": len(claims.claim_ids("list")),
        "derivations": len(derivations.names()),
        "pinned": len(claims.load_pins()),
        "notebooks": len(notebook_names()),
    }


def snippets(results: Sequence | None = None) -> dict[str, str]:
    """Every piece of README.md that holds a computed number, exactly as README must show it
    (``results``: the checked claims, default all).

    Examples
    --------
    >>> sorted(snippets())  # doctest: +SKIP
    ['derivations count', 'pinned values', 'side-by-side table', 'summary line']
    """
    n = counts()
    return {
        "summary line": summary_line(results),
        "side-by-side table": side_by_side(),
        "derivations count": f"| `derivations` | all | {n['derivations']} derivations stated in sympy",
        "pinned values": f"every value the report computes ({n['pinned']} of them)",
    }


def write(output_dir: str | Path = "output", results: Sequence | None = None) -> Path:
    """Write ``readme_numbers.md`` (every snippet under a heading) into ``output_dir``.

    Examples
    --------
    >>> import tempfile
    >>> write(tempfile.mkdtemp()).name  # doctest: +SKIP
    'readme_numbers.md'
    """
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    text = "\n\n".join(f"## {name}\n\n{body}" for name, body in snippets(results).items())
    text += "\n\n## notebooks\n\n" + "\n".join(f"- `{name}`" for name in notebook_names())
    path = out / "readme_numbers.md"
    path.write_text("# Numbers README.md quotes (computed by garesearch)\n\n" + text + "\n",
                    encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m garesearch.app.readme_numbers [--output DIR]``: print (or write) the snippets.

    Examples
    --------
    >>> main(["--output", "/tmp/out"])  # doctest: +SKIP
    0
    """
    parser = argparse.ArgumentParser(prog="python -m garesearch.app.readme_numbers",
                                     description="The numbers README.md quotes, computed.")
    parser.add_argument("--output", help="write readme_numbers.md into this folder")
    args = parser.parse_args(argv)
    if args.output:
        print(write(args.output))
    else:
        for name, body in snippets().items():
            print(f"## {name}\n\n{body}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
