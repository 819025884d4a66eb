"""The web page in a real browser: Debian's chromium, headless, driven by Selenium through Debian's
chromium-driver (nothing downloaded at test time; ``.ci/run`` installs both when it can).

One game is played to the end by clicking, with the coach on; after every click what the page shows
(coins, influence, face-up cards, your hand, the legal moves, what is being decided, the log) is
checked against the engine's state of the game on the server. Then the review, the explorer (two
clicks down from the start, the grid against the server's), and screenshots at a laptop's and a
phone's size in the test's folder.
"""

import os
import random
import shutil
import tempfile

import pytest
from web_helpers import running, served  # noqa: F401 (served: a fixture)

from coupsolve.web.server import App
from coupsolve.web.table import deciding

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")


def _no_browser(why):
    """Skip saying why, or fail where the browser tests must run (``.ci/run`` sets
    ``COUPSOLVE_BROWSER_TESTS=required``)."""
    if os.environ.get("COUPSOLVE_BROWSER_TESTS") == "required":
        pytest.fail(f"the browser tests must run here, but {why}")
    pytest.skip(f"no browser test: {why}")


def _browser():
    """``(chromium, chromedriver)`` paths, or skip saying what is missing."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        _no_browser("selenium is not installed (pip install 'coupsolve[test]')")
    binary = next((p for p in map(shutil.which, CHROMIUM) if p), None)
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        _no_browser("chromium and chromium-driver are not installed (apt-get install chromium "
                    "chromium-driver; .ci/run does it as root)")
    return binary, driver


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver = _browser()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    profile = tempfile.mkdtemp(prefix="coupsolve-chromium-")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={profile}", "--window-size=1366,768"):
        options.add_argument(arg)
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.implicitly_wait(0)
    yield chrome
    chrome.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _wait(chrome, condition, what, timeout=30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(chrome, timeout, poll_frequency=0.05).until(lambda d: condition(d), message=what)


def _page(chrome):
    """What the page shows, read from its elements."""
    return chrome.execute_script("""
        const seats = [...document.querySelectorAll('#seats .seat')].map(s => ({
            seat: +s.dataset.seat, coins: +s.dataset.coins, influence: +s.dataset.influence,
            face_up: s.dataset.faceup, hand: s.dataset.hand, shown: s.innerText}));
        return {ply: +document.getElementById('game').dataset.ply, seats,
                moves: [...document.querySelectorAll('#moves button')].map(b => +b.dataset.action),
                deciding: document.getElementById('deciding').dataset.text,
                log: document.querySelectorAll('#log li').length,
                coach: document.querySelectorAll('#coach-panel tbody tr').length,
                over: !document.getElementById('result').classList.contains('hidden')};""")


def _check(page, table):
    state = table.state
    assert page["ply"] == len(state.history())
    for seat in page["seats"]:
        p = seat["seat"]
        assert (seat["coins"], seat["influence"]) == (state.coins[p], state.influence[p])
        assert seat["face_up"] == "+".join(state.face_up[p])
        mine = p == table.seat or state.is_terminal()
        assert seat["hand"] == ("+".join(state.hand(p)) if mine else "")
        assert all(card in seat["shown"] for card in state.face_up[p] + (state.hand(p) if mine else []))
    assert page["moves"] == ([] if state.is_terminal() else state.legal_actions())
    assert page["deciding"] == deciding(state)
    assert page["log"] == len(table.log)


def test_a_game_by_clicking_with_the_coach_then_the_explorer(browser, served, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    app = App([served])
    rng = random.Random(0)
    with running(app) as (host, port):
        browser.set_window_size(1366, 768)
        browser.get(f"http://{host}:{port}/")
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#opponents select"), "the setup form")
        Select(browser.find_element(By.ID, "coach")).select_by_value(served.name)
        browser.find_element(By.ID, "seed").send_keys("11")
        assert browser.find_element(By.ID, "coach-switch").is_selected()
        browser.find_element(By.ID, "deal").click()
        _wait(browser, lambda d: app.games and d.find_element(By.ID, "game").get_attribute("data-ply"), "a deal")
        (table,) = app.games.values()
        clicks = 0
        while True:
            page = _page(browser)
            _check(page, table)
            if page["over"]:
                break
            assert page["coach"] == len(page["moves"])  # the coach's row per legal move
            buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button")
            rng.choice(buttons).click()
            clicks += 1
            _wait(browser, lambda d: _page(d)["ply"] != page["ply"], "the page after a move")
        assert clicks >= 2 and "Review" in browser.find_element(By.ID, "review").text
        assert len(browser.find_elements(By.CSS_SELECTOR, "#review tbody tr")) == clicks == len(table.decisions)
        browser.save_screenshot(str(tmp_path / "table-laptop.png"))

        browser.find_element(By.ID, "tab-explorer").click()
        for step in range(3):
            _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ex-path button")) == step + 1,
                  "the explorer's state")
            view = app.explore({"strategy": served.name, "path": [0] * step})
            rows = browser.find_elements(By.CSS_SELECTOR, "#ex-grid tbody tr")
            assert len(rows) == len(view["grid"]["rows"]) and rows[0].text.startswith(view["grid"]["rows"][0]["hand"])
            assert float(browser.find_element(By.ID, "ex-reach").get_attribute("data-reach")) == pytest.approx(view["reach"])
            if step < 2:
                browser.find_element(By.CSS_SELECTOR, "#ex-moves button[data-index='0']").click()
        browser.save_screenshot(str(tmp_path / "explorer-laptop.png"))
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # a phone: 390 x 844 CSS pixels
                                {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390  # no sideways page
        browser.save_screenshot(str(tmp_path / "explorer-phone.png"))
        browser.find_element(By.ID, "tab-table").click()
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        browser.save_screenshot(str(tmp_path / "table-phone.png"))
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    shots = sorted(os.listdir(tmp_path))
    assert shots == ["explorer-laptop.png", "explorer-phone.png", "table-laptop.png", "table-phone.png"]
    print("screenshots:", *(tmp_path / s for s in shots))
