"""Smoke test of the benchmark: it runs with tiny repetitions and reports every key.

Not a timed test: no speed target is checked here (a slow machine must not fail).  The two
accuracy measurements are checked, since they do not depend on the machine's speed.
"""

from __future__ import annotations

import json

from garesearch import bench
from garesearch.__main__ import COMMANDS

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
}


def test_bench_runs_and_reports_every_key(capsys):
    status = bench.main(
        ["--json", "--repeat", "1", "--size", "1000", "--skip-reproduce", "--skip-tests"]
    )
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert KEYS <= set(out)
    for key in ("import_ratio", "vector_ratio", "optimise_ms", "mp50_ms"):
        assert out[key] > 0, key
    assert out["reproduce_s"] is None and out["tests_s"] is None  # skipped
    # accuracy, measured independently by the benchmark (mpmath at 40-50 digits)
    assert 0 <= out["optimise_rel_gap"] <= 1e-9
    assert 0 <= out["float_vs_mp_max_rel_err"] <= 1e-12
    assert out["machine"]["cores"] >= 1


def test_table_lists_every_target():
    results = {key: 1.0 for key in bench.TARGETS}
    results["tests_s"] = None
    table = bench.format_table(results)
    for key in bench.TARGETS:
        assert f"`{key}`" in table
    assert "skipped" in table
    assert "NO" in table  # optimise_rel_gap = 1.0 misses its target 1e-9


def test_bench_is_a_command():
    assert COMMANDS["bench"][0] == "garesearch.bench"
