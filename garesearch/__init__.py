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
    "laplace_release": "release",
    "gaussian_release": "release",
    "Release": "release",
    "GaussianRelease": "release",
    "posterior_belief_bound": "readings",
    "lee_clifton_epsilon": "readings",
    "lee_clifton_posterior": "readings",
    "worst_case_advantage": "readings",
    "membership_advantage": "readings",
    "kazan_reiter_ratio": "risk_profile",
    "kazan_reiter_epsilon": "risk_profile",
    "kazan_reiter_profile": "risk_profile",
    "plot_readings": "readings",
    # beyond pure epsilon: Gaussian and integer noise, composed releases, three readings
    "advantage_tail": "tail",
    "reconstruction_advantage": "reconstruction",
    "prior_free_bound": "reconstruction",
    "calibrate": "calibration",
    "subsampled_gaussian_reading": "subsampled",
    "subsampled_reading": "subsampled",
    "CalibrationResult": "calibration",
    "TailResult": "tail",
    "ReconstructionResult": "reconstruction",
    "SubsampledResult": "subsampled",
    "privacy_profile": "accounting",
    "PrivacyProfile": "accounting",
    "Composition": "accounting",
    "plot_tradeoff": "accounting",
    # Sec. 4 through PLEAK's attacker files and goals; teaching widgets
    "read_attacker": "pleak",
    "read_goal": "pleak",
    "epsilon_for_pleak_goal": "pleak",
    "PleakGoalResult": "pleak",
    "Knowledge": "pleak",
    "epsilon_widget": "widgets",
    "attribute_widget": "widgets",
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
    "soundness_counterexamples": "counterexamples",
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
    "epsilon_pointwise": "pointwise",
    "PointwiseResult": "pointwise",
    "least_noise_mechanism": "least_noise",
    "LeastNoiseResult": "least_noise",
    # Sec. 4.2, 4.3: AND / OR events; Sec. 5: several outputs
    "Attribute": "goals",
    "AllOf": "goals",
    "AnyOf": "goals",
    "GoalResult": "comparison_sets",
    "OptimalGoalResult": "goal_optimal",
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
    "release",
    "readings",
    "risk_profile",
    "additive",
    "accounting",
    "tail",
    "reconstruction",
    "calibration",
    "subsampled",
    "events",
    "goals",
    "comparison_sets",
    "or_lower",
    "goal_optimal",
    "composition",
    "widgets",
    "cli",
    "pleak",
    "figures",
    "plotting",
    "priors",
    "bound",
    "attribute",
    "optimal",
    "tilted",
    "pointwise",
    "counterexamples",
    "datasets",
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
