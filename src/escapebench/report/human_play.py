"""One human game for the browser: engine, hint system and metrics, logged like an agent's.

Stand-in until ``escapebench.agents.human.PlaySession`` lands; the server only uses the small
interface below (start, resume, play, ask_hint and the read-only properties).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from escapebench.agents.base import Hint
from escapebench.bench.episode import position_text, read_step_log
from escapebench.bench.hints import HintOptions, HintPolicy
from escapebench.bench.metrics import EpisodeMetrics, EpisodeResult, write_result_json
from escapebench.engine.actions import extract_call, parse_call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.report.runs import RESULT_FILE, STEPS_FILE, safe_slug
from escapebench.report.tables import HUMAN_AGENT

HUMAN_MAX_STEPS = 4000


def human_episode_id(setting: str, player: str, repeat: int) -> str:
    """``<setting>__human__<player slug>__r<repeat>``: the shared episode-id form."""
    return f"{setting}__{HUMAN_AGENT}__{safe_slug(player.lower())}__r{repeat}"


class HumanGame:
    """A human's play-through of one setting, saved after every step."""

    def __init__(self, defn: GameDefinition, folder: Path, player: str, repeat: int,
                 options: HintOptions) -> None:
        self.defn = defn
        self.folder = folder
        self.player = player
        self.repeat = repeat
        self.game = EscapeGame(defn)
        self.policy = HintPolicy(defn, options)
        self.metrics = EpisodeMetrics(defn, self.policy.effects)
        self.steps = 0
        self.log: list[dict[str, Any]] = []
        self.hint: Hint | None = None
        self.finished = (folder / RESULT_FILE).is_file()

    # ------------------------------------------------------------------ life cycle
    @classmethod
    def start(cls, defn: GameDefinition, folder: Path, player: str, repeat: int,
              options: HintOptions) -> HumanGame:
        folder.mkdir(parents=True, exist_ok=False)
        (folder / STEPS_FILE).touch()
        (folder / "player.json").write_text(
            json.dumps({"player": player, "repeat": repeat, "setting": defn.setting}),
            encoding="utf-8",
        )
        game = cls(defn, folder, player, repeat, options)
        game.hint = game.policy.before_step(game.game)
        return game

    @classmethod
    def resume(cls, defn: GameDefinition, folder: Path, options: HintOptions) -> HumanGame:
        meta = json.loads((folder / "player.json").read_text(encoding="utf-8"))
        game = cls(defn, folder, str(meta["player"]), int(meta["repeat"]), options)
        for rec in read_step_log(folder / STEPS_FILE):
            game.policy.before_step(game.game)
            if rec.get("hint") is not None and game.policy.hint is None:
                game.ask_hint()  # the player asked for this hint before patience ran out
            result = (
                StepResult(str(rec.get("action", "")), False, True, "")
                if rec.get("error") else game.game.step(str(rec["action"]))
            )
            game.policy.after_step(game.game, result)
            game.metrics.add(rec)
            game.steps += 1
            game.log.append(_log_entry(rec))
        game.hint = game.policy.before_step(game.game)
        return game

    # ------------------------------------------------------------------ play
    @property
    def position(self) -> str:
        return position_text(self.game)

    @property
    def hints_used(self) -> int:
        return len(self.metrics.hints)

    @property
    def forced_next(self) -> bool:
        return self.policy.forced_action() is not None

    def ask_hint(self) -> None:
        """Start a hint now, as if patience had run out."""
        if self.policy.hint is None:
            self.policy.no_progress = max(self.policy.no_progress, self.policy.options.patience)
        self.hint = self.policy.before_step(self.game)

    def play(self, text: str) -> StepResult:
        hint = self.policy.before_step(self.game)
        forced = self.policy.forced_action()
        position, scene = self.position, self.game.scene_name
        observation = self.game.observation()
        action = forced or text
        call = parse_call(action) or extract_call(action)
        result = self.game.step(call if call is not None else action)
        outcome = self.policy.after_step(self.game, result)
        record = {
            "step": self.steps, "position": position, "scene": scene,
            "observation": observation, "action": result.action if call else "",
            "raw_answer": text, "reasoning": "", "feedback": result.feedback,
            "success": result.success, "error": result.error,
            "events": [{"kind": e.kind, "name": e.name} for e in result.events],
            "key_steps": self.game.key_steps, "tools_collected": self.game.tools_collected,
            "progress": self.game.progress, "progressed": result.progressed,
            "game_end": result.game_end,
            "hint": None if hint is None else {
                "action": hint.action, "scene": hint.scene, "index": hint.index,
                "steps_in_help": hint.steps_in_help, "forced": forced is not None,
            },
            "hint_done": "completed" if outcome.completed is not None else (
                "skipped" if outcome.skipped is not None else None),
            "mode": "help" if hint else "free explore", "calls": [],
            "agent": {"player": self.player}, "agent_state": {},
            "hint_state": self.policy.snapshot(), "wall_s": 0.0,
        }
        with (self.folder / STEPS_FILE).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.metrics.add(record)
        self.steps += 1
        self.log.append(_log_entry(record))
        if self.game.ended or self.steps >= HUMAN_MAX_STEPS:
            self._finish()
        else:
            self.hint = self.policy.before_step(self.game)
        return result

    def _finish(self) -> EpisodeResult:
        result = self.metrics.result(
            episode_id=self.folder.name, agent=HUMAN_AGENT, model=HUMAN_AGENT,
            repeat=self.repeat, prompt_version="", max_steps=HUMAN_MAX_STEPS,
            player=self.player,
        )
        write_result_json(self.folder / RESULT_FILE, result)
        self.finished = True
        self.hint = None
        return result


def _log_entry(rec: dict[str, Any]) -> dict[str, Any]:
    hint = rec.get("hint") or {}
    return {
        "step": rec["step"], "action": rec.get("action", ""), "feedback": rec.get("feedback", ""),
        "success": bool(rec.get("success")), "error": bool(rec.get("error")),
        "forced": bool(hint.get("forced")),
    }


def write_human_tables(data_dir: Path) -> None:
    """Rewrite ``results.csv`` and the summaries of the data folder from its results."""
    from escapebench.bench.runner import collect_results, write_tables

    write_tables(data_dir, collect_results(data_dir))
