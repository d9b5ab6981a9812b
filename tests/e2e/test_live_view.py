"""The live view in a real headless Chromium (Debian's, driven by Selenium through Debian's
chromedriver): a request a sandbox makes appears without a reload, filters work, a request's
detail shows redacted headers, and the environment's diff is one click away."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from tests.e2e.browser import headless_chromium, needs_chromium
from tests.e2e.test_cli import DETOUR, Server

pytestmark = needs_chromium
SCREENSHOT = Path(__file__).parents[2] / "docs" / "live-view.png"
AGENT = """import requests
requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-LIVE-SECRET"},
              json={"channel": "general", "text": "seen live"})
requests.get("https://elsewhere.example/exfil")
"""


@pytest.fixture
def browser():
    with headless_chromium() as driver:
        yield driver


def detour(home: Path, *args: str) -> str:
    return subprocess.run([DETOUR, *args], env=os.environ | {"DETOUR_HOME": str(home)}, capture_output=True,
                          text=True, check=True).stdout


def test_the_live_view_shows_a_sandboxs_request_as_it_happens(browser, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    home = tmp_path / "home"
    server = Server(home)
    server.start()
    try:
        url, key = server.platform()
        assert requests.get(f"{url}/ui").status_code == 401
        assert requests.get(f"{url}/api/platform/audit/environments", cookies={"detour_key": "wrong"}).status_code == 401
        env = json.loads(detour(home, "env", "create", "--capture", "headers", "--json"))["env_id"]
        browser.get(f"{url}/ui?key={key}")
        wait = WebDriverWait(browser, 20)
        # before any click, the page has chosen the newest environment and shows its date
        [chosen] = wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, f'nav button.current[data-env="{env}"]'))
        assert chosen.find_element(By.TAG_NAME, "small").text.strip()
        # the page asks for the list again every 3 s: an unchanged list keeps its buttons (a rebuilt
        # one would drop a click that lands while it is replaced)
        browser.execute_async_script("loadEnvironments().then(arguments[0])")
        assert chosen.get_attribute("class") == "current"
        chosen.click()
        loaded = browser.execute_script("return window.detourLoadedAt")
        agent = tmp_path / "agent.py"
        agent.write_text(AGENT)
        detour(home, "run", "--env", env, str(agent))

        rows = wait.until(lambda b: len(found := b.find_elements(By.CSS_SELECTOR, "#timeline tr")) == 2 and found)
        assert [r.find_element(By.CSS_SELECTOR, "td.path").text for r in rows] == ["/api/chat.postMessage", "/exfil"]
        assert browser.execute_script("return window.detourLoadedAt") == loaded  # no reload

        Select(browser.find_element(By.ID, "decision")).select_by_visible_text("denied")
        assert [r.text.split()[3] for r in browser.find_elements(By.CSS_SELECTOR, "#timeline tr")] == [
            "elsewhere.example"]
        Select(browser.find_element(By.ID, "decision")).select_by_index(0)
        browser.find_element(By.ID, "search").send_keys("chat.post")
        [routed] = browser.find_elements(By.CSS_SELECTOR, "#timeline tr")
        routed.click()
        detail = browser.find_element(By.ID, "detail")
        wait.until(lambda _: "Authorization: [REDACTED]" in detail.text)
        assert "xoxb-LIVE-SECRET" not in detail.text and "Host: slack.com" in detail.text

        browser.find_element(By.ID, "show-diff").click()
        wait.until(lambda _: "1 inserts" in detail.text)
        assert "seen live" in detail.text
        browser.find_element(By.ID, "search").clear()
        routed = browser.find_elements(By.CSS_SELECTOR, "#timeline tr")[0]
        routed.click()
        wait.until(lambda _: "Authorization: [REDACTED]" in detail.text)
        shot = tmp_path / "live-view.png"
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        if os.environ.get("DETOUR_UPDATE_SCREENSHOT"):
            SCREENSHOT.parent.mkdir(exist_ok=True)
            shutil.copyfile(shot, SCREENSHOT)
    finally:
        server.stop()
