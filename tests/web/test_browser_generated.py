"""A tier-2 generated game in real headless Chromium against ``escapebench serve --games
gen:...`` (a subprocess on 127.0.0.1): played to the end through the page's own controls
(things, exits, the bag, "Type…"), then found in the report, whose game page draws the game's
dependency graph.

Skipped when Debian's chromium or Playwright for Python is missing. Set
``ESCAPEBENCH_SCREENSHOTS=1`` to refresh docs/report-graph.png; otherwise screenshots go to the
test's temporary folder.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from escapebench.catalog import load_games
from escapebench.engine.actions import parse_call
from escapebench.generate import generate_games
from tests.support.browser import skip_without_browser
from tests.support.reference_walk import typed_reference
from tests.support.serve_process import serve

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GEN = "gen:tier=2,count=1,seed=41"
SETTING = "gen-t2-s41-000"

sync_api = skip_without_browser()
expect = sync_api.expect


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``escapebench serve`` of a run of the explorer on the game, offering the game to play."""
    tmp = tmp_path_factory.mktemp("gen-browser")
    done = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "run", "--agent", "explorer", "--games", GEN,
         "--difficulty", "normal", "--quiet", "--out", str(tmp / "run")],
        capture_output=True, text=True, timeout=300, cwd=tmp,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with serve(str(tmp / "run"), "--data", str(tmp / "human"), "--games", GEN) as url:
        yield url


def button(page, where: str, name: str):  # noqa: ANN001, ANN201
    """The button of ``name`` in the panel ``where`` (items, exits, bag)."""
    return page.locator(f"#{where} button.thing[data-name={json.dumps(name)}]")


def loaded_width(img) -> int:  # noqa: ANN001
    """The natural width of an image once it has loaded (0: it did not load)."""
    return img.evaluate(
        "i => i.complete ? i.naturalWidth : new Promise(r => {"
        " i.addEventListener('load', () => r(i.naturalWidth));"
        " i.addEventListener('error', () => r(0)); })")


def in_bag(page, defn, tool: str):  # noqa: ANN001, ANN201
    """The bag's button of ``tool``, which may go by a crafted product's name (the name of
    one of its states) rather than its own, as the reference writes it."""
    names = {tool} | {s.name for t in defn.tools if t.name == tool for s in t.states if s.name}
    return page.locator(", ".join(f"#bag button.thing[data-name={json.dumps(n)}]"
                                  for n in sorted(names)))


def do(page, kind: str, what: str, defn=None) -> None:  # noqa: ANN001
    """One step of the reference as a player does it with the mouse and keyboard."""
    if kind == "move":
        button(page, "exits", what).click()
        return
    call = parse_call(what)
    assert call is not None, what
    verb = call.verb
    # (this game's names hold no commas; a code's parts may)
    args = (call.arg_text.rsplit(", ", 1) if verb == "input"
            else call.arg_text.split(", ", 1))
    if verb == "click":
        button(page, "items", args[0]).click()
    elif verb == "apply":  # the tool in the bag, then the thing
        in_bag(page, defn, args[0]).click()
        expect(page.locator("#bag button.thing.selected")).to_have_count(1)
        button(page, "items", args[1]).click()
    elif verb == "craft":  # one tool in the bag, then the other
        in_bag(page, defn, args[0]).click()
        in_bag(page, defn, args[1]).click()
    elif verb == "input":  # "Type…" next to the thing, the text, Enter
        page.locator(f"button.type-into[data-name={json.dumps(args[-1])}]").click()
        page.fill("#input-text", args[0])
        page.press("#input-text", "Enter")
    else:
        raise AssertionError(f"not a reference action: {what}")


def test_a_tier_2_game_played_to_the_end_through_the_page(server: str, page) -> None:  # noqa: ANN001
    defn = next(d for d in load_games([GEN]) if d.difficulty == "normal")
    plan = typed_reference(defn)
    page.goto(server + "play")
    page.fill("#player", "Nova")
    page.select_option("#game", SETTING)
    page.click("#start-button")
    expect(page.locator("#title")).to_have_text(f"{defn.title} ({SETTING})")
    expect(page.locator("#scene-name")).to_have_text(defn.start_scene)
    # a tool lying in the scene says it is one (as the terminal does); a clue is not dimmed
    tools = page.locator("#items button.thing.tool")
    assert tools.count() > 0
    for k in range(tools.count()):
        expect(tools.nth(k).locator(".tag")).to_have_text("tool: click to take it")
    # a thing with no action (a code mark) is not dimmed: checked on the first screen showing
    # one (the start scene of a generated game may show none)
    inert = page.locator("#items button.thing.inert")
    clues_seen = 0
    at = defn.start_scene
    for n, (kind, what) in enumerate(plan, start=1):
        if not clues_seen and inert.count():
            assert all(float(inert.nth(k).evaluate("b => getComputedStyle(b).opacity")) == 1.0
                       for k in range(inert.count()))
            clues_seen = inert.count()
        do(page, kind, what, defn)
        expect(page.locator("#steps")).to_have_text(str(n))
        expect(page.locator("#error")).to_have_text("")
        if kind == "move":
            at = next(link.target for s in defn.scenes if s.name == at for link in s.links
                      if link.label == what)
            expect(page.locator("#scene-name")).to_have_text(at)
        else:  # the log shows the action and its feedback, newest first
            expect(page.locator("#log .entry").first).to_contain_text(f"#{n} ")
    assert clues_seen > 0  # the game shows clues, none of them dimmed
    banner = page.locator("#banner")
    expect(banner).to_contain_text(f"You escaped in {len(plan)} steps with 0 hints")
    expect(page.locator("#progress-text")).to_have_text("100%")
    expect(page.locator("#do-button")).to_be_disabled()
    expect(page.locator("#hint-button")).to_be_disabled()
    # the report has the play, and the episode links to the game's dependency graph
    page.click("#see-report")
    expect(page.locator("#episode-head")).to_contain_text("human Nova")
    expect(page.locator("#step-count")).to_have_text(str(len(plan)))
    page.click("#game-page-link")
    expect(page.locator("h1")).to_have_text(SETTING)
    assert loaded_width(page.locator("#graph-picture")) > 0


def test_the_report_game_page_draws_the_graph_with_its_marked_parts(
    server: str, page, shots: Path,  # noqa: ANN001
) -> None:
    [g] = generate_games(2, 1, 41)
    normal = next(d for d in g.settings if d.difficulty == "normal")
    page.goto(server + "report/")
    card = page.locator(f'#games figure[data-game="{SETTING}"]')
    expect(card).to_contain_text(GEN)
    expect(card).to_contain_text(f"{len(g.design.creative)} creative steps")
    assert loaded_width(card.locator("img")) > 0
    card.locator("a", has_text=SETTING).click()
    picture = page.locator("#graph-picture")
    expect(picture).to_be_visible()
    assert loaded_width(picture) > 600
    expect(page.locator("#scenes h3")).to_have_text(f"Scenes ({len(normal.scenes)})")
    expect(page.locator("#tools h3")).to_have_text(f"Tools ({len(normal.tools)})")
    for sentence in g.design.creative:
        expect(page.locator("#creative")).to_contain_text(sentence)
    locks = page.locator("#locks li")
    applied_to = {s[len("apply("):-1].split(", ", 1)[1] for s in g.design.key_steps
                  if s.startswith("apply(")}  # (a door of two keyholes takes two keys)
    assert applied_to and locks.count() >= len(applied_to)
    # every lock names what opens it
    assert all(re.search(r"\(needs .+\)$", t) for t in locks.all_inner_texts())
    page.screenshot(path=str(shots / "report-graph.png"), full_page=True)
