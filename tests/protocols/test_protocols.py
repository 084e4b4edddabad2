"""Choosing a protocol, the escapebench protocol's information, and the original checkout."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.engine.env import EscapeGame
from escapebench.games.loading import load_file
from escapebench.protocols import OriginalSourceError, default_protocol_name, make_protocol
from escapebench.protocols.original.source import OriginalSource

MINI = Path(__file__).resolve().parents[1] / "bench" / "mini_game.yaml"


def test_escapebench_feedback_says_success_and_a_wrong_tool_or_input() -> None:
    defn = next(d for d in load_file(MINI) if d.setting == "mini")
    game = EscapeGame(defn)
    session = make_protocol("escapebench").session(defn)
    for action in ("move(study)", "click(drawer)", "click(knife)", "move(hall)"):
        session.play(game, action)
    wrong_tool = session.play(game, "apply(knife, door)")
    assert not wrong_tool.success and "door needs a tool, but not this one" in wrong_tool.feedback
    wrong_input = session.play(game, "Action: input(41, door)")
    assert "door takes an input, but not this one" in wrong_input.feedback
    no_input_wanted = session.play(game, "input(41, box)")
    assert "takes an input" not in no_input_wanted.feedback
    opened = session.play(game, "apply(knife, box)")
    assert opened.success and opened.feedback.startswith("It worked.")


def test_the_default_protocol_follows_where_the_games_come_from(tmp_path: Path) -> None:
    assert default_protocol_name([str(MINI)]) == "escapebench"
    checkout = tmp_path / "EscapeBench"
    (checkout / "src" / "env").mkdir(parents=True)
    (checkout / "src" / "instruction.py").write_text("X = 1\n")
    (checkout / "data").mkdir()
    game = checkout / "data" / "game9-9.yaml"
    game.write_text("- name: a\n  desc: b\n")
    assert default_protocol_name([str(game)]) == "original"
    assert default_protocol_name([str(checkout / "data")]) == "original"


def test_the_original_protocol_without_a_checkout_is_one_line_saying_what_to_pass(
    tmp_path: Path, capsys
) -> None:
    with pytest.raises(OriginalSourceError, match="--original-source"):
        make_protocol("original", [str(MINI)])
    code = cli_main(["run", "--protocol", "original", "--games", str(MINI), "--out",
                     str(tmp_path / "run"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--original-source DIR" in err[0]
    assert not (tmp_path / "run").exists()  # nothing was played


def test_a_checkout_is_read_never_run_and_every_file_is_hashed(
    upstream_dir: Path, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    shutil.copytree(upstream_dir / "original" / "src", src)
    # A statement that would leave a mark if the file were imported or executed.
    marker = tmp_path / "executed"
    with (src / "instruction.py").open("a") as f:
        f.write(f"\nopen({str(marker)!r}, 'w').write('ran')\n")
    source = OriginalSource(src)
    protocol = make_protocol("original", [], original_source=src)
    assert protocol.action_system_prompt()  # the texts were read...
    assert not marker.exists()  # ...without running a line of the checkout
    assert set(source.files) >= {"instruction.py", "agent_base.py", "utils.py", "env/item.py"}
    (src / "env" / "item.py").unlink()
    with pytest.raises(OriginalSourceError, match="env/item.py"):
        OriginalSource(src)
