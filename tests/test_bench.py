"""Smoke test of the benchmark: it runs with tiny repetitions and reports every key.

Not a timed test: no speed target is checked here (a slow machine must not fail).  The two
accuracy measurements are checked, since they do not depend on the machine's speed.
"""

from __future__ import annotations

import json

import pytest

from garesearch.__main__ import COMMANDS
from garesearch.app import bench

KEYS = {
    "import_ratio",
    "vector_ratio",
    "optimise_ms",
    "optimise_rel_gap",
    "mp50_ms",
    "reproduce_s",
    "tests_s",
    "float_vs_mp_max_rel_err",
    "float_vs_mp_max_rel_err_q",
    "derivations_s",
    "notebook_max_s",
    "average_binary_ms",
    "tail_normal_s",
    "compose_1000_s",
    "compose_laplace_calibrate_s",
}


def _bench_keys(capsys):
    status = bench.main(
        ["--json", "--repeat", "1", "--size", "1000", "--skip-reproduce", "--skip-tests",
         "--skip-derivations", "--skip-notebooks", "--skip-goals"]
    )
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert KEYS <= set(out)
    for key in ("import_ratio", "vector_ratio", "optimise_ms", "mp50_ms"):
        assert out[key] > 0, key
    for key in ("reproduce_s", "tests_s", "derivations_s", "notebook_max_s", "goal_or_bracket_s",
                "goal_or_bracket_rel_width", "goal_and_bracket_s", "goal_and_bracket_rel_width"):
        assert out[key] is None, key  # skipped
    # accuracy, measured independently by the benchmark (mpmath at 40-50 digits)
    assert 0 <= out["optimise_rel_gap"] <= 1e-9
    assert 0 <= out["float_vs_mp_max_rel_err"] <= 1e-12
    assert out["machine"]["cores"] >= 1
    return out


def test_bench_runs_and_reports_every_key(capsys, monkeypatch):
    # the optimal_* keys (none of them in KEYS) take about 25 s: the slow test below has them
    monkeypatch.setattr(bench, "optimal_time", lambda repeat: {})
    out = _bench_keys(capsys)
    assert not any(key.startswith("optimal_") for key in out)


@pytest.mark.slow
def test_bench_runs_and_reports_every_key_with_the_optimal_epsilon(capsys, monkeypatch):
    # (one of the five continuous priors of optimal_continuous_s: the keys, not the timings)
    cases = bench._continuous_cases
    monkeypatch.setattr(bench, "_continuous_cases", lambda: cases()[4:])
    out = _bench_keys(capsys)
    assert {"optimal_ms", "optimal_rel_err", "optimal_continuous_s", "optimal_vs_lp_max_rel_err"} <= set(out)


def test_notebook_times_executes_each_notebook(tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    # two kernels (each start-up takes seconds): one that works and sleeps, one that raises
    for name, source in (("slower", "import time\ntime.sleep(2.5)"),
                         ("broken", "raise RuntimeError('on purpose')")):
        nb = new_notebook(cells=[new_code_cell(source)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    out = bench.notebook_times(tmp_path)
    assert out["notebook_count"] == 2
    assert out["notebook_failures"] == 1
    assert out["notebook_slowest"] == "slower.ipynb"
    assert out["notebook_max_s"] >= 2.5  # it sleeps 2.5 s (kernel start-ups differ by less, even on a loaded machine)


def test_notebook_times_reads_reproduce_timings(tmp_path):
    tsv = tmp_path / "timings.tsv"
    tsv.write_text("step\tseconds\tstatus\nfigures\t99.00\tok\na.ipynb\t12.50\tok\n"
                   "b.ipynb\t31.25\tFAILED\ntotal\t140.00\tFAILED\n")
    out = bench.notebook_times(timings=tsv)
    assert out["notebook_max_s"] == 31.25 and out["notebook_slowest"] == "b.ipynb"
    assert out["notebook_failures"] == 1 and out["notebook_count"] == 2


def test_no_notebooks_is_none(tmp_path):
    assert bench.notebook_times(tmp_path / "missing")["notebook_max_s"] is None


def test_table_lists_every_target():
    results = {key: 1.0 for key in bench.TARGETS}
    results["tests_s"] = None
    table = bench.format_table(results)
    for key in bench.TARGETS:
        assert f"`{key}`" in table
    assert "skipped" in table
    assert "NO" in table  # optimise_rel_gap = 1.0 misses its target 1e-9


def test_bench_is_a_command():
    assert COMMANDS["bench"][0] == "garesearch.app.bench"
