"""The report's game pages: every game a run played is drawn as its dependency graph (scenes,
locks, tools and creative steps marked), built-in, original and generated games alike, from a
real ``escapebench run`` and ``escapebench report`` (subprocesses)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from escapebench.games.loading import load_games
from escapebench.generate import GENERATOR_VERSION, generate_games

ROOT = Path(__file__).resolve().parents[2]
GEN = "gen:tier=2,count=1,seed=41"
PNG = b"\x89PNG\r\n\x1a\n"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``escapebench ARGS`` in a fresh interpreter, with this checkout's package."""
    return subprocess.run(
        [sys.executable, "-m", "escapebench.cli", *args], cwd=cwd, capture_output=True,
        text=True, timeout=300, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )


def run_and_report(tmp: Path, *games: str, max_steps: int = 60) -> Path:
    """A run of the explorer on ``games`` (normal versions) and its report; the report folder."""
    args = ["run", "--agent", "explorer", "--difficulty", "normal", "--max-steps", str(max_steps),
            "--quiet", "--out", str(tmp / "run")]
    for g in games:
        args += ["--games", g]
    done = cli(*args, cwd=tmp)
    assert done.returncode == 0, done.stderr + done.stdout
    done = cli("report", str(tmp / "run"), "--out", str(tmp / "site"), cwd=tmp)
    assert done.returncode == 0, done.stderr + done.stdout
    return tmp / "site"


def items(html: str, section: str) -> list[str]:
    """The ``<li>`` texts of the game page's panel ``section``."""
    block = re.search(rf'<div class="panel" id="{section}">(.*?)</div>', html, re.S)
    assert block, section
    return [re.sub(r"<[^>]+>", "", li).strip()
            for li in re.findall(r"<li>(.*?)</li>", block.group(1), re.S)]


def picture(site: Path, page_html: str) -> Path:
    m = re.search(r'<img id="graph-picture" src="\.\./([^"]+)"', page_html)
    assert m, "the game page has no picture"
    return site / m.group(1)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_and_report(tmp_path_factory.mktemp("pages"), "tutorial", GEN)


def test_the_index_lists_each_game_played_with_its_picture(site: Path) -> None:
    html = (site / "index.html").read_text(encoding="utf-8")
    section = html[html.index('<section id="games">'):html.index('<section id="viewer">')]
    assert re.findall(r'data-game="([^"]+)"', section) == ["gen-t2-s41-000", "tutorial"]
    for slug in ("gen-t2-s41-000", "tutorial"):
        assert f'href="games/{slug}.html"' in section
        assert (site / "games" / f"{slug}.html").is_file()
    shown = re.findall(r'<img src="(games/[^"]+\.png)"', section)
    assert len(shown) == 2
    for src in shown:
        assert (site / src).read_bytes()[:8] == PNG
    # every episode of the viewer links to its game's page
    index = json.loads((site / "data" / "index.js").read_text().split("=", 1)[1].rstrip(";\n"))
    assert {e["setting"]: e["game_page"] for e in index["episodes"]} == {
        "gen-t2-s41-000": "games/gen-t2-s41-000.html", "tutorial": "games/tutorial.html"}


def test_a_generated_game_page_marks_its_scenes_locks_tools_and_creative_steps(
    site: Path,
) -> None:
    [g] = generate_games(2, 1, 41)
    normal = next(d for d in g.settings if d.difficulty == "normal")
    html = (site / "games" / "gen-t2-s41-000.html").read_text(encoding="utf-8")
    assert GEN in html and "generator version" in html
    assert picture(site, html).read_bytes()[:8] == PNG
    assert items(html, "scenes") == [s.name for s in normal.scenes]
    assert items(html, "tools") == [t.name for t in normal.tools]
    assert g.design.creative, "tier 2 games have creative steps"
    assert items(html, "creative") == g.design.creative
    locks = items(html, "locks")
    # every lock the design applies a tool to is listed with the tool that opens it
    for step in g.design.key_steps:
        m = re.fullmatch(r"apply\((.+), (.+)\)", step)
        if m:
            assert any(x.startswith(m.group(2) + " (needs ") and m.group(1) in x for x in locks)


def test_a_builtin_game_page_lists_its_parts_and_how_to_mark_creative_steps(
    site: Path,
) -> None:
    tutorial = next(d for d in load_games(["tutorial"]) if d.difficulty == "normal")
    html = (site / "games" / "tutorial.html").read_text(encoding="utf-8")
    assert picture(site, html).read_bytes()[:8] == PNG
    assert items(html, "scenes") == [s.name for s in tutorial.scenes]
    assert items(html, "tools") == [t.name for t in tutorial.tools]
    assert "door (needs the code 427)" in items(html, "locks")
    # the tutorial has no creative step; the page says how a game file marks them
    assert "a game file marks its creative steps with <code>creative: true</code>" in html


def test_a_second_build_keeps_the_pictures_it_drew(site: Path, tmp_path: Path) -> None:
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    before = {p.name: p.stat().st_mtime_ns for p in (copy / "games").glob("*.png")}
    run_dir = Path(re.search(r"<code>([^<]+)</code>",
                             (site / "index.html").read_text(encoding="utf-8")).group(1))
    done = cli("report", str(run_dir), "--out", str(copy), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    after = {p.name: p.stat().st_mtime_ns for p in (copy / "games").glob("*.png")}
    assert after == before


def test_a_game_file_changed_since_the_run_gets_no_picture_of_another_game(
    tmp_path: Path,
) -> None:
    game = tmp_path / "closet.yaml"
    shutil.copyfile(ROOT / "tests" / "support" / "games" / "closet.yaml", game)
    site = run_and_report(tmp_path, str(game))
    assert (site / "games" / "closet.html").read_text(encoding="utf-8").count(
        'id="graph-picture"') == 1
    game.write_text(game.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    # the folder that drew it keeps its picture: it shows the game as it was played
    done = cli("report", str(tmp_path / "run"), "--out", str(site), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert 'id="graph-picture"' in (site / "games" / "closet.html").read_text(encoding="utf-8")
    # a new report cannot draw it: the file is no longer the one played
    fresh = tmp_path / "fresh"
    done = cli("report", str(tmp_path / "run"), "--out", str(fresh), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (fresh / "games" / "closet.html").read_text(encoding="utf-8")
    assert 'id="graph-picture"' not in html
    assert "has changed since the run (sha256 differs)" in html
    assert list((fresh / "games").glob("*.png")) == []


@pytest.mark.parametrize("version", ["0", "9", GENERATOR_VERSION])
def test_a_generated_game_of_another_generator_version_is_drawn_only_if_it_is_the_same_game(
    tmp_path: Path, version: str,
) -> None:
    # a run of this generator version is drawn; of an older one (version 9 made version 8's
    # games at tiers 1-3, version 10 draws afresh) the report says why it is not
    site = run_and_report(tmp_path, "gen:tier=1,count=1,seed=3", max_steps=5)
    run_json = tmp_path / "run" / "run.json"
    run = json.loads(run_json.read_text())
    for rec in run["games"]:
        rec["generated"]["generator_version"] = version
    run_json.write_text(json.dumps(run))
    done = cli("report", str(tmp_path / "run"), "--out", str(site), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (site / "games" / "gen-t1-s3-000.html").read_text(encoding="utf-8")
    drawn = 'id="graph-picture"' in html
    said = f"made by generator version {version}" in html
    assert (drawn, said) == ((True, False) if version == GENERATOR_VERSION else (False, True))


def test_an_original_game_is_drawn(upstream_dir: Path, tmp_path: Path) -> None:
    site = run_and_report(tmp_path, str(upstream_dir / "data" / "game1-1.yaml"), max_steps=5)
    pages = list((site / "games").glob("*.html"))
    assert len(pages) == 1
    html = pages[0].read_text(encoding="utf-8")
    assert picture(site, html).read_bytes()[:8] == PNG
    assert items(html, "scenes") and items(html, "locks") and items(html, "tools")


def test_builds_into_new_folders_share_the_pictures_of_a_cache(site: Path, tmp_path: Path) -> None:
    """As ``escapebench serve`` builds: each build a new folder, one cache folder."""
    from escapebench.report.site import build_report

    run_dir = Path(re.search(r"<code>([^<]+)</code>",
                             (site / "index.html").read_text(encoding="utf-8")).group(1))
    cache = tmp_path / "cache"
    first = build_report([run_dir], tmp_path / "build-1", cache_dir=cache)
    kept = {p.name: p.stat().st_mtime_ns for p in (cache / "games").glob("*.png")}
    assert len(kept) == 2
    second = build_report([run_dir], tmp_path / "build-2", cache_dir=cache)
    assert {p.name: p.stat().st_mtime_ns for p in (cache / "games").glob("*.png")} == kept
    for result in (first, second):
        shown = sorted(p.name for p in (result.out_dir / "games").glob("*.png"))
        assert shown == sorted(kept)
        assert [g.picture for g in result.games] == [f"games/{n}" for n in sorted(kept)]


def test_a_builtin_game_recorded_at_another_path_is_found_by_its_hash(
    site: Path, tmp_path: Path,
) -> None:
    """A run made with the package installed elsewhere: the built-in file of the same hash."""
    run_dir = Path(re.search(r"<code>([^<]+)</code>",
                             (site / "index.html").read_text(encoding="utf-8")).group(1))
    moved = tmp_path / "run"
    shutil.copytree(run_dir, moved)
    run = json.loads((moved / "run.json").read_text())
    for rec in run["games"]:
        if rec["setting"] == "tutorial":
            rec["file"] = "/elsewhere/site-packages/escapebench/games/builtin/tutorial.yaml"
    (moved / "run.json").write_text(json.dumps(run))
    done = cli("report", str(moved), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "site" / "games" / "tutorial.html").read_text(encoding="utf-8")
    assert picture(tmp_path / "site", html).read_bytes()[:8] == PNG
    assert "/elsewhere/site-packages" in html  # the page says what the run recorded


def test_a_game_named_relative_to_where_the_run_started_is_found_from_elsewhere(
    tmp_path: Path,
) -> None:
    """``escapebench run --games closet.yaml`` records the file's absolute path; a folder
    written before that recorded the name as given, and the report, run from another folder,
    still finds it next to the result folder."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(ROOT / "tests" / "support" / "games" / "closet.yaml", work / "closet.yaml")
    done = cli("run", "--agent", "explorer", "--games", "closet.yaml", "--difficulty", "normal",
               "--max-steps", "5", "--quiet", "--out", "run", cwd=work)
    assert done.returncode == 0, done.stderr
    record = json.loads((work / "run" / "run.json").read_text())
    assert record["games"][0]["file"] == str((work / "closet.yaml").resolve())
    record["games"][0]["file"] = "closet.yaml"  # as an older run.json has it
    (work / "run" / "run.json").write_text(json.dumps(record))
    done = cli("report", str(work / "run"), "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "site" / "games" / "closet.html").read_text(encoding="utf-8")
    assert picture(tmp_path / "site", html).read_bytes()[:8] == PNG
