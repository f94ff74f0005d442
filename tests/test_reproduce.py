"""``python -m garesearch reproduce``: executes notebooks, writes HTML copies, figures,
timings, and fails when anything fails."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from garesearch.app import publish, reproduce

ROOT = Path(__file__).resolve().parent.parent


def _notebook(path: Path, *sources: str) -> None:
    nb = new_notebook(cells=[new_markdown_cell(s[3:]) if s.startswith("md:") else new_code_cell(s)
                             for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_find_notebooks_sorted_and_only_notebooks(tmp_path):
    for name in ("b.ipynb", "a.ipynb", "notes.md", ".hidden.ipynb"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.ipynb").write_text("{}")
    assert [p.name for p in reproduce.find_notebooks(tmp_path)] == ["a.ipynb", "b.ipynb"]


def test_reproduce_runs_everything_and_reports_failure(tmp_path, capsys):
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    _notebook(nbs / "good.ipynb", "md:Sec. 3.2: $\\epsilon$", "import garesearch\nprint(6 * 7)")
    _notebook(nbs / "bad.ipynb", "raise RuntimeError('broken on purpose')")
    out, figs = tmp_path / "out", tmp_path / "figs"
    code = reproduce.main(["--output", str(out), "--notebooks", str(nbs), "--figures", str(figs),
                           "--skip-claims", "--jobs", "2"])
    assert code == 1
    log = capsys.readouterr().out
    assert "good.ipynb: ok" in log and "bad.ipynb: FAILED" in log and "broken on purpose" in log
    # the failure is reported once, last, and nothing before it claims success
    last = log.strip().splitlines()[-1]
    assert last.startswith("[FAILED]") and "bad.ipynb" in last
    assert "[done]" not in log
    good_html = (out / "notebooks" / "good.html").read_text(encoding="utf-8")
    assert "42" in good_html  # the HTML copy holds the outputs
    assert publish.remote_references(good_html) == []
    assert 'src="mathjax/tex-chtml.js"' in good_html
    assert (out / "notebooks" / "mathjax" / "tex-chtml.js").is_file()
    assert (out / "notebooks" / "bad.html").exists()
    executed = nbformat.read(out / "notebooks" / "good.ipynb", as_version=4)
    assert executed.cells[1].outputs[0]["text"] == "42\n"
    assert sorted(p.suffix for p in figs.iterdir()) == [".pdf"] * 3 + [".png"] * 3 + [".svg"] * 3
    timings = (out / "timings.tsv").read_text().splitlines()
    assert timings[0] == "step\tseconds\tstatus"
    assert {line.split("\t")[0] for line in timings[1:]} == {"figures", "good.ipynb", "bad.ipynb", "total"}
    # the notebooks themselves are left as they were: without outputs
    assert nbformat.read(nbs / "good.ipynb", as_version=4).cells[1].outputs == []


def test_everything_goes_under_output(tmp_path, monkeypatch, capsys):
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    _notebook(nbs / "one.ipynb", "print(1)")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert reproduce.main(["--output", "out", "--notebooks", str(nbs), "--skip-claims"]) == 0
    assert [p.name for p in work.iterdir()] == ["out"]
    assert sorted(p.suffix for p in (work / "out" / "figures").iterdir()) == \
        [".pdf"] * 3 + [".png"] * 3 + [".svg"] * 3
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("[done]") and "FAILED" not in last


def test_no_notebooks_is_a_failure(tmp_path, monkeypatch):
    # the figures step is exercised by the two tests above; here it is stubbed out
    monkeypatch.setattr(reproduce, "_run_figures", lambda folder: (True, "stubbed"))
    code = reproduce.main(["--output", str(tmp_path / "o"), "--notebooks", str(tmp_path / "none"),
                           "--figures", str(tmp_path / "f"), "--skip-claims"])
    assert code == 1


def test_claims_step_skips_without_the_module(monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "garesearch.claims" else real(name, *a))
    ok, message = reproduce._run_claims(tmp_path)
    assert ok and "skipped" in message


@pytest.mark.slow
def test_full_reproduce(tmp_path):
    # its two-minute target is measured by the benchmark (reproduce_s in garesearch/app/bench.py)
    code = reproduce.main(["--output", str(tmp_path / "output"),
                           "--notebooks", str(ROOT / "notebooks"), "--figures", str(tmp_path / "figures")])
    assert code == 0
    html = sorted(p.stem for p in (tmp_path / "output" / "notebooks").glob("*.html"))
    assert html == sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))


class _Channel:
    """A kernel channel whose message is ready from the third look; it records the timeouts
    asked for (a poll that missed the wake-up would wait for the whole timeout)."""

    def __init__(self, ready_after=2):
        self.asked, self.ready_after = [], ready_after

    async def get_msg(self, timeout=None):
        import asyncio
        import queue

        self.asked.append(timeout)
        if len(self.asked) > self.ready_after:
            return {"msg": len(self.asked)}
        await asyncio.sleep(min(timeout, 0.05) if timeout is not None else 0.05)
        raise queue.Empty


def test_kernel_channels_are_polled_in_slices():
    import asyncio
    import queue

    ch = _Channel()
    reproduce._poll_in_slices(ch, step=0.5)
    assert asyncio.run(ch.get_msg(timeout=300)) == {"msg": 3}
    assert len(ch.asked) == 3 and all(0 <= t <= 0.5 for t in ch.asked)
    ch = _Channel()
    reproduce._poll_in_slices(ch, step=0.5)
    assert asyncio.run(ch.get_msg()) == {"msg": 3}  # no timeout: slices as well
    assert all(t == 0.5 for t in ch.asked)
    never = _Channel(ready_after=10**9)
    reproduce._poll_in_slices(never, step=0.05)
    with pytest.raises(queue.Empty):  # the timeout still ends the wait
        asyncio.run(never.get_msg(timeout=0.2))
    assert 2 <= len(never.asked) <= 6


def test_a_run_that_times_out_is_repeated_once_and_a_raising_cell_is_not(tmp_path):
    runs = tmp_path / "runs.txt"
    slow_first = (f"import pathlib, time\np = pathlib.Path(r'{runs}')\n"
                  "n = len(p.read_text().splitlines()) if p.exists() else 0\n"
                  "p.write_text('run\\n' * (n + 1))\ntime.sleep(30 if n == 0 else 0)")
    _notebook(tmp_path / "slow.ipynb", slow_first)
    run = reproduce.execute_notebook(tmp_path / "slow.ipynb", timeout=2)
    assert run.ok, run.error
    assert runs.read_text().splitlines() == ["run", "run"]

    runs.unlink()
    raising = slow_first.replace("time.sleep(30 if n == 0 else 0)", "raise ValueError('broken')")
    _notebook(tmp_path / "bad.ipynb", raising)
    run = reproduce.execute_notebook(tmp_path / "bad.ipynb", timeout=3)
    assert not run.ok and "broken" in run.error
    assert runs.read_text().splitlines() == ["run"]
