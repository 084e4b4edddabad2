"""``escapebench merge`` explains which folder differs from which, and on what setting."""

from __future__ import annotations

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE


def test_merge_names_both_folders_and_the_differing_setting(tmp_path, capsys, mini_game_file):
    explorer, rand = tmp_path / "explorer", tmp_path / "random"
    for agent, out in (("explorer", explorer), ("random", rand)):
        assert cli_main(["run", "--agent", agent, "--games", str(mini_game_file),
                         "--difficulty", "easy", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    code = cli_main(["merge", str(explorer), str(rand), "--out", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE and "Traceback" not in err
    assert f"cannot merge {rand} with {explorer}" in err
    assert f"agent: 'random' in {rand}, 'explorer' in {explorer}" in err
    assert "'explorer' now" not in err and "in the folder" not in err
    assert not (tmp_path / "m").exists()
