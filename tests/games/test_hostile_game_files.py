"""Hostile game files: YAML aliases ("billion laughs", a list containing itself), deep nesting,
oversized files, damaged reference logs and absurd numbers each get one clear error naming the
file and line, from loading, from ``check`` and from ``run``; nothing hangs, nothing is
expanded in memory, nothing raises anything but a :class:`GameFileError`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_USAGE
from escapebench.games import checks, issues
from escapebench.games.loading import (
    BUILTIN_DIR,
    GameFileError,
    load_file,
)
from escapebench.games.validation import check_file
from escapebench.games.yaml_reader import (
    MAX_GAME_FILE_BYTES,
    MAX_YAML_DEPTH,
    RefusedYAML,
    load_yaml_text,
)
from tests.conftest import SHARED
from tests.support.hostile_inputs import mutated_game_files

TUTORIAL = (BUILTIN_DIR / "tutorial.yaml").read_text(encoding="utf-8")


def billion_laughs(levels: int = 25) -> str:
    lines = ["escapebench: 1", "id: bomb", "a: &a [x, x, x, x, x, x, x, x, x]"]
    prev = "a"
    for i in range(1, levels):
        lines.append(f"b{i}: &b{i} [" + ", ".join([f"*{prev}"] * 9) + "]")
        prev = f"b{i}"
    return "\n".join(lines) + "\n"


HOSTILE = {
    # 9 ** 25 lists of x: every expansion of it would take all memory for ever
    "billion laughs": (billion_laughs(), 3, "anchors and aliases are not allowed"),
    "recursive alias": (TUTORIAL + "extra: &r [*r]\n", TUTORIAL.count("\n") + 1,
                        "anchors and aliases are not allowed"),
    "recursive mapping": (TUTORIAL + "extra: &r {a: *r}\n", TUTORIAL.count("\n") + 1,
                          "anchors and aliases are not allowed"),
    "deep flow nesting": (TUTORIAL + "deep: " + "[" * 200_000 + "]" * 200_000 + "\n",
                          TUTORIAL.count("\n") + 1, f"nested more than {MAX_YAML_DEPTH} levels"),
    "deep block nesting": (TUTORIAL + "".join("  " * i + f"k{i}:\n" for i in range(80)) + "x\n",
                           None, f"nested more than {MAX_YAML_DEPTH} levels"),
    "alias after an integer key": ("escapebench: 1\n1: t\nx: &y [1]\nz: *y\n", 3,
                                   "anchors and aliases are not allowed"),
    "explicit tag": ("escapebench: !!int 1\nid: t\n", 1, "explicit YAML tags are not allowed"),
    "long number": ("escapebench: 1\nid: t\nx: " + "1" * 4300 + "\n", 3, "put it in quotes"),
}


def write(tmp_path: Path, text: str, name: str = "hostile.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_loading_a_hostile_file_is_one_line_naming_file_and_line(tmp_path: Path, kind: str):
    text, line, says = HOSTILE[kind]
    path = write(tmp_path, text)
    with pytest.raises(GameFileError) as caught:
        load_file(path)
    message = str(caught.value)
    assert says in message and "\n" not in message
    assert message.startswith(f"{path}:")
    if line is not None:
        assert caught.value.line == line


@pytest.mark.parametrize("kind", ["billion laughs", "recursive alias"])
def test_check_and_run_give_one_line_for_the_bomb_and_the_recursive_alias(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, HOSTILE[kind][0])
    assert cli_main(["check", str(path)]) == 1
    out = capsys.readouterr()
    errors = [x for x in (out.out + out.err).splitlines() if ": error:" in x]
    assert len(errors) == 1 and "anchors and aliases are not allowed" in errors[0]
    assert "Traceback" not in out.out + out.err

    code = cli_main(["run", "--games", str(path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert err.strip().count("\n") == 0 and "anchors and aliases are not allowed" in err
    assert not (tmp_path / "out").exists()


def test_a_file_over_the_size_limit_is_refused_without_reading_it_all(tmp_path: Path):
    path = write(tmp_path, TUTORIAL + "#" + "x" * MAX_GAME_FILE_BYTES + "\n")
    with pytest.raises(GameFileError, match="larger than 1024 KiB"):
        load_file(path)
    (report,) = check_file(path)
    assert [i.check for i in report.errors] == ["load"]


def test_a_fifo_named_as_a_game_file_is_not_read_for_ever(tmp_path: Path) -> None:
    """A pipe or a device is never opened (a FIFO without a writer would block the open, and
    /dev/zero never ends): it is named as what it is."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.yaml"
    zero.symlink_to("/dev/zero")
    with pytest.raises(GameFileError, match="not a regular file: a FIFO"):
        load_file(fifo)
    with pytest.raises(GameFileError, match="not a regular file: a link to a character device"):
        load_file(zero)


def test_the_cache_never_holds_a_refused_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ESCAPEBENCH_GAME_CACHE", str(tmp_path / "cache"))
    path = write(tmp_path, HOSTILE["recursive alias"][0])
    for _ in range(2):  # the second time would be a cache hit if the first had been stored
        with pytest.raises(GameFileError, match="aliases"):
            load_file(path)
    assert not list((tmp_path / "cache").glob("*.json"))


def test_a_deeply_nested_reference_log_is_a_game_file_error(tmp_path: Path, upstream_dir):
    shutil.copy(upstream_dir / "data" / "game1-1.yaml", tmp_path / "game1-1.yaml")
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "key_log_1-1.txt").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(GameFileError, match="nested too deeply") as caught:
        load_file(tmp_path / "game1-1.yaml")
    assert "key_log_1-1.txt" in str(caught.value)


@pytest.mark.parametrize("value", ["9" * 4301, "0" * 5000 + "1", "²", "①"])
def test_an_absurd_state_number_is_a_game_file_error(tmp_path: Path, value: str) -> None:
    text = TUTORIAL.replace("change_state, 1", f"change_state, {value}", 1)
    assert text != TUTORIAL
    with pytest.raises(GameFileError, match="change_state needs a state number"):
        load_file(write(tmp_path, text))


def test_the_repeated_key_walk_survives_a_node_graph_with_a_cycle() -> None:
    """The walk is over composed nodes, where an alias is a shared node: it visits each once
    (the loader refuses aliases first, but the walk must not depend on that)."""
    locator = issues._Locator("cycle.yaml", "a: &r [*r, {k: 1, k: 2}]\nb: *r\n")
    checker = checks._StaticChecker.__new__(checks._StaticChecker)
    checker.loc, checker.issues = locator, []
    checker.check_repeated_keys()
    assert [i.check for i in checker.issues] == ["duplicate key"]


# ------------------------------------------------------------------ properties
_FRAGMENTS = st.sampled_from([
    "a", "b: ", "- ", "  ", "\n", "[", "]", "{", "}", ", ", "&x ", "*x", "&y ", "*y", "<<: ",
    "!!str ", "!!python/object:os.system ", "? ", ": ", "'", '"', "|\n", "---\n", "...\n",
    "%YAML 1.1\n", "#c", "1", "²", "~", "true", "\t", "@", "`",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40).map("".join))
def test_reading_any_yaml_refuses_aliases_or_matches_pyyaml(text: str) -> None:
    """Property: the reader returns PyYAML's value for alias-free YAML, and refuses (with a
    place) anything holding an anchor or alias; it raises nothing else."""
    try:
        value = load_yaml_text(text)
    except RefusedYAML as exc:
        assert exc.mark is not None
        return
    except yaml.YAMLError:
        return
    assert repr(value) == repr(yaml.load(text, Loader=yaml.CSafeLoader))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_FRAGMENTS, max_size=30).map("".join), st.integers(0, TUTORIAL.count("\n")))
def test_any_fragment_in_a_game_file_is_a_game_file_error_or_a_game(
    tmp_path: Path, fragment: str, line: int
) -> None:
    lines = TUTORIAL.split("\n")
    text = "\n".join([*lines[:line], fragment, *lines[line:]])
    path = tmp_path / "fragment.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        load_file(path)
    except GameFileError as exc:
        assert "\n" not in str(exc)


def test_a_sample_of_mutated_game_files_checks_without_an_exception(
    tmp_path: Path, monkeypatch
) -> None:
    """40 of the generator's mutated files (``benchmarks/hostile.py games`` runs 1,000):
    check_file reports on each, and loading raises GameFileError only. Drawn from the built-in
    games alone, so the sample is the same whether or not ../shared lies beside the repo."""
    monkeypatch.setenv("ESCAPEBENCH_GAME_CACHE", str(tmp_path / "cache"))
    _check_mutated(mutated_game_files(40, seed=1, out=tmp_path / "files", shared=None))


def test_a_sample_of_mutated_original_game_files_checks_without_an_exception(
    tmp_path: Path, monkeypatch
) -> None:
    """The same over the original data's files too (skipped without ../shared)."""
    if not (SHARED / "upstream" / "data").is_dir():
        pytest.skip("the original EscapeBench data (../shared) is not here")
    monkeypatch.setenv("ESCAPEBENCH_GAME_CACHE", str(tmp_path / "cache"))
    _check_mutated(mutated_game_files(40, seed=1, out=tmp_path / "files", shared=SHARED))


def _check_mutated(cases: list) -> None:
    for case in cases:
        reports = check_file(case.path, run_solver=False)
        assert reports, case.kind
        try:
            load_file(case.path)
        except GameFileError as exc:
            assert "\n" not in str(exc), case.kind
