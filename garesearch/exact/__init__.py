r"""The exact guessing advantage of a real mechanism, and how tight the paper's bound is.

Eq. (main) (Sec. 3.2, 4.1) bounds the advantage of *every* :math:`\epsilon`-DP mechanism.  Here
the mechanism is fixed (:mod:`garesearch.mechanisms`) and the attacker's posterior is computed
exactly (Sec. 3.2, first display):

.. math::

    \Pr_{post}[X' \mid y] = \frac{\int_{X'} f(y \mid x)\, d\pi(x)}{\int f(y \mid x)\, d\pi(x)},
    \qquad X' = \mathcal B(t, r),

for the query output :math:`s(x)`: the attribute itself (identity; a SUM whose other terms the
attacker knows differs from it by a known constant) for a numeric prior, and
:math:`s(x) = 1\{x \in T\}` (a COUNT of the rows whose value lies in a target set ``T``) for a
prior with the discrete metric.  The advantage of Def. 7 at true value ``t`` is
:math:`\sup_y |\Pr_{post}[X' \mid y] - \Pr_{pre}[X']|`; :func:`exact_advantage` takes the
supremum over ``y`` (the limits :math:`y \to \pm\infty` included, derived analytically) and,
when ``t`` is not given, over ``t``.

Integrals are closed forms where they exist: finite priors (sums), piecewise-uniform priors
(the noise CDFs), a Normal prior with Laplace noise (Gaussian CDFs of the prior tilted by
:math:`e^{\pm\epsilon x}`) or with Gaussian noise (a normal posterior).  Otherwise (a Normal
prior with generalised Cauchy noise, :class:`~garesearch.priors.Continuous`) they are computed
in log space by composite Gauss-Legendre quadrature split at the kinks, with an error estimate
from halving the nodes; with Laplace noise a :class:`~garesearch.priors.Continuous` prior uses
its tilted masses (:meth:`~garesearch.priors.Prior.log_tilted_mass`), accurate far into its tails.

The worst true value (``t=None``) is searched over :meth:`~garesearch.priors.Prior.t_candidates`
(unbounded tails down to mass 1e-30) and, for Laplace noise on an unbounded support, the limit
as ``t`` goes to each infinite end (:func:`_laplace_far_tail`: :math:`1 - e^{-\epsilon r}` for
a tail heavier than every exponential, so that :func:`exact_epsilon` is then at most
:math:`-\ln(1 - \delta)/r`).

Limits of the posterior as :math:`y \to \pm\infty`:

- Laplace: the likelihood ratio of ``x`` to ``x'`` tends to :math:`e^{\pm\epsilon(x - x')}`, so
  the posterior tends to the prior tilted by :math:`e^{\pm\epsilon x}` (for a Normal prior the
  tilt is :math:`\mathcal N(\mu \pm \epsilon\sigma^2, \sigma^2)`; where the tilt diverges the
  posterior of a bounded set tends to 0).  For a prior with bounded support the posterior is
  constant beyond the support.
- Gaussian: the ratio tends to 0 or infinity; the posterior piles up at the end of the support
  (1 if :math:`X'` holds that end, else 0; 0 for a Normal prior).  So the worst-case advantage
  of Gaussian noise is large for every noise scale: it is not :math:`\epsilon`-DP, and Def. 7's
  supremum over outputs sees that.
- Generalised Cauchy: the ratio tends to 1 and the posterior to the prior (priors with a finite
  fourth moment), so the far tails leak nothing.

For Laplace noise on a finite prior the posterior between two neighbouring atoms has the form
:math:`(\alpha u^2 + \beta)/(\gamma u^2 + \kappa)` with :math:`u = e^{\epsilon y}`, monotone in
``y``: its extremes lie at the atoms or at :math:`\pm\infty`, which :func:`exact_advantage`
evaluates exactly.

For Laplace noise and an interval :math:`X' = [l, h]` under any prior, write the posterior as
:math:`1/(1 + O(y)/N(y))` with :math:`N` the integral over :math:`X'` and :math:`O` over the
rest.  For :math:`y \le l`, :math:`N \propto e^{\epsilon y}` and the posterior increases; for
:math:`y \ge h` it decreases; on :math:`[l, h]`, :math:`O'' = \epsilon^2 O` and
:math:`N'' = \epsilon^2 N - 2\epsilon\pi(y)`, so :math:`W = O'N - ON'` has
:math:`W' = 2\epsilon\pi(y) O \ge 0` and :math:`W = 2\epsilon(B_- C(y) - B_+ E(y))` with
:math:`C(y) = \int_l^y e^{\epsilon x} d\pi`, :math:`E(y) = \int_y^h e^{-\epsilon x} d\pi`,
:math:`B_+ = \int_{x<l} e^{\epsilon x} d\pi`, :math:`B_- = \int_{x>h} e^{-\epsilon x} d\pi`.
The posterior is therefore unimodal in ``y``: its supremum is at the root of
:math:`B_- C(y) = B_+ E(y)` in :math:`[l, h]`, its infimum is the smaller of the limits at
:math:`\pm\infty`.  For a Normal prior (tilted normals) and a piecewise-uniform prior (sums of
exponentials) :math:`C`, :math:`E`, :math:`B_\pm` are closed forms: the root is bracketed for all
true values at once, so the worst case needs no grid of outputs.  Elsewhere the supremum is
bracketed on a grid of outputs and refined by Brent's method.
"""

from __future__ import annotations

from .._optional import lazy_attributes

#: public name -> the module (relative to this package) that defines it, loaded on first use
_LAZY: dict[str, str] = {
    "AttackerEstimate": ".attacker",
    "EpsilonComparison": ".compare",
    "ExactAdvantage": ".core",
    "bayes_attacker_success": ".attacker",
    "compare_epsilons": ".compare",
    "comparison_table": ".compare",
    "exact_advantage": ".core",
    "exact_epsilon": ".core",
    "format_comparison": ".compare",
    "log_ndtr_diff": ".integrals",
    "monte_carlo_attacker": ".attacker",
    "or_event": ".core",
    "posterior": ".core",
    "soundness_counterexamples": "..constructions.counterexamples",
    "soundness_search": "..constructions.counterexamples",
}

__all__ = [
    "AttackerEstimate",
    "EpsilonComparison",
    "ExactAdvantage",
    "bayes_attacker_success",
    "compare_epsilons",
    "comparison_table",
    "exact_advantage",
    "exact_epsilon",
    "format_comparison",
    "log_ndtr_diff",
    "monte_carlo_attacker",
    "or_event",
    "posterior",
    "soundness_counterexamples",
    "soundness_search",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
