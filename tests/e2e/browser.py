"""Debian's Chromium, headless, driven by Selenium through Debian's chromedriver; it can
resolve loopback only, so it reaches nothing else."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                    reason="needs Debian's chromium and chromium-driver (detour doctor --install)")
ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")

# Chromium's own DevTools frontend reads a HAR as its Network panel's import does.
DEVTOOLS = "devtools://devtools/bundled/devtools_app.html"
DEVTOOLS_IMPORT = """
const [text, done] = [arguments[0], arguments[arguments.length - 1]];
import('./models/har/har.js').then((har) => {
  const log = new har.HARFormat.HARRoot(JSON.parse(text)).log;
  done(har.Importer.Importer.requestsFromHARLog(log).map((r) => [r.requestMethod, r.url(), r.statusCode]));
}).catch((e) => done('error: ' + e));
"""


@contextmanager
def headless_chromium() -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager: never look anything up
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ARGS:
        options.add_argument(arg)
    # Its profile and its singleton's socket folder (/tmp/org.chromium.Chromium.*, which quit
    # leaves) go in a folder of the test's, removed after.
    with tempfile.TemporaryDirectory(prefix="detour-chromium-") as scratch:
        options.add_argument(f"--user-data-dir={scratch}/profile")
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER, env=os.environ | {"TMPDIR": scratch}), options=options)
        try:
            yield driver
        finally:
            driver.quit()


def devtools_import(driver, har_text: str):
    """What DevTools makes of a HAR: [method, url, status] per request, or 'error: ...'."""
    driver.get(DEVTOOLS)
    driver.set_script_timeout(30)
    return driver.execute_async_script(DEVTOOLS_IMPORT, har_text)
