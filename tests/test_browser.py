"""The documentation site and the notebook HTML in a real browser, offline.

Headless Chromium (Debian's ``chromium``) opens pages of ``output/site/`` (``make docs``) and
``output/notebooks/`` (``make reproduce``) from a server on 127.0.0.1, with every host name
but the loopback one unresolvable, and writes its network log.  A page passes if

- MathJax typeset its equations (``mjx-container`` elements, no MathJax error) and no raw
  ``$...$`` or ``\\(...\\)`` is left in its text outside code;
- the network log shows no request of the page to any host but 127.0.0.1 (the browser's own
  background requests, which no page makes, are told apart by their initiator).

Marked ``browser``: ``make browser-test`` (and CI) runs it; without Chromium, or without a
built site, it is skipped with a message saying what is missing.  With ``GARESEARCH_BROWSER=
require`` (CI) a missing browser or site fails instead of skipping.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest

from garesearch.app import publish

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path(os.environ.get("GARESEARCH_OUTPUT", ROOT / "output"))
SITE = OUTPUT / "site"
NOTEBOOKS = OUTPUT / "notebooks"
REQUIRE = os.environ.get("GARESEARCH_BROWSER") == "require"


def _missing(reason: str):
    if REQUIRE:
        pytest.fail(reason + " (GARESEARCH_BROWSER=require)")
    pytest.skip(reason)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    _missing("no Chromium found: install Debian's 'chromium' package to run the browser test")
    raise AssertionError  # not reached


@contextlib.contextmanager
def _serve(folder: Path):
    """A static file server on 127.0.0.1 for ``folder``."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def server():
    """output/ served on 127.0.0.1."""
    if not (SITE / "index.html").is_file():
        _missing(f"no site in {SITE}: run 'make docs' first")
    with _serve(OUTPUT) as url:
        yield url


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


def _open(url: str, tmp_path: Path) -> tuple[str, list[dict]]:
    """The DOM after scripts ran, and every network request the browser logged."""
    chromium = _chromium()
    tmp_path.mkdir(parents=True, exist_ok=True)
    netlog = tmp_path / "net.json"
    cmd = [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--log-net-log={netlog}", "--net-log-capture-mode=Default",
        "--virtual-time-budget=30000", "--run-all-compositor-stages-before-draw",
        "--dump-dom", url,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, _requests(netlog)


def _requests(netlog: Path) -> list[dict]:
    """URL requests in Chromium's net log: ``url`` and ``initiator``."""
    text = netlog.read_text(encoding="utf-8", errors="replace").rstrip().rstrip(",")
    if not text.endswith("}"):  # the log may be cut off when the browser exits
        text = text.rstrip("]").rstrip().rstrip(",") + "]}"
    data = json.loads(text)
    types = {v: k for k, v in data["constants"]["logEventTypes"].items()}
    found = []
    for event in data.get("events", []):
        params = event.get("params") or {}
        if types.get(event["type"]) == "URL_REQUEST_START_JOB" and "url" in params:
            found.append({"url": params["url"], "initiator": params.get("initiator", "")})
    return found


class _Text(HTMLParser):
    """The page's text outside code, scripts, styles and typeset math."""

    SKIP: ClassVar[set[str]] = {"script", "style", "pre", "code", "mjx-container", "mjx-assistive-mml", "textarea"}

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def _check_page(url: str, tmp_path: Path, origin: str, *, min_equations: int) -> None:
    dom, requests = _open(url, tmp_path)
    equations = dom.count("<mjx-container")
    assert equations >= min_equations, f"{url}: {equations} typeset equations"
    assert "<mjx-merror" not in dom, f"{url}: MathJax reports an error"
    parser = _Text()
    parser.feed(dom)
    text = " ".join(parser.parts)
    raw = re.findall(r"\$[^$\s][^$]{0,80}?\$|\\\(.{0,80}?\\\)|\\\[.{0,80}?\\\]", text)
    assert not raw, f"{url}: math left untypeset: {raw[:5]}"
    page_requests = [r for r in requests if r["initiator"] in (origin, "null")
                     or r["url"].startswith(origin)]
    assert page_requests, f"{url}: the net log shows none of the page's own requests"
    remote = [r["url"] for r in page_requests if not r["url"].startswith(origin)]
    assert not remote, f"{url}: requests that left the machine: {remote}"


def test_site_landing_page(server, tmp_path):
    _check_page(f"{server}/site/index.html", tmp_path, server, min_equations=0)


def test_site_api_page_typesets_its_equations(server, tmp_path):
    _check_page(f"{server}/site/_generated/api/garesearch.bound.html", tmp_path, server,
                min_equations=10)


def test_site_notebook_page(server, tmp_path):
    _check_page(f"{server}/site/_generated/notebooks/02_posterior_bound.html", tmp_path, server,
                min_equations=5)


def test_site_widget_notebook_is_a_static_snapshot(server, tmp_path):
    url = f"{server}/site/_generated/notebooks/12_teaching_widgets.html"
    _check_page(url, tmp_path, server, min_equations=5)
    dom, _ = _open(url, tmp_path)
    assert dom.count("garesearch-widget-snapshot") >= 2
    assert "<input type=\"range\"" in dom or "<input type='range'" in dom


def test_notebook_html_from_reproduce(server, tmp_path):
    if not (NOTEBOOKS / "12_teaching_widgets.html").is_file():
        _missing(f"no notebook HTML in {NOTEBOOKS}: run 'make reproduce' (or 'make docs')")
    _check_page(f"{server}/notebooks/12_teaching_widgets.html", tmp_path, server, min_equations=5)


def test_no_html_under_output_loads_from_the_network(server):
    pages = sorted(OUTPUT.rglob("*.html"))
    assert len(pages) > 20
    offenders = {}
    for page in pages:
        found = publish.remote_references(page.read_text(encoding="utf-8", errors="replace"))
        if found:
            offenders[str(page.relative_to(OUTPUT))] = found[:3]
    assert not offenders, offenders


def test_the_check_catches_a_page_that_needs_the_network(tmp_path):
    """Pages that take MathJax or a style sheet from a CDN fail: their math stays raw, and the
    net log shows the request that left the machine."""
    _chromium()
    site = tmp_path / "site"
    site.mkdir()
    cdn = "<script src='https://cdn.example.org/mathjax/tex-chtml.js'></script>"
    (site / "math.html").write_text(
        f"<!DOCTYPE html><html><head>{cdn}</head><body><p>The bound $\\epsilon_{{lb}}$.</p>"
        "</body></html>", encoding="utf-8")
    (site / "style.html").write_text(
        "<!DOCTYPE html><html><head><link rel='stylesheet' href='https://fonts.example.org/f.css'>"
        "</head><body><p>No math here.</p></body></html>", encoding="utf-8")
    with _serve(site) as origin:
        with pytest.raises(AssertionError, match=r"untypeset"):
            _check_page(f"{origin}/math.html", tmp_path / "a", origin, min_equations=0)
        with pytest.raises(AssertionError, match=r"left the machine: \['https://fonts\.example"):
            _check_page(f"{origin}/style.html", tmp_path / "b", origin, min_equations=0)
