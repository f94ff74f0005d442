"""garesearch: from a bound on an attacker's guessing advantage to the epsilon of DP.

Executable, checked version of P. Laud and A. Pankova, "Interpreting Epsilon of
Differential Privacy in Terms of Advantage in Guessing or Approximating Sensitive
Attributes".  The public names below are loaded on first use, so that ``import garesearch``
stays fast and pulls in neither sympy nor scipy nor matplotlib.  They are the main functions,
the priors and the type of every result the functions return, one name per concept (the user
guide's "Names and conventions").
"""

from __future__ import annotations

import importlib

from . import _moved

_moved.install()  # the old module paths, for one release

__version__ = "0.1.0"

# public name -> submodule that defines it (PEP 562 lazy loading)
_LAZY: dict[str, str] = {
    # App. A.1 noise bounds; App. B (epsilon, delta); calibrated releases; other readings
    "noise_mass": "noise",
    "noise_bound": "noise",
    "laplace_scale": "noise",
    "advantage_with_confidence": "approx_dp",
    "confidence_for_advantage": "approx_dp",
    "adp_posterior_bound": "approx_dp",
    "B1Result": "approx_dp",
    "search_smooth_laplace": "smooth_laplace",
    "SmoothLaplaceParameters": "smooth_laplace",
    "laplace_release": "releases.release",
    "gaussian_release": "releases.release",
    "Release": "releases.release",
    "GaussianRelease": "releases.release",
    "posterior_belief_bound": "releases.readings",
    "lee_clifton_epsilon": "releases.readings",
    "lee_clifton_posterior": "releases.readings",
    "worst_case_advantage": "releases.readings",
    "membership_advantage": "releases.readings",
    "kazan_reiter_ratio": "releases.risk_profile",
    "kazan_reiter_epsilon": "releases.risk_profile",
    "kazan_reiter_profile": "releases.risk_profile",
    "plot_readings": "releases.readings",
    # beyond pure epsilon: Gaussian and integer noise, composed releases, three readings
    "advantage_tail": "releases.tail",
    "reconstruction_advantage": "releases.reconstruction",
    "prior_free_bound": "releases.reconstruction",
    "calibrate": "releases.calibration",
    "subsampled_gaussian_reading": "releases.subsampled",
    "subsampled_reading": "releases.subsampled",
    "CalibrationResult": "releases.calibration",
    "TailResult": "releases.tail",
    "ReconstructionResult": "releases.reconstruction",
    "SubsampledResult": "releases.subsampled",
    "privacy_profile": "releases.accounting",
    "PrivacyProfile": "releases.accounting",
    "Composition": "releases.accounting",
    "plot_tradeoff": "releases.accounting",
    # Sec. 4 through PLEAK's attacker files and goals; teaching widgets
    "read_attacker": "app.pleak",
    "read_goal": "app.pleak",
    "epsilon_for_pleak_goal": "app.pleak",
    "PleakGoalResult": "app.pleak",
    "Knowledge": "app.pleak",
    "epsilon_widget": "app.widgets",
    "attribute_widget": "app.widgets",
    # Sec. 3.2 and Eq. (main)
    "posterior_bound": "bound",
    "epsilon_for_advantage": "bound",
    "advantage_for_epsilon": "bound",
    "eps_lb": "bound",
    "eps_ub": "bound",
    "worst_case_prior": "bound",
    "worst_case_epsilon": "bound",
    # exact advantage of real mechanisms (issue 7)
    "exact_advantage": "exact",
    "exact_epsilon": "exact",
    "ExactAdvantage": "exact",
    "bayes_attacker_success": "exact",
    "monte_carlo_attacker": "exact",
    "AttackerEstimate": "exact",
    "soundness_counterexamples": "constructions.counterexamples",
    "Laplace": "mechanisms",
    "Gaussian": "mechanisms",
    "GenCauchy": "mechanisms",
    "RandomizedResponse": "mechanisms",
    "compare_epsilons": "exact",
    "comparison_table": "exact",
    "format_comparison": "exact",
    "EpsilonComparison": "exact",
    # Sec. 4.1: one attribute, the priors, the results by construction
    "epsilon_for_attribute": "attribute",
    "OptimalResult": "optimal",
    "AttributeResult": "attribute",
    "Prior": "priors",
    "Normal": "priors",
    "Uniform": "priors",
    "PiecewiseUniform": "priors",
    "Continuous": "priors",
    "Categorical": "priors",
    # beyond the paper: the pointwise bound, the least-noise mechanism
    "epsilon_pointwise": "constructions.pointwise",
    "PointwiseResult": "constructions.pointwise",
    "least_noise_mechanism": "optimal.least_noise",
    "LeastNoiseResult": "optimal.least_noise",
    # Sec. 4.2, 4.3: AND / OR events; Sec. 5: several outputs
    "Attribute": "goals",
    "AllOf": "goals",
    "AnyOf": "goals",
    "GoalResult": "constructions.comparison_sets",
    "OptimalGoalResult": "optimal.goals",
    "epsilon_for": "events",
    "epsilon_for_goal": "events",
    "epsilon_for_each": "events",
    "SeparateResult": "events",
    "or_probability": "goals",
    "Coordinates": "goals",
    "lp_ball_mass": "goals",
    "composed_epsilon": "composition",
    "equal_split": "composition",
    "optimal_split": "composition",
    # the claims report
    "check_all": "claims",
    "ClaimResult": "claims",
    "write_report": "claims",
    # errors
    "InfeasibleError": "errors",
    "ParameterError": "errors",
}

_SUBMODULES = {
    "claims",
    "derivations",
    "paper",
    "radius",
    "lambertw",
    "exact",
    "mechanisms",
    "noise",
    "approx_dp",
    "smooth_laplace",
    "additive",
    "events",
    "goals",
    "composition",
    "priors",
    "bound",
    "attribute",
    "optimal",
    "datasets",
    "errors",
    "constructions",
    "enclosures",
    "releases",
    "app",
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
    if f"{__name__}.{name}" in _moved.MOVED:  # an old path: warns, gives the new module
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'garesearch' has no attribute {name!r}")


def __dir__():
    return __all__
