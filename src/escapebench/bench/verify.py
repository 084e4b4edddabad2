"""Check a result folder without calling a model: ``escapebench verify RUN_DIR``.

The engine is deterministic and every step is logged, so a finished run can be checked
completely from its files. For each episode the logged actions are played again through the
harness's own episode loop (:class:`~escapebench.bench.episode.Episode`: the engine, the hint
system, the protocol's texts, the metrics) by :class:`LoggedAgent`, an agent that answers each
turn with what the log says the player answered (its action, its model calls, its notes; it
calls no model). The protocol, the hint options and the step limit are those ``run.json``
records, and each game file must still have the sha256 it records. Then:

* every replayed step record must equal the logged one, field for field (the observation, the
  action, the feedback, the outcome and its events, the key steps and tools, the hint in force,
  the forced step, the hint's end, the model calls), except the wall time of the step and the
  hash of the agent's memory, which only a live agent has;
* the replayed result must equal ``result.json`` in every field (whatever metrics it holds),
  the wall time excepted, which must be the sum of the logged steps' wall times; a result of
  an earlier ``version`` (``RESULT_VERSION``) has its tool-choice numbers checked by the rule
  of its version (bench/tool_choice.py), and the check says how many results are such;
* ``results.csv`` must be the table of the folder's ``result.json`` files.

An episode that fails is named with the first step (and field) that differs. A folder that
passes gets a ``verified.json`` (the verdict and the sha256 of every file checked), which
``escapebench report`` reads to mark the run verified, as long as no file has changed since.
:func:`write_bundle` packs a folder, its game files and a manifest of hashes into a zip.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import hashlib
import json
import re
import tempfile
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from escapebench.agents.base import Agent, Decision, ModelCallRecord, TurnContext
from escapebench.bench.episode import Episode, EpisodeSpec
from escapebench.bench.folders import read_run_json
from escapebench.bench.hints import HintOptions
from escapebench.bench.metrics import (
    RESULT_VERSION,
    TOOL_CHOICE_FIELDS,
    EpisodeResult,
    ResultFileError,
    atomic_write_text,
    read_result_json,
)
from escapebench.bench.plan import game_record, protocol_record
from escapebench.bench.records import (
    EPISODES_DIR,
    RESULT_FILE,
    RESULTS_FILE,
    RUN_FILE,
    STEPS_FILE,
    EpisodeLogError,
    parse_step_log,
)
from escapebench.bench.settings import RunConfigError
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import file_sha256
from escapebench.protocols.base import PromptProtocol

__all__ = [
    "BUNDLE_MANIFEST",
    "VERIFIED_FILE",
    "EpisodeCheck",
    "LoggedAgent",
    "RunCheck",
    "unpack_bundle",
    "verification_status",
    "verify_run",
    "withdraw_verified",
    "write_bundle",
    "write_verified",
]

VERIFIED_FILE = "verified.json"
BUNDLE_MANIFEST = "MANIFEST.json"
VERIFY_FORMAT = 1
#: Fields of a step record that only a live agent can produce (not replayed).
LIVE_ONLY_FIELDS = frozenset({"wall_s", "agent_state_hash"})
#: Fields of a result that depend on the machine's speed, not on play.
TIMING_FIELDS = frozenset({"wall_time_s"})
_REPEAT = re.compile(r"__r(\d+)$")
_SHOWN = 80  # characters of a differing value shown in a message


class VerifyError(RuntimeError):
    """A folder that cannot be verified at all (not a result folder, no run.json...)."""


class LogEnded(Exception):
    """The replay asked for a turn the log does not have."""


# ---------------------------------------------------------------------- the logged player
class LoggedAgent(Agent):
    """Answers each turn with the logged step's answer: its action (as the log keeps it), its
    reasoning, raw answer, mode, model calls and notes, and the agent's own move to another
    scene where it made one. It calls no model and remembers nothing."""

    name = "logged"

    def __init__(self, records: Sequence[dict[str, Any]], action_format: str = "text") -> None:
        self.records = list(records)
        self.tools = action_format == "tools"
        self.turn = 0

    def _next(self, ctx: TurnContext) -> dict[str, Any]:
        if self.turn >= len(self.records):
            raise LogEnded(f"the episode goes on after its last logged step ({self.turn})")
        rec = self.records[self.turn]
        self.turn += 1
        return rec

    def _decision(self, rec: dict[str, Any], action: str) -> Decision:
        details = dict(rec.get("agent") or {})
        return Decision(
            action=action,
            reasoning=str(rec.get("reasoning", "")),
            raw_answer=str(rec.get("raw_answer", "")),
            mode=rec.get("mode", "free explore"),
            calls=[_call(c) for c in rec.get("calls") or ()],
            notes=details,
            position=None if details.get("position") is None else str(details["position"]),
        )

    async def decide(self, ctx: TurnContext) -> Decision:
        rec = self._next(ctx)
        action = str(rec.get("action", ""))
        raw = str(rec.get("raw_answer") or "")
        if rec.get("error") and self.tools:
            action = _tool_call_action((rec.get("agent") or {}).get("tool_call"))
        elif rec.get("error") and raw and ctx.protocol is not None:
            # An answer with no readable action: the agent sent the answer as the protocol
            # reads it, and the feedback quotes that (the log keeps no action for it).
            action = ctx.protocol.extract_action(raw)
        decision = self._decision(rec, action)
        moved = decision.notes.get("teleported_to")
        if moved:
            decision.teleport_to = str(moved)  # the agent's own move, as it made it
        return decision

    async def forced_turn(self, ctx: TurnContext, action: str) -> Decision | None:
        return self._decision(self._next(ctx), action)


def _tool_call_action(call: Any) -> str:
    """What a logged function call (``tool_call`` of the step's notes) plays, as the agent of
    the tools format reads it (a malformed call is a text the engine rejects)."""
    from escapebench.agents.tool_actions import read_tool_answer
    from escapebench.llm.base import ToolCall

    if not isinstance(call, dict):
        return read_tool_answer(()).action
    tool_call = ToolCall(str(call.get("name", "")), str(call.get("arguments", "")))
    return read_tool_answer((tool_call,)).action


_CALL_FIELDS = frozenset(f.name for f in fields(ModelCallRecord))


def _call(data: Any) -> Any:
    """A logged model call as the record writes it again (a dict with unknown keys stays a
    dict, so that the comparison names it instead of the replay failing)."""
    if isinstance(data, dict) and set(data) <= _CALL_FIELDS:
        try:
            return ModelCallRecord(**data)
        except TypeError:
            pass
    return _RawCall(data)


@dataclass
class _RawCall:
    """Stands for a logged call that is not a :class:`ModelCallRecord` (it never equals the
    logged one, which is the point)."""

    unreadable: Any


# ---------------------------------------------------------------------- results of a check
@dataclass
class EpisodeCheck:
    episode_id: str
    steps: int = 0
    problem: str | None = None  # the first difference, None when the episode checks out
    result_version: int = RESULT_VERSION  # the version result.json was written with

    @property
    def ok(self) -> bool:
        return self.problem is None


@dataclass
class RunCheck:
    folder: Path
    episodes: list[EpisodeCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # of the folder, not of one episode
    notes: list[str] = field(default_factory=list)  # versions that differ from this one's
    files: dict[str, str] = field(default_factory=dict)  # relative path -> sha256, checked
    seconds: float = 0.0

    @property
    def failed(self) -> list[EpisodeCheck]:
        return [e for e in self.episodes if not e.ok]

    @property
    def ok(self) -> bool:
        return not self.problems and not self.failed and bool(self.episodes)

    @property
    def steps(self) -> int:
        return sum(e.steps for e in self.episodes)

    def older_results(self) -> dict[int, int]:
        """Episodes whose ``result.json`` is of an earlier result version, by version (their
        tool choice was scored by an earlier rule)."""
        out: dict[int, int] = {}
        for e in self.episodes:
            if e.result_version < RESULT_VERSION:
                out[e.result_version] = out.get(e.result_version, 0) + 1
        return dict(sorted(out.items()))


# ---------------------------------------------------------------------- helpers
def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _first_difference(logged: dict[str, Any], replayed: dict[str, Any],
                      skip: frozenset[str], where: str = "the log") -> str | None:
    for key in sorted(set(logged) | set(replayed)):
        if key in skip:
            continue
        if key not in logged:
            return f"{key} is not in {where} (replayed {_shown(replayed[key])})"
        if key not in replayed:
            return f"{key} is in {where} but not produced by play ({_shown(logged[key])})"
        if not _same(logged[key], replayed[key]):
            return f"{key}: logged {_shown(logged[key])}, replayed {_shown(replayed[key])}"
    return None


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (an int and the same float are equal; bool is not a number)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# ---------------------------------------------------------------------- the games of a run
@dataclass
class _Game:
    defn: GameDefinition | None
    problem: str | None = None


def _game_files(entry: dict[str, Any], games_dirs: Sequence[Path]) -> list[Path]:
    """Where the game file of ``entry`` may be: as recorded, then by its name in each of
    ``games_dirs`` (a bundle's games, ``--games``) and among the built-in games."""
    from escapebench.games.loading import builtin_files

    recorded = Path(str(entry.get("file") or ""))
    out = [recorded] if str(recorded) not in ("", ".") else []
    for d in games_dirs:
        out.append(d / recorded.name)
    out += [p for p in builtin_files() if p.name == recorded.name]
    return out


def _load_game(entry: dict[str, Any], games_dirs: Sequence[Path],
               generated_specs: dict[str, list[GameDefinition]]) -> _Game:
    """The game of one run.json entry; ``generated_specs`` keeps each ``gen:`` spec's games
    once generated (a spec of 20 games names 60 settings: it is generated once, not 60
    times)."""
    from escapebench.catalog import load_games
    from escapebench.games.loading import GameFileError

    setting = str(entry.get("setting", ""))
    generated = entry.get("generated")
    try:
        if generated:
            spec = str(generated.get("spec", ""))
            if spec not in generated_specs:
                generated_specs[spec] = load_games([spec])
            found = [d for d in generated_specs[spec] if d.setting == setting]
        else:
            candidates = [p for p in _game_files(entry, games_dirs) if p.is_file()]
            if not candidates:
                return _Game(None, f"game file {entry.get('file')} of {setting} not found "
                             "(give the folder that holds it with --games)")
            # the first whose bytes are the recorded ones; else the first found (it fails)
            want = entry.get("sha256")
            path = next((p for p in candidates if file_sha256(p) == want), candidates[0])
            found = [d for d in load_games([str(path)]) if d.setting == setting]
    except (GameFileError, OSError, ValueError) as exc:
        return _Game(None, f"game of {setting}: {exc}")
    if not found:
        return _Game(None, f"no setting {setting} in its game file {entry.get('file')}")
    defn = found[0]
    now = game_record(defn)
    for key in ("sha256", "reference_sha256"):
        if entry.get(key) and now.get(key) != entry.get(key):
            return _Game(None, f"game file {now.get('file') or entry.get('file')} of {setting} "
                         f"has changed since the run ({key} {str(now.get(key))[:12]}, "
                         f"run.json {str(entry.get(key))[:12]})")
    return _Game(defn)


def _protocol(run: dict[str, Any], games: Sequence[GameDefinition],
              original_source: Path | None) -> PromptProtocol:
    from escapebench.protocols import OriginalSourceError, make_protocol

    recorded = run.get("protocol") or {"name": "escapebench"}
    name = str(recorded.get("name", "escapebench"))
    source = original_source or run.get("protocol_source")
    files = [str(d.source) for d in games if d.source]
    try:
        protocol = make_protocol(name, files, source if name == "original" else None)
    except (OriginalSourceError, ValueError) as exc:
        raise VerifyError(f"the run's protocol {name!r}: {exc}") from None
    now = _as_json(protocol_record(protocol))
    if not _same(_as_json(recorded), now):
        diff = _first_difference(recorded, now, frozenset(), "run.json")
        raise VerifyError(f"the protocol here is not the run's: {diff}")
    return protocol


def _version_notes(run: dict[str, Any]) -> list[str]:
    """The versions ``run.json`` records that are not this escapebench's: a run of another
    version may differ where a text or a metric changed between them."""
    from escapebench import __version__
    from escapebench.bench.metrics import RESULT_VERSION
    from escapebench.bench.plan import prompt_version
    from escapebench.protocols.escapebench.observation import OBSERVATION_VERSION

    now = {"escapebench_version": __version__, "prompt_version": prompt_version(),
           "observation_version": OBSERVATION_VERSION, "result_version": RESULT_VERSION}
    return [f"{key} is {run[key]!r} in run.json, {value!r} here" for key, value in now.items()
            if run.get(key) and run[key] != value]


# ---------------------------------------------------------------------- one episode
def _read_records(folder: Path) -> list[dict[str, Any]]:
    path = folder / STEPS_FILE
    if not path.is_file():
        return []
    records, good_end = parse_step_log(path.read_bytes(), str(path))
    if good_end < path.stat().st_size:
        raise EpisodeLogError(f"{path}: its last line is cut short")
    return records


async def _check_episode(
    folder: Path, run: dict[str, Any], defn: GameDefinition, protocol: PromptProtocol,
    scratch: Path,
) -> EpisodeCheck:
    episode_id = folder.name
    check = EpisodeCheck(episode_id)
    try:
        logged = read_result_json(folder / RESULT_FILE)
        logged_json = json.loads((folder / RESULT_FILE).read_text(encoding="utf-8"))
    except ResultFileError as exc:
        check.problem = f"result.json: {exc}"
        return check
    try:
        records = _read_records(folder)
    except EpisodeLogError as exc:
        check.problem = str(exc)
        return check
    check.steps = len(records)
    hints = run.get("hints") or {}
    defaults = HintOptions()
    match = _REPEAT.search(episode_id)
    spec = EpisodeSpec(
        episode_id=episode_id,
        defn=defn,
        agent=str(run.get("agent", "")),
        model=str(run.get("model", "")),
        repeat=int(match.group(1)) if match else 0,
        max_steps=int(run.get("max_steps", 0)),
        hints=HintOptions(int(hints.get("patience", defaults.patience)),
                          int(hints.get("help_steps", defaults.help_steps))),
        prompt_version=str((run.get("agent_settings") or {}).get("prompt_version", "")),
        player=logged.player,
        action_format=str(run.get("action_format", "text")),
        protocol=protocol.label,
    )
    agent = LoggedAgent(records, spec.action_format)
    asked = frozenset(k for k, rec in enumerate(records)
                      if isinstance(rec.get("hint"), dict) and rec["hint"].get("requested"))
    replay = Episode(spec, agent, scratch / episode_id, fsync=False, protocol=protocol,
                     hint_requests=asked)
    try:
        result = await replay.run()
    except LogEnded as exc:
        check.problem = f"step {len(records)}: {exc}"
        return check
    except Exception as exc:  # noqa: BLE001 - a log the engine cannot play (a scene that
        # does not exist, a broken record): that step is where it differs
        check.problem = f"step {replay.step}: does not replay ({type(exc).__name__}: {exc})"
        return check
    replayed = _read_records(scratch / episode_id)
    for k, (a, b) in enumerate(zip(records, replayed, strict=False)):
        diff = _first_difference(a, b, LIVE_ONLY_FIELDS)
        if diff:
            check.problem = f"step {k}: {diff}"
            return check
    if len(records) != len(replayed):
        check.problem = (f"step {len(replayed)}: the log has {len(records)} steps but the "
                         f"episode ends after {len(replayed)}")
        return check
    # a result written before the tool-choice score lacks its fields: checked as written
    older = frozenset(f for f in TOOL_CHOICE_FIELDS if f not in logged_json)
    check.result_version = logged.version
    diff = _first_difference(logged_json, _as_json(_as_scored(result, logged.version, records,
                                                              defn)),
                             TIMING_FIELDS | older, "result.json")
    if diff:
        check.problem = f"result.json: {diff}"
        return check
    wall = sum(float(r.get("wall_s", 0.0)) for r in records)
    if abs(wall - float(logged.wall_time_s)) > 1e-3 + 1e-6 * wall:
        check.problem = (f"result.json: wall_time_s is {logged.wall_time_s}, the logged steps "
                         f"took {round(wall, 3)}")
    return check


def _as_scored(result: EpisodeResult, version: int, records: Sequence[dict[str, Any]],
               defn: GameDefinition) -> dict[str, Any]:
    """The replayed result as a result of ``version`` says it: its tool-choice numbers
    counted by the rule of that version (the rest has not changed between versions)."""
    from escapebench.bench.tool_choice import (
        creative_keys,
        score_records,
        tool_choice_version,
    )

    data = result.to_dict()
    if version == result.version:
        return data
    choice, solves = score_records(records, creative_keys(defn), tool_choice_version(version))
    data.update(asdict(choice), tool_solve_log=[s.to_dict() for s in solves], version=version)
    return data


# ---------------------------------------------------------------------- a run folder
def _episode_folders(folder: Path) -> list[Path]:
    episodes = folder / EPISODES_DIR
    if not episodes.is_dir():
        return []
    return sorted(p for p in episodes.iterdir() if p.is_dir())


def _results_table_problem(folder: Path) -> str | None:
    """Whether ``results.csv`` is the table of the folder's results (as ``run`` writes it)."""
    from escapebench.bench.costs import Prices
    from escapebench.bench.folders import collect_results
    from escapebench.bench.result_tables import write_results_csv

    path = folder / RESULTS_FILE
    if not path.is_file():
        return f"{RESULTS_FILE} is missing"
    try:
        results = collect_results(folder)
    except RunConfigError:
        return None  # the damaged result.json is named with its episode
    prices = Prices.from_record((read_run_json(folder) or {}).get("prices"))
    with tempfile.TemporaryDirectory(prefix="escapebench-verify-") as tmp:
        fresh = Path(tmp) / RESULTS_FILE
        write_results_csv(fresh, results, prices)
        want = fresh.read_text(encoding="utf-8").splitlines()
    have = path.read_text(encoding="utf-8", errors="replace").splitlines()
    if have and want and "tool_solves" not in have[0].split(","):
        want = _without_columns(want, TOOL_CHOICE_FIELDS)  # written before those columns
    for k, (a, b) in enumerate(zip(have, want, strict=False)):
        if a != b:
            return f"{RESULTS_FILE} line {k + 1} is not the table of the results ({_shown(a)})"
    if len(have) != len(want):
        return f"{RESULTS_FILE} has {len(have)} lines, the results make {len(want)}"
    return None


def _without_columns(lines: list[str], drop: Sequence[str]) -> list[str]:
    """CSV lines (a header first) without the columns named in ``drop``."""
    import csv
    import io

    rows = list(csv.reader(lines))
    keep = [i for i, name in enumerate(rows[0]) if name not in drop]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        writer.writerow([row[i] for i in keep if i < len(row)])
    return buf.getvalue().splitlines()


def verify_run(
    folder: Path,
    *,
    games_dirs: Sequence[Path] = (),
    original_source: Path | None = None,
) -> RunCheck:
    """Check every episode of the result folder ``folder`` (see the module docstring).

    Raises :class:`VerifyError` for a folder that cannot be checked at all."""
    started = time.perf_counter()
    if not (folder / RUN_FILE).is_file():
        raise VerifyError(f"{folder} is not a result folder (no {RUN_FILE})")
    try:
        run = read_run_json(folder) or {}
    except RunConfigError as exc:
        raise VerifyError(str(exc)) from None
    check = RunCheck(folder)
    check.notes = _version_notes(run)
    games: dict[str, _Game] = {}
    generated_specs: dict[str, list[GameDefinition]] = {}
    for entry in run.get("games") or []:
        if isinstance(entry, dict) and entry.get("setting"):
            games[str(entry["setting"])] = _load_game(entry, games_dirs, generated_specs)
    loaded = [g.defn for g in games.values() if g.defn is not None]
    protocol = _protocol(run, loaded, original_source)
    folders = _episode_folders(folder)
    if not folders:
        check.problems.append("the folder holds no episodes")
    with tempfile.TemporaryDirectory(prefix="escapebench-verify-") as tmp:
        for sub in folders:
            result_path = sub / RESULT_FILE
            if not result_path.is_file():
                check.episodes.append(EpisodeCheck(sub.name, problem="unfinished (no "
                                                   "result.json): nothing to verify"))
                continue
            try:
                setting = read_result_json(result_path).setting
            except ResultFileError as exc:
                check.episodes.append(EpisodeCheck(sub.name, problem=f"result.json: {exc}"))
                continue
            game = games.get(setting)
            if game is None or game.defn is None:
                problem = game.problem if game else f"run.json records no game {setting}"
                check.episodes.append(EpisodeCheck(sub.name, problem=problem))
                continue
            episode = asyncio.run(_check_episode(sub, run, game.defn, protocol, Path(tmp)))
            check.episodes.append(episode)
    if not check.failed:
        table = _results_table_problem(folder)
        if table:
            check.problems.append(table)
    check.files = {str(p.relative_to(folder)): file_sha256(p) for p in _checked_files(folder)}
    check.seconds = time.perf_counter() - started
    return check


def _checked_files(folder: Path) -> Iterator[Path]:
    """The files a verification vouches for: run.json, results.csv, and every episode's step
    log and result."""
    for name in (RUN_FILE, RESULTS_FILE):
        if (folder / name).is_file():
            yield folder / name
    for sub in _episode_folders(folder):
        for name in (STEPS_FILE, RESULT_FILE):
            if (sub / name).is_file():
                yield sub / name


# ---------------------------------------------------------------------- the verified mark
def write_verified(check: RunCheck) -> Path:
    """Write ``verified.json`` into a folder that passed: the verdict, this escapebench's
    version and the sha256 of every file checked."""
    from escapebench import __version__

    path = check.folder / VERIFIED_FILE
    data = {
        "format": VERIFY_FORMAT,
        "verdict": "verified",
        "escapebench_version": __version__,
        "verified_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "episodes": len(check.episodes),
        "steps": check.steps,
        "files": dict(sorted(check.files.items())),
    }
    atomic_write_text(path, json.dumps(data, indent=1) + "\n")
    return path


def withdraw_verified(folder: Path) -> bool:
    """Remove the ``verified.json`` an earlier ``escapebench verify`` wrote into ``folder``
    (a folder that no longer verifies is not shown as verified). A file of that name that
    verify did not write is left alone. Returns whether one was removed."""
    path = folder / VERIFIED_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not (isinstance(data, dict) and data.get("format") == VERIFY_FORMAT
            and data.get("verdict") == "verified" and isinstance(data.get("files"), dict)):
        return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return True


def verification_status(folder: Path) -> str | None:
    """``"verified"`` when ``folder`` holds a ``verified.json`` and none of the files it
    vouches for has changed since (nor an episode been added); ``"changed since verified"``
    when one has; None when the folder was never verified (or its mark is unreadable)."""
    path = folder / VERIFIED_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = data["files"]
        if data.get("verdict") != "verified" or not isinstance(files, dict):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = {str(p.relative_to(folder)) for p in _checked_files(folder)}
    if now != set(files):
        return "changed since verified"
    for name, sha in files.items():
        try:
            if file_sha256(folder / name) != sha:
                return "changed since verified"
        except OSError:
            return "changed since verified"
    return "verified"


# ---------------------------------------------------------------------- bundles
def write_bundle(folder: Path, out: Path, *, games_dirs: Sequence[Path] = ()) -> int:
    """Pack the result folder ``folder`` into the zip ``out`` for submission: its files under
    ``run/``, the game files its ``run.json`` names under ``games/`` (a generated game is
    made again from its spec, so it needs none), and ``MANIFEST.json`` with the sha256 of
    every member. Returns the number of files packed. Refuses to overwrite ``out``."""
    if out.exists():
        raise VerifyError(f"{out} exists; choose a new file for the bundle")
    run = read_run_json(folder) or {}
    members: list[tuple[str, Path]] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder)
        if rel.name in (".lock",) or rel.suffix == ".tmp":
            continue
        members.append((f"run/{rel.as_posix()}", path))
    seen: set[str] = set()
    for entry in run.get("games") or []:
        if not isinstance(entry, dict) or entry.get("generated"):
            continue
        want = entry.get("sha256")
        found = [p for p in _game_files(entry, games_dirs) if p.is_file()]
        path = next((p for p in found if file_sha256(p) == want), None)
        if path is None:
            raise VerifyError(f"game file {entry.get('file')} of {entry.get('setting')} not "
                              "found with its recorded sha256; give its folder with --games")
        reference = _reference_log(path)
        for name, member in ((f"games/{path.name}", path),
                             (f"games/reference/{reference.name}" if reference else "", reference)):
            if member is not None and name not in seen:
                seen.add(name)
                members.append((name, member))
    manifest = {
        "format": VERIFY_FORMAT,
        "folder": folder.name,
        "files": {name: file_sha256(path) for name, path in members},
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(out, "x", compression=zipfile.ZIP_DEFLATED) as z:
            for name, path in members:
                z.write(path, name)
            z.writestr(BUNDLE_MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    except BaseException:
        with contextlib.suppress(OSError):
            out.unlink()
        raise
    return len(members)


#: A bundle unpacks to at most this many bytes (a zip bomb is refused before unpacking).
MAX_BUNDLE_BYTES = 4 << 30


def unpack_bundle(bundle: Path, into: Path) -> tuple[Path, Path]:
    """Unpack a bundle of :func:`write_bundle` into the folder ``into`` after checking it: every
    member named in its manifest with the sha256 recorded there, nothing else, no path outside
    the folder. Returns the run folder and the games folder. Raises :class:`VerifyError`."""
    try:
        z = zipfile.ZipFile(bundle)
    except (OSError, zipfile.BadZipFile) as exc:
        raise VerifyError(f"{bundle}: not a bundle ({exc})") from None
    with z:
        try:
            manifest = json.loads(z.read(BUNDLE_MANIFEST))
            files = manifest["files"]
            if not isinstance(files, dict):
                raise TypeError("files is not a mapping")
        except (KeyError, ValueError, TypeError) as exc:
            raise VerifyError(f"{bundle}: no readable {BUNDLE_MANIFEST} ({exc})") from None
        infos = [i for i in z.infolist() if not i.is_dir() and i.filename != BUNDLE_MANIFEST]
        names = {i.filename for i in infos}
        if names != set(files):
            extra = sorted(names - set(files)) or sorted(set(files) - names)
            raise VerifyError(f"{bundle}: its members are not those of its manifest "
                              f"({', '.join(extra[:3])})")
        if sum(i.file_size for i in infos) > MAX_BUNDLE_BYTES:
            raise VerifyError(f"{bundle}: unpacks to more than {MAX_BUNDLE_BYTES >> 30} GiB")
        root = into.resolve()
        for info in infos:
            target = (root / info.filename).resolve()
            if not target.is_relative_to(root) or not info.filename.startswith(("run/",
                                                                              "games/")):
                raise VerifyError(f"{bundle}: member {info.filename!r} is outside the bundle")
            data = z.read(info)
            if hashlib.sha256(data).hexdigest() != files[info.filename]:
                raise VerifyError(f"{bundle}: {info.filename} does not have the sha256 its "
                                  "manifest records (changed after packing)")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return root / "run", root / "games"


def _reference_log(game_file: Path) -> Path | None:
    """The reference key log of a game file of an original data folder, if it has one."""
    stem = game_file.stem.split("-")
    if len(stem) < 2 or not stem[0].startswith("game"):
        return None
    number = stem[0][len("game"):] + "-" + stem[1]
    path = game_file.parent / "reference" / f"key_log_{number}.txt"
    return path if path.is_file() else None
