r"""The privacy-loss distributions of :mod:`garesearch.releases.accounting`, built with ``dp_accounting``.

Beyond the paper.  Google's ``dp_accounting`` privacy-loss-distribution accountant (an optional
dependency: ``pip install garesearch[accounting]``): the distribution of ``k`` releases of one
noise, of a list of different releases, and of a mechanism subsampled without replacement
(Dong, Roth and Su, Thm. 4.2, made symmetric by ``dp_accounting``'s pessimistic
connect-the-dots construction), kept for the last few requests.  Imported from
:mod:`garesearch.releases.accounting`, whose docstring describes the subsampling.
"""

from __future__ import annotations

import math

import numpy as np

from ..additive import resolve
from ..errors import ParameterError
from ._accounting_tradeoff import _hockey_stick, _pmf_arrays


def dp_accounting_available() -> bool:
    """True if Google's optional ``dp_accounting`` package can be imported (beyond the paper).

    Examples
    --------
    >>> isinstance(dp_accounting_available(), bool)
    True
    """
    try:
        import dp_accounting.pld.privacy_loss_distribution  # noqa: F401
    except ImportError:
        return False
    return True


def _need_dp_accounting(what: str):
    try:
        from dp_accounting.pld import privacy_loss_distribution
    except ImportError:
        raise ParameterError(
            f"{what} needs Google's dp_accounting package (privacy-loss-distribution accountant): "
            "pip install 'garesearch[accounting]'"
        ) from None
    return privacy_loss_distribution


_PLD_CACHE: dict[tuple, object] = {}
_PLD_CACHE_SIZE = 16


def _cached(key, pld):
    """Keep ``pld`` under ``key`` (the oldest entry leaves when the cache is full); return it."""
    if len(_PLD_CACHE) >= _PLD_CACHE_SIZE:
        _PLD_CACHE.pop(next(iter(_PLD_CACHE)))
    _PLD_CACHE[key] = pld
    return pld


def _noise_pld(pld_mod, name: str, s: float, d: float, kw: dict):
    """dp_accounting's privacy-loss distribution of one release of ``name`` noise of scale ``s``
    at distance ``d`` (``kw``: discretisation and sampling arguments)."""
    if name == "laplace":
        return pld_mod.from_laplace_mechanism(s, sensitivity=d, **kw)
    if name == "gaussian":
        return pld_mod.from_gaussian_mechanism(s, sensitivity=d, **kw)
    if name == "discrete_laplace":
        return pld_mod.from_discrete_laplace_mechanism(1.0 / s, sensitivity=round(d), **kw)
    return pld_mod.from_discrete_gaussian_mechanism(s, sensitivity=round(d), **kw)


def _pld(name: str, s: float, d: float, k: int, q: float, discretization: float):
    """dp_accounting's privacy loss distribution of ``k`` releases, kept for the last few requests.

    A calibration evaluates the same scale more than once (the search, then the result's own
    numbers); building and composing the distribution is the expensive step.
    """
    key = (name, s, d, k, q, discretization)
    if key in _PLD_CACHE:
        return _PLD_CACHE[key]
    pld_mod = _need_dp_accounting(f"the privacy profile of {k} {name} release(s)")
    kw = dict(value_discretization_interval=discretization, sampling_prob=q)
    pld = _noise_pld(pld_mod, name, s, d, kw)
    if k > 1:
        pld = pld.self_compose(k)
    return _cached(key, pld)


def _one_pld(pld_mod, name: str, s: float, d: float, q: float, sampling: str, discretization: float):
    """One release's privacy-loss distribution (module docstring: subsampling)."""
    kw = dict(value_discretization_interval=discretization, sampling_prob=q)
    if name == "gencauchy":
        from dp_accounting.pld import common

        eps = resolve(name).pure_epsilon(s, d)
        return pld_mod.from_privacy_parameters(common.DifferentialPrivacyParameters(eps, 0.0),
                                               value_discretization_interval=discretization)
    pld = _noise_pld(pld_mod, name, s, d, kw)
    if sampling == "without_replacement" and q < 1:
        pld = _symmetrised(pld_mod, pld, discretization)
    return pld


def _symmetrised(pld_mod, pld, discretization: float):
    r"""The symmetric distribution of :math:`C_q(f)` (Dong, Roth and Su, Thm. 4.2) from the two
    directions of a subsampled pair: its profile is :math:`\max(\delta_{remove}, \delta_{add})`
    for :math:`\epsilon \ge 0` and :math:`1 - e^{-\epsilon} + e^{-\epsilon}\delta(\epsilon)` at
    :math:`-\epsilon` (a symmetric pair), turned into a distribution by ``dp_accounting``'s
    pessimistic connect-the-dots construction on the accountant's grid of losses."""
    from dp_accounting.pld import pld_pmf

    arrays = [_pmf_arrays(pld._pmf_remove), _pmf_arrays(pld._pmf_add)]
    top = max(float(np.max(np.abs(a[0]))) for a in arrays if a[0].size)
    n = max(1, math.ceil(top / discretization - 1e-9))
    eps = np.arange(n + 1) * discretization
    pos = np.maximum(_hockey_stick(arrays[0], eps), _hockey_stick(arrays[1], eps))
    pos = np.minimum.accumulate(pos)
    neg = -np.expm1(-eps[1:]) + np.exp(-eps[1:]) * pos[1:]
    deltas = np.minimum(np.concatenate([neg[::-1], pos]), 1.0)
    pmf = pld_pmf.create_pmf_pessimistic_connect_dots(discretization, np.arange(-n, n + 1), deltas)
    return pld_mod.PrivacyLossDistribution(pmf)


def _pld_parts(spec: tuple, d: float, k: int, q: float, sampling: str, discretization: float):
    """The distribution of ``k`` rounds of the releases ``spec`` (``(name, scale)`` pairs), cached."""
    key = ("parts", spec, d, k, q, sampling, discretization)
    if key in _PLD_CACHE:
        return _PLD_CACHE[key]
    pld_mod = _need_dp_accounting(f"the privacy profile of {'+'.join(n for n, _ in spec)}")
    pld = None
    for name, s in spec:
        one = _one_pld(pld_mod, name, s, d, q, sampling, discretization)
        pld = one if pld is None else pld.compose(one)
    if k > 1:
        pld = pld.self_compose(k)
    return _cached(key, pld)
