"""``python -m garesearch calibrate``: subsampling, composed Laplace releases and Kazan and
Reiter's ratio at the calibrated scale (closed forms typed from their Theorem 1)."""

from __future__ import annotations

import json
import math

import pytest

from garesearch.__main__ import main
from garesearch.releases.accounting import dp_accounting_available

needs_accounting = pytest.mark.skipif(not dp_accounting_available(), reason="needs Google's dp_accounting")


@needs_accounting
def test_composed_laplace_with_the_kazan_reiter_ratio(capsys):
    assert main(["calibrate", "--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.1",
                 "--mechanism", "laplace", "--reading", "average", "--releases", "10",
                 "--kazan-reiter", "0.5,0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    eps = out["epsilon"]
    assert eps == pytest.approx(10 / out["scale"])
    p, q = 0.5, 0.5
    thm1 = 1 / (p * q + math.exp(-2 * eps) * (1 - q) * p + math.exp(-eps) * (1 - p))
    assert out["kazan_reiter"] == {"p": 0.5, "q": 0.5, "beta": 0.0, "ratio": pytest.approx(thm1, rel=1e-12)}


def test_gaussian_kazan_reiter_ratio_is_the_gdp_profile(capsys):
    from scipy.stats import norm

    assert main(["calibrate", "--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.1",
                 "--mechanism", "gaussian", "--reading", "average", "--kazan-reiter", "0.3,1",
                 "--kr-beta", "0.01", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    mu, beta, p = 1 / out["scale"], 0.01, 0.3
    ref = 1 / (p + (1 - p) * norm.cdf(norm.ppf(beta) - mu) / beta)  # q = 1
    assert out["kazan_reiter"]["ratio"] == pytest.approx(ref, rel=1e-10)
    assert main(["calibrate", "--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.1",
                 "--mechanism", "gaussian", "--reading", "average", "--kazan-reiter", "x"]) == 2


@needs_accounting
def test_sampling_prob_flag(capsys):
    assert main(["calibrate", "--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.05",
                 "--mechanism", "gaussian", "--reading", "average", "--releases", "2",
                 "--sampling-prob", "0.5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sampling_prob"] == 0.5 and out["mu"] is None and out["value"] <= 0.05
    assert main(["calibrate", "--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.05",
                 "--mechanism", "gaussian", "--reading", "worst", "--sampling-prob", "0.5"]) == 1
    assert "unbounded" in capsys.readouterr().err
    assert main(["calibrate", "--prior", "categorical:0=0.8,1=0.2", "--r", "0", "--delta", "0.05",
                 "--mechanism", "gaussian", "--reading", "average", "--sampling-prob", "2"]) == 2
