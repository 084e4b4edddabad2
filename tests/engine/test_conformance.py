"""Our engine must reach the original engine's state after every step of its traces: those of
the original files (conformance/) and of their lenient-format mutants (mutants/, which rely on
the original's reading rules: commas, boolean spellings, states past the last)."""

from __future__ import annotations

import json

import pytest

from escapebench.engine import EscapeGame
from escapebench.games.loading import load_file
from escapebench.protocols.escapebench.feedback import feedback_text
from tests.conftest import UPSTREAM

TRACES = sorted((UPSTREAM / "conformance").glob("*/*.json")) if UPSTREAM.is_dir() else []
MUTANT_TRACES = (
    sorted((UPSTREAM / "mutants").glob("*/*.json")) if (UPSTREAM / "mutants").is_dir() else []
)
MUTANT_TRACES = [p for p in MUTANT_TRACES if p.parent.name in ("golden", "fuzz")]


def _trace_id(path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.skipif(not TRACES, reason=f"original traces not present at {UPSTREAM}")
@pytest.mark.parametrize("trace_path", TRACES, ids=_trace_id)
def test_trace_matches_original_engine(trace_path) -> None:
    _replay_trace(trace_path, UPSTREAM / "data")


@pytest.mark.skipif(not MUTANT_TRACES, reason=f"mutant traces not present at {UPSTREAM}")
@pytest.mark.parametrize("trace_path", MUTANT_TRACES, ids=_trace_id)
def test_mutant_trace_matches_original_engine(trace_path) -> None:
    _replay_trace(trace_path, UPSTREAM / "mutants" / "data")


def _replay_trace(trace_path, data_dir) -> None:
    trace = json.loads(trace_path.read_text())
    setting = trace["setting"]
    (defn,) = load_file(data_dir / f"{setting}.yaml")
    if "total_key_steps" in trace:
        assert defn.total_key_steps == trace["total_key_steps"]
        assert defn.total_tools == trace["total_tools"]
        assert defn.start_scene == trace["initial_scene"]
    game = EscapeGame(defn)
    for step in trace["steps"]:
        if step["teleport_to"]:
            game.teleport(step["teleport_to"])
        result = game.step(step["action"])
        where = f"{setting} step {step['index']} {step['action']!r}"
        assert game.state_dict() == step["state"], where
        assert (result.success, result.error, result.game_end) == (
            step["success"],
            step["error"],
            step["game_end"],
        ), where
        if step["error"]:
            assert feedback_text(result.outcome), where  # a rejected action always says why
    if trace_path.parent.name == "golden" and data_dir == UPSTREAM / "data":
        # (a mutant's chain may stop short: a changed boolean can hide what it needs)
        assert game.ended and game.progress == 1.0
