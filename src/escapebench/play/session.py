"""A person playing a game: the session logic shared by terminal play and the browser play page.

:class:`PlaySession` wraps an :class:`~escapebench.engine.env.EscapeGame` and the hint system
(:class:`~escapebench.bench.hints.HintPolicy`, the same rules as for agents: a hint after 50
steps without progress, the hinted action played for the person after 10 steps in help). It
takes commands as a person types or clicks them::

    session = PlaySession(defn, player="ada")
    session.view()                    # JSON-able: numbered things, exits and bag, hint, score
    session.act("click 2")            # numbers refer to the lists of the view ...
    session.act("apply(1, 3)")        # ... bag tool 1 applied to thing 3
    session.act("click(drawer)")      # names work too
    session.request_hint()            # the next reference action (counted as a hint)
    data = session.save()             # JSON: engine snapshot + hint state + steps so far
    session = PlaySession.from_save(defn, data)   # with the save's player, hints, step limit
    session.write_result(Path("runs/human"))   # the shared result-folder layout, agent "human"

**Numbering.** Things in the scene (visible items, then tools lying there), exits and the tools
in the bag are numbered from 1 in the order the observation lists them; how a typed command
with numbers becomes an action string is :mod:`escapebench.play.commands`.

**What counts as a step.** One rule for people and models: every action string the game is
given is a step, successful or not, exactly as an agent's answer is; so an action naming
something not on screen (``click(unicorn)``) is a step with the game's feedback, for a person as
for a model. Only what is not an action string at all costs no step and plays nothing: a
command that cannot be read, or a number of the on-screen lists that is out of range (the
numbering is the play screen's, not the game's).

**Requested hints.** ``hint`` starts the hint the hint system would start after its patience
runs out: the person is put in the scene of the next reference action and told the action.
Asking again while a hint is in force repeats it without counting it twice.

**Saves keep their settings.** A save carries the player, the hint options and the step limit
the game was started with, and loading it brings them back: a game's hint and step counts are
only comparable with others under the settings it was played with. A save written after the
game ended says so (``ended``) and names the episode folder of its result (``result``) once
that is written; :meth:`PlaySession.write_result` of such a loaded game writes nothing again.
The save files are :mod:`escapebench.play.saves`, the result folder
:mod:`escapebench.play.human_result`.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escapebench.agents.base import Decision
from escapebench.agents.screen import Screen, read_screen
from escapebench.bench import (
    DEFAULT_MAX_STEPS,
    CountMetrics,
    EpisodeMetrics,
    EpisodeResult,
    EscapeEnv,
    HintOptions,
    HintPolicy,
    HintSystem,
    KeepRecords,
    ReferenceEffect,
    RunPlan,
    StepLimit,
    StepRecord,
)
from escapebench.engine.actions import parse_call
from escapebench.engine.env import EscapeGame
from escapebench.engine.model import GameDefinition
from escapebench.play.commands import numbered_things, resolve_command
from escapebench.play.errors import PlayError
from escapebench.play.human_result import (
    HUMAN_AGENT,
    HUMAN_MODEL,
    check_result_folder,
    human_run_plan,
    write_human_episode,
)
from escapebench.play.saves import (
    SAVE_FORMAT,
    SAVE_VERSION,
    read_save_file,
    restore_game,
    save_target,
    write_save_file,
)
from escapebench.protocols.base import PromptProtocol, Session
from escapebench.protocols.escapebench import EscapebenchProtocol
from escapebench.terminal import counted

FORCED_FEEDBACK_PREFIX = "The hint system did it for you"


@dataclass(frozen=True)
class Turn:
    """What one played step did, as shown to the person."""

    step: int  # 0-based index of the step
    command: str  # what the person typed ("" for a forced step)
    action: str  # the canonical action played
    feedback: str
    success: bool
    error: bool
    progressed: bool
    game_end: bool
    forced: bool = False  # played by the hint system after the help period

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Score:
    """The numbers shown at the end of a game."""

    steps: int
    hints: int
    progress: float
    escaped: bool
    key_steps: int
    tools_collected: int
    total_key_steps: int
    total_tools: int

    def line(self) -> str:
        """One line for the person: steps, hints, progress."""
        head = "Escaped" if self.escaped else "Stopped"
        return (
            f"{head} after {counted(self.steps, 'step')} with {counted(self.hints, 'hint')}; "
            f"progress {self.progress:.0%} "
            f"({self.key_steps}/{self.total_key_steps} key steps, "
            f"{self.tools_collected}/{self.total_tools} tools)"
        )


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


MAX_PLAYER_LENGTH = 40
_PLAYER_NAME = re.compile(rf"[A-Za-z0-9 _.\-]{{1,{MAX_PLAYER_LENGTH}}}")


def player_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's name, or None. Names go into result files, tables and
    pages, so they are short and plain (the browser and the terminal apply the same rule)."""
    if _PLAYER_NAME.fullmatch(name):
        return None
    return (f"a player name is 1-{MAX_PLAYER_LENGTH} letters, digits, spaces, '_', '.' or "
            f"'-', not {name[:MAX_PLAYER_LENGTH + 10]!r}")


class PlaySession:
    """One person's play-through of one setting (see the module docstring)."""

    def __init__(
        self,
        defn: GameDefinition,
        *,
        player: str = "anonymous",
        hints: HintOptions | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        effects: tuple[ReferenceEffect, ...] | None = None,
        protocol: PromptProtocol | None = None,
    ) -> None:
        self.defn = defn
        self.protocol = protocol or EscapebenchProtocol()
        self.player = player.strip() or "anonymous"
        self._loop(hints, max_steps, effects)
        self.last_feedback = ""
        self.started = _now()
        self.saved_at_step: int | None = None  # step count of the last save, if any
        self.written: Path | None = None  # the episode folder, once the result is written
        self._clock = time.monotonic()

    def _loop(self, hints: HintOptions | None, max_steps: int,
              effects: tuple[ReferenceEffect, ...] | None) -> None:
        """The turn loop of the play (:mod:`escapebench.bench.loop`): the engine within the
        step limit, the hint system, the metrics and the records kept."""
        self.limit = StepLimit(EscapeEnv(self.defn, self.protocol), max_steps)
        self.hints = HintSystem(self.limit, hints, effects=effects)
        self.counter = CountMetrics(self.hints, self.hints.effects)
        self.env = KeepRecords(self.counter)

    @property
    def game(self) -> EscapeGame:
        return self.env.game

    @property
    def protocol_session(self) -> Session:
        """The protocol's session: the observation and feedback the person reads."""
        return self.env.unwrapped.session

    @property
    def policy(self) -> HintPolicy:
        return self.hints.policy

    @property
    def metrics(self) -> EpisodeMetrics:
        return self.counter.metrics

    @property
    def records(self) -> list[StepRecord]:
        return self.env.records

    @property
    def max_steps(self) -> int:
        return self.limit.max_steps

    # ------------------------------------------------------------------ state
    @property
    def step(self) -> int:
        """Steps played so far."""
        return self.env.steps

    @property
    def ended(self) -> bool:
        """The game is over: escaped, or the step limit is reached."""
        return self.env.ended

    @property
    def hints_used(self) -> int:
        return self.policy.hints_started

    def screen(self) -> Screen:
        """What is on screen now (the numbered lists are built from it)."""
        return read_screen(self.game)

    def things(self, screen: Screen | None = None) -> list[str]:
        """Names of the numbered things here: visible items, then tools lying here."""
        return numbered_things(screen or self.screen())

    def score(self) -> Score:
        g, d = self.game, self.defn
        return Score(
            steps=self.step,
            hints=self.hints_used,
            progress=g.progress,
            escaped=g.ended,
            key_steps=g.key_steps,
            tools_collected=g.tools_collected,
            total_key_steps=d.total_key_steps,
            total_tools=d.total_tools,
        )

    def as_shown(self, action: str) -> str:
        """A reference action with each tool named as the bag shows it now: a crafted tool
        goes by its product's name ("apply(magnet on a string, glass maze box)", where the
        reference says "apply(string, ...)"; the game takes either)."""
        call = parse_call(action)
        if call is None or call.verb not in ("apply", "craft"):
            return action
        args = [a.strip() for a in call.arg_text.split(",")]
        tools = 2 if call.verb == "craft" else 1
        index = self.defn.tool_index
        shown = [self.game.tool_name(index[a]) if a in index else a for a in args[:tools]]
        return f"{call.verb}({', '.join(shown + args[tools:])})"

    def hint_info(self) -> dict[str, Any] | None:
        """The hint in force, with the path to its scene, or None."""
        hint = self.env.turn.hint
        if hint is None:
            return None
        effect = self.policy.effects[hint.index]
        return {
            "action": self.as_shown(hint.action),
            "scene": hint.scene,
            "path": " -> ".join(effect.path),
            "index": hint.index,
            "steps_in_help": hint.steps_in_help,
            "help_steps": self.policy.options.help_steps,
        }

    def view(self) -> dict[str, Any]:
        """Everything a play page shows, as JSON-able data (numbers are 1-based)."""
        screen = self.screen()
        things = [
            {"n": n, "name": i.name, "desc": i.desc, "kind": "item", "interactable": i.interactable}
            for n, i in enumerate(screen.items, 1)
        ]
        things += [
            {"n": n, "name": t.name, "desc": t.desc, "kind": "tool", "interactable": True}
            for n, t in enumerate(screen.scene_tools, len(things) + 1)
        ]
        score = self.score()
        return {
            "setting": self.defn.setting,
            "title": self.defn.title,
            "difficulty": self.defn.difficulty,
            "player": self.player,
            "scene": screen.scene,
            "description": screen.desc,
            "position": self.env.turn.position,
            "things": things,
            "exits": [
                {"n": n, "label": e.label, "target": e.target}
                for n, e in enumerate(screen.exits, 1)
            ],
            "bag": [
                {"n": n, "name": t.name, "desc": t.desc} for n, t in enumerate(screen.bag, 1)
            ],
            "observation": self.env.turn.observation,
            "feedback": self.last_feedback,
            "hint": self.hint_info(),
            "step": score.steps,
            "max_steps": self.max_steps,
            "hints_used": score.hints,
            "progress": score.progress,
            "key_steps": score.key_steps,
            "tools_collected": score.tools_collected,
            "total_key_steps": score.total_key_steps,
            "total_tools": score.total_tools,
            "ended": self.ended,
            "escaped": self.game.ended,
        }

    # ------------------------------------------------------------------ commands
    def resolve_command(self, command: str) -> str:
        """Turn a typed command into an action string with names (numbers replaced).

        Raises :class:`PlayError` when the command cannot be read or a number is out of range.
        """
        return resolve_command(command, self.screen())

    def act(self, command: str) -> list[Turn]:
        """Play a typed or clicked command: the person's step, then any step the hint system
        plays for them. Raises :class:`PlayError` (and plays nothing) for a command that is
        not an action (see "What counts as a step"); an action the game rejects, such as one
        naming nothing on screen, is a step with the game's feedback, as for a model."""
        if self.ended:
            raise PlayError("the game is over")
        action = self.resolve_command(command)
        turns = [self._play(action, command, forced=False)]
        turns += self._play_forced()
        return turns

    def request_hint(self) -> dict[str, Any] | None:
        """Start the next hint now (counted), or repeat the one in force.

        Returns :meth:`hint_info`, or None when the reference chain has nothing left.
        """
        self.hints.request()
        return self.hint_info()

    def _play(self, action: str, command: str, *, forced: bool) -> Turn:
        now = time.monotonic()
        wall = 0.0 if forced else now - self._clock
        self._clock = now
        # What the person did, in the terms of an agent's decision (no model, no reasoning).
        decision = Decision(
            action, raw_answer=command,
            mode="help" if self.env.turn.hint is not None else "free explore",
            notes={"player": self.player},
        )
        record = self.env.step_now(decision, wall_s=round(wall, 3), forced=forced)
        feedback = record.feedback
        if forced:
            feedback = f"{FORCED_FEEDBACK_PREFIX}: {record.action}. {feedback}"
        self.last_feedback = feedback
        return Turn(
            record.step, command, record.action, feedback, record.success, record.error,
            record.progressed, record.game_end, forced,
        )

    def _play_forced(self) -> list[Turn]:
        turns = []
        while not self.ended:
            forced = self.env.turn.forced
            if forced is None:
                break
            turns.append(self._play(forced, "", forced=True))
        return turns

    # ------------------------------------------------------------------ save / load
    def save(self) -> dict[str, Any]:
        """The whole session as JSON-able data (engine, hint system, steps so far)."""
        self.saved_at_step = self.step
        turn = self.env.turn  # the upcoming step, prepared (its hint and the protocol's start)
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "setting": self.defn.setting,
            "source": self.defn.source,
            "player": self.player,
            "max_steps": self.max_steps,
            "hints": {
                "patience": self.policy.options.patience,
                "help_steps": self.policy.options.help_steps,
            },
            "started": self.started,
            "saved": _now(),
            "ended": self.ended,
            # The episode folder once the result is written: the game is not to be played on.
            "result": str(self.written) if self.written is not None else None,
            "step": self.step,
            "engine": self.game.snapshot(),
            "hint_state": self.policy.snapshot(),
            "protocol": self.protocol.label,
            "protocol_state": self.protocol_session.snapshot(),
            "pending_hint": turn.hint is not None,
            "last_feedback": self.last_feedback,
            "records": [r.to_json() for r in self.records],
        }

    def save_file(self, path: str | Path) -> Path:
        """Write :meth:`save` to ``path`` (atomically); return the path."""
        return write_save_file(save_target(path), self.save())

    @classmethod
    def from_save(
        cls,
        defn: GameDefinition,
        data: dict[str, Any],
        *,
        effects: tuple[ReferenceEffect, ...] | None = None,
    ) -> PlaySession:
        """A session continuing a save of ``defn``, with the save's player, hint options and
        step limit (see :meth:`load`)."""
        session = cls(defn, effects=effects)
        session.load(data)
        return session

    def load(self, data: dict[str, Any]) -> None:
        """Continue from a save of the same setting; raises :class:`PlayError` if it is not one.

        The save replaces this session's steps, and also its player's name, hint options and
        step limit: a game keeps the settings it was started with, so that its counts stay
        comparable (a caller that was asked for other settings should say they are not used).
        """
        restored = restore_game(self.defn, data, self.policy.effects)
        if data.get("protocol", self.protocol.label) != self.protocol.label:
            raise PlayError(
                f"this save was played under the protocol {data.get('protocol')!r}, not "
                f"{self.protocol.label!r}"
            )
        self._loop(restored.policy.options, restored.max_steps, restored.policy.effects)
        self.env.unwrapped.restore(data["engine"], data.get("protocol_state") or {},
                                   len(restored.records))
        self.counter.metrics = restored.metrics
        self.env.records = restored.records
        # The upcoming step was prepared before saving (the hint system's counters and the
        # engine's scene are those of that step): its hint is taken as it stands, without
        # counting the step in help a second time.
        self.hints.restore(data["hint_state"])
        self.player = str(data.get("player") or "").strip() or self.player
        self.last_feedback = str(data.get("last_feedback", ""))
        self.started = str(data.get("started") or self.started)
        self.saved_at_step = self.step
        result = data.get("result")
        self.written = Path(result) if isinstance(result, str) and result else None
        self._clock = time.monotonic()

    def load_file(self, path: str | Path) -> None:
        """:meth:`load` from a file written by :meth:`save_file`."""
        self.load(read_save_file(path))

    # ------------------------------------------------------------------ results
    def result(self, episode_id: str = "", repeat: int = 0) -> EpisodeResult:
        """The episode result of the play so far (``ended_by`` "quit" if not over; such a
        result is shown, never written: see :meth:`write_result`)."""
        result = self.metrics.result(
            episode_id=episode_id,
            agent=HUMAN_AGENT,
            model=HUMAN_MODEL,
            repeat=repeat,
            prompt_version="",
            max_steps=self.max_steps,
            player=self.player,
            protocol=self.protocol.name,
            protocol_version=self.protocol.version,
            patience=self.policy.options.patience,
            help_steps=self.policy.options.help_steps,
        )
        if not self.ended:
            result = dataclasses.replace(result, ended_by="quit")
        return result

    def write_result(self, out: str | Path) -> Path:
        """Write the play as one episode of the result folder ``out``; return its folder.

        The folder gets ``run.json`` (agent "human", hint options, game hashes) if it has none,
        the episode's ``steps.jsonl`` and ``result.json``, and rebuilt ``results.csv`` and
        summaries. Each play is a new repeat (``r0``, ``r1``, ...), so people never overwrite
        each other. Raises :class:`PlayError` if ``out`` holds results of other settings, or
        if the game is not over: an unfinished game is saved (:meth:`save_file`) to be
        continued, as the browser keeps it, and a stopped game would only pull averages
        down with a play nobody finished.
        """
        if self.written is not None:
            return self.written
        if not self.ended:
            raise PlayError(
                "the game is not over: only escaped games and games that reached the step "
                "limit are written as results; save it to continue later"
            )
        out_dir = Path(out)
        self.written = write_human_episode(
            out_dir, self._plan(out_dir), self.defn.setting, self.records, self.result
        )
        return self.written

    def check_out(self, out: str | Path) -> None:
        """Raise :class:`PlayError` now if :meth:`write_result` could not write to ``out``
        (a folder holding results of other settings), before the person plays."""
        out_dir = Path(out)
        check_result_folder(out_dir, self._plan(out_dir))

    def _plan(self, out_dir: Path) -> RunPlan:
        """A one-game run plan describing human play, for ``run.json``."""
        return human_run_plan(self.defn, self.policy, self.max_steps, self.protocol, out_dir)

