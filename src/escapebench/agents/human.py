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

**Numbering.** Things in the scene (visible items, then tools lying there) are numbered from 1
in the order the observation lists them; so are exits and the tools in the bag. ``click N`` and
the item of ``apply``/``input`` use the things' numbers, ``move N`` the exits', ``craft`` and
the tool of ``apply`` the bag's. The text of ``input`` is always literal text.

**What counts as a step.** Every action the engine can carry out, successful or not, as for
agents. A command that cannot be read, or that names something not on screen, is answered with
a message and costs no step: a person's typing slip is not a move in the game.

**Requested hints.** ``hint`` starts the hint the hint system would start after its patience
runs out: the person is put in the scene of the next reference action and told the action.
Asking again while a hint is in force repeats it without counting it twice.

**Saves keep their settings.** A save carries the player, the hint options and the step limit
the game was started with, and loading it brings them back: a game's hint and step counts are
only comparable with others under the settings it was played with. A save written after the
game ended says so (``ended``) and names the episode folder of its result (``result``) once
that is written; :meth:`PlaySession.write_result` of such a loaded game writes nothing again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from escapebench.agents.base import Decision
from escapebench.agents.screen import Screen, read_screen
from escapebench.bench.episode import DEFAULT_MAX_STEPS
from escapebench.bench.hints import HintOptions, HintPolicy, ReferenceEffect
from escapebench.bench.metrics import EpisodeMetrics, EpisodeResult, write_result_json
from escapebench.bench.records import (
    EPISODES_DIR,
    RESULT_FILE,
    STEPS_FILE,
    step_record,
    write_step_log,
)
from escapebench.engine.actions import ARITY, Call, clean_input_text, parse_call
from escapebench.engine.env import EscapeGame, StepResult
from escapebench.engine.model import GameDefinition
from escapebench.protocols.base import Protocol
from escapebench.protocols.escapebench import EscapebenchProtocol

HUMAN_AGENT = "human"
HUMAN_MODEL = "none"  # no model plays; all people pool into one "human" row of the tables
SAVE_FORMAT = "escapebench-play-save"
SAVE_VERSION = 1
FORCED_FEEDBACK_PREFIX = "The hint system did it for you"
LOCK_WAIT_S = 5.0  # how long a result write waits for a result folder in use

_VERB_FIRST = re.compile(r"^\s*(move|click|apply|input|craft)\b\s*(.*?)\s*$", re.I | re.S)
_NUMBER = re.compile(r"^\s*#?(\d+)\s*$")

# Result folders are written by several browser sessions of one server process at once.
_WRITE_LOCK = threading.Lock()


@contextlib.contextmanager
def _folder_locked(folder: Path) -> Iterator[None]:
    """The runner's lock on a result folder, waiting up to :data:`LOCK_WAIT_S` if another
    writer holds it (another person's play finishing at the same moment)."""
    from escapebench.bench.runner import RunConfigError, folder_lock

    wait_s = 0.1
    attempts = max(1, round(LOCK_WAIT_S / wait_s))
    with contextlib.ExitStack() as stack:
        for attempt in range(attempts):
            try:
                stack.enter_context(folder_lock(folder))
                break
            except RunConfigError as exc:
                if attempt == attempts - 1:
                    raise PlayError(str(exc)) from None
                time.sleep(wait_s)
        yield


class PlayError(ValueError):
    """A command that cannot be played, or a save that cannot be loaded; the message says why."""


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
        hints = f"{self.hints} hint" + ("" if self.hints == 1 else "s")
        head = "Escaped" if self.escaped else "Stopped"
        return (
            f"{head} after {self.steps} step{'' if self.steps == 1 else 's'} with {hints}; "
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


def _refuse_file_in_path(out_dir: Path) -> None:
    """Raise :class:`PlayError` if ``out_dir``, or the nearest of its parents that exists, is a
    file: a result folder cannot be made there (found before the person plays)."""
    for folder in (out_dir, *out_dir.parents):  # the nearest one that exists
        if folder.exists():
            if not folder.is_dir():
                raise PlayError(
                    f"{folder} is a file, so {out_dir} cannot be a result folder; "
                    "choose another --out"
                )
            return


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
        protocol: Protocol | None = None,
    ) -> None:
        self.defn = defn
        self.protocol = protocol or EscapebenchProtocol()
        self.texts = self.protocol.session(defn)  # the observation and feedback the person reads
        self.player = player.strip() or "anonymous"
        self.max_steps = max_steps
        self.game = EscapeGame(defn)
        self.policy = HintPolicy(defn, hints, effects=effects)
        self.metrics = EpisodeMetrics(defn, self.policy.effects)
        self.records: list[dict[str, Any]] = []
        self.last_feedback = ""
        self.started = _now()
        self.saved_at_step: int | None = None  # step count of the last save, if any
        self.written: Path | None = None  # the episode folder, once the result is written
        self._clock = time.monotonic()
        self._hint = self.policy.before_step(self.game)
        self._position = self._begin_step()

    # ------------------------------------------------------------------ state
    @property
    def step(self) -> int:
        """Steps played so far."""
        return len(self.records)

    @property
    def ended(self) -> bool:
        """The game is over: escaped, or the step limit is reached."""
        return self.game.ended or self.step >= self.max_steps

    @property
    def hints_used(self) -> int:
        return self.policy.hints_started

    def screen(self) -> Screen:
        """What is on screen now (the numbered lists are built from it)."""
        return read_screen(self.game)

    def things(self, screen: Screen | None = None) -> list[str]:
        """Names of the numbered things here: visible items, then tools lying here."""
        screen = screen or self.screen()
        return [i.name for i in screen.items] + [t.name for t in screen.scene_tools]

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

    def hint_info(self) -> dict[str, Any] | None:
        """The hint in force, with the path to its scene, or None."""
        hint = self._hint
        if hint is None:
            return None
        effect = self.policy.effects[hint.index]
        return {
            "action": hint.action,
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
            "position": self._position,
            "things": things,
            "exits": [
                {"n": n, "label": e.label, "target": e.target}
                for n, e in enumerate(screen.exits, 1)
            ],
            "bag": [
                {"n": n, "name": t.name, "desc": t.desc} for n, t in enumerate(screen.bag, 1)
            ],
            "observation": self.texts.observation(self.game),
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
        call = self._read_call(command)
        screen = self.screen()
        things = self.things(screen)
        exits = [e.label for e in screen.exits]
        bag = [t.name for t in screen.bag]
        verb = call.verb
        if ARITY[verb] == 1:
            names, what = (exits, "exit") if verb == "move" else (things, "thing")
            return f"{verb}({self._numbered(call.arg_text, names, what)})"
        cut = call.arg_text.rfind(",")
        if cut < 0:
            raise PlayError(f"{verb} needs two arguments: {_FORMS[verb]}")
        left, right = call.arg_text[:cut], call.arg_text[cut + 1 :]
        if verb != "input" and "," in left and left.strip() not in bag:
            # The text of input may hold commas; a tool's name only if the bag has one.
            count = len(call.arg_text.split(","))
            raise PlayError(f"{verb} takes 2 arguments, not {count}: {_FORMS[verb]}")
        if verb == "craft":
            left = self._numbered(left, bag, "bag tool")
            right = self._numbered(right, bag, "bag tool")
        elif verb == "apply":
            left = self._numbered(left, bag, "bag tool")
            right = self._numbered(right, things, "thing")
        else:  # input: the text is literal
            left = clean_input_text(left)
            right = self._numbered(right, things, "thing")
        if not left.strip() or not right.strip():
            raise PlayError(f"{verb} needs two arguments: {_FORMS[verb]}")
        return f"{verb}({left.strip()}, {right.strip()})"

    @staticmethod
    def _read_call(command: str) -> Call:
        text = command.strip()
        call = parse_call(text)
        if call is not None:
            return call
        m = _VERB_FIRST.match(text)
        if m is None:
            raise PlayError(
                f"cannot read {text!r}: type an action such as 'click 2', 'move 1', "
                "'apply(1, 3)' or 'input(1234, 2)', or 'help'"
            )
        verb, rest = m.group(1).lower(), m.group(2)
        if rest.startswith("(") and rest.endswith(")"):
            rest = rest[1:-1]
        if ARITY[verb] == 2 and "," not in rest:
            # "apply 1 3", "input 1234 2": the last word is the thing's number.
            words = rest.split()
            if len(words) >= 2 and _NUMBER.match(words[-1]):
                rest = " ".join(words[:-1]) + ", " + words[-1]
        if not rest.strip():
            raise PlayError(f"{verb} needs an argument: {_FORMS[verb]}")
        return Call(verb, rest)  # type: ignore[arg-type]

    @staticmethod
    def _numbered(text: str, names: list[str], what: str) -> str:
        m = _NUMBER.match(text)
        if m is None:
            return text.strip()
        n = int(m.group(1))
        if not 1 <= n <= len(names):
            listed = {0: "there are none", 1: "there is only 1"}.get(
                len(names), f"they are numbered 1-{len(names)}"
            )
            raise PlayError(f"there is no {what} number {n}: {listed}")
        return names[n - 1]

    def act(self, command: str) -> list[Turn]:
        """Play a typed or clicked command: the person's step, then any step the hint system
        plays for them. Raises :class:`PlayError` (and plays nothing) for a command that
        cannot be played."""
        if self.ended:
            raise PlayError("the game is over")
        action = self.resolve_command(command)
        resolved = self.game.resolve(action)
        if isinstance(resolved, str):
            raise PlayError(resolved)
        turns = [self._play(action, command, forced=False)]
        turns += self._play_forced()
        return turns

    def request_hint(self) -> dict[str, Any] | None:
        """Start the next hint now (counted), or repeat the one in force.

        Returns :meth:`hint_info`, or None when the reference chain has nothing left.
        """
        if self._hint is None and not self.ended:
            self._hint = self.policy.request(self.game)
            self._position = self._begin_step()
        return self.hint_info()

    def _play(self, action: str, command: str, *, forced: bool) -> Turn:
        game, policy = self.game, self.policy
        hint = self._hint
        now = time.monotonic()
        wall = 0.0 if forced else now - self._clock
        self._clock = now
        position, scene = self._position, game.scene_name
        observation = self.texts.observation(game)
        result: StepResult = self.texts.play(game, action)
        outcome = policy.after_step(game, result)
        feedback = result.feedback
        if forced:
            feedback = f"{FORCED_FEEDBACK_PREFIX}: {result.action}. {feedback}"
        # What the person did, in the terms of an agent's decision (no model, no reasoning).
        decision = Decision(
            action, raw_answer=command, mode="help" if hint is not None else "free explore"
        )
        record = step_record(
            step=self.step,
            position=position,
            scene=scene,
            observation=observation,
            decision=decision,
            result=result,
            game=game,
            hint=hint,
            forced=forced,
            outcome=outcome,
            details={"player": self.player},
            wall_s=round(wall, 3),
        )
        self.records.append(record)
        self.metrics.add(record)
        self.last_feedback = feedback
        turn = Turn(
            record["step"], command, result.action, feedback, result.success, result.error,
            result.progressed, result.game_end, forced,
        )
        self._hint = None if self.ended else policy.before_step(game)
        self._position = self._begin_step()
        return turn

    def _begin_step(self) -> str:
        """The protocol's start of the upcoming step (after the hint system's); its position."""
        hint = self._hint
        view = None if hint is None else self.texts.reference_hint(hint.index, hint.steps_in_help)
        return self.texts.begin_step(self.game, view)

    def _play_forced(self) -> list[Turn]:
        turns = []
        while not self.ended:
            forced = self.policy.forced_action()
            if forced is None:
                break
            turns.append(self._play(forced, "", forced=True))
        return turns

    # ------------------------------------------------------------------ save / load
    def save(self) -> dict[str, Any]:
        """The whole session as JSON-able data (engine, hint system, steps so far)."""
        self.saved_at_step = self.step
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
            "protocol_state": self.texts.snapshot(),
            "pending_hint": self._hint is not None,
            "last_feedback": self.last_feedback,
            "records": self.records,
        }

    def save_file(self, path: str | Path) -> Path:
        """Write :meth:`save` to ``path`` (atomically); return the path."""
        p = Path(path)
        if p.is_dir() or p.name in ("", ".", ".."):
            raise PlayError(f"cannot save to {path}: it is a folder; give a file name")
        data = json.dumps(self.save(), ensure_ascii=False)
        tmp = p.with_name(p.name + ".tmp")
        try:
            tmp.write_text(data + "\n", encoding="utf-8")
            tmp.replace(p)
        except OSError as exc:
            raise PlayError(f"cannot save to {p}: {exc.strerror or exc}") from None
        return p

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
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise PlayError("not an escapebench play save")
        options, max_steps = _saved_settings(data)
        if data.get("version") != SAVE_VERSION:
            raise PlayError(f"unsupported save version {data.get('version')!r}")
        if data.get("setting") != self.defn.setting:
            raise PlayError(
                f"this save is of {data.get('setting')!r}, not of {self.defn.setting!r}"
            )
        records = data.get("records")
        if not isinstance(records, list) or len(records) != data.get("step"):
            raise PlayError("the save's steps are incomplete")
        game = EscapeGame(self.defn)
        policy = HintPolicy(self.defn, options, effects=self.policy.effects)
        metrics = EpisodeMetrics(self.defn, self.policy.effects)
        try:
            game.restore(data["engine"])
            policy.restore(data["hint_state"])
            for record in records:
                metrics.add(record)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise PlayError(f"the save does not fit this game: {exc}") from None
        if records and (records[-1].get("key_steps"), records[-1].get("tools_collected")) != (
            game.key_steps,
            game.tools_collected,
        ):
            raise PlayError("the save's steps do not match its game state")
        self.game, self.policy, self.metrics = game, policy, metrics
        self.max_steps = max_steps
        self.player = str(data.get("player") or "").strip() or self.player
        self.records = list(records)
        self.last_feedback = str(data.get("last_feedback", ""))
        self.started = str(data.get("started") or self.started)
        self.saved_at_step = self.step
        result = data.get("result")
        self.written = Path(result) if isinstance(result, str) and result else None
        self._clock = time.monotonic()
        if data.get("protocol", self.protocol.label) != self.protocol.label:
            raise PlayError(
                f"this save was played under the protocol {data.get('protocol')!r}, not "
                f"{self.protocol.label!r}"
            )
        self.texts = self.protocol.session(self.defn)
        self.texts.restore(data.get("protocol_state") or {})
        # The upcoming step was prepared before saving: prepare it again (idempotent).
        self._hint = None if self.ended else policy.before_step(game)
        self._position = self._begin_step()

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
            protocol=self.protocol.label,
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
        from escapebench.bench.runner import (
            collect_results,
            episode_id,
            read_run_json,
            write_tables,
        )

        if self.written is not None:
            return self.written
        if not self.ended:
            raise PlayError(
                "the game is not over: only escaped games and games that reached the step "
                "limit are written as results; save it to continue later"
            )
        out_dir = Path(out)
        _refuse_file_in_path(out_dir)
        plan = self._plan(out_dir)
        with _WRITE_LOCK, _folder_locked(out_dir):
            self.check_out(out_dir)
            existing = read_run_json(out_dir)
            repeat = 0
            while True:
                eid = episode_id(self.defn.setting, HUMAN_AGENT, HUMAN_MODEL, repeat)
                folder = out_dir / EPISODES_DIR / eid
                try:
                    folder.mkdir(parents=True, exist_ok=False)
                    break
                except FileExistsError:
                    repeat += 1
            write_step_log(folder / STEPS_FILE, self.records)
            write_result_json(folder / RESULT_FILE, self.result(eid, repeat))
            self._write_run_json(plan, existing)
            write_tables(out_dir, collect_results(out_dir))
        self.written = folder
        return folder

    def check_out(self, out: str | Path) -> None:
        """Raise :class:`PlayError` now if :meth:`write_result` could not write to ``out``
        (a folder holding results of other settings), before the person plays."""
        from escapebench.bench.runner import compatible, read_run_json

        out_dir = Path(out)
        _refuse_file_in_path(out_dir)
        plan = self._plan(out_dir)
        try:
            existing = read_run_json(out_dir)
        except ValueError as exc:
            raise PlayError(str(exc)) from None
        if existing is not None:
            problems = compatible(existing, plan.fingerprint, plan.games)
            if problems:
                raise PlayError(
                    f"{out_dir} holds results of other settings: " + "; ".join(problems)
                )

    def _plan(self, out_dir: Path) -> Any:
        """A one-game run plan describing human play, for ``run.json``."""
        from escapebench.bench.runner import (
            RunPlan,
            RunSettings,
            game_record,
            protocol_record,
            run_fingerprint,
        )

        options = self.policy.options
        settings = RunSettings(
            agent=HUMAN_AGENT,
            games=[self.defn.source or self.defn.setting],
            out=out_dir,
            concurrency=1,
            max_steps=self.max_steps,
            patience=options.patience,
            help_steps=options.help_steps,
            command_line=list(sys.argv),
        )
        # People read the observation, not a prompt, and no model samples anything.
        fingerprint = run_fingerprint(
            agent=HUMAN_AGENT,
            agent_settings={"agent": HUMAN_AGENT},
            model=HUMAN_MODEL,
            hints=options,
            max_steps=self.max_steps,
            protocol=protocol_record(self.protocol),
        )
        return RunPlan(
            settings, out_dir, [], {self.defn.setting: self.defn},
            {self.defn.setting: self.policy.effects}, HUMAN_MODEL, fingerprint,
            [game_record(self.defn)], self.protocol,
        )

    def _write_run_json(self, plan: Any, existing: dict[str, Any] | None) -> None:
        from escapebench.bench.runner import write_run_json

        write_run_json(plan, None, existing, finished=True)


def read_save_file(path: str | Path) -> dict[str, Any]:
    """The JSON of a file written by :meth:`PlaySession.save_file` (checked by
    :meth:`PlaySession.load`); raises :class:`PlayError` if it cannot be read."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PlayError(f"cannot read {p}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise PlayError(f"{p} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise PlayError(f"{p} is not an escapebench play save")
    return data


def _saved_settings(data: dict[str, Any]) -> tuple[HintOptions, int]:
    """The hint options and step limit a save's game was started with."""
    try:
        hints = data["hints"]
        options = HintOptions(int(hints["patience"]), int(hints["help_steps"]))
        max_steps = int(data["max_steps"])
    except (KeyError, TypeError, ValueError) as exc:
        raise PlayError(f"the save lacks its hint options or step limit ({exc})") from None
    if max_steps < 1:
        raise PlayError(f"the save's step limit {max_steps} is not a positive number")
    return options, max_steps


_FORMS = {
    "move": "move N or move(exit)",
    "click": "click N or click(thing)",
    "apply": "apply(N, M) with bag tool N and thing M, or apply(tool, thing)",
    "input": "input(text, N) with thing N, or input(text, thing)",
    "craft": "craft(N, M) with bag tools N and M, or craft(tool, tool)",
}
