r"""``python -m garesearch calibrate``: the noise scale for a target under one of three readings.

Beyond the paper (see :mod:`garesearch.releases.calibration`).  Give the prior (the same
specifications as ``python -m garesearch epsilon``), the precision ``--r``, the target
``--delta``, the mechanism and the reading; the command prints the noise scale per unit of the
attribute (multiply by the query's sensitivity), the reading's value there and the mechanism's
privacy parameters (pure epsilon, or mu-GDP and rho-zCDP, and epsilon at ``--dp-delta``).
``--json`` prints the same as JSON.  Malformed input exits with status 2, a target no scale can
meet with status 1.

``--help`` lists the prior specifications and runnable examples (:data:`EXAMPLES`), e.g.::

    python -m garesearch calibrate --prior normal:2000,235.7 --r 100 --delta 0.1 \
        --mechanism gaussian --reading tail --beta 1e-6
    python -m garesearch calibrate --prior categorical:0=0.8,1=0.2 --r 0 --delta 0.05 \
        --mechanism gaussian --reading average --releases 100 --sampling-prob 0.01
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from .._args import SIDES
from ..errors import InfeasibleError, ParameterError

__all__ = ["EXAMPLES", "build_parser", "main"]

#: The examples of ``--help`` (the tests run each of them).
EXAMPLES = """\
examples:
  Salaries (Sec. 6.2), Gaussian noise: a release moves the posterior of a guess within 100
  by more than 0.1 with probability at most 1e-6
    python -m garesearch calibrate --prior normal:2000,235.7 --r 100 --delta 0.1 \\
        --mechanism gaussian --reading tail --beta 1e-6

  A count in 0..4 guessed exactly, Laplace noise, worst case (Def. 7)
    python -m garesearch calibrate --prior categorical:0=0.2,1=0.1,2=0.25,3=0.4,4=0.05 \\
        --r 0 --delta 0.1

  A binary secret, 10 Gaussian releases, the average reading, and Kazan and Reiter's ratio
  at the scale found (--sampling-prob Q: each release includes the record with probability Q)
    python -m garesearch calibrate --prior categorical:0=0.8,1=0.2 --r 0 --delta 0.05 \\
        --mechanism gaussian --reading average --releases 10 --kazan-reiter 0.5,1 --kr-beta 1e-3

  Attack error rates: no membership test has false-positive rate 0.05 and false-negative
  rate below 0.5
    python -m garesearch calibrate --prior categorical:0=0.5,1=0.5 --r 0 \\
        --mechanism gaussian --reading error_rates --alpha 0.05 --beta 0.5

  A piecewise-uniform prior, guesses within 50, the attacker's gain only
    python -m garesearch calibrate --prior piecewise:0,1000,2000,5000:0.2,0.5,0.3 --r 50 \\
        --delta 0.1 --sides upper

exit status: 0 done, 1 no scale meets the target, 2 malformed input.
"""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The ``calibrate`` command's argument parser.

    Examples
    --------
    >>> args = build_parser().parse_args(["--prior", "normal:2000,235.7", "--r", "100", "--delta", "0.1"])
    >>> args.mechanism, args.reading, args.sides
    ('laplace', 'worst', 'both')
    """
    from ..additive import MECHANISMS
    from ..releases.calibration import READINGS
    from .cli import PRIOR_SYNTAX

    p = _Parser(prog="python -m garesearch calibrate",
                description="Noise scale for a bound on the attacker's advantage (worst, tail or average\n"
                            "reading; beyond the paper, whose Def. 7 is the worst-case reading).",
                epilog=PRIOR_SYNTAX + "\n" + EXAMPLES,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prior", required=True,
                   help="prior of the attribute: normal:MU,SIGMA, uniform:LOW,HIGH, categorical:V=P,V=P,... "
                        "or piecewise:E0,...,En:W1,...,Wn (see below)")
    p.add_argument("--r", type=float, required=True, help="precision of a correct guess (>= 0; 0: exact)")
    p.add_argument("--delta", type=float, default=None,
                   help="target on the advantage, in (0, 1) (every reading but error_rates)")
    p.add_argument("--mechanism", default="laplace", choices=MECHANISMS,
                   help="the additive noise: laplace (default), gaussian, gencauchy (generalised "
                        "Cauchy), or their integer variants discrete_laplace, discrete_gaussian")
    p.add_argument("--reading", default="worst", choices=READINGS,
                   help="worst (default; Def. 7): the largest move of the posterior over true values "
                        "and outputs; tail: the probability beta that a release moves it by more "
                        "than delta; average: the Bayes-optimal attacker's success minus the best "
                        "blind guess; advantage: a membership test's true-positive minus false-positive "
                        "rate; error_rates: no test has false-positive rate --alpha and false-negative "
                        "rate below --beta")
    p.add_argument("--beta", type=float, default=None,
                   help="tail reading: largest acceptable probability, in (0, 1); error_rates: the "
                        "smallest false-negative rate allowed at false-positive rate --alpha")
    p.add_argument("--alpha", type=float, default=None,
                   help="error_rates reading: the false-positive rate, in (0, 1)")
    p.add_argument("--releases", type=int, default=1, help="independent releases of the attribute (>= 1)")
    p.add_argument("--sampling-prob", type=float, default=1.0,
                   help="Poisson subsampling probability of each release, in (0, 1] (DP-SGD style, gaussian "
                        "noise, a binary secret with a value 0)")
    p.add_argument("--sides", default="both", choices=SIDES,
                   help="worst and tail readings: bound |posterior - prior| (both, default), only the "
                        "attacker's gain (upper) or only the loss (lower)")
    p.add_argument("--dp-delta", type=float, default=1e-6,
                   help="also report epsilon of (epsilon, dp_delta)-DP at this delta (default 1e-6)")
    p.add_argument("--kazan-reiter", metavar="P,Q", default=None,
                   help="also report Kazan and Reiter's posterior-to-prior ratio at the calibrated scale for "
                        "priors P (of inclusion) and Q (of the sensitive values), exceeded with probability "
                        "at most --kr-beta")
    p.add_argument("--kr-beta", type=float, default=None,
                   help="probability allowed above the Kazan-Reiter ratio (default 0 for pure epsilon-DP "
                        "noise, else --dp-delta)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return p


def _num(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _kazan_reiter(res, args) -> dict:
    """Kazan and Reiter's ratio at the calibrated scale (unit distance, all releases)."""
    from ..releases.risk_profile import kazan_reiter_profile

    try:
        p, q = (float(v) for v in args.kazan_reiter.split(","))
    except ValueError:
        raise ParameterError(f"--kazan-reiter must be P,Q (two numbers); got {args.kazan_reiter!r}") from None
    if math.isfinite(res.epsilon):
        beta = 0.0 if args.kr_beta is None else args.kr_beta
        ratio = kazan_reiter_profile(p=p, q=q, beta=beta, epsilon=res.epsilon)
    else:
        beta = args.dp_delta if args.kr_beta is None else args.kr_beta
        if res.mu is not None:
            ratio = kazan_reiter_profile(p=p, q=q, beta=beta, mu=res.mu)
        else:
            ratio = kazan_reiter_profile(p=p, q=q, beta=beta, tradeoff=res.privacy_profile().tradeoff)
    return {"p": p, "q": q, "beta": beta, "ratio": float(ratio)}


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status.

    Examples
    --------
    >>> import contextlib, io, json, math
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     status = main(["--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.1", "--json"])
    >>> # Laplace noise keeps 0.2 e^eps/(0.2 e^eps + 0.8) <= 0.3 when e^eps = 12/7
    >>> status, abs(json.loads(out.getvalue())["scale"] - 1 / math.log(12 / 7)) < 1e-9
    (0, True)
    """
    from ..priors import Categorical
    from ..releases.calibration import calibrate
    from .cli import parse_prior

    try:
        args = build_parser().parse_args(argv)
        if args.delta is None and args.reading != "error_rates":
            raise ParameterError(f"--delta is required for --reading {args.reading} (a target in (0, 1))")
        if args.alpha is not None and args.reading != "error_rates":
            raise ParameterError("--alpha applies to --reading error_rates only")
        prior = parse_prior(args.prior)
        if isinstance(prior, Categorical) and prior.metric == "discrete":
            raise ParameterError(
                f"--prior {args.prior!r}: calibrate adds noise to a number, so the values must be "
                "numbers (e.g. categorical:0=0.8,1=0.2); for named values use the epsilon command")
        res = calibrate(prior, args.mechanism, r=args.r, delta=args.delta, reading=args.reading,
                        beta=args.beta, releases=args.releases, sides=args.sides,
                        sampling_prob=args.sampling_prob, alpha=args.alpha)
        try:
            dp_eps = res.dp_epsilon(args.dp_delta)
        except ParameterError:  # no accountant installed for this mechanism
            dp_eps = None
        kr = _kazan_reiter(res, args) if args.kazan_reiter is not None else None
    except (_UsageError, ParameterError) as exc:
        print(f"garesearch calibrate: error: {exc}", file=sys.stderr)
        return 2
    except InfeasibleError as exc:
        print(f"garesearch calibrate: infeasible: {exc}", file=sys.stderr)
        return 1
    out = {"mechanism": res.mechanism, "reading": res.reading, "scale": res.scale, "value": res.value,
           "delta": res.delta, "beta": res.beta, "releases": res.releases,
           "sampling_prob": res.sampling_prob, "r": res.r, "t": res.t,
           "epsilon": _num(res.epsilon), "mu": res.mu, "rho": res.rho, "dp_delta": args.dp_delta,
           "dp_epsilon": _num(dp_eps), "expected_error": res.expected_error, "method": res.method}
    if kr is not None:
        out["kazan_reiter"] = kr
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    label = {"worst": "worst-case advantage", "tail": "beta (tail probability)", "average": "average advantage",
             "advantage": "test advantage (TPR - FPR)", "error_rates": "false-negative rate at alpha"}
    rows = [("mechanism", res.mechanism), ("reading", res.reading), ("releases", res.releases)]
    if res.sampling_prob < 1:
        rows.append(("sampling probability", f"{res.sampling_prob:g}"))
    rows += [("noise scale per unit", f"{res.scale:.6g}"), (label[res.reading], f"{res.value:.6g}")]
    if isinstance(res.expected_error, float):
        rows.append(("mean |error| per release, per unit", f"{res.expected_error:.6g}"))
    if res.t is not None:
        rows.append(("worst true value t", f"{res.t:.6g}"))
    rows.append(("pure epsilon (all releases)", "none (not epsilon-DP)" if not math.isfinite(res.epsilon)
                 else f"{res.epsilon:.6g}"))
    if res.mu is not None:
        rows += [("mu-GDP", f"{res.mu:.6g}"), ("rho-zCDP", f"{res.rho:.6g}")]
    if dp_eps is not None:
        rows.append((f"epsilon at dp_delta={args.dp_delta:g}", f"{dp_eps:.6g}"))
    if kr is not None:
        rows.append((f"Kazan-Reiter ratio (p={kr['p']:g}, q={kr['q']:g}, beta={kr['beta']:g})",
                     f"{kr['ratio']:.6g}"))
    rows.append(("method", res.method))
    width = max(len(k) for k, _ in rows)
    print("\n".join(f"{k:<{width}}  {v}" for k, v in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
