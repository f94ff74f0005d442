"""Eq. (main) with the paper's exponent ``a`` is not sound: a prior and a Laplace mechanism
that show it (Sec. 4.1).

Public as :func:`garesearch.constructions.counterexamples.paper_counterexample`.  It needs only
:mod:`garesearch.bound`, and sits below :mod:`garesearch.attribute`, which gives it under its
old name ``garesearch.attribute.paper_counterexample`` (deprecated).
"""

from __future__ import annotations

import numpy as np

from .. import bound

__all__ = ["paper_counterexample"]


def paper_counterexample(*, p=0.2, q=0.5, r=1.0, a=2.0, delta=0.1):
    r"""A prior and a Laplace mechanism for which Eq. (main) with exponent ``a`` is not sound.

    Prior: mass ``p`` at ``t - r`` (inside :math:`X' = [t-r, t+r]`, ``t = 0``), mass ``q`` at
    ``t + a`` (the paper's :math:`\hat X'_a`), the rest far away at ``t + 1000 a``.  The
    identity query with Laplace noise at the paper's epsilon is epsilon-DP; for an output
    ``y`` far below ``t - r`` the exact posterior of :math:`X'` is
    :math:`p e^{\epsilon(a + r)} / (p e^{\epsilon(a+r)} + q + \dots)`, above ``p + delta``.

    Returns
    -------
    dict
        ``epsilon`` (the paper's), ``posterior`` (exact, at ``y = -50 a``), ``bound`` (p + delta).

    Examples
    --------
    The posterior is the closed form above, and it exceeds ``p + delta``:

    >>> import math
    >>> res = paper_counterexample()
    >>> e = res["epsilon"]
    >>> num = 0.2 * math.exp(3 * e)
    >>> closed = num / (num + 0.5 + 0.3 * math.exp(-1998 * e))
    >>> abs(res["posterior"] - closed) < 1e-12, res["posterior"] > res["bound"]
    (True, True)
    """
    eps = float(bound.epsilon_for_advantage(delta=delta, p=p, q=q, a=a))
    y = -50.0 * a
    xs = np.array([-r, a, 1000.0 * a])
    ws = np.array([p, q, 1 - p - q])
    logw = np.log(ws) - eps * np.abs(y - xs)
    post = float(np.exp(logw[0] - np.logaddexp.reduce(logw)))
    return {"epsilon": eps, "posterior": post, "bound": p + delta, "advantage": post - p}
