"""Exceptions raised for bad input and for requests that no epsilon > 0 can meet."""

from __future__ import annotations

__all__ = ["InfeasibleError", "ParameterError", "UndeclaredTailWarning"]


class ParameterError(ValueError):
    """A parameter is outside its valid range; the message names it and the range."""


class InfeasibleError(ValueError):
    """No epsilon > 0 meets the request; the message says why and what would be feasible."""


class UndeclaredTailWarning(UserWarning):
    """A distribution's unbounded tail is neither in garesearch's table of scipy families nor
    declared by the caller, so the sound default (heavier than every exponential) is used."""
