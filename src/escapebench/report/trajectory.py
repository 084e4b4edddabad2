"""One episode's step log as the trajectory viewer shows it.

The viewer numbers steps from 1 (the log's ``step`` field counts from 0); a hint *starts* at the
first step whose record carries it with ``steps_in_help == 0``.
"""

from __future__ import annotations

from typing import Any

from escapebench.report.runs import Episode

# Per-step fields the viewer shows; anything else in a step record stays out of the report
# (``agent_state`` is the agent's resume data and can be large).
VIEWER_FIELDS = (
    "step",
    "position",
    "scene",
    "observation",
    "action",
    "raw_answer",
    "reasoning",
    "feedback",
    "success",
    "error",
    "events",
    "key_steps",
    "tools_collected",
    "progress",
    "progressed",
    "hint",
    "mode",
    "calls",
    "agent",
    "wall_s",
)


def hint_starts(steps: list[dict[str, Any]]) -> list[int]:
    """1-based positions of the steps at which a hint started."""
    out = []
    previous = None
    for n, rec in enumerate(steps, start=1):
        hint = rec.get("hint")
        if isinstance(hint, dict):
            ident = (hint.get("index"), hint.get("action"))
            if hint.get("steps_in_help") == 0 or ident != previous:
                out.append(n)
            previous = ident
        else:
            previous = None
    return out


def _clean_step(rec: dict[str, Any]) -> dict[str, Any]:
    out = {k: rec[k] for k in VIEWER_FIELDS if k in rec}
    events = out.get("events")
    if isinstance(events, list):
        # events may be logged as {kind, name} objects or as [kind, name] pairs; show both
        out["events"] = [
            e if isinstance(e, dict) else {"kind": e[0], "name": e[1] if len(e) > 1 else ""}
            for e in events
            if isinstance(e, (dict, list, tuple)) and e
        ]
    return out


def viewer_payload(ep: Episode) -> dict[str, Any]:
    """Everything the trajectory viewer shows of one episode, as JSON-able data."""
    steps = ep.steps()
    metrics: dict[str, Any] = {}
    if ep.result is not None:
        data = ep.result.to_dict()
        metrics = {k: v for k, v in data.items() if not isinstance(v, (list, dict))}
    return {
        "key": ep.key,
        "episode_id": ep.episode_id,
        "run": ep.run.index,
        **ep.describe(),
        "finished": ep.finished,
        "escaped": bool(ep.result and ep.result.escaped),
        "metrics": metrics,
        "hint_steps": hint_starts(steps),
        "steps": [_clean_step(r) for r in steps],
    }
