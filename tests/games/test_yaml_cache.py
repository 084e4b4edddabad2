"""The parsed-YAML cache makes loads fast and never serves a stale or damaged game."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.games.loading import GameFileError, load_file
from escapebench.games.yaml_reader import CACHE_ENV, yaml_cache_dir
from tests.games.shed import write_shed


@pytest.fixture()
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder


def test_second_load_comes_from_the_cache_and_is_the_same_game(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = write_shed(tmp_path)
    (first,) = load_file(path)
    entries = list(cache_dir.glob("*.json"))
    assert len(entries) == 1
    (second,) = load_file(path)
    assert second == first
    assert second.reference == first.reference


def test_an_edited_file_is_read_again(tmp_path: Path, cache_dir: Path) -> None:
    path = write_shed(tmp_path)
    load_file(path)
    write_shed(tmp_path, "title: The Garden Shed", "title: The Tool Shed")
    (defn,) = load_file(path)
    assert defn.title == "The Tool Shed"
    assert len(list(cache_dir.glob("*.json"))) == 2


def test_a_damaged_entry_is_ignored(tmp_path: Path, cache_dir: Path) -> None:
    path = write_shed(tmp_path)
    (good,) = load_file(path)
    (entry,) = cache_dir.glob("*.json")
    entry.write_text('{"truncated": ')
    (again,) = load_file(path)
    assert again == good


def test_broken_yaml_is_never_cached_and_still_reported(tmp_path: Path, cache_dir: Path) -> None:
    path = write_shed(tmp_path, 'wait_for: ["input, 42"]', 'wait_for: ["input, 42"')
    for _ in range(2):
        with pytest.raises(GameFileError, match="invalid YAML"):
            load_file(path)
    assert not list(cache_dir.glob("*.json"))


def test_values_json_cannot_hold_are_not_cached(tmp_path: Path, cache_dir: Path) -> None:
    # A date is not JSON: the file is parsed each time, and still loads.
    path = write_shed(tmp_path, "title: The Garden Shed", "title: x\nnotes: 2024-01-02")
    for _ in range(2):
        (defn,) = load_file(path)
        assert defn.notes == "2024-01-02"
    assert not list(cache_dir.glob("*.json"))


@pytest.mark.parametrize("value", ["off", "0", ""])
def test_cache_can_be_turned_off(tmp_path: Path, monkeypatch, value: str) -> None:
    monkeypatch.setenv(CACHE_ENV, value)
    assert yaml_cache_dir() is None
    (defn,) = load_file(write_shed(tmp_path))
    assert defn.setting == "shed"


def test_unwritable_cache_only_costs_speed(tmp_path: Path, monkeypatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv(CACHE_ENV, str(blocker / "cache"))
    (defn,) = load_file(write_shed(tmp_path))
    assert defn.setting == "shed"
