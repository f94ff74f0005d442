r"""The noise samplers of :mod:`garesearch.releases.release`: OpenDP's Laplace and Gaussian measurements
when OpenDP is installed (and no seed is given), numpy's floating-point samplers otherwise,
with the reason a draw fell back to numpy.

The module docstring of :mod:`garesearch.releases.release` says why numpy's samplers are for teaching
and testing only (Mironov, CCS 2012).
"""

from __future__ import annotations

import numpy as np

from .. import noise as _noise
from .._evaluate import scalar_values
from ..errors import ParameterError

_BACKENDS = ("numpy", "opendp")
#: largest number of draws of :func:`laplace_noise` (memory: 8 bytes each)
_MAX_DRAWS = 10**8


def opendp_available() -> bool:
    """True if the optional OpenDP package can be imported.

    Not in the paper: a check for the OpenDP library (opendp.org), the optional backend of
    :func:`laplace_release`.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(opendp_available(), bool)
    True
    """
    try:
        import opendp.prelude  # noqa: F401
    except ImportError:
        return False
    return True


def _opendp_measurement(scale: float, vector: bool):
    try:
        import opendp.prelude as dp
    except ImportError:
        raise ParameterError(
            "backend='opendp' needs the optional package opendp: pip install 'garesearch[opendp]'"
        ) from None
    dp.enable_features("contrib")
    try:  # OpenDP >= 0.11 needs non-NaN floats for the absolute/L1 distance
        atom = dp.atom_domain(T=float, nan=False)
    except TypeError:  # OpenDP 0.10 has no ``nan`` argument (and allows the default domain)
        atom = dp.atom_domain(T=float)
    if vector:
        space = dp.vector_domain(atom), dp.l1_distance(T=float)
    else:
        space = atom, dp.absolute_distance(T=float)
    try:
        return dp.m.make_laplace(*space, scale=scale)
    except Exception as exc:  # OpenDPException: a scale OpenDP cannot use
        raise ParameterError(f"scale: OpenDP's Laplace measurement rejects scale={scale!r} ({exc})") from None


def _why_numpy(backend, seed) -> str:
    """Why a release draws from numpy, and what would draw from OpenDP instead (the second
    half of the :class:`InsecureNoiseWarning`)."""
    if not opendp_available():
        return "OpenDP is not installed; for releases: pip install 'garesearch[opendp]'"
    if backend == "numpy":
        return "backend='numpy' was asked for; OpenDP is installed: give backend='opendp' (or none) for releases"
    return ("a seed was given: OpenDP's sampler draws from a cryptographically secure generator "
            "and cannot be seeded, so a seeded release uses numpy's generator; call without "
            "seed for releases (OpenDP)")


def _backend(backend, seed) -> str:
    """The backend to draw from: ``backend``, or by default OpenDP if installed (and no seed)."""
    if backend is None:
        return "opendp" if seed is None and opendp_available() else "numpy"
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise ParameterError(f"backend must be one of {_BACKENDS} or None (automatic); got {backend!r}")
    return backend


def laplace_noise(size: int, *, scale: float, backend: str | None = None, seed=None) -> np.ndarray:
    """``size`` independent Laplace(``scale``) draws (Sec. 6.1, the Laplace mechanism).

    The noise of the Laplace mechanism that Sec. 6.1 uses (after Dwork 2006, the paper's
    [Dwork06]).  With OpenDP (not in the paper): OpenDP's Laplace measurement on a vector of
    zeros (one call).

    Parameters
    ----------
    size : int
        Number of draws, in [0, 10^8].
    scale : float
        Laplace scale, > 0.
    backend : {"numpy", "opendp"}, optional
        Where the draws come from; default OpenDP when it is installed and no ``seed`` is
        given, else numpy (module docstring: numpy's sampler is for teaching and tests).
    seed : int or numpy.random.Generator, optional
        For the numpy backend (OpenDP uses its own secure generator).

    Returns
    -------
    ndarray
        ``size`` draws.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the numpy sampler warns that it is not for publication
    ...     x = laplace_noise(100_000, scale=2.0, backend="numpy", seed=0)
    >>> x.shape, abs(float(abs(x).mean()) - 2.0) < 0.05  # E|noise| = scale
    ((100000,), True)
    """
    backend = _backend(backend, seed)
    scale = scalar_values(scale=scale)["scale"]
    if not scale > 0:
        raise ParameterError(f"scale must lie in (0, inf); got {scale}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 0 <= size <= _MAX_DRAWS:
        raise ParameterError(f"size must be an integer in [0, {_MAX_DRAWS}]; got {size!r}")
    if backend == "numpy":
        return _noise.sample_noise(int(size), noise="laplace", scale=scale, rng=seed)
    meas = _opendp_measurement(float(scale), vector=True)
    return np.asarray(meas([0.0] * int(size)), dtype=float)


def _opendp_gaussian(scale: float, integer: bool, vector: bool):
    try:
        import opendp.prelude as dp
    except ImportError:
        raise ParameterError(
            "backend='opendp' needs the optional package opendp: pip install 'garesearch[opendp]'"
        ) from None
    dp.enable_features("contrib")
    if integer:
        atom, dist = dp.atom_domain(T="i64"), dp.absolute_distance(T="i64")
        l2 = dp.l2_distance(T="i64")
    else:
        try:  # OpenDP >= 0.11 needs non-NaN floats
            atom = dp.atom_domain(T=float, nan=False)
        except TypeError:  # OpenDP 0.10
            atom = dp.atom_domain(T=float)
        dist, l2 = dp.absolute_distance(T=float), dp.l2_distance(T=float)
    space = (dp.vector_domain(atom), l2) if vector else (atom, dist)
    try:
        return dp.m.make_gaussian(*space, scale=scale)
    except Exception as exc:  # OpenDPException: a scale OpenDP cannot use
        raise ParameterError(f"scale: OpenDP's Gaussian measurement rejects scale={scale!r} ({exc})") from None


def gaussian_noise(size: int, *, scale: float, integer: bool = False, backend: str | None = None,
                   seed=None) -> np.ndarray:
    r"""``size`` independent draws of :math:`\mathcal N(0, s^2)` or of the discrete Gaussian (beyond the paper).

    The discrete Gaussian has :math:`\Pr[Z = k] \propto e^{-k^2/2s^2}` on the integers
    (:mod:`garesearch.additive`).  With OpenDP: its Gaussian measurement on a vector of zeros.

    Parameters
    ----------
    size : int
        Number of draws, in [0, 10^8].
    scale : float
        ``s`` > 0 (the standard deviation of the continuous noise).
    integer : bool
        Discrete Gaussian draws (as floats).
    backend : {"numpy", "opendp"}, optional
        As for :func:`laplace_noise`.
    seed : int or numpy.random.Generator, optional
        For the numpy backend.

    Returns
    -------
    ndarray
        ``size`` draws.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the numpy sampler warns that it is not for publication
    ...     x = gaussian_noise(100_000, scale=2.0, backend="numpy", seed=0)
    >>> x.shape, abs(float(x.std()) - 2.0) < 0.03
    ((100000,), True)
    """
    backend = _backend(backend, seed)
    scale = scalar_values(scale=scale)["scale"]
    if not scale > 0:
        raise ParameterError(f"scale must lie in (0, inf); got {scale}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 0 <= size <= _MAX_DRAWS:
        raise ParameterError(f"size must be an integer in [0, {_MAX_DRAWS}]; got {size!r}")
    if not isinstance(integer, (bool, np.bool_)):
        raise ParameterError(f"integer must be True or False; got {integer!r}")
    if backend == "numpy":
        if not integer:
            return _noise.sample_noise(int(size), noise="gaussian", scale=scale, rng=seed)
        from ..additive import resolve

        try:
            rng = np.random.default_rng(seed)
        except (TypeError, ValueError):
            raise ParameterError(f"seed must be an integer >= 0 or a numpy Generator; got {seed!r}") from None
        return resolve("discrete_gaussian").sample(int(size), scale, rng)
    meas = _opendp_gaussian(float(scale), bool(integer), vector=True)
    zero = 0 if integer else 0.0
    return np.asarray(meas([zero] * int(size)), dtype=float)
