"""Packaging: fast import, pyproject.toml and environment.yml agree, the README example runs."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bare_import_loads_no_heavy_modules():
    code = (
        "import sys, garesearch; "
        "print(','.join(m for m in ('sympy', 'scipy', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_names_resolve():
    import garesearch

    for name in garesearch.__all__:
        assert getattr(garesearch, name) is not None, name


def _names(specs):
    names = {re.split(r"[<>=!~ \[]", s.strip(), maxsplit=1)[0].lower() for s in specs}
    return names - {"garesearch"}  # an extra that pulls in other extras


def test_environment_yml_lists_the_pyproject_packages():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _names(project["dependencies"])
    for extra in ("reproduce", "notebooks", "test", "opendp", "docs", "accounting"):
        wanted |= _names(project["optional-dependencies"][extra])
    text = (ROOT / "environment.yml").read_text()
    deps = text.split("dependencies:", 1)[1]
    conda = set()
    for line in deps.splitlines():
        m = re.match(r"\s+-\s+([A-Za-z0-9_.\-]+)", line)
        if m and m.group(1) not in ("pip", "python", "--no-deps"):
            conda.add(m.group(1).lower())
    assert conda == wanted


def test_plain_install_pulls_no_jupyter_package_and_the_extras_chain():
    """A plain ``pip install`` gets the API only (numpy, scipy, mpmath, sympy, matplotlib); the
    ``reproduce`` extra is the stack the main job checks for, ``notebooks`` adds JupyterLab and
    ``dev`` (the Makefile's set-up) includes both."""
    from garesearch._optional import JUPYTER_STACK

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert _names(project["dependencies"]) == {"numpy", "scipy", "sympy", "mpmath", "matplotlib"}
    assert _names(extras["reproduce"]) == set(JUPYTER_STACK)
    assert set(extras["notebooks"]) >= {"garesearch[reproduce]"}
    assert _names(extras["notebooks"]) == {"jupyterlab"}
    assert extras["dev"] == ["garesearch[notebooks,test]"]
    assert '".[dev,opendp,accounting,docs]"' in (ROOT / "Makefile").read_text()
    check = (ROOT / ".ci" / "pip_install_check").read_text()
    assert '"$1/src"' in check and '"$1/src[reproduce]"' in check


def test_readme_gives_two_commands_and_its_example_runs():
    text = (ROOT / "README.md").read_text()
    first_block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    commands = [ln.split("#")[0].strip() for ln in first_block.splitlines() if ln.strip()]
    assert commands == ["make reproduce", "make test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        exec(compile(block, "README.md", "exec"), {})


def test_version_command_and_metadata():
    import garesearch

    out = subprocess.run([sys.executable, "-m", "garesearch", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == f"garesearch {garesearch.__version__}"
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: {re.escape(garesearch.__version__)}$", cff, re.M)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    assert project["authors"] == [{"name": "The garesearch developers"}]
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("BSD 3-Clause License")
    assert "The garesearch developers" in license_text
    assert "Neither the name of the copyright holder nor the names of its" in license_text


def test_citation_names_the_paper():
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert "cff-version: 1.2.0" in cff
    assert ("Interpreting Epsilon of Differential Privacy in Terms of Advantage in Guessing or "
            "Approximating Sensitive Attributes") in cff
    for name in ("family-names: Laud", "given-names: Peeter", "family-names: Pankova",
                 "given-names: Alisa"):
        assert name in cff


def test_notebooks_and_examples_are_shipped(tmp_path):
    from garesearch.app import publish

    written = publish.copy_notebooks(tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in written}
    assert {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb")} <= names
    assert {f"examples/pleak/{p.name}" for p in (ROOT / "examples" / "pleak").iterdir()} <= names
    # the wheel maps the same folders into the package, with the same relative layout
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert '"garesearch.notebooks": "notebooks"' in setup
    assert '"garesearch.examples.pleak": "examples/pleak"' in setup
    assert publish.copy_notebooks(tmp_path) == []  # existing files are kept
