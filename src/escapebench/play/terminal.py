"""What terminal play shows: the numbered scene, the hint line, the help and settings texts.

The texts of ``escapebench play`` (:mod:`escapebench.play.command_play`), built from
:meth:`~escapebench.play.session.PlaySession.view`.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from escapebench.play.session import PlaySession
from escapebench.terminal import counted

HELP = """\
Actions (numbers refer to the lists shown; names work too):
  move N              go through exit N               e.g. move 1, move(To the shelf)
  click N             click thing N / pick up a tool  e.g. click 2, click(desk drawer)
  apply(N, M)         use bag tool N on thing M       e.g. apply(1, 3), apply 1 3
  input(TEXT, M)      type TEXT into thing M          e.g. input(427, 2)
  craft(N, M)         combine bag tools N and M       e.g. craft 1 2
Other commands:
  hint                show the next action of the solution (counts as a hint)
  look                show the scene again
  save [FILE]         save the game to a JSON file (default: SETTING.save.json)
  load [FILE]         continue a saved game
  quit                stop; the game is saved to continue later with --load, and a
                      result is written only for a game that ended
  help                this text"""


def render(session: PlaySession) -> str:
    """The numbered view of the current scene, for the terminal."""
    v = session.view()
    lines = [
        f"--- step {v['step']} | hints {v['hints_used']} | progress {v['progress']:.0%} ---",
        f"You are in: {v['scene']}"
        + (f"   (path: {v['position']})" if v["position"] != v["scene"] else ""),
    ]
    if v["description"]:
        lines.append(v["description"])
    lines.append("Things here:" if v["things"] else "Things here: none")
    for t in v["things"]:
        note = " (tool: click to take it)" if t["kind"] == "tool" else ""
        # neutral: a code mark is read, not clicked ("nothing to do with it" read as "ignore it")
        note = note if t["interactable"] else " (to look at; no action)"
        lines.append(f"  {t['n']}. {t['name']}{note}: {t['desc']}")
    lines.append("Exits:" if v["exits"] else "Exits: none")
    lines += [f"  {e['n']}. {e['label']} -> {e['target']}" for e in v["exits"]]
    lines.append("Bag:" if v["bag"] else "Bag: empty")
    lines += [f"  {t['n']}. {t['name']}: {t['desc']}" for t in v["bag"]]
    if v["hint"]:
        lines.append(hint_text(v["hint"]))
    return "\n".join(lines)


def hint_text(hint: dict) -> str:
    """The hint line under the scene: where, what, and when it will be played for you. While
    a hint is in force the hint system puts the player back in its scene before each step (the
    paper's help), so a move away lasts one step: the line says so."""
    left = hint["help_steps"] - hint["steps_in_help"]
    # The path only adds something when the scene is not the start scene itself.
    where = hint["scene"] if hint["path"] == hint["scene"] else f"{hint['scene']} ({hint['path']})"
    return (
        f"HINT: in {where} do: {hint['action']}  "
        f"[played for you in {counted(left, 'step')}; until then each step "
        f"starts in {hint['scene']}]"
    )


def resume_command(args: argparse.Namespace, save: Path) -> str:
    """The command that continues a saved game (same game and version; the save holds the
    player, hint options and step limit)."""
    words = ["escapebench", "play", args.game]
    if args.difficulty:
        words += ["--difficulty", args.difficulty]
    return shlex.join([*words, "--load", str(save)])


def settings_text(session: PlaySession) -> str:
    """The hint options and step limit of the session's game, in the options' terms."""
    options = session.policy.options
    return (
        f"--patience {options.patience}, --help-steps {options.help_steps}, "
        f"--max-steps {session.max_steps}"
    )


def ignored_settings(args: argparse.Namespace, session: PlaySession) -> list[str]:
    """The settings given on the command line that differ from the loaded game's own."""
    options = session.policy.options
    own = {
        "--patience": (args.patience, options.patience),
        "--help-steps": (args.help_steps, options.help_steps),
        "--max-steps": (args.max_steps, session.max_steps),
    }
    return [
        f"{flag} {given}" for flag, (given, kept) in own.items()
        if given is not None and given != kept
    ]


def loaded_text(args: argparse.Namespace, session: PlaySession) -> str:
    """What to say after loading a game: the settings it keeps, and given ones not used."""
    lines = [f"This game keeps the settings it was started with: {settings_text(session)}."]
    ignored = ignored_settings(args, session)
    if ignored:
        lines.append(
            f"Not used: {', '.join(ignored)} from the command line; a game's hint and step "
            "counts are only comparable under the settings it was started with."
        )
    return "\n".join(lines)
