"""Shared pieces of the fuzz suites (``test_fuzz.py``, ``test_regressions_core.py``).

Adversarial values (0, -0.0, 1 - 1e-16, subnormals, 1e308, NaN, inf, odd types, mixed
arrays), and :func:`call`, which runs one public call under the contract every public
function of garesearch keeps: it returns, or raises :class:`~garesearch.ParameterError` /
:class:`~garesearch.InfeasibleError` with a message; no other exception, no RuntimeWarning
(warnings of that kind are errors here), and no hang (a per-call time budget).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import warnings
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import strategies as st

from garesearch.errors import InfeasibleError, ParameterError

#: seconds one public call may take before the fuzz suite calls it a hang (a guard against
#: infinite loops on a shared, slow machine, not a performance target: see garesearch.app.bench)
BUDGET = 20.0

EDGE_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 2.0, 100.0,
    1 - 1e-16, 1 - 2**-53, 1 + 2**-52, 1e-16, 1e-9, 0.9999999,
    5e-324, 2.2250738585072014e-308, 1e-300, 1e-200, 1e200, 1e300,
    1e308, 1.7976931348623157e308, -1e308, -5e-324,
    math.nan, math.inf, -math.inf,
]

ODD_VALUES = [
    None, "abc", "0.1", "", "nan", complex(0.2, 1.0), {}, {"p": 0.1}, set(), [], (),
    object(), True, False, b"0.1", Decimal("0.1"), Decimal("NaN"), Fraction(1, 10),
    np.float32(0.1), np.float16(0.25), np.int64(2), np.bool_(True), np.complex128(0.1),
    np.array([0.1, 0.2]), np.array([0.1, math.nan]), [0.1, "x"], [[0.1], [0.2, 0.3]],
    np.array([[0.1, 0.2], [0.3, 0.4]]), np.zeros(0), np.array("0.1"),
]

edge_floats = st.sampled_from(EDGE_FLOATS)
any_floats = st.floats(allow_nan=True, allow_infinity=True)
unit_floats = st.floats(min_value=0.0, max_value=1.0)
log_floats = st.integers(-330, 308).map(lambda k: float(f"1e{k}"))
floats = st.one_of(edge_floats, any_floats, unit_floats, log_floats)
small_arrays = st.lists(st.one_of(edge_floats, unit_floats), min_size=1, max_size=4).map(np.array)
odd = st.sampled_from(ODD_VALUES)

#: any argument a caller might pass: mostly numbers at the edges, some arrays and odd types
values = st.one_of(floats, floats, floats, small_arrays, odd)
#: values for the mpmath paths (scalars, strings, exact types)
dps_values = st.one_of(floats, st.sampled_from(["0.1", "1e-40", "abc", None, Decimal("0.1"),
                                                Fraction(1, 3), np.float32(0.1), np.int64(3)]))
dps_choice = st.sampled_from([None, None, 15, 50])


class Hang(Exception):
    """A public call exceeded :data:`BUDGET` seconds."""


@contextlib.contextmanager
def time_budget(seconds: float = BUDGET):
    """Raise :class:`Hang` in the main thread after ``seconds`` (SIGALRM, where available)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def alarm(signum, frame):
        raise Hang(f"call exceeded its budget of {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def call(fn, *args, budget: float = BUDGET, **kwargs):
    """``(result, None)`` or ``(None, error)`` for an allowed error; anything else propagates.

    RuntimeWarnings (numpy's overflow, invalid value, ...) are turned into errors, so a
    public function that leaks one fails the test that calls it.
    """
    with time_budget(budget), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            return fn(*args, **kwargs), None
        except (ParameterError, InfeasibleError) as exc:
            assert str(exc).strip(), f"{type(exc).__name__} without a message"
            return None, exc


def as_array(x):
    """A result as a float array (mpmath numbers included)."""
    if isinstance(x, (list, tuple)):
        return np.array([float(v) for v in x])
    try:
        return np.asarray(x, dtype=float)
    except TypeError:
        return np.asarray(float(x))


def assert_probability(x, name="result"):
    if isinstance(x, mpmath.mpf):
        assert 0 <= x <= 1, f"{name} outside [0, 1]: {x!r}"
        return
    arr = as_array(x)
    assert np.all((arr >= 0) & (arr <= 1)), f"{name} outside [0, 1]: {x!r}"


def assert_nonnegative_finite(x, name="result"):
    """A finite number >= 0 (mpmath numbers are finite beyond the float64 range)."""
    if isinstance(x, mpmath.mpf):
        assert mpmath.isfinite(x) and x >= 0, f"{name} not a finite number >= 0: {x!r}"
        return
    arr = as_array(x)
    assert np.all(np.isfinite(arr) & (arr >= 0)), f"{name} not a finite number >= 0: {x!r}"


def assert_positive(x, name="result", finite=True):
    """Every element > 0 (and finite unless ``finite=False``; no NaN)."""
    if isinstance(x, mpmath.mpf):
        assert x > 0 and (not finite or mpmath.isfinite(x)), f"{name}: {x!r}"
        return
    arr = as_array(x)
    ok = arr > 0
    assert np.all(ok & np.isfinite(arr) if finite else ok), f"{name}: {x!r}"
