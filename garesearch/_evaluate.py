"""Input checking and the two evaluation paths (vectorised float64, mpmath at ``dps`` digits).

Public functions of garesearch take keyword arguments, check them here (a
:class:`~garesearch.errors.ParameterError` names the parameter and its valid range), and
then evaluate one backend-generic formula either with numpy (``dps=None``) or with
mpmath at ``dps`` decimal digits.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from ._backend import MPMATH, Backend, backend_for
from .errors import ParameterError

__all__ = ["as_float_array", "as_mpf", "check", "evaluate", "first_bad", "mp_value", "refine", "representable", "scalar_values", "to_fraction", "to_values"]


_MAX_SHOW = 3  # elements of an array quoted in a message


def first_bad(x, bad):
    """The first element of ``x`` where ``bad`` holds, with its index for arrays.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0.5, 2.0, 3.0])
    >>> first_bad(x, x > 1)
    '2.0 (element [1])'
    """
    if isinstance(x, np.ndarray) and x.ndim:
        bad = np.broadcast_to(bad, x.shape)
        if not np.any(bad):
            return None
        i = np.unravel_index(int(np.flatnonzero(bad)[0]), x.shape)
        index = [int(j) for j in i]
        value = x[i].item() if isinstance(x[i], np.generic) else x[i]
        return f"{value!r} (element {index})"
    return repr(x) if isinstance(x, str) else x


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _not_real(name: str, value) -> ParameterError:
    return ParameterError(
        f"{name} must be a real number or an array of real numbers; "
        f"got {_describe(value)} of type {type(value).__name__}"
    )


def as_float_array(name: str, value) -> np.ndarray:
    """``value`` as a float64 array, or :class:`ParameterError` naming ``name``.

    Accepts Python and numpy reals, :class:`decimal.Decimal`, :class:`fractions.Fraction`,
    numeric strings and (nested) sequences or arrays of them.  Rejects ``None``, booleans,
    complex numbers, mappings, sets and other objects, and ragged sequences, with a message
    that names the parameter.

    Examples
    --------
    >>> as_float_array("p", ["0.25", 0.5]).tolist()
    [0.25, 0.5]
    >>> as_float_array("p", None)
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: p must be a real number or an array of real numbers; got None of type NoneType
    """
    if value is None or isinstance(value, (bool, np.bool_, Mapping, set, frozenset, bytes)):
        raise _not_real(name, value)
    if isinstance(value, (complex, np.complexfloating)):
        raise _not_real(name, value)
    if isinstance(value, str):
        try:
            return np.asarray(float(value))
        except ValueError:
            raise _not_real(name, value) from None
    if isinstance(value, (mpmath.mpf, Decimal)) or (
        isinstance(value, numbers.Real) and not isinstance(value, np.ndarray)
    ):
        try:
            return np.asarray(float(value))
        except (TypeError, ValueError, OverflowError):
            raise _not_real(name, value) from None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged nesting
        raise ParameterError(f"{name} must be a real number or a rectangular array of real numbers; "
                             f"got {_describe(value)}") from None
    if arr.dtype.kind in "biuf":
        if arr.dtype.kind == "b":
            raise _not_real(name, value)
        return np.asarray(arr, dtype=float)
    if arr.dtype.kind == "c":
        raise _not_real(name, value)
    if arr.dtype.kind in "OUS" and arr.ndim:
        flat = arr.ravel()
        try:
            out = np.array([as_float_array(f"{name}[{i}]", v) for i, v in enumerate(flat)], dtype=float)
        except ParameterError as exc:
            raise ParameterError(str(exc)) from None
        return out.reshape(arr.shape)
    if arr.dtype.kind == "O" and arr.ndim == 0 and arr.item() is not value:
        return as_float_array(name, arr.item())
    raise _not_real(name, value)


def as_mpf(name: str, value, dps: int):
    """``value`` as an mpmath number at the working precision, or :class:`ParameterError`.

    Floats and integers (Python or numpy) convert exactly; strings and
    :class:`decimal.Decimal` are read at the working precision; a
    :class:`fractions.Fraction` is divided out at the working precision.

    Examples
    --------
    >>> import mpmath
    >>> with mpmath.workdps(30):
    ...     as_mpf("p", "0.1", 30) == mpmath.mpf(1) / 10, as_mpf("p", 0.1, 30) == mpmath.mpf(1) / 10
    (True, False)
    """
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim):
        raise ParameterError(
            f"{name}: the mpmath path (dps={dps}) takes scalars; got an array. "
            "Use dps=None for vectorised float64 evaluation."
        )
    if isinstance(value, np.ndarray):
        value = value.item()
    if value is None or isinstance(value, (bool, np.bool_)):
        raise _not_real(name, value)
    if isinstance(value, mpmath.mpf):
        return +value
    if isinstance(value, (int, np.integer)):
        return mpmath.mpf(int(value))
    if isinstance(value, (float, np.floating)):
        return mpmath.mpf(float(value)) if np.finfo(type(value)).bits <= 64 else mpmath.mpf(str(value))
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    if isinstance(value, (str, Decimal)):
        try:
            return mpmath.mpf(str(value).strip())
        except (TypeError, ValueError):
            raise _not_real(name, value) from None
    if isinstance(value, numbers.Real):
        return mpmath.mpf(float(value))
    raise _not_real(name, value)


def to_values(dps: int | None, **kwargs: Any) -> dict[str, Any]:
    """Convert inputs to broadcast float64 arrays (``dps=None``) or to mpmath numbers.

    Under mpmath, strings are read exactly at the working precision (``p="1e-12"``), so
    the high-precision path does not inherit float rounding unless floats are given.
    Must be called inside ``mpmath.workdps(dps)`` when ``dps`` is set.  Anything that is not
    a real number (``None``, a string that is not a number, a complex number, a mapping, an
    object) raises :class:`ParameterError` naming the parameter.

    Examples
    --------
    >>> v = to_values(None, p=[0.1, 0.2], q=0.5)
    >>> v["q"].tolist()  # broadcast together
    [0.5, 0.5]
    """
    if dps is None:
        names = list(kwargs)
        arrays = [as_float_array(n, kwargs[n]) for n in names]
        try:
            arrays = np.broadcast_arrays(*arrays)
        except ValueError:  # shapes that do not broadcast
            shapes = ", ".join(f"{n}: {a.shape}" for n, a in zip(names, arrays, strict=True))
            raise ParameterError(f"array arguments do not broadcast together ({shapes})") from None
        out = dict(zip(names, arrays, strict=True))
    else:
        out = {name: as_mpf(name, value, dps) for name, value in kwargs.items()}
    for name, value in out.items():
        if dps is None and value.size and np.isfinite(value.min()) and np.isfinite(value.max()):
            continue  # NaN would have made min and max NaN
        finite = np.isfinite(value) if dps is None else mpmath.isfinite(value)
        if not np.all(finite):
            raise ParameterError(f"{name} must be a finite number; got {first_bad(value, ~np.asarray(finite))}")
    return out


def scalar_values(**kwargs: Any) -> dict[str, float]:
    """Checked finite Python floats, for functions that take scalars only.

    Raises :class:`ParameterError` naming the parameter for arrays and sequences (instead
    of numpy's "truth value of an array is ambiguous" further down) and for anything that
    :func:`to_values` rejects.

    Examples
    --------
    >>> scalar_values(epsilon="0.5", beta=1)
    {'epsilon': 0.5, 'beta': 1.0}
    """
    out = {}
    for name, value in kwargs.items():
        arr = as_float_array(name, value)
        if arr.ndim:
            raise ParameterError(f"{name} must be a single number (this function takes scalars); "
                                 f"got an array of shape {arr.shape}")
        x = float(arr)
        if not math.isfinite(x):
            raise ParameterError(f"{name} must be a finite number; got {x}")
        out[name] = x
    return out


def check(name: str, value, low, high, *, low_open: bool = True, high_open: bool = True) -> None:
    """Raise :class:`ParameterError` unless ``low < value < high`` (open or closed ends).

    Examples
    --------
    >>> check("p", 0.5, 0, 1)
    >>> check("p", 1.0, 0, 1)
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: p must lie in (0, 1); got 1.0
    """
    v = value
    if isinstance(v, np.ndarray) and v.size and np.ndim(low) == 0 and np.ndim(high) == 0:
        lo, hi = v.min(), v.max()  # two reductions; NaN fails both tests below
        if (lo > low if low_open else lo >= low) and (hi < high if high_open else hi <= high):
            return
    too_low = (v <= low) if low_open else (v < low)
    too_high = (v >= high) if high_open else (v > high)
    bad = np.logical_or(too_low, too_high)
    if np.any(bad):
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"

        def show(bound):
            if np.ndim(bound):  # a bound that varies: the one at the first offending element
                i = np.flatnonzero(np.broadcast_to(bad, np.shape(bad)))[0]
                return f"{np.broadcast_to(bound, np.shape(bad)).ravel()[i]}"
            return "inf" if bound == np.inf else f"{bound}"

        raise ParameterError(
            f"{name} must lie in {lb}{show(low)}, {show(high)}{hb}; got {first_bad(value, np.asarray(bad))}"
        )


def evaluate(formula: Callable[..., Any], values: dict[str, Any], dps: int | None):
    """Evaluate ``formula(**values, B=backend)`` in the precision chosen by ``dps``.

    Examples
    --------
    >>> def double(x, B):
    ...     return 2 * B.exp(x)
    >>> float(evaluate(double, {"x": 0.0}, None)), evaluate(double, {"x": 0}, 20)
    (2.0, mpf('2.0'))
    """
    backend: Backend = backend_for(dps)
    if dps is None:
        with np.errstate(all="ignore"):
            out = formula(**values, B=backend)
        return out
    return formula(**values, B=backend)


def finish(out, dps: int | None):
    """Return a Python float for 0-d float results, arrays unchanged, mpmath numbers as is."""
    if dps is None and isinstance(out, np.ndarray) and out.ndim == 0:
        return float(out)
    if dps is None and isinstance(out, np.floating):
        return float(out)
    return out


def workdps(dps: int | None):
    """``mpmath.workdps(dps)`` or a no-op context for the float path."""
    if dps is None:
        import contextlib

        return contextlib.nullcontext()
    if not isinstance(dps, int) or dps < 5:
        raise ParameterError(f"dps must be an integer >= 5 (decimal digits); got {dps!r}")
    return mpmath.workdps(dps)


def mp_value(formula: Callable[..., Any], args: dict[str, Any], start: int = 30, **options: Any):
    """``formula(**args, B=MPMATH)`` at rising precision until two precisions agree.

    The arguments (floats or mpmath numbers, converted exactly) are evaluated at ``start``
    (default 30), then twice, four times, ... as many digits (up to 32 times)
    until two successive values agree to :math:`2^{-64}` relative (or are equal, for
    infinities and zeros); the last value is returned as an mpmath number.  ``options`` are
    passed on to ``formula``.  This is the
    reference against which the float64 paths are refined where they lose digits
    (:func:`refine`): with float inputs, a cancellation can only lose as many digits as the
    inputs' exponents span, so the ladder ends.

    Examples
    --------
    >>> import mpmath
    >>> def one_minus_cos(x, B):  # every digit cancels in float64 near 0
    ...     return 1 - (mpmath.cos(x) if B.name == "mpmath" else B.exp(0 * x))
    >>> v = mp_value(one_minus_cos, {"x": 1e-5})
    >>> abs(v / (mpmath.mpf(1e-5) ** 2 / 2) - 1) < 1e-9  # 1 - cos x = x^2/2 - x^4/24 + ...
    True
    """
    prev = None
    value = None
    for digits in (start * 2**k for k in range(6)):
        with mpmath.workdps(digits):
            value = formula(**{k: mpmath.mpf(v) for k, v in args.items()}, B=MPMATH, **options)
            if prev is not None and (
                value == prev or abs(value - prev) <= abs(value) * mpmath.mpf(2) ** -64
            ):
                return value
            prev = value
    return value


def refine(formula: Callable[..., Any], values: dict[str, Any], out, mask):
    """``out`` with the elements where ``mask`` holds replaced by :func:`mp_value` of ``formula``.

    For the float64 paths: the few elements where the float evaluation may have lost digits
    (a cancellation, an overflow or underflow of an intermediate) are evaluated again with
    mpmath from the same float inputs, and rounded to float64 (``inf`` or 0 where the value
    itself lies outside the float64 range; the caller decides what that means).

    Examples
    --------
    >>> import numpy as np
    >>> def f(x, B):
    ...     return B.log1p(x) if B.name == "mpmath" else B.log(1 + x)
    >>> x = np.array([1e-20, 1.0])
    >>> from garesearch._backend import NUMPY
    >>> out = refine(f, {"x": x}, f(x, NUMPY), np.array([True, False]))
    >>> bool(out[0] == 1e-20), bool(out[1] == np.log(2.0))  # log(1 + 1e-20) is 0 in float64
    (True, True)
    """
    mask = np.asarray(mask, dtype=bool)
    if not np.any(mask):
        return out
    shape = np.broadcast_shapes(np.shape(out), mask.shape)
    res = np.array(np.broadcast_to(out, shape), dtype=float)
    flat = {k: np.broadcast_to(np.asarray(v, dtype=float), shape).ravel() for k, v in values.items()}
    mask = np.broadcast_to(mask, shape).ravel()
    view = res.reshape(-1)
    for i in np.flatnonzero(mask):
        view[i] = float(mp_value(formula, {k: float(v[i]) for k, v in flat.items()}))
    return res


def to_fraction(x) -> Fraction:
    """The exact rational value of a float or an mpmath number (for exact sign decisions).

    Examples
    --------
    >>> to_fraction(0.5), to_fraction(0.1) == Fraction(1, 10)
    (Fraction(1, 2), False)
    """
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    return Fraction(float(x))


def representable(out, what: str, dps, hint: str = "pass dps= for the mpmath path"):
    """``out``, or :class:`ParameterError` where a finite value overflows float64 (``dps=None``).

    Parameters
    ----------
    out : float or ndarray
        The float64 result.
    what : str
        What it is, for the message.
    dps : int or None
        The precision of the evaluation; the mpmath path (``dps`` given) has no overflow.
    hint : str
        What the caller can do instead.

    Returns
    -------
    float or ndarray
        ``out``.

    Examples
    --------
    >>> representable(2.0, "x", None)
    2.0
    >>> representable(float("inf"), "x", None)
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: x lies outside the float64 range (above about 1.8e308) for these inputs; pass dps= for the mpmath path
    """
    if dps is None and not np.all(np.isfinite(out)):
        raise ParameterError(
            f"{what} lies outside the float64 range (above about 1.8e308) for these inputs; {hint}"
        )
    return out
