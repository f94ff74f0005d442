"""Independent references for a binary secret, shared by the tests of composed and subsampled
releases: closed forms evaluated with mpmath at 40 digits."""

from __future__ import annotations

import mpmath


def gauss_binary_success_mp(w1, mu, dps=40) -> float:
    """Bayes success for two atoms ``mu`` noise units apart (prior ``w1`` on the second) under
    Gaussian noise: the likelihood-ratio threshold test, at ``dps`` digits."""
    with mpmath.workdps(dps):
        w1 = mpmath.mpf(w1)
        w0, m = 1 - w1, mpmath.mpf(mu)
        z = m / 2 + mpmath.log(w0 / w1) / m
        return float(w0 * mpmath.ncdf(z) + w1 * mpmath.ncdf(m - z))
