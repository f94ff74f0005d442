"""The counterexamples, in one place: priors and mechanisms at which a construction of the
paper is not sound.

- :func:`paper_counterexample`: Eq. (main) with the paper's exponent ``a`` (Sec. 4.1);
- :func:`soundness_search` and :func:`soundness_counterexamples`: a search for priors and
  mechanisms at which Eq. (main) (Sec. 3.2) fails: the exact advantage of a mechanism
  (:mod:`garesearch.exact`) at a construction's epsilon;
- :func:`theorem2_counterexample`: Theorem 2's OR construction as printed (defined with the
  comparison sets, :mod:`garesearch.constructions.comparison_sets`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import bound
from .._args import renamed_keywords
from ..attribute import epsilon_for_attribute
from ..errors import InfeasibleError, ParameterError
from ..exact.core import exact_advantage
from ..mechanisms import GenCauchy, Laplace, Mechanism
from ..priors import Categorical, Continuous, Normal, PiecewiseUniform, Uniform
from ._paper_counterexample import paper_counterexample
from .comparison_sets import theorem2_counterexample

__all__ = [
    "paper_counterexample",
    "soundness_counterexamples",
    "soundness_search",
    "theorem2_counterexample",
]


# ------------------------------------------------------------------------------------------
# Soundness search: can an epsilon from the paper's formulas let the exact advantage exceed delta?
# ------------------------------------------------------------------------------------------
def _random_categorical(rng, k):
    gaps = rng.uniform(0.2, 3.0, k - 1)
    x = np.round(np.concatenate([[0.0], np.cumsum(gaps)]), 3)
    w = rng.dirichlet(np.full(k, 0.7))
    w = np.maximum(w, 0.01)
    return Categorical(dict(zip(x.tolist(), (w / w.sum()).tolist(), strict=True)))


def _random_mixture(rng):
    """A narrow spike (nearly an atom) inside a wide piecewise-uniform body."""
    width = rng.uniform(5.0, 12.0)
    at = rng.uniform(0.0, width - 0.05)
    edges = np.unique(np.round([0.0, at, at + 0.05, width], 4))
    w = rng.dirichlet(np.ones(edges.size - 1))
    w = np.maximum(w, 0.02)
    return PiecewiseUniform(edges, w / w.sum())


def _search_cases(size: str):
    """A fixed list of (label, prior, r, delta): asymmetric atoms, mixtures, skewed and normal priors."""
    from scipy import stats

    rng = np.random.default_rng(20240607)
    n_cat, n_mix = (6, 1) if size == "small" else (40, 12)
    cases = [
        ("atoms at t-r, t, t+a", Categorical({-1.0: 0.3, 0.0: 0.02, 2.0: 0.68}), 1.0, 0.1),
        ("atoms at t-r, t, t+a, far", Categorical({-1.0: 0.2, 0.0: 0.05, 2.0: 0.5, 40.0: 0.25}), 1.0, 0.1),
    ]
    for i in range(n_cat):
        prior = _random_categorical(rng, int(rng.integers(3, 7)))
        cases.append((f"random atoms #{i}", prior, float(rng.choice([0.5, 1.0, 1.5])),
                      float(rng.choice([0.05, 0.1, 0.2]))))
    for i in range(n_mix):
        cases.append((f"spike + body #{i}", _random_mixture(rng), float(rng.choice([0.5, 1.0])),
                      float(rng.choice([0.1, 0.2]))))
    if size != "small":
        cases.append(("Normal(0, 1)", Normal(0.0, 1.0), 0.5, 0.1))
        cases.append(("Uniform(0, 10)", Uniform(0.0, 10.0), 1.0, 0.1))
        cases.append(("Normal(0, 1), r=0.25", Normal(0.0, 1.0), 0.25, 0.05))
        cases.append(("gamma(2)", Continuous(stats.gamma(2.0)), 0.5, 0.1))
        cases.append(("lognormal(0.6)", Continuous(stats.lognorm(0.6)), 0.5, 0.1))
    return cases


def _paper_R(prior):
    try:
        return prior.paper_R()
    except ParameterError:
        q = np.asarray(prior.quantile(np.array([1e-5, 1 - 1e-5])), float)
        return float(q[1] - q[0])


def _check_case(label, prior, r, delta, construction, sides, mechanism, tol):

    R = _paper_R(prior) if construction == "paper" else None
    try:
        with warnings.catch_warnings():  # Brent's method inside sees -inf where q is infeasible
            warnings.simplefilter("ignore", RuntimeWarning)
            res = epsilon_for_attribute(prior, r=r, delta=delta, construction=construction, R=R, sides=sides)
    except (InfeasibleError, ParameterError):
        return None
    if not math.isfinite(res.epsilon):
        return None
    ex = exact_advantage(prior, mechanism, epsilon=res.epsilon, r=r, sides=sides)
    return dict(source=f"epsilon_for_attribute(construction={construction!r}, sides={sides!r})", label=label,
                prior=prior, r=r, delta=delta, epsilon=res.epsilon, t=ex.t, y=ex.y, side=ex.side,
                p=ex.p, exact_advantage=ex.advantage, violated=ex.advantage > delta + tol)


def _check_eq_main(label, prior, r, delta, a, t, mechanism, tol):
    """Eq. (main) with q = g_t(a) - g_t(r) and exponent a, at one true value t (upper side)."""

    p = float(prior.ball_mass(t, r))
    q = float(prior.ball_mass(t, a)) - p
    if not (0 < p < 1 and q > 0):
        return None
    eps = float(bound.epsilon_for_advantage(delta=delta, p=p, q=q, a=a, infeasible="nan"))
    if not (math.isfinite(eps) and eps > 0):
        return None
    ex = exact_advantage(prior, mechanism, epsilon=eps, r=r, t=t, sides="upper")
    return dict(source=f"bound.epsilon_for_advantage(q=g(a)-g(r), a={a:g})", label=label, prior=prior,
                r=r, delta=delta, epsilon=eps, t=t, y=ex.y, side="upper", p=p,
                exact_advantage=ex.advantage, violated=ex.advantage > delta + tol)


@renamed_keywords(tol="atol")
def soundness_search(construction: str = "paper", *, size: str = "small", mechanism: Mechanism | None = None,
                     atol: float = 1e-6, eq_main: bool | None = None) -> list[dict]:
    r"""Search fixed, seeded families of priors for an epsilon that lets the exact advantage exceed delta.

    For each case (asymmetric finite priors, spike-plus-body mixtures, Normal, Uniform and, with
    ``size="large"``, skewed scipy priors) the epsilon of
    :func:`~garesearch.attribute.epsilon_for_attribute` with the given ``construction`` is fed
    to ``mechanism`` (default Laplace, which is :math:`\epsilon`-DP), and the exact worst-case
    advantage is compared with ``delta``.  With ``construction="paper"`` (and ``eq_main``
    true, its default there) it also tries Eq. (main) with :math:`q = g(a) - g(r)` and exponent
    ``a`` directly (:func:`garesearch.bound.epsilon_for_advantage`) at every atom, or at the
    mean, for several ``a``.  A case counts as violated when its advantage exceeds ``delta``
    by more than ``atol`` (absolute; ``tol=``, its old name, is deprecated).

    Returns
    -------
    list of dict
        One record per case checked: ``source``, ``label``, ``prior``, ``r``, ``delta``,
        ``epsilon``, ``t``, ``y``, ``side``, ``p``, ``exact_advantage`` and ``violated``
        (``exact_advantage > delta + atol``).

    Examples
    --------
    The sound construction is never beaten on the small family:

    >>> records = soundness_search("sound")
    >>> len(records) > 0, any(rec["violated"] for rec in records)
    (True, False)
    """
    if construction not in ("paper", "sound"):
        raise ParameterError(f"construction must be 'paper' or 'sound'; got {construction!r}")
    if size not in ("small", "large"):
        raise ParameterError(f"size must be 'small' or 'large'; got {size!r}")
    mechanism = Laplace() if mechanism is None else mechanism
    eq_main = construction == "paper" if eq_main is None else eq_main
    out = []
    for label, prior, r, delta in _search_cases(size):
        for sides in ("both", "upper"):
            rec = _check_case(label, prior, r, delta, construction, sides, mechanism, atol)
            if rec is not None:
                out.append(rec)
        if not eq_main:
            continue
        if isinstance(prior, Categorical):
            ts = prior.points
        else:
            ts = np.asarray(prior.quantile(np.array([0.02, 0.1, 0.3, 0.5])), float)
        for t in ts:
            for a in (1.5 * r, 2 * r, 3 * r, 5 * r):
                rec = _check_eq_main(label, prior, r, delta, a, float(t), mechanism, atol)
                if rec is not None:
                    out.append(rec)
    return out


def soundness_counterexamples() -> list[dict]:
    r"""Counterexamples to the soundness of Eq. (main) with exponent ``a``, recomputed on each call.

    The prior puts mass 0.3 at ``t - r = -1``, 0.02 at the true value ``t = 0`` and 0.68 at
    ``t + a = 2`` (``r = 1``, ``a = 2``), the shape :func:`soundness_search` finds.  Eq. (main)
    at ``t`` takes ``p = g(r) = 0.32``, ``q = g(a) - g(r) = 0.68`` and exponent ``a = 2``, but the
    atoms at -1 and 2 are ``a + r = 3`` apart.  The Laplace mechanism (and the generalised
    Cauchy one, both :math:`\epsilon`-DP) at that epsilon lets the posterior of
    :math:`X' = [-1, 1]` exceed ``p + delta``.  Each entry: ``source``, ``label``, ``prior``,
    ``r``, ``delta``, ``epsilon``, ``t``, ``y``, ``side``, ``p``, ``exact_advantage``,
    ``violated``, ``mechanism``.

    Examples
    --------
    The first entry's posterior at :math:`y \to -\infty` from the atoms directly (weights
    :math:`\pi(x) e^{-\epsilon x}`):

    >>> import math
    >>> rec = soundness_counterexamples()[0]
    >>> e = rec["epsilon"]
    >>> w = {-1.0: 0.3 * math.exp(e), 0.0: 0.02, 2.0: 0.68 * math.exp(-2 * e)}
    >>> post = (w[-1.0] + w[0.0]) / sum(w.values())
    >>> abs(rec["exact_advantage"] - (post - 0.32)) < 1e-9, rec["exact_advantage"] > rec["delta"]
    (True, True)
    """
    prior = Categorical({-1.0: 0.3, 0.0: 0.02, 2.0: 0.68})
    out = []
    for delta in (0.05, 0.1, 0.2):
        for mech in (Laplace(), GenCauchy()):
            rec = _check_eq_main("atoms at t-r, t, t+a", prior, 1.0, delta, 2.0, 0.0, mech, 0.0)
            rec["mechanism"] = repr(mech)
            if rec["violated"]:
                out.append(rec)
    return out
