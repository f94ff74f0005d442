"""The pinned table (garesearch/data/claims_pinned.tsv) is what its independent routes give.

tests/pinned_routes.py obtains every pinned value by a route that does not call the code that
computes it (closed forms at 50 digits, quadrature, enumeration, optimality conditions).  Here
the routes are run again and compared with the table, so the table cannot hold a value pasted
from the package's output; the package's own values are compared with the table by
tests/test_claims.py (``claims --verify``).  The routes that take seconds run under the slow
marker.
"""

from __future__ import annotations

import math

import pytest
from pinned_routes import Regression, routes

from garesearch.claims import load_pins

# the claims' cached computations are shared by these modules: one worker runs them all
pytestmark = pytest.mark.xdist_group("claims")

PINS = load_pins()


def _same(route_value, pinned) -> bool:
    if isinstance(pinned, float) and isinstance(route_value, float):
        if math.isnan(pinned):
            return math.isnan(route_value)
        return math.isclose(route_value, pinned, rel_tol=1e-12, abs_tol=1e-300)
    return type(route_value) is type(pinned) and route_value == pinned


def _compare(table, *, slow: bool):
    assert set(table) == set(PINS)
    checked = 0
    for key, route in table.items():
        pin = PINS[key]
        assert pin.route == route.route and pin.tolerance == route.tolerance, key
        if isinstance(route, Regression) or route.slow != slow:
            continue
        assert _same(route.value, pin.value), (key, route.value, pin.value)
        checked += 1
    return checked


@pytest.fixture(scope="module")
def fast_routes():
    return routes(include_slow=False)


def test_the_table_is_what_the_routes_give(fast_routes):
    assert _compare(fast_routes, slow=False) > 430


@pytest.mark.slow
def test_the_slow_routes_give_the_table_too():
    assert _compare(routes(include_slow=True), slow=True) >= 2


def test_the_regression_guards_say_so(fast_routes):
    guards = {k for k, p in PINS.items() if p.route.startswith("regression guard only")}
    assert guards == {k for k, r in fast_routes.items() if isinstance(r, Regression)}
    assert len(guards) == 3
