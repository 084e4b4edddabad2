"""Real headless Chromium against ``escapebench serve`` started as a subprocess on 127.0.0.1.

Skipped when Debian's chromium or Playwright for Python is missing (CI installs both). Set
``ESCAPEBENCH_SCREENSHOTS=1`` to refresh the screenshots under ``docs/``; otherwise they go to
the test's temporary folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.browser import skip_without_browser
from tests.support.report_runs import CLOSET
from tests.support.serve_process import serve

pytestmark = pytest.mark.slow

sync_api = skip_without_browser()
expect = sync_api.expect


@pytest.fixture(scope="module")
def server(
    harness_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``escapebench serve`` on a free port; yields its base URL."""
    data = tmp_path_factory.mktemp("human-data")
    runs = [str(harness_runs[k]) for k in ("base-fumbler", "base-solver", "escape-solver")]
    with serve(*runs, "--data", str(data), "--games", str(CLOSET)) as url:
        yield url


def test_report_episode_step_to_hint(server: str, page, shots: Path, harness_runs) -> None:
    page.goto(server + "report/")
    table3 = page.locator('table[data-table="Table 3: BaseAgent"]')
    expect(table3).to_contain_text("fumbler")
    page.screenshot(path=str(shots / "report.png"))
    # the fumbler's run, the normal setting
    page.select_option("#pick-run", label="#0 base-fumbler")
    page.select_option("#pick-setting", "closet")
    expect(page.locator("#episode-head")).to_contain_text("base / fumbler")
    expect(page.locator("#step-view h3")).to_have_text("Step 1")
    page.click("#next-hint")
    result = json.loads(
        (harness_runs["base-fumbler"] / "episodes" / "closet__base__fumbler__r0" / "result.json")
        .read_text(encoding="utf-8")
    )
    first_hint = result["hint_steps"][0] + 1  # the viewer counts steps from 1
    expect(page.locator("#step-view h3")).to_have_text(f"Step {first_hint}")
    expect(page.locator("#step-view .badge.hint")).to_be_visible()
    expect(page.locator("#step-view .field.hint")).to_contain_text(result["hints"][0]["action"])
    assert page.locator("#curve circle.hint-dot").count() == len(result["hint_steps"])
    page.click("#next-progress")
    expect(page.locator("#step-view .badge.progress")).to_be_visible()
    page.locator("#viewer").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "viewer.png"))
    # EscapeAgent's state: its task list and foresight queue are shown for every step
    page.select_option("#pick-run", label="#2 escape-solver")
    expect(page.locator("#episode-head")).to_contain_text("escape / solver")
    expect(page.locator("#step-view")).to_contain_text("Task list")
    expect(page.locator("#step-view")).to_contain_text("Foresight proposals to try")


def test_report_opened_from_disk(harness_runs, tmp_path: Path, page) -> None:
    """The static report works from file:// (no server): tables, figures and the viewer."""
    from escapebench.report.site import build_report

    build_report([harness_runs["base-fumbler"]], tmp_path / "out")
    page.goto((tmp_path / "out" / "index.html").as_uri())
    expect(page.locator('table[data-table="Table 3: BaseAgent"]')).to_contain_text("fumbler")
    for img in page.locator("#figures img").all():
        assert img.evaluate("i => i.complete && i.naturalWidth > 0")
    page.select_option("#pick-setting", "closet-hard")
    expect(page.locator("#episode-head")).to_contain_text("closet-hard")
    page.click("#last")
    expect(page.locator("#step-view")).to_contain_text("GAME END")


def click_thing(page, where: str, name: str) -> None:
    page.locator(f'#{where} button.thing[data-name="{name}"]').click()


def test_play_tutorial_to_the_end_then_find_it_in_the_report(
    server: str, page, shots: Path
) -> None:
    page.goto(server + "play")
    page.fill("#player", "Tess")
    page.select_option("#game", "tutorial")
    page.click("#start-button")
    expect(page.locator("#scene-name")).to_have_text("practice room")

    steps = [
        ("items", "desk drawer"),
        ("items", "battery"),
        ("exits", "To the shelf"),
        ("items", "flashlight"),
    ]
    n = 0
    for where, name in steps:
        click_thing(page, where, name)
        n += 1
        expect(page.locator("#steps")).to_have_text(str(n))
    # craft: pick one tool in the bag, then the other
    click_thing(page, "bag", "battery")
    expect(page.locator('#bag button.thing.selected[data-name="battery"]')).to_be_visible()
    page.screenshot(path=str(shots / "play.png"))
    click_thing(page, "bag", "flashlight")
    n += 1
    expect(page.locator("#steps")).to_have_text(str(n))
    expect(page.locator("#log")).to_contain_text("You combined the battery with the flashlight")
    click_thing(page, "exits", "Back to the room")
    n += 1
    expect(page.locator("#scene-name")).to_have_text("practice room")
    # apply: the tool from the bag, then the thing
    click_thing(page, "bag", "flashlight")
    click_thing(page, "items", "dark cupboard")
    n += 1
    expect(page.locator("#log")).to_contain_text("The beam falls on a card")
    # input: type into the door
    page.locator('button.type-into[data-name="door"]').click()
    page.fill("#input-text", "427")
    page.press("#input-text", "Enter")
    n += 1
    expect(page.locator("#log")).to_contain_text("the lock clicks open")
    click_thing(page, "items", "door")
    n += 1
    banner = page.locator("#banner")
    expect(banner).to_contain_text(f"You escaped in {n} steps with 0 hints")
    # the game is over: nothing more can be typed or done
    expect(page.locator("#do-button")).to_be_disabled()
    expect(page.locator("#action-text")).to_be_disabled()
    expect(page.locator("#hint-button")).to_be_disabled()

    page.click("#see-report")
    human = page.locator('table[data-table="Human players"] tr.human')
    expect(human).to_contain_text("Average Human")
    expect(human.locator("td").nth(2)).to_have_text(f"{n}.00")
    expect(page.locator("#episode-head")).to_contain_text("human Tess")
    expect(page.locator("#step-count")).to_have_text(str(n))


def test_resume_an_unfinished_game_in_the_browser(server: str, page) -> None:
    page.goto(server + "play")
    page.fill("#player", "Uma")
    page.select_option("#game", "closet")
    page.click("#start-button")
    click_thing(page, "items", "note")
    expect(page.locator("#steps")).to_have_text("1")
    page.click("#hint-button")
    expect(page.locator("#hint-box")).to_contain_text("input(417, keypad)")
    expect(page.locator("#hints")).to_have_text("1")
    # a typing slip (a number not on screen: not an action) costs no step and says why
    page.fill("#action-text", "click 99")
    page.press("#action-text", "Enter")
    expect(page.locator("#error")).to_contain_text("no thing number 99")
    expect(page.locator("#steps")).to_have_text("1")
    # leave, come back from the start page
    page.goto(server + "play")
    resume = page.locator("#unfinished button", has_text="Resume closet")
    expect(resume).to_contain_text("Uma")
    resume.click()
    expect(page.locator("#steps")).to_have_text("1")
    expect(page.locator("#hint-box")).to_contain_text("input(417, keypad)")


def test_the_home_page_has_a_favicon(server: str, page) -> None:
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.goto(server)
    page.wait_for_load_state("networkidle")
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    assert icon
    assert page.request.get(server.rstrip("/") + icon).ok
    assert page.request.get(server + "favicon.ico").headers["content-type"].startswith("image/")
    assert not missing, missing


def test_the_report_fits_a_390_px_phone_without_sideways_scrolling(
    server: str, browser, shots: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(server + "report/")
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(shots / "report-390px.png"))
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the report is {overflow} px wider than a 390 px screen"
    finally:
        context.close()
