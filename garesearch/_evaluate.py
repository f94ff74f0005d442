"""Input checking and the two evaluation paths (vectorised float64, mpmath at ``dps`` digits).

Public functions of garesearch take keyword arguments, check them here (a
:class:`~garesearch.errors.ParameterError` names the parameter and its valid range), and
then evaluate one backend-generic formula either with numpy (``dps=None``) or with
mpmath at ``dps`` decimal digits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from ._backend import MPMATH, NUMPY, Backend
from .errors import ParameterError

__all__ = ["check", "evaluate", "to_values"]


def _first_bad(x, bad):
    if isinstance(x, np.ndarray) and x.ndim:
        return x[bad][0] if np.any(bad) else None
    return x


def to_values(dps: int | None, **kwargs: Any) -> dict[str, Any]:
    """Convert inputs to broadcast float64 arrays (``dps=None``) or to mpmath numbers.

    Under mpmath, strings are read exactly at the working precision (``p="1e-12"``), so
    the high-precision path does not inherit float rounding unless floats are given.
    Must be called inside ``mpmath.workdps(dps)`` when ``dps`` is set.
    """
    if dps is None:
        names = list(kwargs)
        try:
            arrays = np.broadcast_arrays(*(np.asarray(kwargs[n], dtype=float) for n in names))
        except ValueError as exc:  # shapes that do not broadcast
            raise ParameterError(f"arguments {names} do not broadcast together: {exc}") from None
        out = dict(zip(names, arrays, strict=True))
    else:
        out = {}
        for name, value in kwargs.items():
            if isinstance(value, np.ndarray) or isinstance(value, (list, tuple)):
                raise ParameterError(
                    f"{name}: the mpmath path (dps={dps}) takes scalars; got an array. "
                    "Use dps=None for vectorised float64 evaluation."
                )
            try:
                out[name] = mpmath.mpf(value)
            except (TypeError, ValueError):
                raise ParameterError(f"{name} must be a real number; got {value!r}") from None
    for name, value in out.items():
        finite = np.isfinite(value) if dps is None else mpmath.isfinite(value)
        if not np.all(finite):
            raise ParameterError(f"{name} must be a finite number; got {_first_bad(value, ~np.asarray(finite))}")
    return out


def check(name: str, value, low, high, *, low_open: bool = True, high_open: bool = True) -> None:
    """Raise :class:`ParameterError` unless ``low < value < high`` (open or closed ends)."""
    v = value
    too_low = (v <= low) if low_open else (v < low)
    too_high = (v >= high) if high_open else (v > high)
    bad = np.logical_or(too_low, too_high)
    if np.any(bad):
        lb = "(" if low_open else "["
        hb = ")" if high_open else "]"
        hi = "inf" if high == np.inf else f"{high}"
        raise ParameterError(
            f"{name} must lie in {lb}{low}, {hi}{hb}; got {_first_bad(value, np.asarray(bad))}"
        )


def evaluate(formula: Callable[..., Any], values: dict[str, Any], dps: int | None):
    """Evaluate ``formula(**values, B=backend)`` in the precision chosen by ``dps``."""
    backend: Backend = NUMPY if dps is None else MPMATH
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
