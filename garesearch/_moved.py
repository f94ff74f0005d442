"""The old module paths of garesearch, kept for one release.

The modules were grouped into family subpackages (``constructions``, ``optimal``, ``exact``,
``enclosures``, ``releases``, ``app``).  Importing a module by its old path
(``import garesearch.goal_optimal``, ``from garesearch.exact_core import exact_advantage``,
``python -m garesearch.nbclean``) still works for this release: a :class:`DeprecationWarning`
names the new path, and the old name is the very module object of the new one
(``sys.modules[old] is sys.modules[new]``), so that its functions, classes and module state
are shared.  ``import garesearch`` installs the finder; it imports nothing else.

Examples
--------
>>> MOVED["garesearch.goal_optimal"]
'garesearch.optimal.goals'
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings

__all__ = ["MOVED", "install"]

#: old module path -> new module path
MOVED: dict[str, str] = {
    "garesearch._accounting_pld": "garesearch.releases._accounting_pld",
    "garesearch._accounting_tradeoff": "garesearch.releases._accounting_tradeoff",
    "garesearch._bench_accuracy": "garesearch.app._bench_accuracy",
    "garesearch._bench_project": "garesearch.app._bench_project",
    "garesearch._calibration_readings": "garesearch.releases._calibration_readings",
    "garesearch._certify": "garesearch.optimal._certify",
    "garesearch._commands": "garesearch.app._commands",
    "garesearch._comparison_events": "garesearch.constructions._comparison_events",
    "garesearch._comparison_radii": "garesearch.constructions._comparison_radii",
    "garesearch._curvature_enclose": "garesearch.enclosures._curvature_enclose",
    "garesearch._curvature_families": "garesearch.enclosures._curvature_families",
    "garesearch._curvature_sturm": "garesearch.enclosures._curvature_sturm",
    "garesearch._exact_problem": "garesearch.exact._exact_problem",
    "garesearch._exact_suprema": "garesearch.exact._exact_suprema",
    "garesearch._goal_cells": "garesearch.optimal._goal_cells",
    "garesearch._goal_finite": "garesearch.optimal._goal_finite",
    "garesearch._goal_grid": "garesearch.optimal._goal_grid",
    "garesearch._goal_kernels": "garesearch.optimal._goal_kernels",
    "garesearch._goal_model": "garesearch.optimal._goal_model",
    "garesearch._goal_pyramid": "garesearch.optimal._goal_pyramid",
    "garesearch._goal_worst": "garesearch.optimal._goal_worst",
    "garesearch._kernels": "garesearch.optimal._kernels",
    "garesearch._laplace_pld": "garesearch.releases._laplace_pld",
    "garesearch._optimal_density": "garesearch.optimal._optimal_density",
    "garesearch._optimal_finite": "garesearch.optimal._optimal_finite",
    "garesearch._paper_counterexample": "garesearch.constructions._paper_counterexample",
    "garesearch._pleak_format": "garesearch.app._pleak_format",
    "garesearch._reconstruction_exact": "garesearch.releases._reconstruction_exact",
    "garesearch._release_accuracy": "garesearch.releases._release_accuracy",
    "garesearch._release_opendp": "garesearch.releases._release_opendp",
    "garesearch._solvers": "garesearch.optimal._solvers",
    "garesearch._tilted_cdf": "garesearch.enclosures._tilted_cdf",
    "garesearch._tilted_excess": "garesearch.enclosures._tilted_excess",
    "garesearch._tilted_items": "garesearch.enclosures._tilted_items",
    "garesearch._tilted_logspace": "garesearch.enclosures._tilted_logspace",
    "garesearch.accounting": "garesearch.releases.accounting",
    "garesearch.bench": "garesearch.app.bench",
    "garesearch.calibration": "garesearch.releases.calibration",
    "garesearch.claims_report": "garesearch.app.claims_report",
    "garesearch.cli": "garesearch.app.cli",
    "garesearch.cli_calibrate": "garesearch.app.cli_calibrate",
    "garesearch.comparison_sets": "garesearch.constructions.comparison_sets",
    "garesearch.counterexamples": "garesearch.constructions.counterexamples",
    "garesearch.curvature": "garesearch.enclosures.curvature",
    "garesearch.demo": "garesearch.app.demo",
    "garesearch.erratum": "garesearch.app.erratum",
    "garesearch.exact_attacker": "garesearch.exact.attacker",
    "garesearch.exact_compare": "garesearch.exact.compare",
    "garesearch.exact_core": "garesearch.exact.core",
    "garesearch.exact_integrals": "garesearch.exact.integrals",
    "garesearch.figures": "garesearch.app.figures",
    "garesearch.goal_optimal": "garesearch.optimal.goals",
    "garesearch.least_noise": "garesearch.optimal.least_noise",
    "garesearch.nbclean": "garesearch.app.nbclean",
    "garesearch.or_lower": "garesearch.constructions.or_lower",
    "garesearch.pleak": "garesearch.app.pleak",
    "garesearch.plotting": "garesearch.app.plotting",
    "garesearch.pointwise": "garesearch.constructions.pointwise",
    "garesearch.publish": "garesearch.app.publish",
    "garesearch.readings": "garesearch.releases.readings",
    "garesearch.readme_numbers": "garesearch.app.readme_numbers",
    "garesearch.reconstruction": "garesearch.releases.reconstruction",
    "garesearch.release": "garesearch.releases.release",
    "garesearch.reproduce": "garesearch.app.reproduce",
    "garesearch.risk_profile": "garesearch.releases.risk_profile",
    "garesearch.subsampled": "garesearch.releases.subsampled",
    "garesearch.tail": "garesearch.releases.tail",
    "garesearch.tails": "garesearch.enclosures.tails",
    "garesearch.tilted": "garesearch.enclosures.tilted",
    "garesearch.widgets": "garesearch.app.widgets",
}

_HERE = __file__
_PACKAGE_INIT = __file__.rsplit("_moved", 1)[0] + "__init__.py"
_IMPORTLIB = importlib.__file__


def _stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside the import system and this package's
    own machinery: the statement that named the old path.  (The frames of
    ``importlib._bootstrap`` are not counted: :func:`warnings.warn` skips them itself.)"""
    frame = sys._getframe(2)  # the caller of _warn
    level = 2
    while frame is not None:
        name = frame.f_code.co_filename
        if "importlib" in name and "_bootstrap" in name:
            frame = frame.f_back
            continue
        if name not in (_HERE, _PACKAGE_INIT, _IMPORTLIB) and not name.endswith("runpy"):
            break
        frame = frame.f_back
        level += 1
    return level


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}",
                  DeprecationWarning, stacklevel=_stacklevel())


class _Alias(importlib.abc.Loader):
    """Loads an old path as the new module itself (no second copy of it)."""

    def __init__(self, new: str):
        self.new = new
        self._spec = None

    def create_module(self, spec):
        _warn(spec.name, self.new)
        module = importlib.import_module(self.new)
        self._spec = module.__spec__
        return module

    def exec_module(self, module):
        # the import system has just set the module's __spec__ to the old path's: the
        # module keeps its own
        module.__spec__ = self._spec

    def get_code(self, fullname):  # python -m <old path>
        _warn(fullname, self.new)
        spec = importlib.util.find_spec(self.new)
        return spec.loader.get_code(self.new)


class _Spec(importlib.machinery.ModuleSpec):
    """The spec of an old path; its ``parent`` is the new module's package, so that
    ``python -m <old path>`` runs the module's relative imports from its new place."""

    def __init__(self, name: str, new: str):
        super().__init__(name, _Alias(new))
        self._new_parent = new.rpartition(".")[0]

    @property
    def parent(self):
        return self._new_parent


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the old paths of :data:`MOVED` (and nothing else)."""

    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return _Spec(fullname, new)


def install() -> None:
    """Put the finder of the old paths first on :data:`sys.meta_path` (once), so that no other
    finder (an editable install's, say) finds a stale file at an old path.

    Examples
    --------
    >>> install()
    >>> sum(type(f).__name__ == "_Finder" and f.__module__ == __name__ for f in sys.meta_path)
    1
    """
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
