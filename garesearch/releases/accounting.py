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
- Different releases of the same attribute (a :class:`Composition`, or a list of
  ``(noise name, scale)`` pairs): all Gaussian is :math:`\mu`-GDP with
  :math:`\mu = \Delta\sqrt{\sum_i \sigma_i^{-2}}` (Dong, Roth and Su, Cor. 3.3), in closed
  form as above; any other list composes the accountant's privacy-loss distributions of its
  parts (generalised Cauchy noise there as pure :math:`\epsilon`-DP, ``dp_accounting``'s
  ``from_privacy_parameters``).
- Laplace noise composed ``k`` times (up to ``k = 200``): exact, from the distribution of the
  sum of ``k`` privacy losses, a finite mixture of atoms and B-splines
  (:mod:`garesearch.releases._laplace_pld`); its trade-off curve from the accountant below (a lower bound).
- Everything else (Laplace composed more than 200 times, the integer variants, Poisson-subsampled
  Gaussian as in DP-SGD): Google's ``dp_accounting`` privacy-loss-distribution accountant
  (``pip install garesearch[accounting]``), pessimistic discretisation, so the profile it gives
  is an upper bound and the trade-off curve a lower bound.  Generalised Cauchy noise, which has
  no accountant: the profile of pure :math:`\epsilon`-DP (``k`` releases: :math:`k\epsilon`),
  a bound.

Subsampling (``sampling_prob`` ``q`` < 1), for any noise but generalised Cauchy:

- ``sampling="poisson"``: each release includes the record with probability ``q``,
  independently; add-or-remove neighbours (the record is absent, or contributes a value
  ``distance`` from "absent", such as 0 in a sum): ``dp_accounting``'s pair of distributions
  for each direction, composed direction by direction.
- ``sampling="without_replacement"``: each release uses a batch of ``m`` of ``n`` records,
  ``q = m/n``; replace-one neighbours (a record's contribution changes by at most
  ``distance``, and every record's contribution lies within ``distance`` of every other's).
  Dong, Roth and Su, Thm. 4.2: the mechanism is :math:`C_q(f)`-DP,
  :math:`C_q(f) = \min(f_q, f_q^{-1})^{**}`, :math:`f_q = qf + (1 - q)\mathrm{Id}`, whose
  profile is the larger of the two directions' (``dp_accounting``'s pair at sampling
  probability ``q``); that profile becomes one symmetric privacy-loss distribution through
  ``dp_accounting``'s pessimistic connect-the-dots construction (Doroshenko et al., PETS 2022),
  which dominates it at every :math:`\epsilon` and so composes soundly.

Which readings the profile of a subsampled mechanism bounds: every *average* reading (the
Bayes-optimal attacker's success, the prior-free bound) and every test between two inputs;
the *tail* reading of a binary secret through :mod:`garesearch.releases.subsampled`.  Not the
*worst-case* reading (Def. 7, a supremum over outputs): the likelihood ratio of a subsampled
Gaussian mixture is unbounded, and for Laplace noise its bound is the pure epsilon
:math:`\ln(1 + q(e^\epsilon - 1))` per release (the ``epsilon`` reported), not the profile.

The trade-off curve of a privacy-loss distribution is computed exactly
(:func:`tradeoff_from_pld`): the Neyman-Pearson tests reject for a large privacy loss, with
randomisation at the threshold, so :math:`f` is piecewise linear through the points given by
the cumulative masses of the losses sorted in decreasing order (Kulynych et al., 2024,
Algorithm 1, as riskcal's ``get_beta_from_pld``).  The pessimistic distribution dominates the
true pair, so the curve is a lower bound (more power to the attacker: safe).  A trade-off
curve from a profile alone: :math:`f(\alpha) = \sup_\epsilon \max(0,
1 - \delta(\epsilon) - e^\epsilon\alpha, e^{-\epsilon}(1 - \delta(\epsilon) - \alpha))`
(Dong, Roth and Su, Prop. 2.12), over a grid of :math:`\epsilon` (a grid can only lower it: sound).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from ..additive import ScaledNoise, check_scale, resolve
from ..errors import ParameterError
from . import _laplace_pld
from ._accounting_pld import (
    _pld,
    _pld_parts,
    dp_accounting_available,
)
from ._accounting_tradeoff import (
    _pld_tradeoff,
    gaussian_dp_delta,
    gaussian_dp_epsilon,
    gaussian_tradeoff,
    laplace_tradeoff,
    pure_dp_tradeoff,
    tradeoff_from_pld,
    tradeoff_from_profile,
)

__all__ = [
    "Composition",
    "PrivacyProfile",
    "as_composition",
    "dp_accounting_available",
    "gaussian_dp_delta",
    "gaussian_dp_epsilon",
    "gaussian_tradeoff",
    "laplace_tradeoff",
    "plot_tradeoff",
    "privacy_profile",
    "pure_dp_tradeoff",
    "scale_factor_for",
    "tradeoff_from_pld",
    "tradeoff_from_profile",
]

_EPS_GRID = 500
_SAMPLING = ("poisson", "without_replacement")


@dataclass(frozen=True)
class Composition:
    r"""Different noisy releases of the same attribute, composed (beyond the paper).

    Accepted wherever a mechanism is (:func:`privacy_profile`,
    :func:`garesearch.releases.tail.advantage_tail`,
    :func:`garesearch.releases.reconstruction.reconstruction_advantage`), as is the plain list of
    pairs; there the ``scale`` argument is a common factor on every part's scale (default 1).

    Parameters
    ----------
    parts : list of (str or mechanism object, float)
        ``(noise, scale)`` per release (a name of :data:`garesearch.additive.MECHANISMS`).

    Examples
    --------
    >>> comp = Composition([("gaussian", 3.0), ("gaussian", 4.0)])
    >>> round(comp.gaussian_scale, 12)  # one release of scale (1/9 + 1/16)^(-1/2) = 12/5
    2.4
    >>> comp.label
    'gaussian(3)+gaussian(4)'
    """

    parts: tuple

    def __post_init__(self):
        if isinstance(self.parts, (str, bytes)) or not isinstance(self.parts, Iterable):
            raise ParameterError(f"parts must be a list of (noise name, scale) pairs; got {self.parts!r}")
        out = []
        for pair in self.parts:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise ParameterError(f"parts must be a list of (noise name, scale) pairs; got the item {pair!r}")
            out.append((resolve(pair[0]).name, check_scale(pair[1], "the scale of a part")))
        if not out:
            raise ParameterError("parts must hold at least one (noise name, scale) pair")
        object.__setattr__(self, "parts", tuple(out))

    @property
    def label(self) -> str:
        """The parts as ``name(scale)+...``."""
        return "+".join(f"{n}({s:g})" for n, s in self.parts)

    @property
    def all_gaussian(self) -> bool:
        """True if every part is continuous Gaussian noise."""
        return all(n == "gaussian" for n, _ in self.parts)

    @property
    def gaussian_scale(self) -> float:
        r"""All Gaussian: the scale :math:`(\sum_i \sigma_i^{-2})^{-1/2}` of the one release that is
        equivalent (the precision-weighted mean of the releases is sufficient for the attribute)."""
        if not self.all_gaussian:
            raise ParameterError(f"the composition {self.label} is not all Gaussian")
        return float(1.0 / math.sqrt(sum(1.0 / (s * s) for _, s in self.parts)))

    def scaled(self, factor: float) -> Composition:
        """The same releases with every scale multiplied by ``factor`` (> 0)."""
        c = check_scale(factor, "factor")
        return Composition([(n, s * c) for n, s in self.parts])


def as_composition(mechanism) -> Composition | None:
    """``mechanism`` as a :class:`Composition`, or ``None`` for a single mechanism (beyond the paper).

    Examples
    --------
    >>> as_composition([("laplace", 2.0), ("gaussian", 3.0)]).label
    'laplace(2)+gaussian(3)'
    >>> as_composition("laplace") is None
    True
    """
    if isinstance(mechanism, Composition):
        return mechanism
    if isinstance(mechanism, (list, tuple)) and mechanism and all(isinstance(p, (list, tuple)) for p in mechanism):
        return Composition(mechanism)
    return None


@dataclass(frozen=True)
class PrivacyProfile:
    """The privacy of ``releases`` releases with noise of ``scale`` between inputs ``distance`` apart.

    Attributes
    ----------
    mechanism : str
    scale, distance : float
    releases : int
    sampling_prob : float
        Subsampling probability (1: none).
    source : str
        ``"closed form"``, ``"dp_accounting (PLD)"`` or ``"pure epsilon-DP bound"``.
    epsilon : float
        Pure epsilon of the composition (``inf`` if there is none).
    mu : float or None
        GDP parameter (Gaussian noise without subsampling).
    rho : float or None
        zCDP parameter :math:`\\rho = \\mu^2/2` (Gaussian noise without subsampling).
    sampling : str
        ``"poisson"`` or ``"without_replacement"`` (module docstring).
    parts : tuple
        ``(noise name, scale)`` of each release of a :class:`Composition` (empty otherwise).
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
    sampling: str = "poisson"
    parts: tuple = ()

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
        r"""Trade-off curve :math:`f(\alpha)`: closed form, exact from the accountant's pessimistic
        privacy-loss distribution (:func:`tradeoff_from_pld`), or from the profile (a lower bound)."""
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


def privacy_profile(mechanism, *, scale: float | None = None, distance: float = 1.0, releases: int = 1,
                    sampling_prob: float = 1.0, sampling: str = "poisson",
                    discretization: float = 1e-4) -> PrivacyProfile:
    r"""Privacy profile and trade-off curve of ``releases`` noisy releases (beyond the paper).

    Closed forms for Gaussian noise and one Laplace release; Google's ``dp_accounting`` PLD
    accountant for the rest (module docstring).

    Parameters
    ----------
    mechanism : str, mechanism object, Composition or list of (str, float)
        See :func:`garesearch.additive.resolve`; or different releases composed
        (:class:`Composition`, or a list of ``(noise name, scale)`` pairs).
    scale : float
        Noise scale, > 0 (required for one mechanism); for a composition a common factor on
        every part's scale (default 1).
    distance : float
        Distance between the two inputs (the query's sensitivity times the attribute's
        distance), > 0; an integer for the integer variants.
    releases : int
        Number of independent releases (of the whole composition), >= 1.
    sampling_prob : float
        Subsampling probability in (0, 1] (each release, and each part, sampled independently;
        through ``dp_accounting``).
    sampling : {"poisson", "without_replacement"}
        Poisson subsampling with add-or-remove neighbours (DP-SGD style), or a batch drawn
        without replacement (``sampling_prob`` = batch size / records) with replace-one
        neighbours (module docstring: what the profile of a subsampled mechanism bounds and
        what it does not).
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
    >>> round(privacy_profile([("gaussian", 3.0), ("gaussian", 4.0)], distance=12.0).mu, 12)  # 12/2.4
    5.0
    """
    if sampling not in _SAMPLING:
        raise ParameterError(f"sampling must be one of {_SAMPLING}; got {sampling!r}")
    if as_composition(mechanism) is not None or (sampling != "poisson" and sampling_prob != 1):
        return _composed_profile(mechanism, scale, distance, releases, sampling_prob, sampling, discretization)
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
    if noise.name == "laplace" and q == 1.0 and k <= _laplace_pld.MAX_RELEASES:
        return _exact_laplace_profile(base, s, d, k, float(discretization))
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
                          _epsilon_for=pld.get_epsilon_for_delta, _tradeoff=_pld_tradeoff(pld))


def _exact_laplace_profile(base: dict, s: float, d: float, k: int, discretization: float) -> PrivacyProfile:
    """``k`` Laplace releases: the profile exact (:mod:`garesearch.releases._laplace_pld`), the trade-off
    curve exact from the accountant's pessimistic distribution (:func:`tradeoff_from_pld`: a
    lower bound)."""
    mu = d / s

    def delta(e):
        e = np.asarray(e, dtype=float)
        out = np.array([_laplace_pld.laplace_composed_delta(v, mu, k) for v in e.ravel()], dtype=float)
        return out.reshape(e.shape)

    curve: list = []  # the accountant's distribution, built on first use

    def tradeoff(a):
        if not curve:
            curve.append(_pld_tradeoff(_pld("laplace", s, d, k, 1.0, discretization)))
        return curve[0](a)

    return PrivacyProfile(**base, source="exact (sum of the Laplace privacy losses)", epsilon=k * mu, mu=None,
                          rho=None, _delta=delta, _tradeoff=tradeoff)


def _composed_profile(mechanism, scale, distance, releases, sampling_prob, sampling, discretization):
    """:func:`privacy_profile` of a :class:`Composition`, or of one subsampled-without-replacement mechanism."""
    comp = as_composition(mechanism)
    if comp is None:
        noise = resolve(mechanism)
        parts, label, factor = ((noise, check_scale(scale)),), noise.name, check_scale(scale)
    else:
        factor = 1.0 if scale is None else check_scale(scale)
        parts, label = tuple((resolve(n), s * factor) for n, s in comp.parts), comp.label
    d = check_scale(distance, "distance")
    k = _check_int("releases", releases)
    if not (isinstance(sampling_prob, (int, float, np.integer, np.floating)) and 0 < sampling_prob <= 1):
        raise ParameterError(f"sampling_prob must lie in (0, 1]; got {sampling_prob!r}")
    q = float(sampling_prob)
    names = [n.name for n, _ in parts]
    for noise, _ in parts:
        if noise.discrete and d != round(d):
            raise ParameterError(f"distance must be an integer for {noise.name}; got {distance!r}")
    if q < 1 and "gencauchy" in names:
        raise ParameterError("sampling_prob: subsampling is not supported for gencauchy noise")
    if comp is not None and len(parts) == 1 and not (sampling != "poisson" and q < 1):
        prof = privacy_profile(parts[0][0], scale=parts[0][1], distance=d, releases=k, sampling_prob=q,
                               discretization=discretization)
        return _relabel(prof, label, factor, parts)
    base = dict(mechanism=label, scale=factor, distance=d, releases=k, sampling_prob=q, sampling=sampling,
                parts=tuple((n.name, s) for n, s in parts))
    if all(n == "gaussian" for n in names) and q == 1.0:
        mu = d * math.sqrt(k * sum(1.0 / (s * s) for _, s in parts))
        return PrivacyProfile(**base, source="closed form", epsilon=math.inf, mu=mu, rho=mu * mu / 2,
                              _delta=lambda e: gaussian_dp_delta(e, mu=mu),
                              _tradeoff=lambda a: gaussian_tradeoff(a, mu=mu))
    if not (isinstance(discretization, (int, float, np.integer, np.floating)) and 1e-6 <= discretization <= 0.1):
        raise ParameterError(f"discretization must lie in [1e-6, 0.1]; got {discretization!r}")
    spec = tuple((n.name, float(s)) for n, s in parts)
    pld = _pld_parts(spec, d, k, q, sampling, float(discretization))
    eps = [n.pure_epsilon(s, d) for n, s in parts]
    total = k * sum(e if q == 1.0 else math.log1p(q * math.expm1(e)) for e in eps) if all(
        math.isfinite(e) for e in eps) else math.inf

    def delta(e, pld=pld):
        e = np.minimum(np.asarray(e, dtype=float), 700.0)
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.asarray(pld.get_delta_for_epsilon(np.sort(e.ravel()).tolist()), dtype=float)
        out = out[np.argsort(np.argsort(e.ravel(), kind="stable"), kind="stable")]
        return np.clip(out.reshape(e.shape), 0.0, 1.0)

    return PrivacyProfile(**base, source="dp_accounting (PLD)", epsilon=total, mu=None, rho=None, _delta=delta,
                          _epsilon_for=pld.get_epsilon_for_delta, _tradeoff=_pld_tradeoff(pld))


def _relabel(prof: PrivacyProfile, label, factor, parts) -> PrivacyProfile:
    from dataclasses import replace

    return replace(prof, mechanism=label, scale=factor, parts=tuple((n.name, s) for n, s in parts))


def scale_factor_for(mechanism, *, dp_epsilon: float, dp_delta: float, distance: float = 1.0,
                     releases: int = 1, sampling_prob: float = 1.0, sampling: str = "poisson",
                     discretization: float = 1e-4, rtol: float = 1e-6) -> float:
    r"""The smallest common factor on the scales at which the releases are :math:`(\epsilon, \delta)`-DP.

    Beyond the paper.  ``mechanism`` is one mechanism (the factor is then its scale) or a
    :class:`Composition`; the profile of :func:`privacy_profile` at factor ``c`` decreases in
    ``c``, and the factor returned meets the target (its profile at ``dp_epsilon`` is at most
    ``dp_delta``) while ``c / (1 + rtol)`` does not (bisection on :math:`\ln c`, so the answer
    does not depend on the machine's speed).

    Parameters
    ----------
    mechanism : str, mechanism object, Composition or list of (str, float)
    dp_epsilon : float
        Target epsilon, >= 0.
    dp_delta : float
        Target delta, in (0, 1).
    distance, releases, sampling_prob, sampling, discretization
        As for :func:`privacy_profile`.
    rtol : float
        Relative width of the final bracket, in [1e-12, 0.1].

    Returns
    -------
    float

    Raises
    ------
    InfeasibleError
        If no factor up to :math:`10^{12}` meets the target.

    Examples
    --------
    >>> c = scale_factor_for([("gaussian", 1.0), ("gaussian", 1.0)], dp_epsilon=1.0, dp_delta=1e-5)
    >>> mu = privacy_profile([("gaussian", 1.0), ("gaussian", 1.0)], scale=c).mu
    >>> abs(gaussian_dp_delta(1.0, mu=mu) - 1e-5) < 1e-10  # the target, met with equality
    True
    """
    from ..errors import InfeasibleError

    if not (isinstance(dp_epsilon, (int, float, np.integer, np.floating)) and math.isfinite(dp_epsilon)
            and dp_epsilon >= 0):
        raise ParameterError(f"dp_epsilon must be a finite number >= 0; got {dp_epsilon!r}")
    if not (isinstance(dp_delta, (int, float, np.integer, np.floating)) and 0 < dp_delta < 1):
        raise ParameterError(f"dp_delta must lie in (0, 1); got {dp_delta!r}")
    if not (isinstance(rtol, (int, float)) and 1e-12 <= rtol <= 0.1):
        raise ParameterError(f"rtol must lie in [1e-12, 0.1]; got {rtol!r}")
    single = as_composition(mechanism) is None
    if single:
        resolve(mechanism)

    def ok(c):
        prof = privacy_profile(mechanism, scale=c, distance=distance, releases=releases,
                               sampling_prob=sampling_prob, sampling=sampling, discretization=discretization)
        return float(prof.dp_delta(float(dp_epsilon))) <= dp_delta

    lo, hi = 1.0, 1.0
    if ok(hi):
        while ok(lo):
            lo /= 2
            if lo < 1e-12:
                return lo
        hi = 2 * lo
    else:
        while not ok(hi):
            lo = hi
            hi *= 2
            if hi > 1e12:
                raise InfeasibleError(
                    f"no common factor up to 1e12 on the scales makes the releases ({dp_epsilon}, {dp_delta})-DP "
                    "(a profile that does not fall below dp_delta, e.g. subsampling with a delta below the "
                    "mass the accountant puts at infinite loss); raise dp_delta or dp_epsilon"
                )
    while hi / lo - 1 > rtol:
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return float(hi)


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
