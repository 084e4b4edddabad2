"""The game generator: deterministic files, proven games each tier, the no-shortcut proof, and
gen: specs where --games works."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from escapebench.agents.explorer import ExplorerAgent
from escapebench.bench.episode import EpisodeSpec, play_episode
from escapebench.catalog import load_games
from escapebench.games.loading import load_own_text
from escapebench.games.validation import check_paths
from escapebench.generate import (
    GENERATOR_VERSION,
    abstract_reaches_end,
    generate_games,
    prove,
)
from escapebench.generate.make import makes_games_of
from escapebench.generate.proof import naming_problems

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env_path = str(ROOT / "src")
    return subprocess.run(
        [sys.executable, "-c", "import sys; from escapebench.cli import main; sys.exit(main())",
         *args], cwd=cwd, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
    )


def explorer_escapes(defn, folder: Path) -> bool:  # noqa: ANN001
    """Whether the explorer escapes, played by the harness a run uses (hints included)."""
    spec = EpisodeSpec(f"{defn.setting}__explorer", defn, "explorer", "none")
    result = asyncio.run(play_episode(spec, ExplorerAgent(), folder, fsync=False))
    return result.escaped


def test_the_same_tier_count_and_seed_write_byte_identical_files(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        done = cli("generate", "--tier", "2", "--count", "3", "--seed", "7", "--out", str(out),
                   cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        # each game has three versions: the 9 settings a run of them plays are no surprise
        assert f"3 games written to {out}: 9 settings to play (easy, normal and hard of " \
            "each); " in done.stdout
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir()) and len(names) == 4
    for n in names:
        assert (a / n).read_bytes() == (b / n).read_bytes(), n
    other = generate_games(2, 1, 8)[0].text
    assert other != (a / "gen-t2-s7-000.yaml").read_text()


def test_version_10_draws_afresh_and_says_no_older_version_is_made() -> None:
    # sha256 of `escapebench generate --tier T --count 1 --seed 777` (version 10); version 9
    # made version 8's games at tiers 1-3 (9f19dc2645..., 2a73aaffd2...), version 10 does not
    assert generate_games(3, 1, 777)[0].sha256.startswith("26e9940806")
    assert generate_games(2, 1, 777)[0].sha256.startswith("dba642e13e")
    assert makes_games_of(GENERATOR_VERSION, 3) and makes_games_of(GENERATOR_VERSION, 5)
    assert not makes_games_of("9", 3) and not makes_games_of("8", 1)


@pytest.mark.parametrize("tier", [1, 2, 3, 4, 5])
def test_each_tier_passes_check_and_the_explorer_escapes(tier: int, tmp_path: Path) -> None:
    games = generate_games(tier, 2, 100 + tier)
    for g in games:
        path = tmp_path / f"{g.game_id}.yaml"
        path.write_text(g.text)
        reports = check_paths([str(path)])
        assert [r.setting for r in reports if not r.ok or r.warnings] == []
        assert len(reports) == 3
        normal = next(d for d in g.settings if d.difficulty == "normal")
        assert explorer_escapes(normal, tmp_path / g.game_id), g.game_id
    key = [len(g.design.key_steps) for g in games]
    if tier > 1:
        assert min(key) > 8


def test_key_steps_rise_with_the_tier() -> None:
    medians = []
    for tier in range(1, 6):
        # sizes vary per game within a tier, so only medians over many games must rise: of 3
        # games (seed 2) version 10 drew a large tier-4 game; of 9 (seed 1) 9, 16, 28, 42, 58
        ks = sorted(len(g.design.key_steps) for g in generate_games(tier, 9, 1))
        medians.append(ks[4])
    assert medians == sorted(medians) and len(set(medians)) == 5, medians


def test_the_proof_catches_a_planted_shortcut() -> None:
    g = generate_games(3, 1, 4)[0]
    assert prove(g.text, g.design, "x.yaml")[1] == []
    doc = yaml.safe_load(g.text)
    first = doc["scenes"][0]
    # a loose floorboard in the first room that opens the way out at once
    first.setdefault("items", []).append({"position": "Underfoot", "item": {
        "name": "loose floorboard", "states": [{"desc": "A loose floorboard.", "transitions": [
            {"wait_for": ["click"], "trigger": ["change_interact, false"],
             "reward": "A tunnel leads outside. GAME END"}]}]}})
    text = yaml.safe_dump(doc, sort_keys=False)
    normal = next(d for d in load_own_text(text, "planted.yaml") if d.difficulty == "normal")
    assert abstract_reaches_end(normal, [g.design.key_steps[0]])
    problems = prove(text, g.design, "planted.yaml")[1]
    assert any(p.startswith("shortcut:") for p in problems), problems
    # the generator asks only for the first problem (its reject reason): the same one
    head = prove(text, g.design, "planted.yaml", first=True)[1]
    assert head and head == problems[:len(head)] and len(head) < len(problems)


def test_a_gen_spec_loads_in_memory_and_the_run_records_it(tmp_path: Path) -> None:
    defs = load_games(["gen:tier=1,count=2,seed=3"])
    assert sorted(d.setting for d in defs) == sorted(
        f"gen-t1-s3-00{i}{v}" for i in range(2) for v in ("", "-easy", "-hard"))
    out = tmp_path / "run"
    done = cli("run", "--games", "gen:tier=1,count=1,seed=3", "--agent", "explorer",
               "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr + done.stdout
    run = json.loads(next(out.rglob("run.json")).read_text())
    text = json.dumps(run)
    assert "gen:tier=1,count=1,seed=3" in text and '"generator_version"' in text
    assert generate_games(1, 1, 3)[0].sha256 in text


def test_a_bad_gen_spec_is_one_clear_line(tmp_path: Path) -> None:
    done = cli("check", "gen:tier=9,count=1,seed=0", cwd=tmp_path)
    assert done.returncode != 0
    assert "tier must be 1-5" in done.stdout + done.stderr


def test_gym_generated_v0_draws_a_game_per_seed_and_passes_the_checker() -> None:
    gym = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    import escapebench.gym  # noqa: F401  (registers the ids)

    env = gym.make("escapebench/generated-v0", tier=1)
    check_env(env.unwrapped, skip_render_check=True)
    a, _ = env.reset(seed=11)
    b, _ = env.reset(seed=11)
    c, _ = env.reset(seed=12)
    assert a == b and a != c
    env.close()


def test_graph_draws_a_generated_and_a_builtin_game(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    done = cli("generate", "--tier", "1", "--count", "1", "--seed", "2", "--graph", "--out",
               str(tmp_path / "g"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    png = tmp_path / "g" / "gen-t1-s2-000.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    done = cli("generate", "--graph", "--from", "tutorial", "--out", str(tmp_path / "b"),
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "b" / "tutorial.png").stat().st_size > 1000


def test_the_proof_finds_a_shortcut_behind_a_scene_that_opens_later() -> None:
    """A floorboard ending the game in the second scene makes the later steps skippable but
    not the keys of the door to that scene: the proof follows the scene as it opens."""
    g = generate_games(2, 1, 5)[0]
    doc = yaml.safe_load(g.text)
    label, second = next((k, v) for k, v in doc["scenes"][0]["scene_relations"].items()
                         if k.startswith("Through the "))
    door = label.removeprefix("Through the ")
    scene = next(s for s in doc["scenes"] if s["name"] == second)
    scene.setdefault("items", []).append({"position": "Underfoot", "item": {
        "name": "loose floorboard", "states": [{"desc": "A loose floorboard.", "transitions": [
            {"wait_for": ["click"], "trigger": ["change_interact, false"],
             "reward": "A tunnel leads outside. GAME END"}]}]}})
    text = yaml.safe_dump(doc, sort_keys=False)
    normal = next(d for d in load_own_text(text, "planted.yaml") if d.difficulty == "normal")
    skipped = [s for s in g.design.key_steps if abstract_reaches_end(normal, [s])]
    door_keys = [s for s in g.design.key_steps if s.endswith(f", {door})")]
    assert door_keys and not set(door_keys) & set(skipped)
    assert g.design.key_steps[-1] in skipped  # the exit door's last key


def _thing(doc: dict, name: str) -> dict:
    """The item or tool called ``name`` in a game document."""
    return next(e.get("item") or e.get("tool") for s in doc["scenes"]
                for e in [*s.get("items", []), *s.get("tools", [])]
                if (e.get("item") or e.get("tool"))["name"] == name)


def test_a_text_naming_its_solution_below_easy_is_rejected() -> None:
    g = generate_games(3, 1, 6)[0]
    tool, obstacle = next((a, b) for a, b, kind in g.design.edges
                          if kind in ("apply", "creative"))
    for level, rejected in (("easy", False), ("normal", True), ("hard", True)):
        doc = yaml.safe_load(g.text)
        state = _thing(doc, obstacle)["states"][0]
        state["desc"][level] = f"A {obstacle}. Try the {tool} on it."
        problems = prove(yaml.safe_dump(doc, sort_keys=False), g.design, "named.yaml")[1]
        named = [p for p in problems if "naming" in p and repr(tool) in p]
        assert bool(named) == rejected, (level, problems)


def test_a_code_written_out_below_easy_is_rejected() -> None:
    g = generate_games(2, 1, 3)[0]
    step = next(s for s in g.design.key_steps if s.startswith("input("))
    code = step[len("input("):].split(",")[0]
    doc = yaml.safe_load(g.text)
    doc["scenes"][0]["desc"] += f" Someone has scrawled {code} on the wall."
    problems = prove(yaml.safe_dump(doc, sort_keys=False), g.design, "code.yaml")[1]
    assert any("naming" in p and repr(code) in p for p in problems), problems


def test_only_the_easy_version_names_solutions() -> None:
    """Tier 1's easy note states the code (as the paper's easy settings name solutions); the
    normal and hard versions of every tier name none."""
    easy_named = 0
    for tier in range(1, 6):
        for g in generate_games(tier, 2, 40 + tier):
            for d in g.settings:
                if d.difficulty == "easy":
                    easy_named += bool(naming_problems(d))
                else:
                    assert naming_problems(d) == [], (g.game_id, d.difficulty)
    assert easy_named >= 2


def _description_share(games: list) -> float:  # noqa: ANN001
    """The share of distinct normal descriptions, with the locks' signs (a crown, a fox)
    read as one word: keys and locks differ by their signs, which no word variant makes."""
    import escapebench.generate.build as build

    sign = re.compile(r"\b(?:" + "|".join(build.words()["signs"]) + r")\b")
    texts = [sign.sub("sign", st.desc) for g in games for d in g.settings
             if d.difficulty == "normal" for thing in (*d.items, *d.tools) for st in thing.states]
    return len(set(texts)) / len(texts)


def test_most_item_and_tool_descriptions_are_distinct(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 100 tier-1 games (normal version) most descriptions are distinct; with the words
    collapsed to one variant each and no details the share falls below half."""
    assert _description_share(generate_games(1, 100, 9)) >= 0.5
    import escapebench.generate.build as build

    whole = {"link_words", "signs", "mark_places", "promises"}  # data, not sentence variants
    words = {k: v[:1] if isinstance(v, list) and k not in whole else v
             for k, v in build.words().items()}
    words["place_details"] = []  # one detail in all, as before they had a list of their own
    themes = [dict(t, details=[]) for t in build.themes()]
    monkeypatch.setattr(build, "words", lambda: words)
    monkeypatch.setattr(build, "themes", lambda: themes)
    assert _description_share(generate_games(1, 100, 9)) < 0.5


def test_a_check_given_the_written_nodes_reports_what_the_text_check_reports() -> None:
    # the generator hands the checks the YAML nodes it wrote the text from, so the text is
    # not composed again; a file with faults must still get the same issues, lines included
    from escapebench.games.loading import builtin_files
    from escapebench.games.validation import check_definition
    from escapebench.generate.make import render_nodes

    doc = yaml.safe_load(builtin_files()[0].read_text())
    doc["scenes"][0]["visble"] = False  # an unknown key
    doc["scenes"][0]["desc"]["normal"] += " \x1b[2J"  # a control character
    text, nodes = render_nodes(doc)
    nodes.value.append(nodes.value[2])  # a repeated key: "title" twice
    text = yaml.serialize(nodes, Dumper=yaml.SafeDumper, allow_unicode=True, width=100)
    settings = load_own_text(text, "faulty.yaml", doc)
    given = [check_definition(d, text, run_solver=False, nodes=nodes).issues for d in settings]
    plain = [check_definition(d, text, run_solver=False).issues for d in settings]
    assert given == plain
    for issues in plain:
        assert {i.check for i in issues} >= {"unknown key", "duplicate key", "control-character"}
        assert all(i.line for i in issues if i.check != "skipped")
    clean = yaml.safe_load(builtin_files()[0].read_text())
    clean["notes"] = ["", "1", "true", "null", "~", "0x1", "yes", "-", 3, True, None, "é"]
    clean_text, clean_nodes = render_nodes(clean)  # what yaml.dump writes, faster
    assert clean_text == yaml.dump(clean, Dumper=yaml.SafeDumper, sort_keys=False,
                                   allow_unicode=True, width=100)
    d = load_own_text(clean_text, "clean.yaml")[0]
    assert check_definition(d, clean_text, nodes=clean_nodes).issues == []
