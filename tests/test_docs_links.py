"""Every internal link of the documentation site resolves: the file exists, and so does the
anchor (an ``id`` or ``name`` on that page).

Reads the HTML of ``output/site/`` (``make docs``); marked ``browser`` with the checks in
:mod:`tests.test_browser`, so ``make browser-test`` (and CI, after ``make docs``) runs it.
Without a built site it is skipped (it fails instead with ``GARESEARCH_BROWSER=require``).
"""

from __future__ import annotations

import os
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ.get("GARESEARCH_OUTPUT", ROOT / "output")) / "site"
REQUIRE = os.environ.get("GARESEARCH_BROWSER") == "require"


class _Page(HTMLParser):
    """The anchors a page defines and the links it makes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name") if tag in ("a", "map") else ("id",):
            if attrs.get(key):
                self.anchors.add(attrs[key])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def dead_links(site: Path) -> dict[str, list[str]]:
    """Internal links of every HTML file under ``site`` whose file or anchor is missing,
    by the page that makes them."""
    pages = {p.resolve(): _parse(p) for p in site.rglob("*.html")}
    dead: dict[str, list[str]] = defaultdict(list)
    for path, page in pages.items():
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue  # external
            if parts.path:
                target = (path.parent / unquote(parts.path)).resolve()
                if parts.path.endswith("/") or target.is_dir():
                    target = target / "index.html"
            else:
                target = path
            fragment = unquote(parts.fragment)
            if not target.is_file():
                dead[str(path.relative_to(site.resolve()))].append(href)
            elif fragment and target.suffix == ".html":
                anchors = pages[target].anchors if target in pages else _parse(target).anchors
                if fragment not in anchors:
                    dead[str(path.relative_to(site.resolve()))].append(href)
    return dict(dead)


def test_every_internal_link_of_the_site_resolves():
    if not (SITE / "index.html").is_file():
        if REQUIRE:
            pytest.fail(f"no site in {SITE}: run 'make docs' first (GARESEARCH_BROWSER=require)")
        pytest.skip(f"no site in {SITE}: run 'make docs' first")
    assert len(list(SITE.rglob("*.html"))) > 50
    dead = dead_links(SITE)
    count = sum(len(v) for v in dead.values())
    report = "\n".join(f"{page}: {links[:5]}" for page, links in sorted(dead.items())[:20])
    assert count == 0, f"{count} dead internal links on {len(dead)} pages:\n{report}"


def test_the_checker_finds_missing_files_and_anchors(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="sub/a.html#here">ok</a> <a href="sub/a.html#gone">no anchor</a> '
        '<a href="missing.html">no file</a> <a href="#top">own anchor</a> <p id="top"></p> '
        '<a href="https://example.org/x.html#y">external</a> <a href="sub/">folder</a>',
        encoding="utf-8")
    (tmp_path / "sub" / "a.html").write_text('<h1 id="here">A</h1><a name="old"></a>'
                                             '<a href="../index.html#top">back</a>'
                                             '<a href="#old">by name</a>', encoding="utf-8")
    (tmp_path / "sub" / "index.html").write_text("<p>folder</p>", encoding="utf-8")
    assert dead_links(tmp_path) == {"index.html": ["sub/a.html#gone", "missing.html"]}
