"""Plain Python numbers in result objects: what every result dataclass shares.

A result keeps what the caller passed (``r=100``, ``delta=np.float64(0.1)``) and what numpy
computed (``np.float64``), so that without this its repr mixes ``100`` and ``100.0`` and, under
numpy 2, shows ``np.float64(...)``.  :class:`PlainFields` converts, once, at construction:
numpy scalars to Python ones, and a whole number in a field declared ``float`` to a float.
The values are unchanged (a numpy float64 and a Python float are the same double).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = ["PlainFields", "plain"]


def _is_float_field(annotation: Any) -> bool:
    if annotation is float:
        return True
    if isinstance(annotation, str):
        parts = {p.strip() for p in annotation.split("|")}
        return "float" in parts and parts <= {"float", "None"}
    return False


def plain(value: Any, as_float: bool = False) -> Any:
    """``value`` with numpy scalars made Python numbers (also inside tuples, lists and dict
    values); with ``as_float`` a whole number becomes a float.  Arrays and other objects are
    returned as they are.

    Examples
    --------
    >>> plain(np.float64(0.5)), plain(np.int64(3)), plain(100, as_float=True), plain(True, as_float=True)
    (0.5, 3, 100.0, True)
    >>> plain((np.float64(1.0), {"a": np.float32(0.5)}))
    (1.0, {'a': 0.5})
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.str_):
        return str(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, (int, np.integer)):
        return float(value) if as_float else int(value)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(plain(v) for v in value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def _label_of(prior: Any, t: Any) -> Any:
    """The value of a numeric :class:`~garesearch.priors.Categorical` that ``t`` is, as the
    prior names it (its key: ``10`` for the float ``10.0`` the searches work with), or
    ``None`` where ``t`` is no such value."""
    from .priors import Categorical

    if not isinstance(prior, Categorical) or prior.metric != "absolute":
        return None
    if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, float, np.integer, np.floating)):
        return None
    i = int(np.searchsorted(prior.points, float(t)))
    if i < prior.points.size and prior.points[i] == float(t):
        return prior.values[i]
    return None


class PlainFields:
    """Mixin for a result dataclass: after ``__init__``, every field shown in the repr holds
    plain Python numbers (:func:`plain`; fields declared ``float`` hold floats), and a true
    value ``t`` of a :class:`~garesearch.priors.Categorical` prior is shown as the prior's own
    value (its label).

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class R(PlainFields):
    ...     epsilon: float
    ...     r: float
    ...     t: object
    >>> R(np.float64(0.25), 100, np.float64(2.0))
    R(epsilon=0.25, r=100.0, t=2.0)
    """

    def __post_init__(self) -> None:
        label = _label_of(getattr(self, "prior", None), getattr(self, "t", None))
        if label is not None:
            object.__setattr__(self, "t", label)
        for f in dataclasses.fields(self):
            if not f.repr:
                continue
            old = getattr(self, f.name)
            new = plain(old, _is_float_field(f.type))
            if new is not old:
                object.__setattr__(self, f.name, new)
