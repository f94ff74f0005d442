"""The user guide (``docs/guide/``) runs as printed: every ``python`` block of a page is
executed, top to bottom in one namespace, and what it prints must be the ``text`` block that
follows it, character for character (trailing spaces aside).  The numbers in the guide are
therefore the package's own output; the package's correctness is tested elsewhere against
independent oracles.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))


def blocks(path: Path) -> list[tuple[str, str | None, int]]:
    """``(code, expected output or None, line)`` for every ``python`` block of ``path``."""
    tokens = [t for t in MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
              if t.type == "fence"]
    found = []
    for i, token in enumerate(tokens):
        if token.info.strip() != "python":
            continue
        expected = None
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        # the output block is the next fence, with nothing but blank lines in between
        if (following is not None and following.info.strip() == "text"
                and following.map[0] - token.map[1] <= 1):
            expected = following.content
        found.append((token.content, expected, token.map[0] + 1))
    return found


def _clean(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def run_page(path: Path) -> list[tuple[int, str, str | None]]:
    """Run the blocks of ``path``: ``(line, printed, expected)`` for each block."""
    namespace: dict = {"__name__": "__guide__"}
    results = []
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        for code, expected, line in blocks(path):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{path.name}:{line}", "exec"), namespace)
            results.append((line, out.getvalue(), expected))
    finally:
        os.chdir(old)
    return results


def test_the_guide_has_its_pages():
    names = {p.stem for p in PAGES}
    assert {"index", "concepts", "readings", "recipes"} <= names
    assert sum(len(blocks(p)) for p in PAGES) >= 15


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)], ids=lambda p: p.stem)
def test_guide_page_prints_what_it_shows(page):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a guide example must not warn
        results = run_page(page)
    for line, printed, expected in results:
        if expected is None:
            assert printed == "", f"{page.name}:{line} prints but shows no output block"
            continue
        assert _clean(printed) == _clean(expected), (
            f"{page.name}:{line}: the block prints\n{printed}\nbut the guide shows\n{expected}")


def test_the_runner_catches_a_stale_number(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# T\n\n```python\nprint(round(2 ** 0.5, 4))\n```\n\n```text\n1.4143\n```\n",
                    encoding="utf-8")
    (_, printed, expected), = run_page(page)
    assert _clean(printed) == "1.4142" and _clean(expected) == "1.4143"
