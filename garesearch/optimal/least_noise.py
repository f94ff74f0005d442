r"""The least-noise mechanism that keeps the advantage within delta, found directly as a linear
program over mechanisms (Def. 7, Sec. 4.1; beyond the paper).

The paper, like every calibration tool, picks a family first (Laplace noise) and then its
scale.  Its real question is the advantage itself: on a finite set of inputs :math:`X` (the
prior's support, or a continuous prior discretised by :func:`discretise`) and a finite set of
outputs :math:`Y`, a mechanism is a row-stochastic matrix :math:`M[x, y] = \Pr[y \mid x]`.

The program
-----------
With the prior :math:`p` and the output marginal :math:`q_y = \sum_x p_x M[x, y]`, the
posterior of the ball :math:`B = \mathcal B(t, r) \cap X` after the output ``y`` is
:math:`\sum_{x \in B} p_x M[x, y] / q_y`, so Def. 7's two sides are *linear* in ``M``:

.. math::

    \sum_{x \in B} p_x M[x, y] - (P(B) + \delta)\, q_y \le 0 \quad(\text{upper}), \qquad
    (P(B) - \delta)\, q_y - \sum_{x \in B} p_x M[x, y] \le 0 \quad(\text{lower}),

for every true value ``t`` (every atom of the prior, as :func:`garesearch.epsilon_for_attribute`
takes them) and every output ``y``.  Minimising the expected cost
:math:`\sum_{x, y} p_x M[x, y]\, c(x, y)` with :math:`c = d(x, y)` (``"abs"``),
:math:`d(x, y)^2` (``"sq"``) or :math:`[x \ne y]` (``"zero_one"``) over row-stochastic ``M``
is a linear program (the variables :math:`q_y` are kept explicit, which keeps the constraint
matrix sparse).  ``dp_epsilon`` adds Def. 1's constraints
:math:`M[x, y] \le e^{\epsilon d(x, x')} M[x', y]`; on the line they are needed only between
neighbouring inputs (the distances add up along the line), under the discrete metric between
every pair.  The result is the mechanism of least expected cost among all mechanisms on
these grids: with ``dp_epsilon`` among the epsilon-DP ones (Geng and Viswanath's staircase
question, here with the advantage bound on top), without it among all that keep the advantage
within delta.

Numerical safety
----------------
HiGHS (:func:`scipy.optimize.linprog`: ``method="highs-ipm"``, interior point with crossover
to a vertex, then ``"highs-ds"`` if that fails) meets each constraint to about 1e-10, and an output of tiny probability can turn that into a large posterior excess.  The
returned matrix is therefore checked again: entries below 0 are set to 0, rows renormalised,
and every constraint recomputed from the matrix.  Where one is violated the matrix is mixed
with the uniform constant mechanism :math:`U[x, y] = 1/|Y|` (advantage 0, epsilon 0): every
constraint above is linear in ``M``, so the mixture's constraint value is the same convex
combination of the two values, and the smallest weight that makes all of them non-positive
is computed in closed form (:attr:`LeastNoiseResult.mixing_weight`).  The reported
``advantage`` is recomputed from the final matrix.

Against Laplace noise
---------------------
The result carries the Laplace mechanism at the optimal epsilon
(:func:`garesearch.epsilon_for_attribute` on the same finite prior), *discretised on the same
output grid by rounding to the nearest output* (:func:`laplace_on_grid`): an output ``y_j``
receives the Laplace mass of the cell between the midpoints to its neighbours, the end cells
running out to infinity.  Rounding is post-processing, so that matrix is epsilon-DP and every
posterior it gives is an average of the continuous mechanism's posteriors over a cell: it is
feasible for both programs (with ``dp_epsilon`` the optimal epsilon or larger), and their
optima cost at most as much.  Beside it, the continuous Laplace mechanism's exact expected
cost: :math:`E|N| = 1/\epsilon` (``"abs"``), :math:`E N^2 = 2/\epsilon^2` (``"sq"``), and 1
(``"zero_one"``: a continuous output never equals the input).  Under the discrete metric the
counterpart is k-ary randomised response,
:math:`M[x, y] = e^{\epsilon [x = y]} / (e^\epsilon + k - 1)`.

Examples
--------
>>> from garesearch.priors import Categorical
>>> res = least_noise_mechanism(Categorical({0: 0.5, 1: 0.5}), r=0, delta=0.1)
>>> round(res.expected_cost, 9), round(res.advantage, 9)   # 1/2 - delta: answer right w.p. 0.6
(0.4, 0.1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._args import SIDES
from .._univariate import check_common
from ..errors import InfeasibleError, ParameterError
from ..priors import Categorical, Prior

__all__ = [
    "COSTS",
    "MAX_VARIABLES",
    "LeastNoiseResult",
    "compare_mechanisms",
    "comparison_rows",
    "discretise",
    "laplace_on_grid",
    "least_noise_mechanism",
    "mechanism_advantage",
    "mechanism_epsilon",
    "plot_mechanisms",
]

#: the costs ``least_noise_mechanism`` minimises in expectation, as functions of the distance
COSTS = ("abs", "sq", "zero_one")
#: the largest number of matrix entries (inputs times outputs) one program may have
MAX_VARIABLES = 10_000  # 100 x 100: HiGHS takes up to about 20 s
#: the largest ``dp_epsilon`` times distance between neighbouring inputs: the coefficient
#: e^20 = 4.9e8 is about as far as a double-precision LP resolves a ratio
MAX_EXPONENT = 20.0

_HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
#: HiGHS's interior point method (with crossover to a vertex) first: several times faster than
#: its dual simplex on these programs; the dual simplex if it does not report an optimum
_METHODS = ("highs-ipm", "highs-ds")


@dataclass(frozen=True)
class LeastNoiseResult:
    """What :func:`least_noise_mechanism` found.

    Attributes
    ----------
    matrix : ndarray
        The mechanism, ``matrix[i, j] = Pr[outputs[j] | inputs[i]]`` (rows sum to 1).
    inputs : ndarray or list
        The prior's values (floats on the line, labels under the discrete metric).
    outputs : ndarray or list
        The output grid.
    probs : ndarray
        The prior masses of ``inputs``.
    expected_cost : float
        :math:`\\sum_{i,j} p_i M_{ij} c(x_i, y_j)`, recomputed from ``matrix``.
    advantage : float
        The largest posterior excess over every ball, output (of positive probability) and
        requested side, recomputed from ``matrix`` (:func:`mechanism_advantage`).
    dp_epsilon : float or None
        The epsilon-DP constraint imposed (``None``: none).
    realised_epsilon : float
        The smallest epsilon for which ``matrix`` is epsilon-DP (:func:`mechanism_epsilon`;
        ``inf`` when an output is impossible from one input and possible from another).
    status, message : int, str
        HiGHS's status (0: optimal) and its method and message.
    mixing_weight : float
        The weight of the uniform constant mechanism mixed in to undo HiGHS's tolerance (0 when
        the solution met every constraint as returned; module docstring).
    constant_cost : float
        The expected cost of the best constant mechanism (always the same output; advantage
        0, epsilon 0): what answering without looking at the data costs.
    optimal_epsilon : float or None
        :func:`garesearch.epsilon_for_attribute` on the same prior (``None``: it raised, see
        ``laplace_note``).
    laplace_matrix : ndarray or None
        The Laplace mechanism at ``optimal_epsilon`` rounded to the nearest output
        (:func:`laplace_on_grid`; randomised response under the discrete metric).
    laplace_cost, laplace_advantage : float or None
        Its expected cost and advantage, computed as for ``matrix``.
    laplace_continuous_cost : float or None
        The continuous Laplace mechanism's exact expected cost at ``optimal_epsilon``
        (``1/eps``, ``2/eps**2``, 1; ``None`` under the discrete metric).
    laplace_note : str
        How the Laplace counterpart was formed, or why it is missing.
    """

    matrix: np.ndarray = field(repr=False)
    inputs: Any = field(repr=False)
    outputs: Any = field(repr=False)
    probs: np.ndarray = field(repr=False)
    expected_cost: float
    advantage: float
    dp_epsilon: float | None
    realised_epsilon: float
    r: float
    delta: float
    sides: str
    cost: str
    status: int
    message: str
    mixing_weight: float
    constant_cost: float
    optimal_epsilon: float | None
    laplace_matrix: np.ndarray | None = field(repr=False)
    laplace_cost: float | None
    laplace_advantage: float | None
    laplace_continuous_cost: float | None
    laplace_note: str = field(repr=False)


# ------------------------------------------------------------------------------------------
# the finite problem
# ------------------------------------------------------------------------------------------
def discretise(prior: Prior, n: int, *, lo: float | None = None, hi: float | None = None) -> Categorical:
    r"""A continuous prior on ``n`` equally spaced points (for :func:`least_noise_mechanism`).

    The points are ``numpy.linspace(lo, hi, n)``; each carries the prior mass of its cell, the
    interval between the midpoints to its neighbours, the two end cells running out to the
    ends of the support, so that the masses (from the prior's CDF, :meth:`Prior.mass`) sum to
    1.  A point whose cell holds no mass is dropped (:class:`~garesearch.priors.Categorical`).
    The balls :math:`\mathcal B(t, r)` of Sec. 4.1 are then taken on these points.

    Parameters
    ----------
    prior : Prior
        A prior on the line (:mod:`garesearch.priors`).
    n : int
        Number of points, at least 2.
    lo, hi : float, optional
        The end points; default the prior's 1e-4 and 1 - 1e-4 quantiles (the support's ends
        where those are finite and nearer).

    Returns
    -------
    Categorical

    Raises
    ------
    ParameterError
        ``n < 2``, ``lo >= hi``, a non-numeric prior.

    Examples
    --------
    >>> from garesearch.priors import Normal
    >>> grid = discretise(Normal(0, 1), 5, lo=-2, hi=2)
    >>> grid.points.tolist()
    [-2.0, -1.0, 0.0, 1.0, 2.0]
    >>> round(float(grid.probs[2]), 6)   # Pr[-0.5 <= X <= 0.5]
    0.382925
    """
    if not isinstance(prior, Prior) or getattr(prior, "metric", "absolute") != "absolute":
        raise ParameterError("prior must be a garesearch.priors.Prior on the line (numeric values)")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ParameterError(f"n must be an integer >= 2; got {n!r}")
    low, high = prior.support
    if lo is None:
        lo = max(low, float(prior.quantile(1e-4)))
    if hi is None:
        hi = min(high, float(prior.quantile(1 - 1e-4)))
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise ParameterError(f"{name} must be a finite number; got {v!r}")
    if not lo < hi:
        raise ParameterError(f"lo must be < hi; got lo={lo!r}, hi={hi!r}")
    x = np.linspace(float(lo), float(hi), int(n))
    edges = np.concatenate([[-math.inf], (x[1:] + x[:-1]) / 2, [math.inf]])
    mass = np.asarray(prior.mass(edges[:-1], edges[1:]), dtype=float)
    mass = mass / math.fsum(mass)  # removes the rounding of the CDF differences
    return Categorical(dict(zip(x.tolist(), mass.tolist(), strict=True)))


class _Grid:
    """Inputs, outputs, distances and balls of one problem."""

    def __init__(self, prior, r, outputs, cost):
        if not isinstance(prior, Categorical):
            raise ParameterError(
                f"prior must be a finite prior (garesearch.priors.Categorical); got "
                f"{type(prior).__name__}: discretise a continuous prior first, "
                "garesearch.optimal.least_noise.discretise(prior, n)")
        if cost not in COSTS:
            raise ParameterError(f"cost must be one of {COSTS}; got {cost!r}")
        self.numeric = prior.metric == "absolute"
        self.p = np.asarray(prior.probs, dtype=float)
        n = self.p.size
        if self.numeric:
            self.x = np.asarray(prior.points, dtype=float)
            if outputs is None:
                y = self.x.copy()
            else:
                y = np.asarray(outputs, dtype=float) if _numbers(outputs) else None
                if y is None or y.ndim != 1 or y.size < 1 or not np.all(np.isfinite(y)):
                    raise ParameterError("outputs must be a non-empty 1-d sequence of finite numbers")
                y = np.sort(y)
                if np.any(np.diff(y) == 0):
                    raise ParameterError("outputs must be distinct numbers")
            self.y = y
            dist = np.abs(self.y[None, :] - self.x[:, None])
            inside = np.abs(self.x[None, :] - self.x[:, None]) <= r
        else:
            self.x = list(prior.values)
            if outputs is None:
                y = list(self.x)
            else:
                y = list(outputs)
                if not y or len(set(y)) != len(y):
                    raise ParameterError("outputs must be a non-empty sequence of distinct labels")
            self.y = y
            dist = np.array([[0.0 if a == b else 1.0 for b in y] for a in self.x])
            inside = np.eye(n, dtype=bool) if r < 1 else np.ones((n, n), dtype=bool)
        self.n, self.m = n, len(self.y)
        if self.n * self.m > MAX_VARIABLES:
            raise ParameterError(
                f"inputs times outputs must be at most {MAX_VARIABLES}; got {self.n} x {self.m}: "
                "use a coarser grid")
        self.cost = {"abs": dist, "sq": dist**2, "zero_one": (dist > 0).astype(float)}[cost]
        # the distinct balls B(t, r) over the true values t (every atom)
        rows = {row.tobytes(): row for row in inside}
        self.balls = np.array(list(rows.values()))
        self.ball_mass = np.array([math.fsum(self.p[b]) for b in self.balls])
        # pairs whose DP constraints imply all others, with their distances
        if self.numeric:
            gap = np.diff(self.x)
            i = np.arange(n - 1)
            self.pairs = np.concatenate([np.stack([i, i + 1], 1), np.stack([i + 1, i], 1)])
            self.pair_dist = np.concatenate([gap, gap])
        else:
            a, b = np.nonzero(~np.eye(n, dtype=bool))
            self.pairs = np.stack([a, b], 1)
            self.pair_dist = np.ones(a.size)


def _numbers(values) -> bool:
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        return False
    return arr.dtype.kind in "iuf"


def _excess(grid: _Grid, matrix: np.ndarray, delta: float, sides: str):
    """Constraint values of Def. 7's two sides, ``(upper, lower)``, shape (balls, outputs)."""
    joint = grid.p[:, None] * matrix
    q = joint.sum(axis=0)
    inside = grid.balls.astype(float) @ joint
    upper = inside - (grid.ball_mass[:, None] + delta) * q[None, :]
    lower = (grid.ball_mass[:, None] - delta) * q[None, :] - inside
    if sides == "upper":
        lower = np.full_like(lower, -np.inf)
    elif sides == "lower":
        upper = np.full_like(upper, -np.inf)
    return upper, lower


def _advantage(grid: _Grid, matrix: np.ndarray, sides: str) -> float:
    joint = grid.p[:, None] * matrix
    q = joint.sum(axis=0)
    used = q > 0
    if not np.any(used):
        return 0.0
    post = (grid.balls.astype(float) @ joint[:, used]) / q[used]
    prior = grid.ball_mass[:, None]
    parts = []
    if sides in ("both", "upper"):
        parts.append(np.max(post - prior))
    if sides in ("both", "lower"):
        parts.append(np.max(prior - post))
    return float(max(parts))


def _epsilon(grid: _Grid, matrix: np.ndarray) -> float:
    a, b = matrix[grid.pairs[:, 0]], matrix[grid.pairs[:, 1]]
    if np.any((a > 0) & (b == 0)):
        return math.inf
    both = (a > 0) & (b > 0)
    if not np.any(both):
        return 0.0
    with np.errstate(divide="ignore"):
        ratio = np.where(both, np.log(np.where(both, a, 1.0)) - np.log(np.where(both, b, 1.0)), 0.0)
    return float(max(0.0, np.max(ratio / grid.pair_dist[:, None])))


def _check_matrix(grid: _Grid, matrix) -> np.ndarray:
    mat = np.asarray(matrix, dtype=float)
    if mat.shape != (grid.n, grid.m):
        raise ParameterError(f"matrix must have shape (inputs, outputs) = {(grid.n, grid.m)}; got {mat.shape}")
    if not np.all(np.isfinite(mat)) or np.any(mat < 0) or np.any(np.abs(mat.sum(axis=1) - 1) > 1e-9):
        raise ParameterError("matrix must be finite, >= 0, with rows summing to 1 (within 1e-9)")
    return mat


def mechanism_advantage(prior: Categorical, matrix, *, r: float, sides: str = "both", outputs=None) -> float:
    r"""The advantage of a mechanism given as a matrix: the largest
    :math:`\Pr_{post}[\mathcal B(t, r) \mid y] - \Pr[\mathcal B(t, r)]` (``"upper"``), its
    negative (``"lower"``) or both, over every true value ``t`` (every atom) and every output of
    positive probability (Def. 7, Sec. 4.1).

    Parameters
    ----------
    prior : Categorical
    matrix : array_like
        ``matrix[i, j] = Pr[outputs[j] | prior.values[i]]``.
    r : float
        Precision of a correct guess, ``r >= 0``.
    sides : {"both", "upper", "lower"}
    outputs : sequence, optional
        The output grid (default: the prior's values); only its size matters here.

    Returns
    -------
    float

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> round(mechanism_advantage(coin, [[0.75, 0.25], [0.25, 0.75]], r=0), 12)
    0.25
    """
    check_common(prior, r, 0.5, sides, SIDES)
    grid = _Grid(prior, r, outputs, "abs")
    return _advantage(grid, _check_matrix(grid, matrix), sides)


def mechanism_epsilon(prior: Categorical, matrix, *, outputs=None) -> float:
    r"""The smallest epsilon for which a matrix is epsilon-DP w.r.t. the attribute's distance
    (Def. 1, :math:`M[x, y] \le e^{\epsilon d(x, x')} M[x', y]`): the largest
    :math:`\ln(M[x, y] / M[x', y]) / d(x, x')` over neighbouring inputs (all pairs under the
    discrete metric), ``inf`` when an output is possible from one input and not another.

    Examples
    --------
    >>> import math
    >>> from garesearch.priors import Categorical
    >>> coin = Categorical({0: 0.5, 1: 0.5})
    >>> math.isclose(mechanism_epsilon(coin, [[0.75, 0.25], [0.25, 0.75]]), math.log(3))
    True
    """
    grid = _Grid(prior, 0.0, outputs, "abs")
    return _epsilon(grid, _check_matrix(grid, matrix))


def laplace_on_grid(inputs, outputs, epsilon: float) -> np.ndarray:
    r"""The Laplace mechanism :math:`y = x + N`, :math:`N \sim \mathrm{Lap}(1/\epsilon)`,
    rounded to the nearest output (App. A.1; the discretisation of :func:`least_noise_mechanism`).

    Output ``y_j`` receives the Laplace mass of the cell between the midpoints to its
    neighbours (the end cells run out to infinity); each mass is a difference of the CDF taken
    on the side of ``x`` where it does not cancel.  ``epsilon = inf`` rounds ``x`` itself.

    Parameters
    ----------
    inputs, outputs : array_like
        Finite numbers; ``outputs`` increasing.
    epsilon : float
        Epsilon per unit of distance, > 0 (``inf`` allowed).

    Returns
    -------
    ndarray
        Shape ``(len(inputs), len(outputs))``, rows summing to 1.

    Examples
    --------
    >>> import math
    >>> m = laplace_on_grid([0.0], [-1.0, 0.0, 1.0], math.log(2))
    >>> [round(float(v), 12) for v in m[0]]   # cells (-inf, -1/2], [-1/2, 1/2], [1/2, inf)
    [0.353553390593, 0.292893218813, 0.353553390593]
    """
    x = np.asarray(inputs, dtype=float)
    y = np.asarray(outputs, dtype=float)
    if x.ndim != 1 or y.ndim != 1 or y.size < 1 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ParameterError("inputs and outputs must be 1-d sequences of finite numbers")
    if np.any(np.diff(y) <= 0):
        raise ParameterError("outputs must be strictly increasing")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.integer, np.floating)) \
            or math.isnan(epsilon) or not epsilon > 0:
        raise ParameterError(f"epsilon must be a number > 0 (inf allowed); got {epsilon!r}")
    edges = np.concatenate([[-math.inf], (y[1:] + y[:-1]) / 2, [math.inf]])
    if math.isinf(epsilon):
        out = np.zeros((x.size, y.size))
        out[np.arange(x.size), np.clip(np.searchsorted(edges, x, side="right") - 1, 0, y.size - 1)] = 1.0
        return out
    za = epsilon * (edges[None, :-1] - x[:, None])
    zb = epsilon * (edges[None, 1:] - x[:, None])
    with np.errstate(over="ignore", invalid="ignore"):
        width = -np.expm1(-(zb - za))  # 1 - e^{-(zb - za)}; zb - za is inf only at an end
        right = 0.5 * np.exp(-np.where(za >= 0, za, 0.0)) * width  # cell right of x
        left = 0.5 * np.exp(np.where(zb <= 0, zb, 0.0)) * width  # cell left of x
        across = 1.0 - 0.5 * np.exp(np.minimum(za, 0.0)) - 0.5 * np.exp(-np.maximum(zb, 0.0))
    out = np.where(za >= 0, right, np.where(zb <= 0, left, across))
    return out / out.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------------------------------
# the linear program
# ------------------------------------------------------------------------------------------
def _program(grid: _Grid, delta: float, sides: str, dp_epsilon: float | None):
    from scipy import sparse

    n, m = grid.n, grid.m
    nv = n * m + m  # M[i, j] at i * m + j, then q_j

    def var(i, j):
        return i * m + j

    rows, cols, vals, nrows = [], [], [], 0
    jj = np.arange(m)
    # Def. 7: sum_{B} p_i M[i, j] -/+ (P(B) +/- delta) q_j <= 0, one row per (ball, side, output)
    for ball, mass in zip(grid.balls, grid.ball_mass, strict=True):
        members = np.flatnonzero(ball)
        for sign, level, wanted in ((1.0, mass + delta, ("both", "upper")),
                                    (-1.0, mass - delta, ("both", "lower"))):
            if sides not in wanted:
                continue
            r_idx = nrows + jj
            rows += [np.repeat(r_idx, members.size), r_idx]
            cols += [var(members[None, :], jj[:, None]).ravel(), n * m + jj]
            vals += [np.tile(sign * grid.p[members], m), np.full(m, -sign * level)]
            nrows += m
    # Def. 1 between neighbours: M[a, j] - e^{eps d} M[b, j] <= 0
    if dp_epsilon is not None:
        factor = np.exp(dp_epsilon * grid.pair_dist)
        for (a, b), f in zip(grid.pairs, factor, strict=True):
            r_idx = nrows + jj
            rows += [r_idx, r_idx]
            cols += [var(a, jj), var(b, jj)]
            vals += [np.ones(m), np.full(m, -f)]
            nrows += m
    a_ub = sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(nrows, nv))
    # rows of M sum to 1; q_j = sum_i p_i M[i, j]
    ii = np.repeat(np.arange(n), m)
    eq_rows = np.concatenate([ii, n + np.tile(jj, n), n + jj])
    eq_cols = np.concatenate([np.arange(n * m), np.arange(n * m), n * m + jj])
    eq_vals = np.concatenate([np.ones(n * m), np.repeat(grid.p, m), -np.ones(m)])
    a_eq = sparse.csr_array((eq_vals, (eq_rows, eq_cols)), shape=(n + m, nv))
    b_eq = np.concatenate([np.ones(n), np.zeros(m)])
    scale = float(np.max(grid.cost)) or 1.0
    c = np.concatenate([(grid.p[:, None] * grid.cost).ravel() / scale, np.zeros(m)])
    return c, a_ub, a_eq, b_eq


def _repair(grid: _Grid, matrix: np.ndarray, delta: float, sides: str, dp_epsilon: float | None):
    """Mix ``matrix`` with the uniform constant mechanism by the smallest weight that makes
    every constraint of the program hold as computed from the matrix (module docstring)."""
    m = grid.m
    upper, lower = _excess(grid, matrix, delta, sides)
    # the uniform mechanism's values: -delta / m on both sides, (1 - e^{eps d}) / m for DP rows
    g = [upper.ravel(), lower.ravel()]
    g_u = [np.full(upper.size, -delta / m), np.full(lower.size, -delta / m)]
    if dp_epsilon is not None:
        a, b = matrix[grid.pairs[:, 0]], matrix[grid.pairs[:, 1]]
        factor = np.exp(dp_epsilon * grid.pair_dist)[:, None]
        g.append((a - factor * b).ravel())
        g_u.append(np.broadcast_to((1 - factor) / m, a.shape).ravel())
    g, g_u = np.concatenate(g), np.concatenate(g_u)
    bad = g > 0
    if not np.any(bad):
        return matrix, 0.0
    weight = float(np.max(g[bad] / (g[bad] - g_u[bad])))
    weight = min(1.0, weight * (1 + 1e-9) + 1e-300)
    return (1 - weight) * matrix + weight / m, weight


_EPSILONS: dict = {}  # (values, masses, r, delta, sides) -> optimal epsilon or the error raised


def _optimal_epsilon(prior: Categorical, r: float, delta: float, sides: str):
    """:func:`garesearch.epsilon_for_attribute` on ``prior``, remembered for the last 64 problems
    (a program with and one without ``dp_epsilon`` share it)."""
    from ..attribute import epsilon_for_attribute

    key = (prior.metric, tuple(prior.values), prior.probs.tobytes(), r, delta, sides)
    if key not in _EPSILONS:
        try:
            _EPSILONS[key] = float(epsilon_for_attribute(prior, r=r, delta=delta, sides=sides).epsilon)
        except InfeasibleError as exc:
            _EPSILONS[key] = exc
        while len(_EPSILONS) > 64:
            del _EPSILONS[next(iter(_EPSILONS))]
    return _EPSILONS[key]


def _laplace(grid: _Grid, prior: Categorical, r: float, delta: float, sides: str, cost: str):
    eps = _optimal_epsilon(prior, r, delta, sides)
    if isinstance(eps, InfeasibleError):
        return None, None, None, f"no Laplace counterpart: epsilon_for_attribute raised ({eps})"
    if grid.numeric:
        matrix = laplace_on_grid(grid.x, grid.y, eps)
        continuous = {"abs": 1 / eps, "sq": 2 / eps**2, "zero_one": 1.0}[cost] if eps < math.inf else 0.0
        note = (f"Laplace noise of scale 1/{eps:.6g} rounded to the nearest output (cells between "
                "midpoints, the end cells unbounded); continuous Laplace: expected cost "
                + {"abs": "E|N| = 1/eps", "sq": "E N^2 = 2/eps^2", "zero_one": "1"}[cost])
        return eps, matrix, continuous, note
    if set(grid.y) != set(grid.x) or len(grid.y) != len(grid.x):
        return eps, None, None, "no randomised response: the outputs are not the prior's values"
    k = len(grid.x)
    same = np.array([[1.0 if a == b else 0.0 for b in grid.y] for a in grid.x])
    if math.isinf(eps):
        matrix = same
    else:
        matrix = np.where(same > 0, 1.0, math.exp(-eps)) / (1.0 + (k - 1) * math.exp(-eps))
    return eps, matrix, None, f"{k}-ary randomised response at epsilon {eps:.6g}"


def least_noise_mechanism(
    prior: Categorical,
    *,
    r: float,
    delta: float,
    sides: str = "both",
    dp_epsilon: float | None = None,
    outputs=None,
    cost: str = "abs",
) -> LeastNoiseResult:
    r"""The mechanism of least expected cost on finite input and output grids whose advantage
    stays within ``delta`` (Def. 7, Sec. 4.1), optionally also epsilon-DP (Def. 1): a linear
    program solved by HiGHS (module docstring; beyond the paper).

    Parameters
    ----------
    prior : Categorical
        A finite prior: numeric values (distance ``|x - x'|``) or labels (the discrete
        metric); a continuous prior goes through :func:`discretise` first.
    r : float
        Precision of a correct guess, ``r >= 0``; the true values are the prior's atoms.
    delta : float
        Bound on the advantage, in (0, 1).
    sides : {"both", "upper", "lower"}
        Which side of Def. 7 to bound.
    dp_epsilon : float, optional
        Also require epsilon-DP with this epsilon per unit of distance (>= 0, and at most
        20 per gap between neighbouring inputs).
    outputs : sequence, optional
        The output grid (default: the prior's values).
    cost : {"abs", "sq", "zero_one"}
        :math:`d(x, y)`, :math:`d(x, y)^2` or :math:`[x \ne y]`, minimised in expectation.

    Returns
    -------
    LeastNoiseResult
        The mechanism, its cost and recomputed advantage, HiGHS's status, and the Laplace
        mechanism at the optimal epsilon on the same grid.

    Raises
    ------
    ParameterError
        Bad input (a non-finite prior, ``delta`` outside (0, 1), ``r < 0``, an unknown
        ``cost``, a grid larger than :data:`MAX_VARIABLES` entries, ``dp_epsilon`` out of range).
    InfeasibleError
        If HiGHS does not report an optimum (the constant mechanism is always feasible, so this
        signals a numerical failure; a coarser grid may help).

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> prior = Categorical({0: 0.25, 1: 0.5, 2: 0.25})
    >>> best = least_noise_mechanism(prior, r=0, delta=0.1)
    >>> dp = least_noise_mechanism(prior, r=0, delta=0.1, dp_epsilon=best.optimal_epsilon)
    >>> best.status, best.advantage <= 0.1, best.expected_cost <= dp.expected_cost <= dp.laplace_cost
    (0, True, True)
    """
    check_common(prior, r, delta, sides, SIDES)
    if dp_epsilon is not None and (
            isinstance(dp_epsilon, bool) or not isinstance(dp_epsilon, (int, float, np.integer, np.floating))
            or not math.isfinite(dp_epsilon) or dp_epsilon < 0):
        raise ParameterError(f"dp_epsilon must be None or a finite number >= 0; got {dp_epsilon!r}")
    grid = _Grid(prior, float(r), outputs, cost)
    if dp_epsilon is not None:
        dp_epsilon = float(dp_epsilon)
        widest = float(np.max(grid.pair_dist)) if grid.pair_dist.size else 0.0
        if dp_epsilon * widest > MAX_EXPONENT:
            raise ParameterError(
                f"dp_epsilon times the largest distance between neighbouring inputs ({widest:.6g}) "
                f"must be at most {MAX_EXPONENT:g}; got dp_epsilon={dp_epsilon!r}: use a finer grid")
    from scipy.optimize import linprog

    c, a_ub, a_eq, b_eq = _program(grid, float(delta), sides, dp_epsilon)
    for method in _METHODS:
        res = linprog(c, A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]), A_eq=a_eq, b_eq=b_eq,
                      bounds=(0, None), method=method, options=_HIGHS_OPTIONS)
        if res.status == 0 and res.x is not None:
            break
    else:
        raise InfeasibleError(
            f"HiGHS did not find the optimal mechanism (status {res.status}: {res.message}); the "
            "constant mechanism is always feasible, so this is a numerical failure: use a "
            "coarser grid or a larger delta")
    matrix = np.maximum(res.x[: grid.n * grid.m].reshape(grid.n, grid.m), 0.0)
    matrix /= matrix.sum(axis=1, keepdims=True)
    matrix, weight = _repair(grid, matrix, float(delta), sides, dp_epsilon)
    eps, lap, continuous, note = _laplace(grid, prior, float(r), float(delta), sides, cost)

    def expected(mat):
        return math.fsum((grid.p[:, None] * mat * grid.cost).ravel())

    return LeastNoiseResult(
        matrix=matrix, inputs=grid.x, outputs=grid.y, probs=grid.p,
        expected_cost=expected(matrix), advantage=_advantage(grid, matrix, sides),
        dp_epsilon=dp_epsilon, realised_epsilon=_epsilon(grid, matrix),
        r=float(r), delta=float(delta), sides=sides, cost=cost,
        status=int(res.status), message=f"{method}: {res.message}", mixing_weight=weight,
        constant_cost=float(np.min(grid.p @ grid.cost)),
        optimal_epsilon=eps, laplace_matrix=lap,
        laplace_cost=None if lap is None else expected(lap),
        laplace_advantage=None if lap is None else _advantage(grid, lap, sides),
        laplace_continuous_cost=continuous, laplace_note=note,
    )


# ------------------------------------------------------------------------------------------
# the three-way comparison
# ------------------------------------------------------------------------------------------
def compare_mechanisms(prior: Categorical, *, r: float, delta: float, sides: str = "both",
                       outputs=None, cost: str = "abs"):
    r"""The best mechanism within ``delta`` and the best epsilon-DP mechanism at the optimal
    epsilon (Def. 7, Sec. 4.1), each of which carries the Laplace mechanism at that epsilon.

    Parameters
    ----------
    prior, r, delta, sides, outputs, cost
        As for :func:`least_noise_mechanism`.

    Returns
    -------
    (LeastNoiseResult, LeastNoiseResult or None)
        ``(direct, dp)``; ``dp`` is ``None`` where the optimal epsilon is infinite or missing.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> direct, dp = compare_mechanisms(Categorical({0: 0.3, 1: 0.7}), r=0, delta=0.1)
    >>> direct.expected_cost <= dp.expected_cost <= dp.laplace_cost
    True
    """
    direct = least_noise_mechanism(prior, r=r, delta=delta, sides=sides, outputs=outputs, cost=cost)
    eps = direct.optimal_epsilon
    if eps is None or math.isinf(eps):
        return direct, None
    dp = least_noise_mechanism(prior, r=r, delta=delta, sides=sides, dp_epsilon=eps, outputs=outputs, cost=cost)
    return direct, dp


def comparison_rows(direct: LeastNoiseResult, dp: LeastNoiseResult | None = None) -> list[tuple]:
    """Rows ``(mechanism, expected cost, advantage, realised epsilon)`` for a table of the
    comparison (``nan`` where a value does not apply): the continuous Laplace mechanism at the
    optimal epsilon, Laplace rounded to the output grid, the best epsilon-DP mechanism, the best
    mechanism within delta and the best constant mechanism.

    Examples
    --------
    >>> from garesearch.priors import Categorical
    >>> rows = comparison_rows(*compare_mechanisms(Categorical({0: 0.3, 1: 0.7}), r=0, delta=0.1))
    >>> [row[0] for row in rows][-1]
    'best constant'
    """
    nan = math.nan
    eps = direct.optimal_epsilon
    rows = []
    if direct.laplace_continuous_cost is not None:
        rows.append(("Laplace, continuous", direct.laplace_continuous_cost, nan, eps))
    if direct.laplace_matrix is not None:
        name = "Laplace on the grid" if isinstance(direct.inputs, np.ndarray) else "randomised response"
        rows.append((name, direct.laplace_cost, direct.laplace_advantage, eps))
    if dp is not None:
        rows.append(("best epsilon-DP", dp.expected_cost, dp.advantage, dp.realised_epsilon))
    rows.append(("best within delta", direct.expected_cost, direct.advantage, direct.realised_epsilon))
    rows.append(("best constant", direct.constant_cost, 0.0, 0.0))
    return rows


def plot_mechanisms(direct: LeastNoiseResult, dp: LeastNoiseResult | None = None, *, axes=None):
    """The mechanisms' matrices side by side (inputs down, outputs across, probability as
    colour on a square-root scale): the Laplace counterpart, the best epsilon-DP mechanism (if
    given) and the best within delta.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from garesearch.priors import Categorical
    >>> fig = plot_mechanisms(*compare_mechanisms(Categorical({0: 0.3, 1: 0.7}), r=0, delta=0.1))
    >>> len(fig.axes)   # three panels and a colour bar
    4
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import PowerNorm

    panels = []
    if direct.laplace_matrix is not None:
        label = "Laplace" if isinstance(direct.inputs, np.ndarray) else "randomised response"
        panels.append((f"{label}, eps = {direct.optimal_epsilon:.3g}", direct.laplace_matrix))
    if dp is not None:
        panels.append((f"best eps-DP, eps = {dp.dp_epsilon:.3g}", dp.matrix))
    panels.append((f"best within delta = {direct.delta:g}", direct.matrix))
    if axes is None:
        fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.4), layout="constrained",
                                 squeeze=False)
        axes = axes[0]
    fig = axes[0].figure
    norm = PowerNorm(0.5, vmin=0.0, vmax=1.0)
    image = None
    for ax, (title, matrix) in zip(axes, panels, strict=False):
        image = ax.imshow(matrix, norm=norm, cmap="viridis", aspect="auto", interpolation="nearest")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("output")
        ax.set_ylabel("input")
        ax.grid(False)
        for axis, values in ((ax.xaxis, direct.outputs), (ax.yaxis, direct.inputs)):
            step = max(1, len(values) // 5)
            ticks = list(range(0, len(values), step))
            axis.set_ticks(ticks)
            axis.set_ticklabels([f"{values[k]:.4g}" if isinstance(values[k], float) else str(values[k])
                                 for k in ticks])
        ax.tick_params(axis="x", labelrotation=45)
    fig.colorbar(image, ax=list(axes), label="Pr[output | input]", shrink=0.9)
    return fig
