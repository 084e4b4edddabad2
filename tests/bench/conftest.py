"""Fixtures of the harness tests: a tiny game written for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.engine.model import GameDefinition
from escapebench.games.loading import load_file

MINI_GAME = Path(__file__).with_name("mini_game.yaml")


@pytest.fixture(scope="session")
def mini_game_file() -> Path:
    """A six-action test game in our format (settings mini-easy, mini, mini-hard)."""
    return MINI_GAME


@pytest.fixture(scope="session")
def mini() -> GameDefinition:
    """The normal version of the test game."""
    return next(d for d in load_file(MINI_GAME) if d.setting == "mini")
