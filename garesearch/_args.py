"""Conventions for keyword arguments that every module shares: renamed keywords and ``sides``.

It imports nothing but the standard library and :mod:`garesearch.errors`, so that every layer
of the package (down to :mod:`garesearch.bound`) can use it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable
from typing import TypeVar

from .errors import ParameterError

__all__ = ["SIDES", "check_sides", "renamed_keywords", "warn_renamed"]

F = TypeVar("F", bound=Callable)

#: The values ``sides=`` accepts (Def. 7): both sides of the advantage, the posterior's rise
#: above the prior only, or its fall below the prior only.
SIDES: tuple[str, ...] = ("both", "upper", "lower")


def check_sides(sides, allowed: Iterable[str] = SIDES) -> str:
    """``sides`` if it is one of ``allowed`` (a subset of :data:`SIDES`), else :class:`ParameterError`.

    Parameters
    ----------
    sides : str
        The value passed as ``sides=``.
    allowed : iterable of str
        The values this function supports, in the order of :data:`SIDES`.

    Returns
    -------
    str

    Examples
    --------
    >>> check_sides("upper")
    'upper'
    >>> check_sides("lower", allowed=("both", "upper"))
    Traceback (most recent call last):
    ...
    garesearch.errors.ParameterError: sides must be one of 'both', 'upper'; got 'lower'
    """
    allowed = tuple(allowed)
    if not isinstance(sides, str) or sides not in allowed:
        raise ParameterError(f"sides must be one of {', '.join(map(repr, allowed))}; got {sides!r}")
    return sides


def warn_renamed(old: str, new: str, where: str, stacklevel: int = 3) -> None:
    """Emit the :class:`DeprecationWarning` for the name ``old``, renamed to ``new``.

    Parameters
    ----------
    old, new : str
        The old and the new name (a keyword is written with its ``=``).
    where : str
        The function, class or module that has it.
    stacklevel : int
        As in :func:`warnings.warn`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_renamed("delta=", "dp_delta=", "f", stacklevel=2)
    >>> print(w[0].message)
    f: delta= is deprecated and will be removed in the next release; use dp_delta=
    """
    warnings.warn(
        f"{where}: {old} is deprecated and will be removed in the next release; use {new}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def renamed_keywords(**renames: str) -> Callable[[F], F]:
    """Decorator: accept each old keyword (``old="new"``) for one release, with a warning.

    A call with the old keyword warns (:class:`DeprecationWarning` naming the new keyword) and
    passes the value on as the new keyword; a call with both raises :class:`ParameterError`.

    Parameters
    ----------
    **renames : str
        ``old_keyword="new_keyword"``.

    Returns
    -------
    callable
        The decorator.

    Examples
    --------
    >>> @renamed_keywords(delta="dp_delta")
    ... def f(*, dp_delta):
    ...     return dp_delta
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     f(delta=0.25)
    0.25
    """

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise ParameterError(
                            f"{function.__name__}: pass {new}= only ({old}= is its deprecated name)"
                        )
                    warn_renamed(f"{old}=", f"{new}=", function.__name__)
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
