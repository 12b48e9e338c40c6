"""Headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by selenium) for the site tests.

``browser()`` starts one browser; ``serve(folder)`` serves a folder over http://127.0.0.1;
``search(driver, url)`` opens a search page and returns its results once Sphinx has listed
them; ``page_height`` measures a page at the window's width.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install -y chromium chromium-driver)",
)
WIDTH = 1400


@contextlib.contextmanager
def browser() -> Iterator[Any]:
    """A headless Chromium (1,400 px wide) that keeps the console's messages, with a profile of its own."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    profile = tempfile.mkdtemp(prefix="kbsim-chromium-")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--window-size={WIDTH},1000",
        f"--user-data-dir={profile}",
    ):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on http://127.0.0.1:PORT/ for the duration of the block; yields that base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def search(driver: Any, url: str, timeout: float = 30) -> list[dict[str, str]]:
    """Open a search page (``.../search.html?q=...``) and return its results in order, once all are listed.

    Each result is ``{"href", "title", "text"}``: the link, its text, and the text shown under it
    (empty when the page shows none).
    """
    driver.get_log("browser")  # forget what earlier pages logged
    driver.get(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = driver.execute_script(
            "const s = document.querySelector('#search-results p.search-summary');"
            "return s !== null && s.textContent.trim().length > 0;"
        )
        if done:
            break
        time.sleep(0.2)
    time.sleep(0.5)  # the text of the last results
    return driver.execute_script(
        "return [...document.querySelectorAll('#search-results ul.search > li')].map(li => {"
        "  const a = li.querySelector('a'); const p = li.querySelector('p.context');"
        "  return {href: a.getAttribute('href'), title: a.textContent, text: p ? p.textContent : ''}; });"
    )


def console_errors(driver: Any) -> list[dict[str, Any]]:
    """The console's errors since the last call (CORS refusals, failed loads, script errors).

    The browser's own request for ``/favicon.ico`` (a site without one) is not the page's error.
    """
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "favicon.ico" not in e["message"]]


def page_height(driver: Any, url: str) -> int:
    """The height in px of a page at the browser's width (:data:`WIDTH`)."""
    driver.get(url)
    return int(driver.execute_script("return document.documentElement.scrollHeight"))
