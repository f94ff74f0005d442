r"""How fast each end of a continuous prior decays: declared, not guessed.

A tail of a density :math:`f` (survival function :math:`S(x) = \Pr[X > x]` toward the right
end, :math:`F(x) = \Pr[X < x]` toward the left end) falls in one of four classes:

``"bounded"``
    the support ends at a finite point;
``"light"``
    the hazard rate :math:`h(x) = f(x) / S(x)` grows without bound (Gaussian, Weibull with
    shape above 1, Gompertz): the tail is lighter than every exponential;
``"exponential"``
    the hazard tends to a finite :math:`\lambda > 0` (exponential, gamma, Laplace, logistic):
    :math:`S(x) = e^{-\lambda x + o(x)}`;
``"heavy"``
    the hazard tends to 0 (Student t, Pareto, log-normal, Weibull with shape below 1): the
    tail is heavier than every exponential, and :math:`\int e^{\epsilon x} dF` diverges for
    every :math:`\epsilon > 0`.

Why the hazard rate.  The bounds on tilted tail masses need, beyond a point :math:`x`, how
fast the mass still to come can shrink.  Since :math:`S(u) = S(x) \exp(-\int_x^u h)`, a
hazard of at least :math:`h_{\min}` on :math:`[x, u]` gives

.. math::

    S(u) \le S(x)\, e^{-h_{\min} (u - x)},

and :math:`\lambda = \lim h` is the supremum of the :math:`\epsilon` for which
:math:`\int e^{\epsilon |x|} dF` is finite on that side.  :class:`Tail` holds the class,
:math:`\lambda` (``inf`` for bounded and light tails, 0 for heavy ones) and the moment index
(the supremum of the orders :math:`p` with :math:`E[|X|^p]` finite on that side, which
separates the heavy tails); :meth:`Tail.hazard_floor` turns a hazard measured at a point into
the :math:`h_{\min}` above, assuming the hazard is monotone beyond that point.

The table.  :func:`scipy_tail` answers from a table of ``scipy.stats`` continuous families
derived from each family's density formula and each range of its shape parameters; nothing
in it is fitted.  Estimates from samples of the log-density mislabel e.g.
``weibull_min(0.95)``: its hazard :math:`0.95\, x^{-0.05}` falls to 0, but within double
precision (tail masses down to 1e-300) it falls by less than a tenth and looks like the
constant hazard of an exponential tail.  A family or a parameter range not in the table gives ``None``
(the caller must then ask for a declaration, :func:`parse_tail`); a finite end of
``dist.support()`` is always ``"bounded"``.  Limits of hazards follow from limits of the
log-density's slope (l'Hôpital: if :math:`-(\log f)' \to \lambda` then
:math:`f / S \to \lambda`), so an entry reads the class off the exponent of the density.

Examples
--------
>>> import scipy.stats as st
>>> from garesearch.enclosures.tails import scipy_tail
>>> scipy_tail(st.weibull_min(0.95), "right").kind
'heavy'
>>> scipy_tail(st.gamma(2.5, scale=4.0), "right").rate
0.25
>>> scipy_tail(st.t(3), "left").moments
3.0
>>> scipy_tail(st.lognorm(0.5), "left").kind
'bounded'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..errors import ParameterError

__all__ = ["KINDS", "Tail", "declared_families", "parse_tail", "scipy_tail"]

#: The tail classes, from the lightest to the heaviest.
KINDS = ("bounded", "light", "exponential", "heavy")

_SIDES = ("left", "right")


def _real(value: Any) -> float | None:
    """``value`` as a float, or ``None`` if it is not a real number (bools are not)."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


@dataclass(frozen=True)
class Tail:
    r"""The decay class of one end of a density.

    Parameters
    ----------
    kind : str
        ``"bounded"``, ``"light"``, ``"exponential"`` or ``"heavy"`` (see the module).
    rate : float
        The limiting hazard rate :math:`\lambda = \lim f(x) / S(x)` toward that end (for the
        left end :math:`f(x) / F(x)` as :math:`x \to -\infty`), in the distribution's own
        units of ``x``: ``inf`` for bounded and light tails, the finite :math:`\lambda > 0`
        for exponential ones, ``0.0`` for heavy ones.  A scale ``s`` divides it:
        :math:`\lambda_x = \lambda_{standard} / s`.
    moments : float
        The supremum of the orders :math:`p` with :math:`E[|X|^p; X \text{ on that side}]`
        finite: ``inf`` for bounded, light and exponential tails, and for heavy tails that
        still have every moment (log-normal, Weibull with shape below 1); the tail index of
        a power law (``df`` for Student t, 1 for Cauchy, the shape for Pareto).
    source : str
        Where the declaration comes from, for a reader.

    Raises
    ------
    ParameterError
        If ``kind`` is unknown or ``rate`` or ``moments`` do not fit it.

    Examples
    --------
    >>> import math
    >>> Tail("exponential", 0.5, math.inf, "declared").hazard_floor(2.0)
    0.5
    >>> Tail("heavy", 0.0, 3.0, "Student t with df=3").hazard_floor(2.0)
    0.0
    """

    kind: str
    rate: float
    moments: float
    source: str = "declared"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ParameterError(f"Tail: kind must be one of {KINDS}; got {self.kind!r}")
        rate, moments = _real(self.rate), _real(self.moments)
        if rate is None or math.isnan(rate):
            raise ParameterError(f"Tail: rate must be a real number; got {self.rate!r}")
        if moments is None or not moments >= 0:
            raise ParameterError(f"Tail: moments must be a real number >= 0 or inf; got {self.moments!r}")
        if not isinstance(self.source, str):
            raise ParameterError(f"Tail: source must be a string; got {self.source!r}")
        if self.kind in ("bounded", "light") and rate != math.inf:
            raise ParameterError(f"Tail: a {self.kind} tail has rate inf; got {self.rate!r}")
        if self.kind == "exponential" and not 0 < rate < math.inf:
            raise ParameterError(f"Tail: an exponential tail has a finite rate > 0; got {self.rate!r}")
        if self.kind == "heavy" and rate != 0:
            raise ParameterError(f"Tail: a heavy tail has rate 0.0; got {self.rate!r}")
        if self.kind != "heavy" and moments != math.inf:
            raise ParameterError(
                f"Tail: a {self.kind} tail has every moment (moments inf); got {self.moments!r}"
            )
        object.__setattr__(self, "rate", rate)
        object.__setattr__(self, "moments", moments)

    def hazard_floor(self, hazard_at_x: float) -> float:
        r"""The smallest hazard rate beyond a point ``x``, from the hazard measured at ``x``.

        ``min(hazard_at_x, rate)``: the hazard at ``x`` for bounded and light tails, at most
        :math:`\lambda` for exponential ones, 0 for heavy ones.  This **assumes that the
        hazard is monotone beyond x** (then it stays between its value at ``x`` and its
        limit :math:`\lambda`); a hazard that dips and recovers beyond ``x`` is not covered.
        With it, :math:`S(u) \le S(x)\, e^{-h_{\min} (u - x)}` for every ``u`` beyond ``x``.

        Parameters
        ----------
        hazard_at_x : float
            :math:`f(x) / S(x)` (or :math:`f(x) / F(x)` on the left), >= 0.

        Returns
        -------
        float

        Examples
        --------
        >>> import math
        >>> Tail("light", math.inf, math.inf).hazard_floor(3.0)
        3.0
        >>> Tail("exponential", 1.0, math.inf).hazard_floor(3.0)
        1.0
        """
        h = _real(hazard_at_x)
        if h is None or not h >= 0:
            raise ParameterError(f"hazard_at_x must be a real number >= 0; got {hazard_at_x!r}")
        return min(h, self.rate)


# ------------------------------------------------------------------------------------------
# user declarations

_FORMS = (
    "a Tail, 'light', 'heavy', ('exponential', rate) with a finite rate > 0, or a dict "
    "{'left': ..., 'right': ...} of these"
)


def _check_side(side: Any) -> None:
    if side not in _SIDES:
        raise ParameterError(f"side must be 'left' or 'right'; got {side!r}")


def parse_tail(spec: Any, side: str) -> Tail:
    r"""A user's declaration of how one end of a prior decays, as a :class:`Tail`.

    Parameters
    ----------
    spec : Tail, str, tuple or dict
        ``"light"`` (faster than every exponential), ``"heavy"`` (slower than every
        exponential; no moment is assumed, ``moments=0.0``), ``("exponential", rate)`` with
        a finite ``rate > 0`` in the units of ``x``, a :class:`Tail`, or a dict
        ``{"left": spec, "right": spec}`` from which the entry for ``side`` is taken.
        Finite ends are not declared (the support settles them): ``"bounded"`` is refused.
    side : {"left", "right"}
        Which end.

    Returns
    -------
    Tail

    Raises
    ------
    ParameterError
        If ``spec`` is none of these forms (the message names ``tail`` and the forms).

    Examples
    --------
    >>> parse_tail(("exponential", 2.0), "right").rate
    2.0
    >>> parse_tail({"left": "light", "right": "heavy"}, "left").kind
    'light'
    >>> parse_tail("exponential", "right")
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: tail: 'exponential' needs its rate; a Tail, 'light', 'heavy', ('exponential', rate) with a finite rate > 0, or a dict {'left': ..., 'right': ...} of these
    """
    _check_side(side)
    if isinstance(spec, Mapping):
        extra = [key for key in spec if key not in _SIDES]
        if extra:
            raise ParameterError(f"tail: a dict has the keys 'left' and 'right'; got {extra!r}; {_FORMS}")
        if side not in spec:
            raise ParameterError(f"tail: the dict has no entry for the {side} end; {_FORMS}")
        spec = spec[side]
        if isinstance(spec, Mapping):
            raise ParameterError(f"tail: the {side} entry of the dict is itself a dict; {_FORMS}")
    if isinstance(spec, Tail):
        if spec.kind == "bounded":
            raise ParameterError(f"tail: finite ends come from the support, not a declaration; {_FORMS}")
        return spec
    if isinstance(spec, str):
        if spec == "light":
            return Tail("light", math.inf, math.inf, f"declared light ({side} end)")
        if spec == "heavy":
            return Tail("heavy", 0.0, 0.0, f"declared heavy ({side} end; no moment assumed)")
        if spec == "exponential":
            raise ParameterError(f"tail: 'exponential' needs its rate; {_FORMS}")
        raise ParameterError(f"tail: unknown class {spec!r}; {_FORMS}")
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "exponential":
        rate = _real(spec[1])
        if rate is None or not 0 < rate < math.inf:
            raise ParameterError(
                f"tail: the rate of ('exponential', rate) must be a finite number > 0; got {spec[1]!r}; {_FORMS}"
            )
        return Tail("exponential", rate, math.inf, f"declared exponential with rate {rate:g} ({side} end)")
    raise ParameterError(f"tail: cannot read {spec!r}; {_FORMS}")


# ------------------------------------------------------------------------------------------
# the table of scipy.stats families


class _Decl(NamedTuple):
    kind: str
    rate: float  # in standard units (scale 1)
    moments: float
    why: str


def _light(why: str) -> _Decl:
    return _Decl("light", math.inf, math.inf, why)


def _expo(rate: float, why: str) -> _Decl:
    return _Decl("exponential", float(rate), math.inf, why)


def _heavy(moments: float, why: str) -> _Decl:
    return _Decl("heavy", 0.0, float(moments), why)


def _stretched(c: float, law: str) -> _Decl:
    r"""A tail :math:`\log S \sim -|x|^c` (``law`` says where): hazard :math:`\sim c |x|^{c-1}`."""
    if c > 1:
        return _light(f"{law} with exponent {c:g} > 1: hazard ~ c |x|^(c-1) -> inf")
    if c == 1:
        return _expo(1.0, f"{law} with exponent 1: hazard -> 1")
    return _heavy(math.inf, f"{law} with exponent {c:g} < 1: hazard ~ c |x|^(c-1) -> 0, every moment finite")


def _power(index: float, law: str) -> _Decl:
    """A power-law tail, tail mass ~ |x|^(-index)."""
    return _heavy(index, f"{law}: tail mass ~ |x|^-{index:g}, moments of order < {index:g}")


_LEFT, _RIGHT = "left", "right"
_Rule = Callable[..., Mapping[str, _Decl]]
_GAUSS = "log-density ~ -x^2/2: hazard ~ x -> inf"


def _both(decl: _Decl) -> dict[str, _Decl]:
    return {_LEFT: decl, _RIGHT: decl}


def _right(decl: _Decl) -> dict[str, _Decl]:
    return {_RIGHT: decl}


def _bounded(*_shapes: float) -> dict[str, _Decl]:
    """A family on a finite interval for every shape: the support settles both ends."""
    return {}


def _genextreme(c):
    out = {}
    if c == 0:
        out[_RIGHT] = _expo(1.0, "c = 0 (Gumbel): S ~ exp(-x), hazard -> 1")
    elif c < 0:
        out[_RIGHT] = _power(-1 / c, "c < 0: S ~ (1 - c x)^(1/c)")
    if c < 1:
        out[_LEFT] = _light("c < 1: F = exp(-(1 - c x)^(1/c)), hazard (1 - c x)^(1/c - 1) -> inf")
    elif c == 1:
        out[_LEFT] = _expo(1.0, "c = 1: F = exp(x - 1), hazard 1")
    else:
        out[_LEFT] = _heavy(math.inf, "c > 1: F = exp(-(1 - c x)^(1/c)), hazard (1 - c x)^(1/c - 1) -> 0")
    return out


def _kappa4(h, k):
    # t(x) = (1 - k x)^(1/k) (e^-x for k = 0); F = (1 - h t)^(1/h) (exp(-t) for h = 0)
    out = {}
    if k == 0:
        out[_RIGHT] = _expo(1.0, "k = 0: S ~ t = exp(-x), hazard -> 1")
    elif k < 0:
        out[_RIGHT] = _power(-1 / k, "k < 0: S ~ (1 - k x)^(1/k)")
    if h == 0:
        if k < 1:
            out[_LEFT] = _light("h = 0, k < 1: F = exp(-t), hazard (1 - k x)^(1/k - 1) -> inf")
        elif k == 1:
            out[_LEFT] = _expo(1.0, "h = 0, k = 1: F = exp(x - 1), hazard 1")
        else:
            out[_LEFT] = _heavy(math.inf, "h = 0, k > 1: F = exp(-t), hazard (1 - k x)^(1/k - 1) -> 0")
    elif h < 0:
        if k == 0:
            out[_LEFT] = _expo(-1 / h, "h < 0, k = 0: F ~ (-h e^-x)^(1/h), hazard -> -1/h")
        elif k > 0:
            out[_LEFT] = _power(-1 / (h * k), "h < 0, k > 0: F ~ (1 - k x)^(1/(h k))")
    return out


def _genhyperbolic(p, a, b):
    # log f = b x + log K_{p-1/2}(a sqrt(1+x^2)) + (p-1/2)/2 log(1+x^2), K_nu(z) ~ e^-z / sqrt(z).
    # |b| = a (allowed for p < 0) would give a power law x^(p-1) on one side, but scipy's
    # normalisation K_p(sqrt(a^2 - b^2)) is then infinite and its density nan: left out.
    if not abs(b) < a:
        return {}
    return {
        _RIGHT: _expo(a - b, "log-density ~ -(a - b) x on the right"),
        _LEFT: _expo(a + b, "log-density ~ -(a + b) |x| on the left"),
    }


def _pearson3(skew):
    if skew == 0:
        return _both(_light("skew = 0 is the standard normal: " + _GAUSS))
    beta = 2 / abs(skew)
    gone = _light(
        f"the density is 0 {'below' if skew > 0 else 'above'} -2/skew = {-2 / skew:g} in standard "
        "units (a gamma law, though scipy's support is the whole line)"
    )
    decay = _expo(beta, "a gamma law: density ~ x^(alpha-1) exp(-beta x), beta = 2/|skew|")
    return {_RIGHT: decay, _LEFT: gone} if skew > 0 else {_LEFT: decay, _RIGHT: gone}


def _tukeylambda(lam):
    if lam == 0:
        return _both(_expo(1.0, "lam = 0 is the logistic: hazard -> 1"))
    if lam < 0:
        return _both(_power(-1 / lam, "lam < 0: Q(p) ~ -(1-p)^lam/lam, S(x) ~ (-lam x)^(1/lam)"))
    return {}


def _gengamma(a, c):
    if c > 0:
        return _right(_stretched(c, "density x^(c a - 1) exp(-x^c)"))
    return _right(_power(-c * a, "c < 0: density ~ |c| x^(c a - 1)/Gamma(a)"))


def _genpareto(c):
    if c > 0:
        return _right(_power(1 / c, "c > 0: S = (1 + c x)^(-1/c)"))
    if c == 0:
        return _right(_expo(1.0, "c = 0 is the exponential: hazard 1"))
    return {}


def _trunc_pareto(b, c):
    return _right(_power(b, "the upper bound c = inf leaves a Pareto tail")) if b > 0 else {}


_TABLE: dict[str, _Rule] = {
    # every shape on a finite interval
    **{
        name: _bounded
        for name in (
            "anglit", "arcsine", "argus", "beta", "bradford", "cosine", "gausshyper",
            "genhalflogistic", "irwinhall", "johnsonsb", "ksone", "kstwo", "loguniform",
            "powerlaw", "rdist", "reciprocal", "semicircular", "trapezoid", "triang",
            "uniform", "vonmises_line", "wrapcauchy",
        )
    },
    # light: the hazard grows without bound
    "norm": lambda: _both(_light(_GAUSS)),
    "halfnorm": lambda: _right(_light(_GAUSS)),
    "foldnorm": lambda c: _right(_light(_GAUSS)),
    "truncnorm": lambda a, b: _both(_light(_GAUSS)),
    "skewnorm": lambda a: _both(_light("density 2 phi(x) Phi(a x) <= 2 phi(x): " + _GAUSS)),
    "powernorm": lambda c: _both(_light("density c phi(x) Phi(-x)^(c-1): Gaussian at both ends")),
    "chi": lambda df: _right(_light("density ~ x^(df-1) exp(-x^2/2)")),
    "maxwell": lambda: _right(_light("density ~ x^2 exp(-x^2/2)")),
    "rayleigh": lambda: _right(_light("density x exp(-x^2/2)")),
    "rice": lambda b: _right(_light("density ~ x I0(x b) exp(-(x^2+b^2)/2) ~ exp(-(x-b)^2/2)")),
    "nakagami": lambda nu: _right(_light("density ~ x^(2 nu-1) exp(-nu x^2)")),
    "kstwobign": lambda: _right(_light("S = 2 sum (-1)^(k-1) exp(-2 k^2 x^2) ~ 2 exp(-2 x^2)")),
    "gompertz": lambda c: _right(_light("hazard c e^x -> inf")),
    "exponpow": lambda b: _right(_light("S = exp(1 - exp(x^b)): hazard b x^(b-1) exp(x^b) -> inf")),
    # exponential: the hazard tends to a finite rate
    "expon": lambda: _right(_expo(1.0, "hazard 1")),
    "gamma": lambda a: _right(_expo(1.0, "density x^(a-1) e^-x: hazard -> 1 for every a > 0")),
    "erlang": lambda a: _right(_expo(1.0, "density x^(a-1) e^-x: hazard -> 1")),
    "chi2": lambda df: _right(_expo(0.5, "density x^(df/2-1) e^(-x/2): hazard -> 1/2")),
    "laplace": lambda: _both(_expo(1.0, "density e^-|x|/2: hazard 1")),
    "laplace_asymmetric": lambda kappa: {
        _RIGHT: _expo(kappa, "density ~ exp(-kappa x) on the right"),
        _LEFT: _expo(1 / kappa, "density ~ exp(x/kappa) on the left"),
    },
    "dgamma": lambda a: _both(_expo(1.0, "density |x|^(a-1) e^-|x|: hazard -> 1")),
    "logistic": lambda: _both(_expo(1.0, "hazard 1/(1+e^-x) -> 1")),
    "halflogistic": lambda: _right(_expo(1.0, "density 2 e^-x/(1+e^-x)^2: hazard -> 1")),
    "hypsecant": lambda: _both(_expo(1.0, "density 1/(pi cosh x): hazard -> 1")),
    "genlogistic": lambda c: {
        _RIGHT: _expo(1.0, "density ~ c e^-x on the right"),
        _LEFT: _expo(c, "density ~ c e^(c x) on the left"),
    },
    "gumbel_r": lambda: {
        _RIGHT: _expo(1.0, "S ~ e^-x: hazard -> 1"),
        _LEFT: _light("F = exp(-e^-x): hazard e^-x -> inf"),
    },
    "gumbel_l": lambda: {
        _LEFT: _expo(1.0, "F ~ e^x: hazard -> 1"),
        _RIGHT: _light("S = exp(-e^x): hazard e^x -> inf"),
    },
    "moyal": lambda: {
        _RIGHT: _expo(0.5, "density exp(-(x + e^-x)/2): hazard -> 1/2"),
        _LEFT: _light("density exp(-(x + e^-x)/2): hazard ~ e^-x/2 -> inf"),
    },
    "loggamma": lambda c: {
        _RIGHT: _light("density exp(c x - e^x): hazard ~ e^x -> inf"),
        _LEFT: _expo(c, "density exp(c x - e^x) ~ e^(c x): hazard -> c"),
    },
    "exponnorm": lambda K: {
        _RIGHT: _expo(1 / K, "density ~ exp(-x/K): hazard -> 1/K"),
        _LEFT: _light("density ~ phi(x - 1/K) on the left: Gaussian"),
    },
    "fatiguelife": lambda c: _right(_expo(1 / (2 * c * c), "exponent -(x-1)^2/(2 x c^2) ~ -x/(2 c^2)")),
    "invgauss": lambda mu: _right(_expo(1 / (2 * mu * mu), "exponent -(x-mu)^2/(2 mu^2 x) ~ -x/(2 mu^2)")),
    "wald": lambda: _right(_expo(0.5, "exponent -(x-1)^2/(2 x) ~ -x/2")),
    "recipinvgauss": lambda mu: _right(_expo(0.5, "exponent -(1 - mu x)^2/(2 mu^2 x) ~ -x/2 for every mu")),
    "geninvgauss": lambda p, b: _right(_expo(b / 2, "density x^(p-1) exp(-b (x + 1/x)/2): hazard -> b/2")),
    "genexpon": lambda a, b, c: _right(_expo(a + b, "hazard a + b (1 - e^(-c x)) -> a + b")),
    "ncx2": lambda df, nc: _right(_expo(0.5, "density ~ x^((df-3)/4) exp(-x/2 + sqrt(nc x)): hazard -> 1/2")),
    "norminvgauss": lambda a, b: {
        _RIGHT: _expo(a - b, "density ~ K1(a|x|) e^(b x) ~ exp(-(a - b) x) on the right"),
        _LEFT: _expo(a + b, "density ~ K1(a|x|) e^(b x) ~ exp(-(a + b)|x|) on the left"),
    },
    "genhyperbolic": _genhyperbolic,
    "pearson3": _pearson3,
    "truncexpon": lambda b: _right(_expo(1.0, "the bound b = inf leaves the exponential")),
    # the shape decides: hazard ~ c |x|^(c-1)
    "weibull_min": lambda c: _right(_stretched(c, "S = exp(-x^c)")),
    "weibull_max": lambda c: {_LEFT: _stretched(c, "F = exp(-(-x)^c)")},
    "truncweibull_min": lambda c, a, b: _right(_stretched(c, "the bound b = inf leaves S ~ exp(-x^c)")),
    "dweibull": lambda c: _both(_stretched(c, "density c/2 |x|^(c-1) exp(-|x|^c)")),
    "exponweib": lambda a, c: _right(_stretched(c, "density ~ a c x^(c-1) exp(-x^c)")),
    "gennorm": lambda beta: _both(_stretched(beta, "density ~ exp(-|x|^beta)")),
    "halfgennorm": lambda beta: _right(_stretched(beta, "density ~ exp(-x^beta)")),
    "gengamma": _gengamma,
    "genextreme": _genextreme,
    "genpareto": _genpareto,
    "kappa4": _kappa4,
    "tukeylambda": _tukeylambda,
    # heavy with every moment finite: log-normal-like
    "lognorm": lambda s: _right(_heavy(math.inf, "log-density ~ -(log x)^2/(2 s^2): hazard ~ log x/(s^2 x) -> 0")),
    "gibrat": lambda: _right(_heavy(math.inf, "log-normal: hazard ~ log x / x -> 0")),
    "powerlognorm": lambda c, s: _right(_heavy(math.inf, "S = Phi(-log(x)/s)^c: log-normal-like")),
    "johnsonsu": lambda a, b: _both(_heavy(math.inf, "density ~ exp(-b^2 log(2|x|)^2/2)/|x|: log-normal-like")),
    # heavy: power laws
    "cauchy": lambda: _both(_power(1.0, "density 1/(pi (1+x^2))")),
    "halfcauchy": lambda: _right(_power(1.0, "density 2/(pi (1+x^2))")),
    "foldcauchy": lambda c: _right(_power(1.0, "density ~ 2/(pi x^2)")),
    "skewcauchy": lambda a: _both(_power(1.0, "density ~ (1 + a sign x)^2/(pi x^2)")),
    "t": lambda df: _both(_power(df, "density ~ |x|^-(df+1)")),
    "nct": lambda df, nc: _both(_power(df, "(Y + nc)/sqrt(V/df): density ~ |x|^-(df+1)")),
    "pareto": lambda b: _right(_power(b, "density b x^-(b+1)")),
    "truncpareto": _trunc_pareto,
    "lomax": lambda c: _right(_power(c, "density c (1+x)^-(c+1)")),
    "invgamma": lambda a: _right(_power(a, "density x^(-a-1) e^(-1/x)/Gamma(a)")),
    "invweibull": lambda c: _right(_power(c, "density c x^(-c-1) exp(-x^-c)")),
    "levy": lambda: _right(_power(0.5, "density ~ x^-(3/2)/sqrt(2 pi)")),
    "levy_l": lambda: {_LEFT: _power(0.5, "density ~ |x|^-(3/2)/sqrt(2 pi)")},
    "alpha": lambda a: _right(_power(1.0, "density ~ phi(a)/(Phi(a) x^2)")),
    "betaprime": lambda a, b: _right(_power(b, "density ~ x^-(b+1)/B(a, b)")),
    "f": lambda dfn, dfd: _right(_power(dfd / 2, "density ~ x^-(dfd/2+1)")),
    "ncf": lambda dfn, dfd, nc: _right(_power(dfd / 2, "a Poisson mixture of F laws: density ~ x^-(dfd/2+1)")),
    "burr": lambda c, d: _right(_power(c, "density ~ c d x^-(c+1)")),
    "burr12": lambda c, d: _right(_power(c * d, "density ~ c d x^-(c d+1)")),
    "fisk": lambda c: _right(_power(c, "density ~ c x^-(c+1)")),
    "mielke": lambda k, s: _right(_power(s, "density ~ k x^-(s+1)")),
    "kappa3": lambda a: _right(_power(a, "density ~ a x^-(a+1)")),
    "loglaplace": lambda c: _right(_power(c, "density c/2 x^-(c+1) for x >= 1")),
    "dpareto_lognorm": lambda u, s, a, b: _right(_power(a, "density ~ x^-(a+1) (exp of a Gaussian plus E/a)")),
    "jf_skew_t": lambda a, b: {
        _RIGHT: _power(2 * b, "density ~ x^-(2b+1) on the right"),
        _LEFT: _power(2 * a, "density ~ |x|^-(2a+1) on the left"),
    },
    "crystalball": lambda beta, m: {
        _LEFT: _power(m - 1, "density ~ (m/beta - beta - x)^-m below -beta"),
        _RIGHT: _light(_GAUSS),
    },
    "rel_breitwigner": lambda rho: _right(_power(3.0, "density k/((x^2-rho^2)^2+rho^2) ~ x^-4")),
    # scipy's landau is (2/pi) X + (2/pi) log(2/pi) for Landau's X (Laplace transform s^s)
    "landau": lambda: {
        _RIGHT: _power(1.0, "the stable law alpha = 1, beta = 1: density ~ 1/x^2"),
        _LEFT: _light("the stable law alpha = 1, beta = 1: log-density ~ -exp(-pi x/2 + const)"),
    },
}


def declared_families() -> tuple[str, ...]:
    """The ``scipy.stats`` family names that :func:`scipy_tail` answers for, sorted.

    Examples
    --------
    >>> "weibull_min" in declared_families()
    True
    >>> "studentized_range" in declared_families()
    False
    """
    return tuple(sorted(_TABLE))


def _scalar(value: Any) -> float | None:
    import numpy as np

    arr = np.asarray(value)
    if arr.size != 1 or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        return None
    return float(arr.reshape(()))


def scipy_tail(dist: Any, side: str) -> Tail | None:
    r"""The declared :class:`Tail` of one end of a frozen ``scipy.stats`` continuous distribution.

    A finite end of ``dist.support()`` is ``"bounded"``.  An unbounded end is looked up in a
    table keyed by ``dist.dist.name`` and derived from the family's density formula for
    each range of its shape parameters (:func:`declared_families`); ``loc`` and ``scale``
    are read with the shapes (positional or keyword) and the rate is divided by ``scale``.

    Parameters
    ----------
    dist : scipy.stats frozen continuous distribution
    side : {"left", "right"}

    Returns
    -------
    Tail or None
        ``None`` for a family not in the table, a parameter range not derived, or invalid
        parameters: the tail must then be declared (:func:`parse_tail`).

    Examples
    --------
    >>> import scipy.stats as st
    >>> scipy_tail(st.expon(scale=2.0), "right").rate
    0.5
    >>> scipy_tail(st.gennorm(1.0), "left").kind
    'exponential'
    >>> scipy_tail(st.genextreme(-0.25), "right").moments
    4.0
    >>> print(scipy_tail(st.vonmises(1.0), "right"))
    None
    """
    _check_side(side)
    import numpy as np
    import scipy.stats

    family = getattr(dist, "dist", None)
    if not isinstance(family, scipy.stats.rv_continuous) or not hasattr(dist, "support"):
        raise ParameterError(f"dist must be a frozen scipy.stats continuous distribution; got {dist!r}")
    name = family.name
    try:
        shapes, loc, scale = family._parse_args(*dist.args, **dist.kwds)
        values = [_scalar(v) for v in (*shapes, loc, scale)]
        if any(v is None or math.isnan(v) for v in values):
            return None
        *shapes, loc, scale = values
        with np.errstate(all="ignore"):
            ok = bool(np.all(family._argcheck(*shapes)))
            lo, hi = (float(np.asarray(e).reshape(())) for e in dist.support())
    except (TypeError, ValueError, ArithmeticError):
        return None
    if not (ok and 0 < scale < math.inf and math.isfinite(loc)):
        return None
    end = lo if side == _LEFT else hi
    if math.isfinite(end):
        return Tail("bounded", math.inf, math.inf, f"scipy.stats.{name}: the support ends at {end:g}")
    rule = _TABLE.get(name)
    if rule is None:
        return None
    decl = rule(*shapes).get(side)
    if decl is None:
        return None
    names = [s.strip() for s in family.shapes.split(",")] if family.shapes else []
    args = [f"{n}={v:g}" for n, v in zip(names, shapes, strict=True)]
    args += [f"{n}={v:g}" for n, v, default in (("loc", loc, 0), ("scale", scale, 1)) if v != default]
    source = f"scipy.stats.{name}({', '.join(args)}), {side} end: {decl.why}"
    rate = decl.rate
    if decl.kind == "exponential":
        rate = decl.rate / scale
        if scale != 1:
            source += f"; rate {decl.rate:g} / scale {scale:g}"
    return Tail(decl.kind, rate, decl.moments, source)
