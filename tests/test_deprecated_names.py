"""DP's delta is ``dp_delta``; the old keyword ``delta=`` still works for one release, with a
DeprecationWarning naming the new one, and gives the same value (checked against closed forms)."""

from __future__ import annotations

import math

import mpmath
import pytest

from garesearch import approx_dp
from garesearch._args import renamed_keywords
from garesearch.errors import ParameterError
from garesearch.releases import readings


def _b1(eps, d, chi, p, q):  # App. B.1, typed from the paper at 50 digits
    with mpmath.workdps(50):
        e, d, chi, p, q = map(mpmath.mpf, (eps, d, chi, p, q))
        return float(1 / (1 + (q / p) / (mpmath.exp(e) + d / chi)))


def _b2(eps, d, chibar, p, q):  # App. B.2's final form
    with mpmath.workdps(50):
        e, d, cb, p, q = map(mpmath.mpf, (eps, d, chibar, p, q))
        return float(1 / (1 + mpmath.exp(-e) * (1 - d / cb) * q / p))


CASES = [
    (approx_dp.posterior_bound_chi, dict(epsilon=0.7, chi=0.05, p=0.25, q=0.5), 0.02,
     lambda kw, d: _b1(kw["epsilon"], d, kw["chi"], kw["p"], kw["q"])),
    (approx_dp.adp_posterior_bound, dict(epsilon=0.8, chibar=0.4, p=0.3, q=0.6), 0.05,
     lambda kw, d: _b2(kw["epsilon"], d, kw["chibar"], kw["p"], kw["q"])),
    # (e^eps - 1 + 2 delta)/(e^eps + 1) (Kairouz, Oh and Viswanath)
    (readings.membership_advantage, dict(epsilon=1.0), 0.05,
     lambda kw, d: (math.e - 1 + 2 * d) / (math.e + 1)),
]


@pytest.mark.parametrize(("fn", "kw", "d", "closed"), CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_old_keyword_warns_and_agrees(fn, kw, d, closed):
    want = closed(kw, d)
    new = fn(**kw, dp_delta=d)
    with pytest.warns(DeprecationWarning, match=r"delta= is deprecated.*use dp_delta="):
        old = fn(**kw, delta=d)
    assert new == pytest.approx(want, rel=1e-13)
    assert old == new
    with pytest.raises(ParameterError, match="dp_delta"):
        fn(**kw, delta=d, dp_delta=d)


def test_b1_with_confidence_old_keyword():
    # Laplace noise of scale 1 stays within d = ln 10 with probability 0.9; chi = f(0.5 + d)
    d = math.log(10.0)
    chi = 0.5 * math.exp(-(0.5 + d))
    want = _b1(0.5, 0.01, chi, 0.2, 0.5) - 0.2
    kw = dict(epsilon=0.5, confidence=0.9, p=0.2, q=0.5, shift=0.5)
    new = approx_dp.advantage_with_confidence(**kw, dp_delta=0.01)
    with pytest.warns(DeprecationWarning, match="use dp_delta="):
        old = approx_dp.advantage_with_confidence(**kw, delta=0.01)
    assert new.advantage == pytest.approx(want, rel=1e-12) and old == new
    back = approx_dp.confidence_for_advantage(epsilon=0.5, dp_delta=0.01, advantage=new.advantage,
                                              p=0.2, q=0.5, shift=0.5)
    with pytest.warns(DeprecationWarning, match="use dp_delta="):
        old = approx_dp.confidence_for_advantage(epsilon=0.5, delta=0.01, advantage=new.advantage,
                                                 p=0.2, q=0.5, shift=0.5)
    assert back.confidence == pytest.approx(0.9, rel=1e-9) and old == back


def test_smooth_laplace_old_names():
    # App. B.2: delta = 2 e^{eps - 1 - (eps - b)/beta}
    want = 2 * math.exp(2.0 - 1 - (2.0 - 0.7) / 0.3)
    with pytest.warns(DeprecationWarning, match="use smooth_laplace_dp_delta"):
        old = approx_dp.smooth_laplace_delta(epsilon=2.0, b=0.7, beta=0.3)
    assert old == pytest.approx(want, rel=1e-14)
    res = approx_dp.search_smooth_laplace(epsilon=1.0, beta=0.1, c=0.5)
    with pytest.warns(DeprecationWarning, match="use dp_delta"):
        assert res.delta == res.dp_delta
    e1 = res.epsilon - res.alpha
    assert res.dp_delta == pytest.approx(2 * math.exp(e1 - 1 - (e1 - res.b) / res.beta), rel=1e-12)


def test_renamed_keywords_keeps_the_signature():
    import inspect

    @renamed_keywords(delta="dp_delta")
    def f(*, dp_delta=0.0):
        """doc"""
        return dp_delta

    assert f.__doc__ == "doc" and "dp_delta" in inspect.signature(f).parameters
