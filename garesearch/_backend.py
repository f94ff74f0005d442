"""Elementary functions in three precisions: numpy floats, mpmath numbers, sympy symbols.

Every formula of the paper is written once, as a function of its arguments and of a
backend ``B`` (see :mod:`garesearch.bound`).  Calling it with :data:`NUMPY` evaluates it
vectorised in float64, with :data:`MPMATH` at any number of digits, and with :data:`SYMPY`
returns the symbolic expression that :mod:`garesearch.derivations` proves things about.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

__all__ = ["MPMATH", "NUMPY", "Backend", "backend_for", "sympy_backend"]


@dataclass(frozen=True)
class Backend:
    """A namespace of the elementary functions a formula may use."""

    name: str
    log: Callable[[Any], Any]
    log1p: Callable[[Any], Any]
    exp: Callable[[Any], Any]
    expm1: Callable[[Any], Any]
    sqrt: Callable[[Any], Any]
    erf: Callable[[Any], Any]
    lambertw: Callable[..., Any]
    pi: Any
    e: Any


def _np_lambertw(y, k=0):
    from scipy.special import lambertw

    return np.real(lambertw(y, k))


NUMPY = Backend(
    name="numpy",
    log=np.log,
    log1p=np.log1p,
    exp=np.exp,
    expm1=np.expm1,
    sqrt=np.sqrt,
    erf=lambda x: _scipy_erf(x),
    lambertw=_np_lambertw,
    pi=math.pi,
    e=math.e,
)


def _scipy_erf(x):
    from scipy.special import erf

    return erf(x)


MPMATH = Backend(
    name="mpmath",
    log=mpmath.log,
    log1p=mpmath.log1p,
    exp=mpmath.exp,
    expm1=mpmath.expm1,
    sqrt=mpmath.sqrt,
    erf=mpmath.erf,
    lambertw=lambda y, k=0: mpmath.re(mpmath.lambertw(y, k)),
    pi=mpmath.pi,
    e=mpmath.e,
)


def backend_for(dps: int | None) -> Backend:
    """``NUMPY`` for the float64 path (``dps=None``), ``MPMATH`` for ``dps`` digits.

    Examples
    --------
    >>> backend_for(None) is NUMPY, backend_for(30) is MPMATH
    (True, True)
    """
    return NUMPY if dps is None else MPMATH


def sympy_backend() -> Backend:
    """The sympy backend (built on demand: importing sympy is slow).

    Examples
    --------
    >>> import sympy as sp
    >>> B = sympy_backend()
    >>> B.exp(sp.log(3)), B.name
    (3, 'sympy')
    """
    import sympy as sp

    return Backend(
        name="sympy",
        log=sp.log,
        log1p=lambda x: sp.log(1 + x),
        exp=sp.exp,
        expm1=lambda x: sp.exp(x) - 1,
        sqrt=sp.sqrt,
        erf=sp.erf,
        lambertw=lambda y, k=0: sp.LambertW(y, k),
        pi=sp.pi,
        e=sp.E,
    )
