"""Exceptions raised for bad input and for requests that no epsilon > 0 can meet."""

from __future__ import annotations

__all__ = ["InfeasibleError", "ParameterError"]


class ParameterError(ValueError):
    """A parameter is outside its valid range; the message names it and the range."""


class InfeasibleError(ValueError):
    """No epsilon > 0 meets the request; the message says why and what would be feasible."""
