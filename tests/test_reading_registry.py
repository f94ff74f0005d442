"""The readings of :func:`garesearch.releases.calibration.calibrate` are objects in a registry: the registry
lists exactly what calibrate, its docstring and the command line accept, a reading registered
here is calibrated by the shared search (its scale checked against a closed form), and the
registry refuses what it cannot use."""

from __future__ import annotations

import math
import re

import pytest
from scipy.stats import norm

from garesearch.app.cli_calibrate import build_parser
from garesearch.errors import ParameterError
from garesearch.priors import Categorical
from garesearch.releases.calibration import (
    READINGS,
    Found,
    Search,
    calibrate,
    reading_names,
    register_reading,
    unregister_reading,
)

BINARY = Categorical({0: 0.5, 1: 0.5})
THREE = Categorical({0: 0.2, 1: 0.3, 3: 0.5})  # the two furthest values are 3 apart


class LaplaceTV:
    """Toy: every test between the prior's two furthest values (``D`` apart) under one Laplace
    release of scale ``b`` has advantage at most 1 - exp(-D/(2b)), which falls as ``b`` grows."""

    target = ("delta",)

    def on_labels(self, pure):
        return False

    def plan(self, task):
        if task.noise.name != "laplace":
            raise ParameterError(f"mechanism: the toy reading is for 'laplace' noise; got {task.noise.name!r}")
        d = float(task.prior.points[-1] - task.prior.points[0])
        return Search(value=lambda b: -math.expm1(-d / (2 * b)), target=task.delta, start=1.0, rtol=task.rtol,
                      method="toy: total variation of one Laplace release")


class GaussianFNR:
    """Toy with a rising value: the false-negative rate of the best test at false-positive rate
    alpha between two values D apart, Phi(Phi^-1(1 - alpha) - D/sigma), must reach beta."""

    target = ("alpha", "beta")

    def on_labels(self, pure):
        return True

    def plan(self, task):
        d = float(task.prior.points[-1] - task.prior.points[0])
        z = norm.isf(task.alpha)
        return Search(value=lambda s: float(norm.cdf(z - d / s)), target=task.beta, start=d, rtol=task.rtol,
                      rises=True, method="toy: Gaussian trade-off curve")


@pytest.fixture
def registered():
    """Register toy readings for one test, and remove them afterwards whatever happens."""
    names = []

    def add(name, reading):
        register_reading(name, reading)
        names.append(name)

    yield add
    for name in names:
        unregister_reading(name)


def test_the_registry_lists_what_calibrate_the_docs_and_the_cli_accept():
    assert reading_names() == READINGS
    documented = re.search(r"reading : \{(.*?)\}", calibrate.__doc__).group(1)
    assert tuple(re.findall(r'"(\w+)"', documented)) == READINGS
    choices = next(a.choices for a in build_parser()._actions if a.dest == "reading")
    assert tuple(choices) == READINGS
    targets = {"delta": 0.1, "alpha": None, "beta": None}
    for name in READINGS:
        kw = dict(targets, beta=0.05) if name == "tail" else targets
        if name == "error_rates":
            kw = {"alpha": 0.05, "beta": 0.5}
        # accepted: the first refusal is the bad tolerance, not the reading
        with pytest.raises(ParameterError, match=r"^rtol must lie"):
            calibrate(BINARY, "gaussian", r=0, reading=name, rtol=1.0, **kw)


def test_a_registered_reading_is_calibrated_by_the_shared_search(registered):
    registered("toy_tv", LaplaceTV())
    assert reading_names() == (*READINGS, "toy_tv")
    delta = 0.1
    res = calibrate(THREE, "laplace", r=0, delta=delta, reading="toy_tv")
    closed = -3.0 / (2 * math.log1p(-delta))  # 1 - exp(-3/(2b)) = delta
    assert res.scale == pytest.approx(closed, rel=2e-9)
    assert res.scale >= closed * (1 - 1e-15)  # safe: never less noise than needed
    assert res.value <= delta and res.value == pytest.approx(delta, rel=1e-8)
    assert res.reading == "toy_tv" and res.method == "toy: total variation of one Laplace release"
    assert res.epsilon == pytest.approx(1 / closed, rel=2e-9) and res.t is None
    # its own refusal, and the checks calibrate makes for it from its target and on_labels
    with pytest.raises(ParameterError, match="toy reading is for 'laplace'"):
        calibrate(THREE, "gaussian", r=0, delta=delta, reading="toy_tv")
    with pytest.raises(ParameterError, match=r"^beta applies only to reading='tail' and reading='error_rates'$"):
        calibrate(THREE, "laplace", r=0, delta=delta, beta=0.1, reading="toy_tv")
    with pytest.raises(ParameterError, match=r"^delta must lie in \(0, 1\); got None$"):
        calibrate(THREE, "laplace", r=0, reading="toy_tv")
    with pytest.raises(ParameterError, match="labels"):
        calibrate(Categorical({"a": 0.5, "b": 0.5}), "laplace", r=0, delta=delta, reading="toy_tv")


def test_a_registered_reading_whose_value_rises_with_the_scale(registered):
    registered("toy_fnr", GaussianFNR())
    alpha, beta = 0.05, 0.5
    res = calibrate(THREE, "gaussian", r=0, reading="toy_fnr", alpha=alpha, beta=beta)
    closed = 3.0 / (norm.isf(alpha) - norm.ppf(beta))  # Phi(z_(1-alpha) - 3/sigma) = beta
    assert res.scale == pytest.approx(closed, rel=2e-9)
    assert res.value >= beta
    # the readings taking beta now include it
    with pytest.raises(ParameterError, match="reading='tail' and reading='error_rates' and reading='toy_fnr'"):
        calibrate(THREE, "gaussian", r=0, delta=0.1, beta=0.1, reading="worst")
    with pytest.raises(ParameterError, match=r"^delta does not apply to reading='toy_fnr' \(its target is alpha and "
                                             r"beta\)$"):
        calibrate(THREE, "gaussian", r=0, delta=0.1, alpha=alpha, beta=beta, reading="toy_fnr")


def test_a_reading_may_give_its_own_closed_form(registered):
    class Closed:
        target = ("delta",)

        def on_labels(self, pure):
            return False

        def plan(self, task):
            return Found(scale=2.0 / task.delta, value=task.delta, method="toy: closed form")

    registered("toy_closed", Closed())
    res = calibrate(BINARY, "laplace", r=0, delta=0.25, reading="toy_closed")
    assert (res.scale, res.value, res.method) == (8.0, 0.25, "toy: closed form")


@pytest.mark.parametrize("name", ["nope", "Worst", None, ["worst"], 3])
def test_unknown_readings_are_refused_naming_the_valid_ones(name):
    with pytest.raises(ParameterError) as info:
        calibrate(BINARY, "laplace", r=0, delta=0.1, reading=name)
    message = str(info.value)
    assert message.startswith("reading must be one of") and repr(name) in message
    assert all(repr(n) in message for n in READINGS)


def test_the_registry_refuses_what_it_cannot_use(registered):
    with pytest.raises(ParameterError, match="registered already"):
        register_reading("worst", LaplaceTV())
    with pytest.raises(ParameterError, match="Python identifier"):
        register_reading("toy tv", LaplaceTV())
    with pytest.raises(ParameterError, match="Reading protocol"):
        register_reading("toy_none", object())

    class BadTarget(LaplaceTV):
        target = ("epsilon",)

    with pytest.raises(ParameterError, match=r"reading.target must be a non-empty tuple"):
        register_reading("toy_bad", BadTarget())
    with pytest.raises(ParameterError, match="built-in readings"):
        unregister_reading("average")
    with pytest.raises(ParameterError, match="must be a registered reading"):
        unregister_reading("toy_never")

    class NoPlan(LaplaceTV):
        def plan(self, task):
            return 1.0

    registered("toy_noplan", NoPlan())
    with pytest.raises(ParameterError, match="must return a Search or a Found; got float"):
        calibrate(BINARY, "laplace", r=0, delta=0.1, reading="toy_noplan")
    assert "toy_bad" not in reading_names() and "toy_none" not in reading_names()
