r"""Privacy profiles and trade-off curves of noisy releases, composed over ``k`` releases.

Beyond the paper (which reads pure :math:`\epsilon`).  For two inputs ``distance`` apart, a
mechanism's *privacy profile* :math:`\delta(\epsilon)` is the hockey-stick divergence of its
output distributions (the smallest :math:`\delta_{DP}` of :math:`(\epsilon, \delta_{DP})`-DP at
each :math:`\epsilon`), and its *trade-off curve* :math:`f(\alpha)` the smallest type-II error
of a test between them at type-I error :math:`\alpha` (f-DP: Dong, Roth and Su, "Gaussian
differential privacy", JRSS B 2022).

- Gaussian noise :math:`\mathcal N(0, \sigma^2)`, ``k`` releases: :math:`\mu`-GDP with
  :math:`\mu = \sqrt k\,\Delta/\sigma` (their Cor. 3.3), so in closed form
  :math:`f(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)`,
  :math:`\delta(\epsilon) = \Phi(-\epsilon/\mu + \mu/2) - e^\epsilon\Phi(-\epsilon/\mu - \mu/2)`
  (their Cor. 2.13; Balle and Wang, ICML 2018, Thm. 8) and :math:`\rho = \mu^2/2`-zCDP.
- Laplace noise of scale ``b``, one release, :math:`\mu = \Delta/b`:
  :math:`\delta(\epsilon) = 1 - e^{(\epsilon - \mu)/2}` for :math:`\epsilon < \mu` and
  :math:`f(\alpha) = 1 - e^\mu\alpha` (:math:`\alpha < e^{-\mu}/2`),
  :math:`e^{-\mu}/(4\alpha)` (:math:`\alpha \le 1/2`), :math:`e^{-\mu}(1 - \alpha)` (Dong, Roth and
  Su, Sec. 2.4).
- Everything else (Laplace composed ``k`` times, the integer variants, Poisson-subsampled
  Gaussian as in DP-SGD): Google's ``dp_accounting`` privacy-loss-distribution accountant
  (``pip install garesearch[accounting]``), pessimistic discretisation, so the profile it gives
  is an upper bound and the trade-off curve a lower bound.  Generalised Cauchy noise, which has
  no accountant: the profile of pure :math:`\epsilon`-DP (``k`` releases: :math:`k\epsilon`),
  a bound.

A trade-off curve from a profile: :math:`f(\alpha) = \sup_\epsilon \max(0,
1 - \delta(\epsilon) - e^\epsilon\alpha, e^{-\epsilon}(1 - \delta(\epsilon) - \alpha))` (Dong,
Roth and Su, Prop. 2.12), over a grid of :math:`\epsilon` (a grid can only lower it: sound).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .additive import ScaledNoise, check_scale, resolve
from .errors import ParameterError

__all__ = [
    "PrivacyProfile",
    "dp_accounting_available",
    "gaussian_dp_delta",
    "gaussian_dp_epsilon",
    "gaussian_tradeoff",
    "laplace_tradeoff",
    "plot_tradeoff",
    "privacy_profile",
    "pure_dp_tradeoff",
    "tradeoff_from_profile",
]

_EPS_GRID = 500


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


def _alpha(alpha):
    a = np.asarray(alpha, dtype=float)
    if np.any(~np.isfinite(a)) or np.any((a < 0) | (a > 1)):
        raise ParameterError("alpha must lie in [0, 1]")
    return a


def _check_mu(mu):
    if not (isinstance(mu, (int, float, np.integer, np.floating)) and math.isfinite(mu) and mu >= 0):
        raise ParameterError(f"mu must be a finite number >= 0; got {mu!r}")
    return float(mu)


def gaussian_tradeoff(alpha, *, mu: float):
    r"""Trade-off curve of :math:`\mu`-GDP, :math:`\Phi(\Phi^{-1}(1-\alpha) - \mu)` (beyond the paper).

    Dong, Roth and Su (2022), Def. 2.7.

    Examples
    --------
    >>> round(float(gaussian_tradeoff(0.5, mu=0.0)), 12)
    0.5
    """
    from scipy.special import ndtr, ndtri

    a, m = _alpha(alpha), _check_mu(mu)
    out = ndtr(ndtri(1 - a) - m)
    return float(out) if out.ndim == 0 else out


def laplace_tradeoff(alpha, *, mu: float):
    r"""Trade-off curve of Laplace noise of scale ``b`` between inputs ``mu * b`` apart (beyond the paper).

    Dong, Roth and Su (2022), Sec. 2.4 (module docstring).

    Examples
    --------
    >>> laplace_tradeoff(0.3, mu=0.0)  # identical inputs: 1 - alpha
    0.7
    """
    a, m = _alpha(alpha), _check_mu(mu)
    with np.errstate(divide="ignore", over="ignore"):
        em = math.exp(-m)
        out = np.where(a < em / 2, 1 - a / em, np.where(a <= 0.5, em / (4 * np.maximum(a, 1e-300)), em * (1 - a)))
    out = np.clip(out, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def pure_dp_tradeoff(alpha, *, epsilon: float, dp_delta: float = 0.0):
    r"""Trade-off curve of :math:`(\epsilon, \delta_{DP})`-DP (beyond the paper).

    :math:`\max(0, 1 - \delta - e^\epsilon\alpha, e^{-\epsilon}(1 - \delta - \alpha))`
    (Wasserman and Zhou 2010; Kairouz, Oh and Viswanath 2015; Dong, Roth and Su, Prop. 2.5).

    Examples
    --------
    >>> float(pure_dp_tradeoff(0.5, epsilon=0.0))
    0.5
    >>> import math
    >>> abs(float(pure_dp_tradeoff(0.1, epsilon=1.0)) - (1 - math.e * 0.1)) < 1e-15
    True
    """
    a = _alpha(alpha)
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and epsilon >= 0):
        raise ParameterError(f"epsilon must be a number >= 0; got {epsilon!r}")
    if not 0 <= dp_delta <= 1:
        raise ParameterError(f"dp_delta must lie in [0, 1]; got {dp_delta!r}")
    e = float(epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        first = 1 - dp_delta - np.exp(e) * a if math.isfinite(e) else np.where(a > 0, 0.0, 1 - dp_delta)
        out = np.maximum(0.0, np.maximum(first, math.exp(-e) * (1 - dp_delta - a)))
    return float(out) if out.ndim == 0 else out


def gaussian_dp_delta(epsilon, *, mu: float):
    r""":math:`\delta(\epsilon)` of :math:`\mu`-GDP (beyond the paper; Dong, Roth and Su Cor. 2.13).

    .. math:: \delta(\epsilon) = \Phi(-\epsilon/\mu + \mu/2) - e^\epsilon\Phi(-\epsilon/\mu - \mu/2),

    evaluated in log space (accurate in the far tail).

    Examples
    --------
    >>> round(gaussian_dp_delta(0.0, mu=1.0), 10)  # 2 Phi(1/2) - 1
    0.3829249225
    """
    from scipy.special import log_ndtr

    m = _check_mu(mu)
    e = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(e)):
        raise ParameterError("epsilon must be finite")
    if m == 0:
        out = np.zeros_like(e)
    else:
        with np.errstate(divide="ignore"):
            big, small = log_ndtr(-e / m + m / 2), e + log_ndtr(-e / m - m / 2)
            out = np.where(small < big, np.exp(big) * -np.expm1(np.minimum(small - big, 0.0)), 0.0)
    out = np.clip(out, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def gaussian_dp_epsilon(dp_delta: float, *, mu: float) -> float:
    r"""The smallest :math:`\epsilon \ge 0` with :func:`gaussian_dp_delta` at most ``dp_delta`` (beyond the paper).

    Examples
    --------
    >>> eps = gaussian_dp_epsilon(1e-5, mu=1.0)
    >>> abs(gaussian_dp_delta(eps, mu=1.0) - 1e-5) < 1e-12  # the inverse of gaussian_dp_delta
    True
    """
    from scipy.optimize import brentq

    m = _check_mu(mu)
    if not (isinstance(dp_delta, (int, float, np.integer, np.floating)) and 0 < dp_delta < 1):
        raise ParameterError(f"dp_delta must lie in (0, 1); got {dp_delta!r}")
    if gaussian_dp_delta(0.0, mu=m) <= dp_delta:
        return 0.0
    hi = max(1.0, m * m)
    while gaussian_dp_delta(hi, mu=m) > dp_delta:
        hi *= 2
    return float(brentq(lambda e: gaussian_dp_delta(e, mu=m) - dp_delta, 0.0, hi, xtol=1e-14, rtol=1e-13))


def tradeoff_from_profile(alpha, dp_delta: Callable, epsilons) -> np.ndarray:
    r"""Trade-off curve implied by a privacy profile on a grid of epsilons (beyond the paper).

    :math:`f(\alpha) = \max_{\epsilon} \max(0, 1 - \delta(\epsilon) - e^\epsilon\alpha,
    e^{-\epsilon}(1 - \delta(\epsilon) - \alpha))` (Dong, Roth and Su, Prop. 2.12); the
    maximum over a grid is at most the supremum, so the curve returned is a sound lower bound.

    Examples
    --------
    >>> import numpy as np
    >>> float(tradeoff_from_profile(0.25, lambda e: np.zeros_like(e), [0.0]))  # epsilon = 0: 1 - alpha
    0.75
    """
    a = _alpha(alpha)
    e = np.asarray(epsilons, dtype=float)
    d = np.asarray(dp_delta(e), dtype=float)
    flat = a.reshape(-1, 1)
    with np.errstate(over="ignore", invalid="ignore"):
        first = 1 - d - np.exp(e) * flat
        second = np.exp(-e) * (1 - d - flat)
    out = np.maximum(0.0, np.max(np.maximum(first, second), axis=1)).reshape(a.shape)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class PrivacyProfile:
    """The privacy of ``releases`` releases with noise of ``scale`` between inputs ``distance`` apart.

    Attributes
    ----------
    mechanism : str
    scale, distance : float
    releases : int
    sampling_prob : float
        Poisson subsampling probability (1: none).
    source : str
        ``"closed form"``, ``"dp_accounting (PLD)"`` or ``"pure epsilon-DP bound"``.
    epsilon : float
        Pure epsilon of the composition (``inf`` if there is none).
    mu : float or None
        GDP parameter (Gaussian noise without subsampling).
    rho : float or None
        zCDP parameter :math:`\\rho = \\mu^2/2` (Gaussian noise without subsampling).
    """

    mechanism: str
    scale: float
    distance: float
    releases: int
    sampling_prob: float
    source: str
    epsilon: float
    mu: float | None
    rho: float | None
    _delta: Callable = field(repr=False)
    _tradeoff: Callable | None = field(repr=False, default=None)
    _cache: dict = field(repr=False, default_factory=dict, compare=False)
    _epsilon_for: Callable | None = field(repr=False, default=None)

    def dp_delta(self, epsilon):
        r""":math:`\delta_{DP}(\epsilon)`: the composition is :math:`(\epsilon, \delta_{DP})`-DP."""
        e = np.asarray(epsilon, dtype=float)
        if np.any(~np.isfinite(e)) or np.any(e < 0):
            raise ParameterError("epsilon must be finite and >= 0")
        out = np.clip(np.asarray(self._delta(e), dtype=float), 0.0, 1.0)
        return float(out) if out.ndim == 0 else out

    def dp_epsilon(self, dp_delta: float) -> float:
        r"""The smallest :math:`\epsilon` with :math:`\delta_{DP}(\epsilon) \le` ``dp_delta``."""
        from scipy.optimize import brentq

        if not (isinstance(dp_delta, (int, float, np.integer, np.floating)) and 0 < dp_delta < 1):
            raise ParameterError(f"dp_delta must lie in (0, 1); got {dp_delta!r}")
        if self.mu is not None:
            return gaussian_dp_epsilon(dp_delta, mu=self.mu)
        if self._epsilon_for is not None:
            return float(self._epsilon_for(float(dp_delta)))
        if self.dp_delta(0.0) <= dp_delta:
            return 0.0
        hi = 1.0
        while self.dp_delta(hi) > dp_delta:
            hi *= 2
            if hi > 512:
                return math.inf
        return float(brentq(lambda e: self.dp_delta(e) - dp_delta, 0.0, hi, xtol=1e-12, rtol=1e-12))

    def _grid(self):
        top = self.epsilon if math.isfinite(self.epsilon) else self.dp_epsilon(1e-15)
        top = min(max(top, 1e-6), 512.0)
        return np.concatenate([np.linspace(0.0, top, _EPS_GRID), top * np.geomspace(1.001, 1.5, 50)])

    def tradeoff(self, alpha):
        r"""Trade-off curve :math:`f(\alpha)` (closed form, or from the profile: a lower bound)."""
        if self._tradeoff is not None:
            return self._tradeoff(alpha)
        if "grid" not in self._cache:  # the profile on the grid, computed once
            grid = self._grid()
            self._cache["grid"] = (grid, np.asarray(self._delta(grid), float))
        grid, values = self._cache["grid"]
        return tradeoff_from_profile(alpha, lambda e: values, grid)


def _check_int(name, k, low=1):
    if not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= low):
        raise ParameterError(f"{name} must be an integer >= {low}; got {k!r}")
    return int(k)


def privacy_profile(mechanism, *, scale: float, distance: float = 1.0, releases: int = 1,
                    sampling_prob: float = 1.0, discretization: float = 1e-4) -> PrivacyProfile:
    r"""Privacy profile and trade-off curve of ``releases`` noisy releases (beyond the paper).

    Closed forms for Gaussian noise and one Laplace release; Google's ``dp_accounting`` PLD
    accountant for the rest (module docstring).

    Parameters
    ----------
    mechanism : str or mechanism object
        See :func:`garesearch.additive.resolve`.
    scale : float
        Noise scale, > 0.
    distance : float
        Distance between the two inputs (the query's sensitivity times the attribute's
        distance), > 0; an integer for the integer variants.
    releases : int
        Number of independent releases, >= 1.
    sampling_prob : float
        Poisson subsampling probability in (0, 1] (DP-SGD style; through ``dp_accounting``).
    discretization : float
        ``value_discretization_interval`` of the PLD accountant.

    Returns
    -------
    PrivacyProfile

    Examples
    --------
    >>> prof = privacy_profile("gaussian", scale=2.0, releases=4)
    >>> prof.mu, prof.rho
    (1.0, 0.5)
    """
    noise: ScaledNoise = resolve(mechanism)
    s = check_scale(scale)
    d = check_scale(distance, "distance")
    k = _check_int("releases", releases)
    if not (isinstance(sampling_prob, (int, float, np.integer, np.floating)) and 0 < sampling_prob <= 1):
        raise ParameterError(f"sampling_prob must lie in (0, 1]; got {sampling_prob!r}")
    q = float(sampling_prob)
    if noise.discrete and d != round(d):
        raise ParameterError(f"distance must be an integer for {noise.name}; got {distance!r}")
    base = dict(mechanism=noise.name, scale=s, distance=d, releases=k, sampling_prob=q)
    eps1 = noise.pure_epsilon(s, d)
    if noise.name == "gaussian" and q == 1.0:
        mu = math.sqrt(k) * d / s
        return PrivacyProfile(**base, source="closed form", epsilon=math.inf, mu=mu, rho=mu * mu / 2,
                              _delta=lambda e: gaussian_dp_delta(e, mu=mu),
                              _tradeoff=lambda a: gaussian_tradeoff(a, mu=mu))
    if noise.name == "laplace" and k == 1 and q == 1.0:
        mu = d / s
        return PrivacyProfile(**base, source="closed form", epsilon=mu, mu=None, rho=None,
                              _delta=lambda e: np.where(e < mu, -np.expm1((np.asarray(e) - mu) / 2), 0.0),
                              _tradeoff=lambda a: laplace_tradeoff(a, mu=mu))
    if noise.name == "gencauchy":
        if q != 1.0:
            raise ParameterError("sampling_prob: subsampling is not supported for gencauchy noise")
        total = k * eps1
        return PrivacyProfile(**base, source="pure epsilon-DP bound", epsilon=total, mu=None, rho=None,
                              _delta=lambda e: np.where(e < total, -np.expm1(np.asarray(e) - total)
                                                        / (1 + math.exp(-total)), 0.0),
                              _tradeoff=lambda a: pure_dp_tradeoff(a, epsilon=total))
    if not (isinstance(discretization, (int, float, np.integer, np.floating)) and 1e-6 <= discretization <= 0.1):
        raise ParameterError(f"discretization must lie in [1e-6, 0.1]; got {discretization!r}")
    pld = _pld(noise.name, s, d, k, q, float(discretization))
    total = k * eps1 if q == 1.0 else (
        k * math.log1p(q * math.expm1(eps1)) if math.isfinite(eps1) else math.inf)

    def delta(e, pld=pld):
        e = np.minimum(np.asarray(e, dtype=float), 700.0)  # e^epsilon stays finite
        flat = e.ravel()
        with np.errstate(over="ignore", invalid="ignore"):
            if flat.size <= 64:  # dp_accounting's scalar path is vectorised over the losses
                out = np.array([pld.get_delta_for_epsilon(float(v)) for v in flat], dtype=float)
            else:  # its list path walks the losses once for all (sorted) epsilons
                order = np.argsort(flat)
                out = np.empty_like(flat)
                out[order] = np.asarray(pld.get_delta_for_epsilon(flat[order].tolist()), dtype=float)
        return np.clip(out.reshape(e.shape), 0.0, 1.0)

    return PrivacyProfile(**base, source="dp_accounting (PLD)", epsilon=total, mu=None, rho=None, _delta=delta,
                          _epsilon_for=pld.get_epsilon_for_delta)


_PLD_CACHE: dict[tuple, object] = {}
_PLD_CACHE_SIZE = 16


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
    if name == "laplace":
        pld = pld_mod.from_laplace_mechanism(s, sensitivity=d, **kw)
    elif name == "gaussian":
        pld = pld_mod.from_gaussian_mechanism(s, sensitivity=d, **kw)
    elif name == "discrete_laplace":
        pld = pld_mod.from_discrete_laplace_mechanism(1.0 / s, sensitivity=round(d), **kw)
    else:
        pld = pld_mod.from_discrete_gaussian_mechanism(s, sensitivity=round(d), **kw)
    if k > 1:
        pld = pld.self_compose(k)
    if len(_PLD_CACHE) >= _PLD_CACHE_SIZE:
        _PLD_CACHE.pop(next(iter(_PLD_CACHE)))
    _PLD_CACHE[key] = pld
    return pld


def plot_tradeoff(profiles, ax=None, *, labels=None, n: int = 401):
    r"""Plot trade-off curves :math:`f(\alpha)` of one or more profiles (beyond the paper).

    The diagonal :math:`1 - \alpha` is perfect privacy; the further below it, the easier the
    two inputs are told apart.

    Parameters
    ----------
    profiles : PrivacyProfile or list of them
    ax : matplotlib Axes, optional
    labels : list of str, optional
    n : int
        Number of points of :math:`\alpha` in [0, 1].

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = plot_tradeoff(privacy_profile("gaussian", scale=2.0), labels=["Gaussian, sigma = 2"])
    >>> ax.get_xlabel() != ""
    True
    >>> import matplotlib.pyplot as plt
    >>> plt.close(ax.figure)
    """
    import matplotlib.pyplot as plt

    if isinstance(profiles, PrivacyProfile):
        profiles = [profiles]
    profiles = list(profiles)
    if labels is None:
        labels = [f"{p.mechanism}, scale {p.scale:g}, k={p.releases}" for p in profiles]
    if len(labels) != len(profiles):
        raise ParameterError("labels must have one entry per profile")
    if ax is None:
        _, ax = plt.subplots(figsize=(4.8, 4.5))
    a = np.linspace(0.0, 1.0, _check_int("n", n, 3))
    ax.plot(a, 1 - a, color="0.6", lw=0.8, ls=":", label="no information")
    for prof, lab in zip(profiles, labels, strict=True):
        ax.plot(a, prof.tradeoff(a), label=lab)
    ax.set_xlabel(r"type I error $\alpha$")
    ax.set_ylabel(r"type II error $f(\alpha)$")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title("Trade-off curves")
    return ax
