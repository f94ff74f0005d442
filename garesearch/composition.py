r"""Queries with several outputs (Sec. 5): composition and splitting a total epsilon.

- :func:`sequential_epsilon` -- Theorem 3: independent :math:`\epsilon_i`-DP outputs give
  :math:`\sum_i \epsilon_i`-DP.
- :func:`composed_epsilon` -- Theorem 4: with the input distance an :math:`\ell_p` norm of
  per-output distances, the outputs are :math:`\lVert \epsilon \rVert_q`-DP, ``q`` the dual
  exponent of ``p`` (:func:`dual_exponent`).  ``p = 1`` (one input changes) gives
  :math:`\max_i \epsilon_i`, ``p = inf`` (every input may change) :math:`\sum_i \epsilon_i`.
- :func:`equal_split` -- the paper's choice for similar outputs (``GROUP BY``).
- :func:`optimal_split` -- the split the paper leaves open (Sec. 5, "future research"):
  with Laplace noise of scale :math:`s_i/\epsilon_i` (variance :math:`2 s_i^2/\epsilon_i^2`),

  .. math:: \min_\epsilon \sum_i \frac{2 s_i^2}{\epsilon_i^2} \quad\text{s.t.}\quad
     \lVert \epsilon \rVert_q \le E
     \quad\Longrightarrow\quad
     \epsilon_i = E\,\frac{s_i^{2/(q+2)}}{\big(\sum_j s_j^{2q/(q+2)}\big)^{1/q}},

  with minimum :math:`2 E^{-2} \big(\sum_j s_j^{2q/(q+2)}\big)^{(q+2)/q}`.  Derivation
  (Lagrange): at the optimum the constraint is active and
  :math:`-4 s_i^2 \epsilon_i^{-3} + \lambda q \epsilon_i^{q-1} = 0`, so
  :math:`\epsilon_i^{q+2} \propto s_i^2`; the objective is convex in
  :math:`\epsilon > 0` and the feasible set convex, so this stationary point is the global
  minimum.  Limits: ``q = 1`` (:math:`\ell_\infty` inputs, sequential) gives
  :math:`\epsilon_i \propto s_i^{2/3}`; ``q -> inf`` (:math:`\ell_1` inputs, parallel) gives
  :math:`\epsilon_i = E` for every output.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._evaluate import as_float_array, first_bad
from .errors import ParameterError

__all__ = [
    "composed_epsilon",
    "dual_exponent",
    "equal_split",
    "expected_squared_error",
    "laplace_scales",
    "optimal_split",
    "sequential_epsilon",
    "split_saving",
]


#: largest number of outputs a split builds (memory: 8 bytes each)
_MAX_OUTPUTS = 10**7


def _exponent(name, p) -> float:
    if not isinstance(p, (int, float, np.integer, np.floating)) or isinstance(p, bool) or math.isnan(p) or p < 1:
        raise ParameterError(f"{name} must be a number in [1, inf] (an l_p exponent); got {p!r}")
    return float(p)


def _positive_vector(name, v) -> np.ndarray:
    if isinstance(v, (str, bytes)):
        raise ParameterError(f"{name} must be a sequence of numbers; got {v!r}")
    arr = as_float_array(name, v)
    if arr.ndim != 1 or arr.size == 0:
        raise ParameterError(f"{name} must be a non-empty 1-d sequence; got shape {arr.shape}")
    if arr.size > _MAX_OUTPUTS:
        raise ParameterError(f"{name}: at most {_MAX_OUTPUTS} outputs; got {arr.size}")
    bad = ~(np.isfinite(arr) & (arr > 0))
    if np.any(bad):
        raise ParameterError(f"{name} must hold finite numbers > 0; got {first_bad(arr, bad)}")
    return arr


def _representable(value, what: str):
    """``value``, or :class:`ParameterError` where it overflows (or underflows to 0) in float64."""
    arr = np.asarray(value)
    if not np.all(np.isfinite(arr)) or np.any(arr == 0):
        raise ParameterError(
            f"{what} lies outside the float64 range for these inputs (the values span too many "
            "orders of magnitude); rescale them"
        )
    return value


def _total(total) -> float:
    if not (isinstance(total, (int, float, np.integer, np.floating)) and math.isfinite(total) and total > 0):
        raise ParameterError(f"total must be a finite number > 0; got {total!r}")
    return float(total)


def _norm(v: np.ndarray, q: float) -> float:
    if math.isinf(q):
        return float(np.max(np.abs(v)))
    m = float(np.max(np.abs(v)))
    return m * float(np.sum((np.abs(v) / m) ** q)) ** (1.0 / q)


def dual_exponent(p: float) -> float:
    """The dual exponent ``q`` of ``p``, :math:`1/p + 1/q = 1` (Sec. 5, Theorem 4: dual norms).

    ``p = 1`` and ``p = inf`` are dual to each other.

    Parameters
    ----------
    p : float
        Exponent of the input norm, in [1, inf].

    Returns
    -------
    float
        ``q``, in [1, inf].

    Examples
    --------
    >>> dual_exponent(2), dual_exponent(1), dual_exponent(float("inf"))
    (2.0, inf, 1.0)
    """
    p = _exponent("p", p)
    if p == 1:
        return math.inf
    if math.isinf(p):
        return 1.0
    return p / (p - 1)


def sequential_epsilon(epsilons: Sequence[float]) -> float:
    r"""Sequential composition, :math:`\sum_i \epsilon_i` (Sec. 5, Theorem 3).

    Parameters
    ----------
    epsilons : sequence of float
        Epsilon of each output, > 0.

    Returns
    -------
    float
        The epsilon of all outputs together.

    Examples
    --------
    >>> round(sequential_epsilon([0.1, 0.2, 0.3]), 12)
    0.6
    """
    with np.errstate(all="ignore"):
        out = float(np.sum(_positive_vector("epsilons", epsilons)))
    return _representable(out, "the sum of the epsilons")


def composed_epsilon(epsilons: Sequence[float], *, p: float = math.inf) -> float:
    r"""Epsilon of all outputs together, :math:`\lVert\epsilon\rVert_q` (Sec. 5, Theorem 4).

    Theorem 4 (dual norms): the input distance is the :math:`\ell_p` norm of the per-output
    input distances, and ``q`` is the dual exponent of ``p`` (:func:`dual_exponent`).

    Parameters
    ----------
    epsilons : sequence of float
        Epsilon of each output, > 0.
    p : float
        Exponent of the input norm, in [1, inf]; default inf (every input may change by
        one: sequential composition, the sum).

    Returns
    -------
    float
        :math:`\lVert\epsilon\rVert_q`.

    Examples
    --------
    >>> composed_epsilon([3.0, 4.0], p=2)  # l2 distance: the l2 norm of the epsilons
    5.0
    >>> composed_epsilon([3.0, 4.0])  # l_inf distance: the sum (sequential composition)
    7.0
    """
    with np.errstate(all="ignore"):
        out = _norm(_positive_vector("epsilons", epsilons), dual_exponent(p))
    return _representable(out, "the composed epsilon")


def equal_split(total: float, m: int, *, p: float = math.inf) -> np.ndarray:
    r"""The same epsilon for each of ``m`` outputs, :math:`E / m^{1/q}` (Sec. 5, ``GROUP BY``).

    The split uses the whole budget, :math:`\lVert\epsilon\rVert_q = E` (Theorem 4).

    Parameters
    ----------
    total : float
        :math:`E`, the epsilon the whole query may use, > 0.
    m : int
        Number of outputs, >= 1.
    p : float
        Exponent of the input norm, in [1, inf] (``q`` is its dual); default inf.

    Returns
    -------
    ndarray
        ``m`` equal epsilons.

    Examples
    --------
    >>> equal_split(1.0, 4).tolist()  # l_inf: E / m
    [0.25, 0.25, 0.25, 0.25]
    >>> round(float(equal_split(1.0, 4, p=2)[0]), 12)  # l2: E / sqrt(m)
    0.5
    """
    total = _total(total)
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or not 1 <= m <= _MAX_OUTPUTS:
        raise ParameterError(
            f"m must be an integer in [1, {_MAX_OUTPUTS}] (the number of outputs); got {m!r}"
        )
    q = dual_exponent(p)
    each = total if math.isinf(q) else total / float(m) ** (1.0 / q)
    return np.full(int(m), _representable(each, "each output's epsilon"))


def optimal_split(total: float, sensitivities: Sequence[float], *, p: float = math.inf) -> np.ndarray:
    r"""Per-output epsilons that minimise the expected squared Laplace error (Sec. 5, Theorem 4).

    Minimises :math:`\sum_i 2 (s_i/\epsilon_i)^2` subject to :math:`\lVert\epsilon\rVert_q \le E`.
    Sec. 5 leaves this split to future research; the closed form and its derivation are not in
    the paper (module docstring).

    Parameters
    ----------
    total : float
        :math:`E`, the epsilon the whole query may use.
    sensitivities : sequence of float
        :math:`s_i > 0`, the sensitivity of each output.
    p : float
        Exponent of the input norm, in [1, inf] (``q`` is its dual).

    Returns
    -------
    ndarray
        :math:`\epsilon_i`, one per output, with :math:`\lVert\epsilon\rVert_q = E`.

    Examples
    --------
    >>> optimal_split(1.0, [1.0, 1.0]).tolist()  # equal sensitivities: the equal split
    [0.5, 0.5]
    >>> eps = optimal_split(1.0, [1.0, 8.0])  # l_inf: epsilon_i proportional to s_i^(2/3)
    >>> round(float(eps[1] / eps[0]), 12)
    4.0
    """
    total = _total(total)
    s = _positive_vector("sensitivities", sensitivities)
    q = dual_exponent(p)
    if math.isinf(q):
        return np.full(s.size, total)
    c = 2.0 / (q + 2.0)
    with np.errstate(all="ignore"):
        w = (s / s.max()) ** c  # scale-free, no overflow
        out = total * w / _norm(w, q)
    return _representable(out, "an output's epsilon (sensitivities too far apart)")


def laplace_scales(epsilons: Sequence[float], sensitivities: Sequence[float]) -> np.ndarray:
    r"""Laplace scales :math:`b_i = s_i / \epsilon_i`, one per output (Sec. 6.1, Laplace mechanism).

    Sec. 6.1 takes scale :math:`1/\epsilon` for a query of sensitivity 1 (``1/0.539 = 1.86``);
    here each output of Sec. 5 gets its own scale.

    Parameters
    ----------
    epsilons : sequence of float
        Epsilon of each output, > 0.
    sensitivities : sequence of float
        Sensitivity of each output, > 0, as many as ``epsilons``.

    Returns
    -------
    ndarray
        The scales :math:`b_i`.

    Examples
    --------
    >>> laplace_scales([0.5, 1.0], [1.0, 1.0]).tolist()
    [2.0, 1.0]
    """
    e = _positive_vector("epsilons", epsilons)
    s = _positive_vector("sensitivities", sensitivities)
    if e.shape != s.shape:
        raise ParameterError(f"epsilons and sensitivities must have the same length; got {e.size} and {s.size}")
    with np.errstate(all="ignore"):
        out = s / e
    return _representable(out, "a Laplace scale sensitivity / epsilon")


def expected_squared_error(epsilons: Sequence[float], sensitivities: Sequence[float]) -> float:
    r"""Total expected squared error of Laplace noise, :math:`\sum_i 2 (s_i/\epsilon_i)^2`.

    The error that Sec. 5 asks a split of epsilon to minimise.  The variance :math:`2b^2` of
    Laplace noise of scale ``b`` is not in the paper (Dwork and Roth, "The Algorithmic
    Foundations of Differential Privacy", 2014, Def. 3.2).

    Parameters
    ----------
    epsilons : sequence of float
        Epsilon of each output, > 0.
    sensitivities : sequence of float
        Sensitivity of each output, > 0, as many as ``epsilons``.

    Returns
    -------
    float
        :math:`\sum_i 2 b_i^2` with :math:`b_i = s_i/\epsilon_i`.

    Examples
    --------
    >>> expected_squared_error([1.0, 0.5], [1.0, 1.0])  # 2 (1^2 + 2^2)
    10.0
    """
    with np.errstate(all="ignore"):
        out = float(np.sum(2.0 * laplace_scales(epsilons, sensitivities) ** 2))
    return _representable(out, "the expected squared error")


def split_saving(sensitivities: Sequence[float], *, p: float = math.inf) -> float:
    r"""Ratio of the equal split's expected squared error to the optimal split's (>= 1).

    Not in the paper: it measures what the split that Sec. 5 leaves to future research
    (:func:`optimal_split`) gains over the paper's equal split (:func:`equal_split`).  It does
    not depend on the total epsilon.  Closed form (from the module docstring):

    .. math:: \frac{m^{2/q} \sum_i s_i^2}{\big(\sum_i s_i^{2q/(q+2)}\big)^{(q+2)/q}}

    Parameters
    ----------
    sensitivities : sequence of float
        :math:`s_i > 0`, the sensitivity of each output.
    p : float
        Exponent of the input norm, in [1, inf] (``q`` is its dual); default inf.

    Returns
    -------
    float
        The ratio, 1 when all sensitivities are equal or ``p = 1``.

    Examples
    --------
    >>> split_saving([1.0, 1.0])
    1.0
    >>> abs(split_saving([1.0, 2.0]) - 20 / (1 + 2 ** (2 / 3)) ** 3) < 1e-12  # (sum s^(2/3))^3 against 2 (s1^2 + s2^2) 2^2
    True
    """
    s = _positive_vector("sensitivities", sensitivities)
    q = dual_exponent(p)
    if math.isinf(q):
        return 1.0
    u = s / s.max()  # the ratio is scale-free; tiny u**2 underflow harmlessly
    with np.errstate(all="ignore"):
        num = float(s.size) ** (2.0 / q) * float(np.sum(u**2))
        den = float(np.sum(u ** (2.0 * q / (q + 2.0)))) ** ((q + 2.0) / q)
        out = num / den
    return _representable(out, "the saving")
