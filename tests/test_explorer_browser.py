"""The strategy explorer in a real browser: ``scripts/serve.py`` started as a user starts it,
driven with headless Chromium (Debian's ``chromium`` through Playwright's ``executable_path``; the
Makefile installs it). A hand typed and one picked on the card grid, the top row's ``data-ev``
against the exact solver, a bad hand's message beside the field, a hand set in practice mode, and
Ctrl-C (exit 130). Screenshots go to the test's temp folder (and to ``$SPLITPOKER_SCREENSHOTS``
when set) for a person to look at."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
playwright_api = pytest.importorskip("playwright.sync_api")

from splitpoker.envs.rules.cards import format_card  # noqa: E402
from splitpoker.envs.rules.game import Game  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)
pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (make install puts Debian's there)"),
              pytest.mark.timeout(1200)]
PAIGOW_HAND = "As Ah Kd Kc 9s 5h JK"


def start_server(*styles: str):
    """``scripts/serve.py --port 0`` as a user runs it; ``(process, url)`` once it says it serves."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "serve.py"), "--port", "0",
                             "--styles", ",".join(styles)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    url = {}

    def read():
        for line in proc.stdout:
            m = re.match(r"serving on (http://\S+)", line)
            if m:
                url["u"] = m.group(1)

    threading.Thread(target=read, daemon=True).start()
    t0 = time.monotonic()
    while "u" not in url and proc.poll() is None and time.monotonic() - t0 < 900:  # tables may be built first
        time.sleep(0.2)
    if "u" not in url:
        proc.kill()
        pytest.fail(f"serve.py did not say it was serving: {proc.stderr.read()[-2000:]}")
    return proc, url["u"]


@pytest.fixture(scope="module")
def server():
    proc, url = start_server("paigow-igw", "asia-000")
    yield proc, url, None
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


def shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    extra = os.environ.get("SPLITPOKER_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / path.name)
    print(f"screenshot: {path}")


def test_typed_hand_top_row_is_the_exact_optimum(server, browser, exact_solver, tmp_path):
    _, url, _ = server
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url + "/?game=paigow&style=paigow-igw")
    page.fill("#cards", PAIGOW_HAND.lower())
    page.click("#analyze")
    page.wait_for_selector("#settings")
    top = float(page.locator("#settings tbody tr").first.get_attribute("data-ev"))
    game = Game("paigow", "paigow-igw")
    res = exact_solver("paigow", "paigow-igw").solve(game.hand(PAIGOW_HAND))
    assert top == float(res.ev.max())
    assert "cards=" in page.url  # the answer's own URL, to share
    assert page.locator("#house-way-rule").inner_text() == game.house_way(game.hand(PAIGOW_HAND)).rule
    shot(page, tmp_path, "calculator")
    page.close()


def test_a_hand_picked_on_the_grid(server, browser, exact_solver):
    _, url, _ = server
    page = browser.new_page()
    page.goto(url + "/?game=asia&style=asia-000")
    hand = "2c 7d 9h Js Qs Ks JK"
    for t in hand.split():
        page.click(f'button.pick[data-card="{t}"]')
    page.wait_for_selector("#settings")  # the seventh card submits the form
    res = exact_solver("asia", "asia-000").solve(Game("asia").hand(hand))
    assert float(page.locator("#settings tbody tr").first.get_attribute("data-ev")) == float(res.ev.max())
    page.close()


def test_a_bad_hand_is_named_beside_the_field(server, browser, tmp_path):
    _, url, _ = server
    page = browser.new_page()
    page.goto(url + "/?game=paigow")
    page.fill("#cards", "As As Kd Kc 9s 5h <b>x</b>")
    page.click("#analyze")
    err = page.locator("#cards-error")
    err.wait_for()
    assert "As" in err.inner_text() and page.locator("#settings").count() == 0
    assert page.locator("b", has_text="x").count() == 0  # typed markup stays text
    shot(page, tmp_path, "bad_hand")
    page.close()


def test_practice_sets_a_hand_and_scores_it(server, browser, exact_solver, tmp_path):
    _, url, _ = server
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    page.goto(url + "/practice?game=paigow&style=paigow-igw&cards=" + PAIGOW_HAND.replace(" ", "+"))
    order = page.locator("#unplaced button.place").evaluate_all("bs => bs.map(b => b.dataset.card)")
    for t in order:  # each card fills the first hand with room: back (5), then front (2)
        page.click(f'#unplaced button.place[data-card="{t}"]')
    page.click("#score")
    page.wait_for_selector("#result:not([hidden])")
    game = Game("paigow", "paigow-igw")
    hand = game.hand(PAIGOW_HAND)
    res = exact_solver("paigow", "paigow-igw").solve(hand)
    back = set(order[:5])
    s = next(s for s in range(game.n_settings)
             if {format_card(int(c)) for c in game.describe(hand, s).hands()["back"]} == back)
    assert float(page.locator("#r-played").get_attribute("data-ev")) == float(res.ev[s])
    gives_up = float(page.locator("#verdict").get_attribute("data-gives-up"))
    assert gives_up == pytest.approx(float(res.ev.max() - res.ev[s]), abs=1e-12)
    assert "1 hand scored" in page.locator("#tally").inner_text()
    shot(page, tmp_path, "practice")
    page.close()


def test_ctrl_c_stops_the_server_with_130():
    proc, url = start_server("paigow-igw")
    import urllib.request

    with urllib.request.urlopen(url + "/api/analyze?game=paigow&cards=" + PAIGOW_HAND.replace(" ", "+"), timeout=60) as r:
        assert r.status == 200
    proc.send_signal(signal.SIGINT)
    try:
        assert proc.wait(timeout=30) == 130
    finally:
        proc.kill()
    assert "Traceback" not in proc.stderr.read()
