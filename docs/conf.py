"""Sphinx configuration of garesearch's documentation site (``make docs`` -> output/site/).

The site is built from what the main job wrote: the executed notebooks and ``claims.json`` in
``output/`` (``make docs`` runs ``garesearch reproduce`` first; if they are missing, this file
runs it).  Pages generated at build time go to ``docs/_generated/`` (not stored):

- ``api/``: one page per public module of garesearch (found with :mod:`pkgutil`, so a module
  added later appears without editing the docs) and the API entry page: the public calls
  grouped by task (:data:`API_GROUPS`; every name ``garesearch/__init__.py`` exports appears);
- ``notebooks/``: the executed notebooks (widgets as static snapshots);
- ``README.md`` (for the landing page), ``claims.md``, ``erratum.md`` (included by
  ``docs/erratum.md``), ``derivations.md`` and ``sections.md`` (the map from each section of
  the paper to its code, claims, notebooks and tests).

Math is typeset by MathJax 3 from a local copy (:func:`garesearch.app.publish.copy_mathjax`), so the
site reads the same without a network.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
import sys
from pathlib import Path

from sphinx.ext import autosummary as _autosummary

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
OUTPUT = Path(os.environ.get("GARESEARCH_OUTPUT", ROOT / "output"))
sys.path.insert(0, str(ROOT))
(GENERATED / "_static").mkdir(parents=True, exist_ok=True)

import garesearch  # noqa: E402
from garesearch.app import publish  # noqa: E402

project = "garesearch"
author = "The garesearch developers"
copyright = "The garesearch developers"
release = version = garesearch.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "_inventories"]
templates_path: list[str] = []

# --- API reference ------------------------------------------------------------------------
autosummary_generate = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
# a name re-exported by another module (garesearch.events.Attribute, defined in
# garesearch.goals) gets no [source] link there: following it, viewcode would write the
# source page's back-links with the re-exporting module's anchors, which the defining
# module's page does not have
viewcode_follow_imported_members = False
autodoc_typehints = "none"  # numpydoc shows the types of the docstrings
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

# a summary (autosummary tables, the API pages) is the docstring's first sentence: a period
# after one of these abbreviations does not end it ("... of Sec. 3.2 and Eq. (main).")
_autosummary.WELL_KNOWN_ABBREVIATIONS = (
    *_autosummary.WELL_KNOWN_ABBREVIATIONS,
    "Sec.", "Secs.", "App.", "Def.", "Eq.", "Eqs.", "Thm.", "Fig.", "Prop.", "cf.", "resp.",
    "w.r.t.", "approx.",
)

# --- links to other projects: inventories bundled in docs/_inventories/ (offline) ---------
# The projects' objects.inv could not be downloaded where the site is built, so each bundled
# inventory is generated from the installed package by docs/_inventories/make_inventories.py
# and points to the project's real documentation (dp_accounting, which has no Sphinx site: to
# its source files).  A real objects.inv dropped into that folder replaces one as it is.
_INVENTORIES = DOCS / "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", str(_INVENTORIES / "python.inv")),
    "numpy": ("https://numpy.org/doc/stable/", str(_INVENTORIES / "numpy.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy/", str(_INVENTORIES / "scipy.inv")),
    "opendp": ("https://docs.opendp.org/en/stable/", str(_INVENTORIES / "opendp.inv")),
    "dp_accounting": (
        "https://github.com/google/differential-privacy/blob/main/python/dp_accounting/",
        str(_INVENTORIES / "dp_accounting.inv"),
    ),
}

# --- notebooks and Markdown ---------------------------------------------------------------
nb_execution_mode = "off"  # executed copies come from `garesearch reproduce`
nb_ipywidgets_js: dict = {}  # widgets are static snapshots: no widget manager to load
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

# --- HTML: furo, MathJax 3 from a local copy ----------------------------------------------
html_theme = "furo"
html_title = f"garesearch {version}"
html_static_path = ["_generated/_static"]
html_css_files = ["garesearch.css"]
mathjax_path = f"mathjax/{publish.MATHJAX_SCRIPT}"
mathjax3_config = {"tex": {"tags": "ams"}}
html_show_sourcelink = False


# ------------------------------------------------------------------------------------------
# generated pages
# ------------------------------------------------------------------------------------------
_SKIP_MODULES = {"__main__"}
#: old paths kept for compatibility (they warn); documented at their new place
_DEPRECATED_MODULES = {"garesearch.derivations.lambertw", "garesearch.derivations.radius"}


def public_modules() -> list[str]:
    """Every public module of garesearch (no leading underscore), found on disk."""
    found = []
    for info in pkgutil.walk_packages(garesearch.__path__, prefix="garesearch."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[-1] in _SKIP_MODULES:
            continue
        if info.name in _DEPRECATED_MODULES:
            continue
        found.append(info.name)
    return sorted(found)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


#: the API entry page: the public calls grouped by task, each ``(heading, intro, names)``;
#: exported names that no group lists appear under "More names" (nothing is left out)
API_GROUPS: list[tuple[str, str, list[str]]] = [
    ("One attribute",
     "The epsilon for a bound ``delta`` on the advantage in guessing one attribute within "
     "``r`` (Sec. 3.2, 4.1; Def. 7), and the priors it is computed for.",
     ["attribute.epsilon_for_attribute", "optimal.epsilon_optimal",
      "constructions.pointwise.epsilon_pointwise", "bound.epsilon_for_advantage",
      "bound.advantage_for_epsilon", "bound.posterior_bound", "bound.worst_case_prior",
      "bound.worst_case_epsilon", "bound.eps_lb", "bound.eps_ub", "priors.Normal",
      "priors.Uniform", "priors.Categorical", "priors.PiecewiseUniform", "priors.Continuous",
      "priors.Prior", "optimal.OptimalResult", "attribute.AttributeResult",
      "constructions.pointwise.PointwiseResult", "datasets.example_prior"]),
    ("Goals",
     "AND / OR goals over several attributes and the distance between records "
     "(Sec. 4.2, 4.3, Sec. 5; Theorems 1, 2 and 4).",
     ["goals.Attribute", "goals.AllOf", "goals.AnyOf", "goals.Coordinates",
      "events.epsilon_for_goal", "events.epsilon_for", "events.epsilon_for_each",
      "optimal.goals.epsilon_optimal", "optimal.goals.OptimalGoalResult",
      "optimal.worst_record.record_summary", "optimal.worst_record.epsilon_along_line", "events.SeparateResult",
      "goals.or_probability", "goals.lp_ball_mass"]),
    ("Noise and calibration",
     "Noise scales for a target under the worst, tail or average reading, the noise "
     "distributions, and the exact advantage of real mechanisms (App. A.1, App. B; beyond "
     "the paper).",
     ["releases.calibration.calibrate", "releases.calibration.CalibrationResult", "releases.tail.advantage_tail",
      "releases.tail.TailResult", "releases.reconstruction.reconstruction_advantage",
      "releases.reconstruction.ReconstructionResult", "releases.reconstruction.prior_free_bound",
      "releases.subsampled.subsampled_gaussian_reading", "releases.subsampled.subsampled_reading",
      "releases.subsampled.SubsampledResult", "releases.accounting.privacy_profile", "releases.accounting.PrivacyProfile",
      "releases.accounting.plot_tradeoff", "additive.resolve", "noise.noise_mass", "noise.noise_bound",
      "noise.laplace_scale", "mechanisms.Laplace", "mechanisms.Gaussian",
      "mechanisms.GenCauchy", "mechanisms.RandomizedResponse", "exact.exact_advantage",
      "exact.exact_epsilon", "exact.ExactAdvantage", "exact.bayes_attacker_success",
      "exact.monte_carlo_attacker", "exact.AttackerEstimate", "exact.compare_epsilons",
      "exact.comparison_table", "exact.format_comparison", "exact.EpsilonComparison",
      "optimal.least_noise.least_noise_mechanism", "optimal.least_noise.LeastNoiseResult",
      "approx_dp.advantage_with_confidence", "approx_dp.confidence_for_advantage",
      "approx_dp.B1Result", "approx_dp.adp_posterior_bound",
      "smooth_laplace.search_smooth_laplace", "smooth_laplace.SmoothLaplaceParameters",
      "releases.readings.posterior_belief_bound",
      "releases.readings.lee_clifton_epsilon", "releases.readings.lee_clifton_posterior",
      "releases.readings.worst_case_advantage", "releases.readings.membership_advantage",
      "releases.readings.plot_readings", "releases.risk_profile.kazan_reiter_ratio",
      "releases.risk_profile.kazan_reiter_epsilon", "releases.risk_profile.kazan_reiter_profile"]),
    ("Releases",
     "Noisy answers drawn at a calibrated scale (OpenDP's samplers where installed), and "
     "several outputs under one budget (Sec. 5, Sec. 6.1, 6.2).",
     ["releases.release.laplace_release", "releases.release.gaussian_release", "releases.release.Release",
      "releases.release.GaussianRelease", "composition.composed_epsilon", "composition.equal_split",
      "composition.optimal_split"]),
    ("The paper's constructions",
     "The comparison sets of Eq. (main), Theorems 1 and 2 (sound and as printed), App. A's "
     "radius and Lambert's W, the counterexamples and the figures.",
     ["constructions.comparison_sets.comparison_set_epsilon", "constructions.comparison_sets.GoalResult",
      "radius.optimal_radius_1d", "radius.lambert_epsilon", "lambertw.convergence_table",
      "constructions.counterexamples.paper_counterexample", "constructions.counterexamples.soundness_counterexamples",
      "constructions.counterexamples.theorem2_counterexample", "app.figures.make_figures"]),
    ("Claims and derivations",
     "Every claim of the paper checked by computation, and every derivation redone "
     "with sympy.",
     ["claims.check_all", "claims.ClaimResult", "claims.check_claim", "claims.write_report",
      "claims.verify",
      "derivations.all_derivations"]),
    ("Interfaces",
     "PLEAK's attacker files and goals, teaching widgets, the command line, and the errors "
     "every call raises.",
     ["app.pleak.read_attacker", "app.pleak.Knowledge", "app.pleak.read_goal", "app.pleak.epsilon_for_pleak_goal",
      "app.pleak.PleakGoalResult",
      "app.widgets.epsilon_widget", "app.widgets.attribute_widget", "app.widgets.goal_widget", "app.cli.main",
      "errors.ParameterError", "errors.InfeasibleError"]),
]


#: the family subpackages: a module that one of them names in ``__all__`` is a main module
_FAMILIES = ("app", "constructions", "enclosures", "exact", "optimal", "releases")


def _main_module(name: str) -> bool:
    """A module of the main listing: one that ``import garesearch`` names (a submodule or
    the home of an exported name), or a module that a family subpackage names in its
    ``__all__`` (``garesearch.releases.calibration``)."""
    exported = set(getattr(garesearch, "_SUBMODULES", ())) | set(
        getattr(garesearch, "_LAZY", {}).values())
    relative = name.partition(".")[2]
    if relative in exported:
        return True
    family, _, module = relative.partition(".")
    return (family in _FAMILIES and "." not in module
            and module in getattr(importlib.import_module(f"garesearch.{family}"), "__all__", ()))


def _automodule(name: str) -> str:
    """``automodule`` for ``name``, leaving out a re-exported name that is also a submodule
    of ``name`` (documented on that submodule's page; the same full name twice otherwise)."""
    module = importlib.import_module(name)
    text = f".. automodule:: {name}\n"
    if hasattr(module, "__path__"):
        clashes = sorted(n for n in getattr(module, "__all__", ())
                         if importlib.util.find_spec(f"{name}.{n}") is not None
                         and not inspect.ismodule(getattr(module, n, None)))
        if clashes:
            text += f"   :exclude-members: {', '.join(clashes)}\n"
    return text


def _api_pages() -> None:
    modules = public_modules()
    for name in modules:
        title = f"``{name}``"
        _write(GENERATED / "api" / f"{name}.rst",
               f"{title}\n{'=' * len(title)}\n\n{_automodule(name)}")
    lazy = getattr(garesearch, "_LAZY", {})
    listed = {entry for _, _, names in API_GROUPS for entry in names}
    more = [f"{module}.{n}" for n, module in sorted(lazy.items()) if f"{module}.{n}" not in listed]
    groups = [*API_GROUPS, ("More names", "Further names that ``import garesearch`` gives.", more)]
    lines = [
        "API reference",
        "=============",
        "",
        "The public calls by task, each with the first sentence of its documentation (which "
        "cites the paper's equation or section it implements).  Under each group, the names "
        "that ``import garesearch`` gives directly (``garesearch.calibrate``, loaded on first "
        "use); the others come from their module.  The :doc:`user guide </guide/index>` "
        "shows them at work; every module has its own page (:ref:`api-modules`).",
        "",
    ]
    for heading, intro, names in groups:
        if not names:
            continue
        lines += [heading, "-" * len(heading), "", intro, "", ".. autosummary::", ""]
        lines += [f"   ~garesearch.{entry}" for entry in names]
        lines.append("")
        starred = [f"``{e.rsplit('.', 1)[1]}``" for e in names if lazy.get(e.rsplit(".", 1)[1])
                   == e.rsplit(".", 1)[0]]
        if starred:
            lines += ["Given by ``import garesearch``: " + ", ".join(starred) + ".", ""]
    main = [m for m in modules if _main_module(m)]
    supporting = [m for m in modules if m not in main]
    lines += [".. _api-modules:", "", "Modules", "-------", "",
              "One page per module, with every public name it defines.", "",
              ".. toctree::", "   :maxdepth: 1", ""]
    lines += [f"   {m}" for m in main]
    lines += ["", "Supporting modules", "^^^^^^^^^^^^^^^^^^", "",
              "The paper section by section, the claims' machinery, the command-line commands, "
              "the main job and the internals the modules above are built on.", "",
              ".. toctree::", "   :maxdepth: 1", ""]
    lines += [f"   {m}" for m in supporting]
    _write(GENERATED / "api" / "index.rst", "\n".join(lines) + "\n")


def _ensure_outputs() -> None:
    executed = sorted((OUTPUT / "notebooks").glob("*.ipynb"))
    if executed and (OUTPUT / "claims.json").is_file():
        return
    from garesearch.app import reproduce

    print("[docs] no executed notebooks in output/: running garesearch reproduce", flush=True)
    code = reproduce.main(["--output", str(OUTPUT), "--figures", str(OUTPUT / "figures")])
    if code != 0:
        raise RuntimeError("garesearch reproduce failed; see its output above")


def _notebook_pages() -> None:
    from docutils.nodes import make_id  # sphinx's own dependency (the docs extra)

    folder = GENERATED / "notebooks"
    names = []
    for path in sorted((OUTPUT / "notebooks").glob("*.ipynb")):
        target = folder / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        # a claims table shown in a notebook links to the claims' sections (``#claim-...``),
        # which are on the claims page of the site, under the ids docutils makes of them
        data = re.sub(rb"\]\(#(claim-[\w-]+)\)",
                      lambda m: b"](../claims.html#" + make_id(m[1].decode()).encode() + b")",
                      path.read_bytes())
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        names.append(path.stem)
    for stale in folder.glob("*.ipynb"):
        if stale.stem not in names:
            stale.unlink()
    readme = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    body = readme.split("\n", 1)[1] if readme.startswith("# ") else readme
    lines = ["# Notebooks", "", body.strip(), "", "```{toctree}", ":maxdepth: 1", "", *names, "```"]
    _write(folder / "index.md", "\n".join(lines) + "\n")


def _claims_page() -> None:
    import json

    from garesearch.app import claims_report

    records = json.loads((OUTPUT / "claims.json").read_text(encoding="utf-8"))["claims"]
    _write(GENERATED / "claims.md", claims_report.to_markdown(records, targets="myst"))


def _erratum_page() -> None:
    import json

    from garesearch.app import erratum

    records = json.loads((OUTPUT / "claims.json").read_text(encoding="utf-8"))["claims"]
    _write(GENERATED / "erratum.md", erratum.to_markdown(records, targets="myst"))


def _derivations_page() -> None:
    from garesearch import derivations as dv
    from garesearch.app.claims_report import code_span, md_escape

    records = dv.all_derivations()
    lines = [
        "# Derivations",
        "",
        "Every derivation of the paper redone with sympy (`python -m garesearch derivations`): "
        "**proved**, **proved under conditions** (a condition the paper does not state) or "
        "**refuted** (false as printed, with a counterexample at 50 digits and the corrected "
        "statement). Notebook 10 walks through them.",
        "",
        dv.html_table(records),
        "",
    ]
    for r in records:
        lines += [
            f"## `{r.name}`",
            "",
            f"**{md_escape(r.location)}** · {r.status}",
            "",
            "$$",
            r.latex,
            "$$",
            "",
            md_escape(r.summary),
            "",
        ]
        if r.conditions:
            lines += [f"Conditions: {code_span(r.conditions)}", ""]
        if r.detail:
            lines += [md_escape(r.detail), ""]
    _write(GENERATED / "derivations.md", "\n".join(lines) + "\n")


def _sections_page() -> None:
    from garesearch.paper import section_map

    executed = {p.stem for p in (OUTPUT / "notebooks").glob("*.ipynb")}
    _write(GENERATED / "sections.md", section_map.to_markdown(notebook_pages=executed))


_CSS = """\
.garesearch-widget-snapshot { border: 1px solid #ccc; border-radius: 4px; padding: 0.5em 0.8em; }
.garesearch-widget-snapshot .snapshot-note { color: #666; font-size: 0.9em; margin: 0 0 0.4em; }
.garesearch-widget-snapshot table.controls td { padding: 0.1em 0.6em 0.1em 0; border: none; }
.garesearch-widget-snapshot img { max-width: 100%; }
table.derivations td, table.derivations th { padding: 0.2em 0.5em; vertical-align: top; }
"""


def _static() -> None:
    publish.copy_mathjax(GENERATED / "_static" / "mathjax")
    _write(GENERATED / "_static" / "garesearch.css", _CSS)


def _generate(app) -> None:
    _ensure_outputs()
    _static()
    _api_pages()
    _readme_page()
    _notebook_pages()
    _claims_page()
    _erratum_page()
    _derivations_page()
    _sections_page()


def _readme_page() -> None:
    """README for the landing page: its figures found from docs/_generated/, its link to
    notebooks/README.md pointing at the site's notebooks page."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = text.replace("](figures/", "](../../figures/")
    text = text.replace("[`notebooks/README.md`](notebooks/README.md)",
                        "{doc}`notebooks/README.md </_generated/notebooks/index>`")
    _write(GENERATED / "README.md", text)


def setup(app):
    app.connect("builder-inited", _generate)

