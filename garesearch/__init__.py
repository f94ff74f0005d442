"""garesearch: from a bound on an attacker's guessing advantage to the epsilon of DP.

Executable, checked version of P. Laud and A. Pankova, "Interpreting Epsilon of
Differential Privacy in Terms of Advantage in Guessing or Approximating Sensitive
Attributes".  The public names below are loaded on first use, so that ``import garesearch``
stays fast and pulls in neither sympy nor scipy nor matplotlib.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> submodule that defines it (PEP 562 lazy loading)
_LAZY: dict[str, str] = {
    # Sec. 3.2 and Eq. (main)
    "posterior_bound": "bound",
    "epsilon_for_advantage": "bound",
    "advantage_for_epsilon": "bound",
    "eps_lb": "bound",
    "eps_ub": "bound",
    "worst_case_prior": "bound",
    "worst_case_epsilon": "bound",
    # Sec. 4.1: one attribute
    "epsilon_for_attribute": "attribute",
    "AttributeResult": "attribute",
    # errors
    "InfeasibleError": "errors",
    "ParameterError": "errors",
}

_SUBMODULES = {
    "priors",
    "bound",
    "attribute",
    "errors",
}

__all__ = sorted(_LAZY) + sorted(_SUBMODULES)


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'garesearch' has no attribute {name!r}")


def __dir__():
    return __all__
