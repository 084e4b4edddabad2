"""The plan of a run: its episodes, its fingerprint and its default result folder.

:func:`plan_run` turns :class:`~escapebench.bench.settings.RunSettings` into a :class:`RunPlan`:
the episodes (games x repeats, sorted by episode id, optionally one shard of them), the games
played and the fingerprint (:func:`run_fingerprint`: the keys of ``run.json`` that decide
results, :data:`FINGERPRINT_KEYS`). :func:`compatible` says why a folder's ``run.json`` cannot
take results of another fingerprint. No file is written here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from escapebench.bench.episode import EpisodeSpec
from escapebench.bench.hints import HintOptions, ReferenceEffect, reference_effects
from escapebench.bench.metrics import RESULT_VERSION
from escapebench.bench.records import EPISODES_DIR
from escapebench.bench.settings import RunConfigError, RunSettings
from escapebench.engine.model import GameDefinition
from escapebench.games.loading import file_sha256
from escapebench.protocols.base import PromptProtocol
from escapebench.protocols.escapebench.observation import OBSERVATION_VERSION

FINGERPRINT_KEYS: tuple[str, ...] = (
    "escapebench_version",
    "prompt_version",
    "observation_version",
    "result_version",
    "agent",
    "agent_settings",
    "model",
    "sampling",
    "hints",
    "max_steps",
    "action_format",
    "protocol",
)
"""Keys of ``run.json`` that decide results: folders must agree on them to be combined."""
FINGERPRINT_DEFAULTS: dict[str, Any] = {"action_format": "text"}
"""What a key means in a ``run.json`` written before the key existed."""

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    """A file-name-safe form of ``text`` (several texts can have the same one: a part of a
    name that must tell texts apart is :func:`name_part`)."""
    return _SLUG.sub("_", text).strip("._")[:100] or "x"


def name_part(text: str) -> str:
    """``text`` itself when it is already a safe file name of at most 100 characters, else a
    readable prefix and a hash of the whole text (``my_game~3fa2b1c4d5`` for "my game"): two
    texts never get the same part, as ``~`` is in no safe name."""
    safe = slug(text)
    if safe == text:
        return text
    return f"{safe[:60]}~{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def prompt_version() -> str:
    """The version name of the agents' prompt templates (empty if the module is absent)."""
    try:
        from escapebench.protocols.escapebench.prompts import PROMPT_VERSION
    except ImportError:  # pragma: no cover
        return ""
    return str(PROMPT_VERSION)


@dataclass
class RunPlan:
    """The episodes of a run and the metadata written next to their results."""

    settings: RunSettings
    out: Path
    specs: list[EpisodeSpec]
    definitions: dict[str, GameDefinition]  # setting -> definition
    effects: dict[str, tuple[ReferenceEffect, ...]]
    model_name: str
    fingerprint: dict[str, Any]
    games: list[dict[str, Any]]
    protocol: PromptProtocol | None = None
    # settings left out by --skip-unplayable: {"setting", "source", "reason", "errors"}
    skipped: list[dict[str, Any]] = field(default_factory=list)


def episode_id(setting: str, agent: str, model: str, repeat: int) -> str:
    """``<setting>__<agent>__<model-slug>__r<repeat>``, safe as a folder name and unique per
    setting: the setting's part is :func:`name_part` (a name that is not a safe file name, or
    longer than 100 characters, gets a hash of the whole name), and the agent and model are
    the same for every episode of a result folder (its ``run.json`` keeps others out)."""
    return f"{name_part(setting)}__{slug(agent)}__{slug(model)}__r{repeat}"


def legacy_episode_id(setting: str, agent: str, model: str, repeat: int) -> str:
    """The id escapebench gave an episode before :func:`name_part` (the setting cut at 100
    characters, unsafe characters replaced): the folder name of episodes played then."""
    return f"{slug(setting)}__{slug(agent)}__{slug(model)}__r{repeat}"


def refuse_duplicate_ids(specs: Sequence[EpisodeSpec]) -> None:
    """Two episodes of a plan with one id would share a folder and mix their step logs."""
    seen: dict[str, EpisodeSpec] = {}
    for spec in specs:
        other = seen.setdefault(spec.episode_id, spec)
        if other is not spec:
            raise RunConfigError(
                f"settings {other.defn.setting!r} (repeat {other.repeat}) and "
                f"{spec.defn.setting!r} (repeat {spec.repeat}) would share the episode folder "
                f"{spec.episode_id}; rename one of them"
            )


def resume_legacy_folders(specs: list[EpisodeSpec], out: Path, agent: str, model: str,
                          all_settings: Sequence[str]) -> list[EpisodeSpec]:
    """Give an episode the folder name of an earlier escapebench where that folder exists in
    ``out`` and its own does not, so that a folder played before still resumes (not when two
    settings of the plan, ``all_settings``, had that one name: their episodes are played
    again)."""
    episodes = out / EPISODES_DIR
    if not episodes.is_dir():
        return specs
    parts = Counter(slug(setting) for setting in all_settings)
    shared = {p for p, n in parts.items() if n > 1}
    kept: list[EpisodeSpec] = []
    for spec in specs:
        name = legacy_episode_id(spec.defn.setting, agent, model, spec.repeat)
        if (name != spec.episode_id and slug(spec.defn.setting) not in shared
                and (episodes / name).is_dir() and not (episodes / spec.episode_id).exists()):
            spec = replace(spec, episode_id=name)
        kept.append(spec)
    return kept


def game_record(defn: GameDefinition) -> dict[str, Any]:
    """What ``run.json`` records of a game: its setting, file and the hashes that tell whether
    two runs played the same game."""
    source = Path(defn.source) if defn.source else None
    sha = ""
    if source is not None and source.is_file():
        sha = file_sha256(source)
    reference = json.dumps([[list(r.path), r.action] for r in defn.reference])
    generated = defn.generated
    if generated:  # a game of a gen: spec, made in memory: the spec and the text's hash
        return {
            "setting": defn.setting, "game": defn.game, "difficulty": defn.difficulty,
            "file": generated.file, "sha256": generated.sha256,
            "reference_sha256": hashlib.sha256(reference.encode()).hexdigest(),
            "generated": {"spec": generated.spec,
                          "generator_version": generated.generator_version},
        }
    return {
        "setting": defn.setting,
        "game": defn.game,
        "difficulty": defn.difficulty,
        "file": str(source.resolve()) if source else "",  # absolute: found again from anywhere
        "sha256": sha,
        "reference_sha256": hashlib.sha256(reference.encode()).hexdigest(),
    }


def refuse_broken_games(definitions: Sequence[GameDefinition]) -> None:
    """Raise :class:`RunConfigError` naming file:line and problem if a setting has errors
    (see :func:`escapebench.games.require_playable`)."""
    from escapebench.games import BrokenGamesError, require_playable

    try:
        require_playable(definitions)
    except BrokenGamesError as exc:
        raise RunConfigError(
            f"{exc.summary}; a game with errors would give meaningless results, so nothing "
            f"was played:\n{exc.details}"
        ) from None


def plan_run(
    settings: RunSettings, model_name: str, agent_settings: dict[str, Any], label: str
) -> RunPlan:
    """Resolve games, episodes, shard and output folder (no file is written)."""
    from escapebench.catalog import load_games_reporting
    from escapebench.games import split_playable, unplayable_file

    settings.validate()
    definitions, failed = load_games_reporting(settings.games, settings.difficulties)
    if len(failed) == 1 and not definitions:
        raise failed[0]  # the one file named does not load: its error is the whole story
    # Every setting that cannot be played, at once: files that do not load, settings with
    # check errors (a game with errors can stop in the middle of play, and its numbers would
    # mean nothing).
    definitions, unplayable, _ = split_playable(definitions)
    unplayable = [unplayable_file(e) for e in failed] + unplayable
    if unplayable and not settings.skip_unplayable:
        listed = "\n  ".join(str(u) for u in unplayable)
        files = " ".join(sorted({u.source for u in unplayable}))
        raise RunConfigError(
            f"{len(unplayable)} setting(s) cannot be played (a game with errors would give "
            f"meaningless results), so nothing was played:\n  {listed}\n"
            f"Run 'escapebench check {files}' for the full report, or pass --skip-unplayable "
            "to play the others (the skipped ones are recorded in run.json)."
        )
    if not definitions:
        if unplayable:
            raise RunConfigError(
                "no playable settings left: every setting matched was skipped as unplayable"
            )
        raise RunConfigError("no game settings match --games and --difficulty")
    by_setting: dict[str, GameDefinition] = {}
    for d in definitions:
        other = by_setting.get(d.setting)
        if other is not None:
            raise RunConfigError(
                f"setting {d.setting!r} is defined twice ({other.source} and {d.source}); "
                "episode ids must be unique"
            )
        by_setting[d.setting] = d
    protocol = protocol_for(settings)
    specs = [
        EpisodeSpec(
            episode_id=episode_id(d.setting, label, model_name, r),
            defn=d,
            agent=label,
            model=model_name,
            repeat=r,
            max_steps=settings.max_steps,
            hints=HintOptions(settings.patience, settings.help_steps),
            prompt_version=str(agent_settings.get("prompt_version", "")),
            action_format=settings.action_format,
            protocol=protocol.label,
        )
        for d in definitions
        for r in range(settings.repeats)
    ]
    specs.sort(key=lambda s: s.episode_id)
    refuse_duplicate_ids(specs)
    if settings.shard is not None:
        i, n = settings.shard
        specs = specs[i - 1 :: n]
    games = [game_record(d) for d in sorted(definitions, key=lambda d: d.setting)]
    fingerprint = run_fingerprint(
        agent=label,
        agent_settings=agent_settings,
        model=model_name,
        hints=HintOptions(settings.patience, settings.help_steps),
        max_steps=settings.max_steps,
        prompt_version=prompt_version(),
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
        action_format=settings.action_format,
        protocol=protocol_record(protocol),
    )
    out = settings.out or default_out_dir(fingerprint, games)
    specs = resume_legacy_folders(specs, out, label, model_name, list(by_setting))
    effects = {d.setting: reference_effects(d) for d in definitions}
    return RunPlan(
        settings, out, specs, by_setting, effects, model_name, fingerprint, games, protocol,
        skipped=[u.to_json() for u in unplayable],
    )


def protocol_for(settings: RunSettings) -> PromptProtocol:
    """The run's protocol (``--protocol``; by default ``original`` for games of an original
    checkout), or :class:`RunConfigError` in one line saying what to pass."""
    from escapebench.catalog import split_specs
    from escapebench.protocols import OriginalSourceError, make_protocol

    try:
        return make_protocol(settings.protocol, split_specs(settings.games),
                             settings.original_source)
    except (OriginalSourceError, ValueError) as exc:
        raise RunConfigError(str(exc)) from None


def protocol_record(protocol: PromptProtocol) -> dict[str, Any]:
    """What decides results of a protocol (its name, version and the sha256 of the files its
    texts come from), for the fingerprint; where the files were is not in it."""
    return {k: v for k, v in protocol.record().items() if k != "source"}


def run_fingerprint(
    *,
    agent: str,
    agent_settings: dict[str, Any],
    model: str,
    hints: HintOptions,
    max_steps: int,
    prompt_version: str = "",
    temperature: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
    action_format: str = "text",
    protocol: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The keys of ``run.json`` that decide results (:data:`FINGERPRINT_KEYS`), for the harness
    and for human play: two folders can be combined only if these are equal.

    ``temperature``, ``max_tokens`` and ``seed`` are the run's sampling options (None where
    no model samples); the escapebench, observation and result versions are this package's.
    """
    fingerprint: dict[str, Any] = {
        "escapebench_version": _package_version(),
        "prompt_version": prompt_version,
        "observation_version": OBSERVATION_VERSION,
        "result_version": RESULT_VERSION,
        "agent": agent,
        "agent_settings": agent_settings,
        "model": model,
        "sampling": {"temperature": temperature, "max_tokens": max_tokens, "seed": seed},
        "hints": {"patience": hints.patience, "help_steps": hints.help_steps},
        "max_steps": max_steps,
        "action_format": action_format,
        "protocol": protocol or _escapebench_record(),
    }
    assert tuple(fingerprint) == FINGERPRINT_KEYS
    return fingerprint


def _escapebench_record() -> dict[str, Any]:
    from escapebench.protocols.escapebench import EscapebenchProtocol

    return EscapebenchProtocol().record()


def default_out_dir(fingerprint: dict[str, Any], games: list[dict[str, Any]]) -> Path:
    """``runs/<agent>__<model>__<hash>``: the same command always lands in the same folder,
    which is what makes re-running it resume."""
    digest = hashlib.sha256(
        json.dumps([fingerprint, games], sort_keys=True, default=str).encode()
    ).hexdigest()[:10]
    return Path("runs") / f"{slug(fingerprint['agent'])}__{slug(fingerprint['model'])}__{digest}"


def _package_version() -> str:
    from escapebench import __version__

    return str(__version__)


# ---------------------------------------------------------------------- against a run.json
def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"not JSON-serializable: {type(value).__name__}")


def normalized(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists, dataclasses dicts)."""
    return json.loads(json.dumps(value, default=_json_default))


def compatible(existing: dict[str, Any], plan_fingerprint: dict[str, Any],
               games: list[dict[str, Any]], *, existing_is: str = "in the folder",
               new_is: str = "now") -> list[str]:
    """Why a folder's ``run.json`` cannot take these results (empty: it can).

    Every result-affecting setting must be equal; games present in both must have the same
    file and reference hashes. More games or more repeats are fine: the folder just grows.
    ``existing_is`` and ``new_is`` say where each value comes from in the messages
    ("agent: 'base' in the folder, 'explorer' now").
    """
    problems = []
    new = normalized(plan_fingerprint)
    for key in sorted(new):
        before = existing.get(key, FINGERPRINT_DEFAULTS.get(key))
        now = FINGERPRINT_DEFAULTS.get(key) if new[key] is None else new[key]
        if before != now:
            problems.append(f"{key}: {before!r} {existing_is}, {now!r} {new_is}")
    old_games = {g["setting"]: g for g in existing.get("games", [])}
    for g in games:
        before = old_games.get(g["setting"])
        if before is None:
            continue
        for key in ("sha256", "reference_sha256"):
            if before.get(key) and g.get(key) and before[key] != g[key]:
                problems.append(f"game {g['setting']}: its file has changed ({key})")
                break
    return problems
