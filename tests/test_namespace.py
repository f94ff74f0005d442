"""Every module README's "What is inside" table lists is an attribute of ``import garesearch``."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def readme_modules() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## What is inside", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    names = [name for row in rows for name in re.findall(r"`([a-z_.]+)`", row.split("|")[1])]
    assert len(names) >= 20, names  # the table was found and parsed
    return names


@pytest.mark.parametrize("name", readme_modules())
def test_readme_module_is_an_attribute(name):
    import garesearch

    module = garesearch
    for part in name.split("."):  # a family's module: garesearch.releases.calibration
        module = getattr(module, part)
    assert module is importlib.import_module(f"garesearch.{name}")
    assert name.split(".")[0] in dir(garesearch)


def test_lazy_submodules_stay_lazy():
    # naming the modules loads none of sympy, scipy, matplotlib until one is used
    code = (
        "import sys, garesearch; names = [n for n in dir(garesearch)]; "
        "print(','.join(m for m in ('sympy', 'scipy', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.strip() == ""
