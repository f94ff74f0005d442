r"""The paper, section by section: the code, claims, notebooks and tests of each section.

One row (:class:`Section`) per section and subsection of the paper, in the paper's order and
under its numbers and titles, and a last row for what concerns the paper as a whole (the
claims report, the derivations, the erratum):

- ``modules``: the library modules that implement the section, and ``beyond``: those that go
  beyond it (the optimal epsilon, other readings of a noise scale, ...);
- ``paper_modules``: the modules of :mod:`garesearch.paper` that hold its derivations and
  claims (the printed formulas are in :mod:`garesearch.paper.printed`);
- ``claims``: the ids of its claims (:mod:`garesearch.claims`), **derived** from each claim's
  location: a claim belongs to the first section its location cites (``"Sec 6.2, a=200"``,
  ``"App B.1, ..."``; a theorem is found in the section that states it, :data:`THEOREMS`);
- ``notebooks``: the notebooks that walk through it, **derived** from their headings (a
  notebook belongs to every section one of its headings cites: ``"## 2. Salaries (Sec.
  6.2)"``), together with those listed here (a notebook about the whole method, such as the
  tour, cites no section in a heading);
- ``tests``: the test files of the repository (``tests/``) that check it.

A test file that checks no section (the command line, the documentation, packaging, ...) is
listed in :data:`INFRASTRUCTURE_TESTS` instead.  The test suite checks the map against the
repository: every module, notebook and test file it names exists, every claim sits under the
section its location cites, and every notebook, module of :mod:`garesearch.paper` and test
file is mapped.  The documentation site renders it (:func:`to_markdown`).

Examples
--------
>>> from garesearch.paper.section_map import section_map, section_of
>>> row = {s.number: s for s in section_map()}["6.2"]
>>> row.title, "S6.salary_p" in row.claims, "06_worked_examples" in row.notebooks
('Continuous data with univariate approximation', True, True)
>>> section_of("Thm 2 (OR events), the theorem as printed")
'4.3'
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from ..errors import ParameterError

__all__ = [
    "INFRASTRUCTURE_TESTS",
    "THEOREMS",
    "WHOLE_PAPER",
    "Section",
    "cited_sections",
    "notebook_sections",
    "section_map",
    "section_of",
    "to_markdown",
]

#: the number of the row for what concerns the paper as a whole
WHOLE_PAPER = "all"


@dataclass(frozen=True)
class Section:
    """One section of the paper and what garesearch has for it.

    Attributes
    ----------
    number : str
        The paper's number (``"4.1"``, ``"A.1"``), or :data:`WHOLE_PAPER`.
    title : str
        The paper's title of the section (plain text).
    label : str or None
        The section's label in the paper's LaTeX source (``"sec:attadv:univar"``).
    modules, beyond : tuple of str
        Library modules (dotted names) that implement the section, and that go beyond it.
    paper_modules : tuple of str
        Modules of :mod:`garesearch.paper` with its derivations and claims.
    claims : tuple of str
        Claim ids, in the registry's order.
    notebooks : tuple of str
        Notebook names (without ``.ipynb``), sorted.
    tests : tuple of str
        Test files, relative to the repository's root (``"tests/test_bound.py"``).
    """

    number: str
    title: str
    label: str | None
    modules: tuple[str, ...]
    beyond: tuple[str, ...]
    paper_modules: tuple[str, ...]
    claims: tuple[str, ...]
    notebooks: tuple[str, ...]
    tests: tuple[str, ...]

    @property
    def cite(self) -> str:
        """How the text cites the section: ``"Sec. 4.1"``, ``"App. A.1"``, ``"the whole paper"``.

        Examples
        --------
        >>> {s.number: s for s in section_map()}["B.2"].cite
        'App. B.2'
        """
        if self.number == WHOLE_PAPER:
            return "the whole paper"
        return f"{'App.' if self.number[0].isalpha() else 'Sec.'} {self.number}"

    @property
    def depth(self) -> int:
        """0 for a section (and the whole paper), 1 for a subsection."""
        return self.number.count(".")


#: the theorems of the paper by number, and the section that states each (Theorem 1: AND
#: events; 2: OR events; 3: sequential composition; 4: the l_p / dual-norm composition)
THEOREMS = MappingProxyType({"1": "4.2", "2": "4.3", "3": "5", "4": "5"})


@dataclass(frozen=True)
class _Typed:
    number: str
    title: str
    label: str | None = None
    modules: tuple[str, ...] = ()
    beyond: tuple[str, ...] = ()
    paper: tuple[str, ...] = ()
    notebooks: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()


# Modules are named below ``garesearch``, paper modules below ``garesearch.paper``, test files
# by their stem under ``tests/``; claims and most notebooks are added by :func:`section_map`.
_TYPED = (
    _Typed("1", "Introduction",
           modules=("releases.release",), paper=("sec3_posterior",),
           notebooks=("01_tour",), tests=("test_release",)),
    _Typed("2", "Related Work",
           modules=("app.pleak",), notebooks=("13_pleak",), tests=("test_pleak",)),
    _Typed("3", "Guessing Advantage and Differential Privacy"),
    _Typed("3.1", "Definition of Guessing Advantage", "sec:ga",
           modules=("mechanisms", "exact.attacker", "releases.readings"), beyond=("releases.risk_profile",),
           notebooks=("01_tour", "08_noise_and_approx_dp", "15_gaussian_and_composition"),
           tests=("test_mechanisms", "test_readings", "test_risk_profile")),
    _Typed("3.2", "From Guessing Advantage to Epsilon", "sec:gadp",
           modules=("bound", "constructions.counterexamples", "exact", "exact.attacker", "app.widgets"),
           beyond=("constructions.pointwise", "exact.compare"),
           paper=("sec3_posterior", "beyond_pointwise"),
           notebooks=("01_tour", "02_posterior_bound", "11_exact_advantage",
                      "12_teaching_widgets", "14_pointwise_bound"),
           tests=("test_bound", "test_accuracy", "test_exact", "test_pointwise",
                  "test_widgets")),
    _Typed("4", "Instantiation to databases", "sec:dbga",
           modules=("goals",), beyond=("optimal", "optimal.least_noise"),
           notebooks=("16_optimal_epsilon", "17_least_noise_mechanism"),
           tests=("test_least_noise", "test_optimal_lp", "test_oracle_lp")),
    _Typed("4.1", "The Univariate Case", "sec:attadv:univar",
           modules=("attribute", "priors", "bound", "constructions.counterexamples", "app.figures"),
           beyond=("optimal", "enclosures.tilted", "enclosures.tails", "enclosures.curvature", "constructions.pointwise", "optimal.least_noise"),
           paper=("sec4_1_comparison_set", "sec4_1_worst_prior", "beyond_pointwise"),
           notebooks=("14_pointwise_bound", "16_optimal_epsilon", "17_least_noise_mechanism"),
           tests=("test_attribute", "test_priors", "test_optimal", "test_optimal_lp", "test_optimal_edges",
                  "test_redteam", "test_oracle_kernel", "test_tilted", "test_enclosures",
                  "test_tails", "test_curvature", "test_pointwise", "test_figures",
                  "test_regressions_core")),
    _Typed("4.2", "The Multivariate Case: AND-events", "sec:andevent",
           modules=("goals", "events", "constructions.comparison_sets"), beyond=("optimal.goals", "optimal.worst_record"),
           paper=("sec4_2_events",),
           tests=("test_events", "test_goal_optimal", "test_goal_cells", "test_goal_cells_priors", "test_goal_worst",
                  "test_goal_oracle", "test_goal_redteam", "test_goal_determinism", "test_solvers", "test_regressions_core",
                  "test_worst_record_views", "test_goal_ball_witness", "test_goal_three", "test_goal_compact",
                  "test_goal_compact_unequal")),
    _Typed("4.3", "The Multivariate Case: OR-events", "sec:orevent",
           modules=("goals", "events", "constructions.comparison_sets", "constructions.counterexamples", "app.figures"),
           beyond=("optimal.goals", "optimal.worst_record", "constructions.or_lower"), paper=("sec4_2_events",),
           tests=("test_events", "test_goal_optimal", "test_goal_cells", "test_goal_cells_priors", "test_goal_worst",
                  "test_goal_oracle", "test_goal_redteam", "test_solvers", "test_figures", "test_regressions_core",
                  "test_worst_record_views", "test_goal_ball_witness")),
    _Typed("5", "Queries with Multiple Outputs", "sec:multout",
           modules=("composition",), beyond=("releases.accounting", "releases.subsampled"),
           paper=("sec5_composition",), notebooks=("15_gaussian_and_composition",),
           tests=("test_composition", "test_pld_tradeoff", "test_composed_calibration",
                  "test_subsampled")),
    _Typed("6", "Examples",
           modules=("datasets",), paper=("examples",)),
    _Typed("6.1", "Discrete data", "sec:example:cats",
           modules=("datasets", "events", "releases.release", "app.demo"), paper=("sec6_cats",),
           notebooks=("01_tour",), tests=("test_events", "test_release")),
    _Typed("6.2", "Continuous data with univariate approximation", "sec:example:salary",
           modules=("datasets", "attribute", "releases.release"), beyond=("optimal",),
           paper=("sec6_salary_ships",),
           tests=("test_attribute", "test_optimal", "test_release")),
    _Typed("6.3", "Continuous data with multivariate approximation", "sec:example:ships",
           modules=("datasets", "attribute", "goals"), beyond=("optimal",),
           paper=("sec6_salary_ships",), tests=("test_attribute", "test_events")),
    _Typed("7", "Conclusion",
           beyond=("releases.calibration",), notebooks=("15_gaussian_and_composition",),
           tests=("test_calibration_family", "test_calibration_readings",
                  "test_reading_registry")),
    _Typed("A", "Optimizing the radius of elements that we want to make indistinguishable "
                "from the input", "app:choosinga",
           modules=("radius", "lambertw"), paper=("appA_radius",),
           tests=("test_claims", "test_derivations")),
    _Typed("A.1", "Fixing the Probability that Noise Stays Below a Certain Bound",
           "sec:errorbound",
           modules=("noise", "mechanisms"), paper=("appA1_noise",),
           notebooks=("11_exact_advantage",),
           tests=("test_noise", "test_mechanisms", "test_accuracy")),
    _Typed("B", "(epsilon, delta)-Guessing Advantage", "sec:epsilondelta",
           modules=("approx_dp",),
           beyond=("releases.calibration", "releases.tail", "releases.reconstruction", "additive", "releases.release"),
           paper=("appB_approx_dp",), notebooks=("15_gaussian_and_composition",),
           tests=("test_approx_dp", "test_gaussian_readings", "test_gaussian_release",
                  "test_reconstruction_exact", "test_far_outputs", "test_calibration_family",
                  "test_calibration_readings", "test_reading_registry")),
    _Typed("B.1", "(epsilon, delta)-DP to (epsilon, delta)-GA", "sec:dptoga",
           modules=("approx_dp",), beyond=("releases.tail",), paper=("appB_approx_dp",),
           notebooks=("08_noise_and_approx_dp",), tests=("test_approx_dp",)),
    _Typed("B.2", "(epsilon, delta)-GA to (epsilon, delta)-DP", "sec:gatodp",
           modules=("approx_dp", "smooth_laplace"), paper=("appB_approx_dp",),
           notebooks=("08_noise_and_approx_dp",), tests=("test_approx_dp",)),
    _Typed(WHOLE_PAPER, "The paper as a whole: the claims report, the derivations, the erratum",
           modules=("claims", "app.claims_report", "derivations", "app.erratum"), paper=("printed",),
           notebooks=("09_claims_report", "10_derivations"),
           tests=("test_claims", "test_claims_pinned", "test_derivations", "test_erratum")),
)

#: the test files that check no section of the paper, each with what it checks
INFRASTRUCTURE_TESTS = MappingProxyType({
    "tests/test_api_details.py": "the API: results, worst true values and warnings as shown",
    "tests/test_bench.py": "the benchmarks",
    "tests/test_browser.py": "the documentation site and the notebook HTML in a browser",
    "tests/test_cli.py": "the command line",
    "tests/test_cli_calibrate_more.py": "the command line",
    "tests/test_cli_texts.py": "the command line",
    "tests/test_conventions.py": "names and conventions",
    "tests/test_deprecated_names.py": "names and conventions",
    "tests/test_docs.py": "the documentation",
    "tests/test_docs_links.py": "the documentation",
    "tests/test_fuzz.py": "fuzzing of every public function",
    "tests/test_guide.py": "the documentation",
    "tests/test_layering.py": "the layers of the package",
    "tests/test_names.py": "names and conventions",
    "tests/test_moved_modules.py": "the modules' old paths (deprecated aliases)",
    "tests/test_namespace.py": "names and conventions",
    "tests/test_nbclean.py": "the notebooks",
    "tests/test_notebooks.py": "the notebooks",
    "tests/test_package.py": "packaging",
    "tests/test_plot_layout.py": "plots",
    "tests/test_plotting.py": "plots",
    "tests/test_publish.py": "the notebooks",
    "tests/test_readme_numbers.py": "the documentation",
    "tests/test_regressions.py": "regressions found by fuzzing",
    "tests/test_reproduce.py": "the main job",
    "tests/test_section_map.py": "this map",
})

# ------------------------------------------------------------------------------------------
# Citations
# ------------------------------------------------------------------------------------------
_KEYWORD = re.compile(r"\b(Sec(?:tion)?s?|App(?:endix)?|Thm|Theorems?)\b\.?\s*")
_ITEM = {
    "sec": re.compile(r"\d+(?:\.\d+)?(?![\w.])|\d+(?:\.\d+)?(?=\.(?!\d))"),
    "app": re.compile(r"[A-Z](?:\.\d+)?(?![\w])"),
    "thm": re.compile(r"\d+(?![\w.])|\d+(?=\.(?!\d))"),
}
_SEPARATOR = re.compile(r"\s*(,|and|&|[-\u2013])\s*")


def _numbers() -> tuple[str, ...]:
    return tuple(t.number for t in _TYPED if t.number != WHOLE_PAPER)


def _kind(keyword: str) -> str:
    return "app" if keyword.startswith("App") else "thm" if keyword.startswith("T") else "sec"


def _resolve(kind: str, item: str, text: str) -> str:
    if kind == "thm":
        if item not in THEOREMS:
            raise ParameterError(f"text: Theorem {item} is not one of the paper's theorems "
                                 f"(1 to {len(THEOREMS)}); got {text!r}")
        return THEOREMS[item]
    if item not in _numbers():
        raise ParameterError(f"text: {'App.' if kind == 'app' else 'Sec.'} {item} is not a "
                             f"section of the paper ({', '.join(_numbers())}); got {text!r}")
    return item


def cited_sections(text: str) -> tuple[str, ...]:
    """The sections that ``text`` cites, in the order cited, each once.

    Reads ``Sec. 4.1``, ``Sec 6.2 and 6.3``, ``Sec. 4.2, 4.3, 6.1``, ``Sec. 4.2–4.3`` (a
    range: every section between), ``App. A.1``, ``Appendix B`` and ``Theorem 1`` /
    ``Thm 2`` (the section that states the theorem, :data:`THEOREMS`); the dot after
    ``Sec`` may be left out.

    Parameters
    ----------
    text : str

    Returns
    -------
    tuple of str
        Section numbers of :func:`section_map`.

    Raises
    ------
    ParameterError
        If ``text`` is not a string, or cites a section or theorem the paper does not have.

    Examples
    --------
    >>> cited_sections("## Sec. 4.2–4.3 — AND and OR events (Theorems 1 and 2)")
    ('4.2', '4.3')
    >>> cited_sections("Sec 6.2 and 6.3, sensitivity after rescaling")
    ('6.2', '6.3')
    >>> cited_sections("## 2. (epsilon, delta)-DP and the guessing advantage (App. B)")
    ('B',)
    """
    if not isinstance(text, str):
        raise ParameterError(f"text: must be a string; got {type(text).__name__}")
    order = _numbers()
    found: list[str] = []
    pos = 0
    while (m := _KEYWORD.search(text, pos)) is not None:
        kind = _kind(m[1])
        pos = m.end()
        previous, ranged = None, False
        while (item := _ITEM[kind].match(text, pos)) is not None:
            number = _resolve(kind, item[0], text)
            if ranged and previous is not None:
                lo, hi = order.index(previous), order.index(number)
                found += order[lo + 1:hi]
            found.append(number)
            previous, pos = number, item.end()
            sep = _SEPARATOR.match(text, pos)
            if sep is None:
                break
            nxt = _KEYWORD.match(text, sep.end())
            if nxt is not None and _kind(nxt[1]) != kind:
                break  # "Sec. 5 and App. A": the outer loop reads the next citation
            after = nxt.end() if nxt is not None else sep.end()
            if _ITEM[kind].match(text, after) is None:
                break
            ranged = sep[1] in "-\u2013"
            pos = after
    return tuple(dict.fromkeys(found))


def section_of(location: str) -> str:
    """The section a claim's location names: the first section it cites.

    Parameters
    ----------
    location : str
        A claim's location (:attr:`garesearch.claims.ClaimResult.location`).

    Returns
    -------
    str
        A section number of :func:`section_map`.

    Raises
    ------
    ParameterError
        If ``location`` cites no section (or one the paper does not have).

    Examples
    --------
    >>> section_of("Sec 4.1 (univariate), def. of X_hat_a; used in Thm 1, Sec 6")
    '4.1'
    >>> section_of("Thm 1 (AND events), exponent"), section_of("App B intro")
    ('4.2', 'B')
    """
    try:
        cited = cited_sections(location)
    except ParameterError as exc:
        raise ParameterError(str(exc).replace("text:", "location:", 1)) from None
    if not cited:
        raise ParameterError(f"location: cites no section of the paper (Sec. 1 to 7, App. A, "
                             f"A.1, B, B.1, B.2 or Theorem 1 to 4); got {location!r}")
    return cited[0]


def notebook_sections(path: str | Path) -> tuple[str, ...]:
    """The sections that the headings of a notebook cite (:func:`cited_sections`).

    Parameters
    ----------
    path : str or pathlib.Path
        An ``.ipynb`` file.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> from garesearch.app.publish import packaged_notebooks
    >>> notebook_sections(packaged_notebooks() / "06_worked_examples.ipynb")
    ('6', '6.1', '6.2', '6.3')
    """
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    headings = [line for cell in cells if cell["cell_type"] == "markdown"
                for line in "".join(cell["source"]).splitlines() if line.startswith("#")]
    try:
        found = [n for line in headings for n in cited_sections(line)]
    except ParameterError as exc:
        raise ParameterError(f"path: a heading of {Path(path).name}: {exc}") from None
    return tuple(dict.fromkeys(found))


# ------------------------------------------------------------------------------------------
# The map
# ------------------------------------------------------------------------------------------
@functools.cache
def section_map() -> tuple[Section, ...]:
    """Every section of the paper, in the paper's order, then the paper as a whole.

    Computed once per process: the claims come from the registry (importing the paper's
    sections, which loads sympy), the notebooks from the headings of the notebooks shipped
    with the package (:func:`garesearch.app.publish.packaged_notebooks`).

    Returns
    -------
    tuple of Section

    Examples
    --------
    >>> rows = section_map()
    >>> [s.number for s in rows][:6]
    ['1', '2', '3', '3.1', '3.2', '4']
    >>> sum(len(s.claims) for s in rows) == len(__import__("garesearch").claims.claim_ids())
    True
    """
    from ..app.publish import packaged_notebooks
    from . import registered_claims

    claims: dict[str, list[str]] = {t.number: [] for t in _TYPED}
    for claim_id, c in registered_claims().items():
        claims[section_of(c.location)].append(claim_id)
    notebooks: dict[str, set[str]] = {t.number: set(t.notebooks) for t in _TYPED}
    for path in sorted(packaged_notebooks().glob("*.ipynb")):
        for number in notebook_sections(path):
            notebooks[number].add(path.stem)
    return tuple(
        Section(
            number=t.number,
            title=t.title,
            label=t.label,
            modules=tuple(f"garesearch.{m}" for m in t.modules),
            beyond=tuple(f"garesearch.{m}" for m in t.beyond),
            paper_modules=tuple(f"garesearch.paper.{m}" for m in t.paper),
            claims=tuple(claims[t.number]),
            notebooks=tuple(sorted(notebooks[t.number])),
            tests=tuple(f"tests/{name}.py" for name in t.tests),
        )
        for t in _TYPED
    )


# ------------------------------------------------------------------------------------------
# The documentation page
# ------------------------------------------------------------------------------------------
def _anchor(number: str) -> str:
    return "paper-section-" + "".join(ch if ch.isalnum() else "-" for ch in number.lower())


def _mods(names: Iterable[str]) -> str:
    return ", ".join(f"{{mod}}`~{name}`" for name in names)


def to_markdown(sections: Iterable[Section] | None = None, *,
                notebook_pages: Collection[str] | None = None) -> str:
    """The map as a MyST Markdown page of the documentation site.

    An overview table, then one part per section: modules linked to their API pages,
    claims to their entries in the claims report, notebooks to their pages, test files by
    path; and the test files of :data:`INFRASTRUCTURE_TESTS`.

    Parameters
    ----------
    sections : iterable of Section, optional
        The rows to render (default: :func:`section_map`).
    notebook_pages : collection of str, optional
        The notebooks that have a page on the site (``_generated/notebooks/<name>``; default:
        every notebook); the others are named without a link.

    Returns
    -------
    str

    Examples
    --------
    >>> page = to_markdown()
    >>> "{ref}`S6.salary_p <claim-s6-salary-p>`" in page
    True
    """
    from ..app.claims_report import anchor, md_escape

    rows = tuple(section_map() if sections is None else sections)

    def book(name: str, text: str) -> str:
        if notebook_pages is None or name in notebook_pages:
            return f"{{doc}}`{text} </_generated/notebooks/{name}>`"
        return f"`{text}`"

    out = [
        "# The paper, section by section",
        "",
        "Each section of the paper with the library modules that implement it (and those that "
        "go beyond it), the module of `garesearch.paper` that holds its derivations and claims, "
        "its claims (linked to the claims report), the notebooks that walk through it and the "
        "test files that check it.  The table is "
        "{func}`garesearch.paper.section_map.section_map`; a claim belongs to the section its "
        "location cites, a notebook to every section one of its headings cites, and the test "
        "suite checks the map against the repository.",
        "",
        "| section | title | claims | notebooks |",
        "|---|---|---:|---|",
    ]
    for s in rows:
        books = ", ".join(book(n, n[:2]) for n in s.notebooks)
        out.append(f"| {{ref}}`{s.cite} <{_anchor(s.number)}>` | {md_escape(s.title)} | "
                   f"{len(s.claims)} | {books} |")
    out.append("")
    for s in rows:
        heading = "###" if s.depth else "##"
        title = (md_escape(s.title) if s.number == WHOLE_PAPER
                 else f"{s.cite} {md_escape(s.title)}")
        out += [f"({_anchor(s.number)})=", f"{heading} {title}", ""]
        items = []
        if s.modules:
            items.append(f"- **Library:** {_mods(s.modules)}")
        if s.beyond:
            items.append(f"- **Beyond the paper:** {_mods(s.beyond)}")
        if s.paper_modules:
            items.append(f"- **Derivations and claims:** {_mods(s.paper_modules)}")
        if s.claims:
            refs = ", ".join(f"{{ref}}`{c} <{anchor(c)}>`" for c in s.claims)
            items.append(f"- **Claims ({len(s.claims)}):** {refs}")
        if s.notebooks:
            books = ", ".join(book(n, n) for n in s.notebooks)
            items.append(f"- **Notebooks:** {books}")
        if s.tests:
            items.append(f"- **Tests:** {', '.join(f'`{t}`' for t in s.tests)}")
        out += items or ["Nothing here to compute."]
        out.append("")
    out += ["## Tests of the infrastructure", "",
            "Test files that check no section of the paper:", ""]
    by_area: dict[str, list[str]] = {}
    for path, area in INFRASTRUCTURE_TESTS.items():
        by_area.setdefault(area, []).append(path)
    for area, paths in sorted(by_area.items()):
        out.append(f"- {md_escape(area)}: {', '.join(f'`{p}`' for p in paths)}")
    return "\n".join(out) + "\n"
