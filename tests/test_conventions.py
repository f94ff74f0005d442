"""``sides=`` takes the same spellings everywhere ("both", "upper", "lower"), checked by one
validator with one message."""

from __future__ import annotations

import pytest

from garesearch import bound, optimal
from garesearch._args import SIDES, check_sides
from garesearch.errors import ParameterError
from garesearch.priors import Normal
from garesearch.releases import calibration, tail


def test_check_sides():
    assert SIDES == ("both", "upper", "lower")
    for s in SIDES:
        assert check_sides(s) == s
    for bad in ("two-sided", "Both", "up", None, 1, ("upper",)):
        with pytest.raises(ParameterError, match="sides must be one of 'both', 'upper', 'lower'"):
            check_sides(bad)
    with pytest.raises(ParameterError, match="one of 'both', 'upper'; got 'lower'"):
        check_sides("lower", allowed=("both", "upper"))


CALLS = [
    lambda s: bound.epsilon_for_advantage(delta=0.1, p=0.2, sides=s),
    lambda s: bound.advantage_for_epsilon(epsilon=0.5, p=0.2, sides=s),
    lambda s: optimal.epsilon_optimal(Normal(0, 1), r=0.5, delta=0.1, sides=s),
    lambda s: tail.advantage_tail(Normal(0, 1), "gaussian", scale=2.0, r=0.5, delta=0.1, t=0.0, sides=s),
    lambda s: calibration.calibrate(Normal(0, 1), "gaussian", r=0.5, delta=0.1, reading="tail",
                                    beta=0.1, sides=s),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("bad", ["two-sided", "BOTH", 3])  # None: bound's default
def test_every_function_rejects_other_spellings_with_one_message(call, bad):
    with pytest.raises(ParameterError, match=r"^sides must be one of 'both', 'upper', 'lower'; got"):
        call(bad)
