"""Adapters to other frameworks, each behind an optional extra.

* :mod:`escapebench.integrations.gym` (extra ``gym``): Gymnasium environments, one id per
  built-in setting (``escapebench/lab-hard-v0``) and a generic ``escapebench/game-v0``;
  ``import escapebench.gym`` registers them.
* :mod:`escapebench.integrations.openenv` (extra ``openenv``): an OpenEnv environment (typed
  Action / Observation / State, its FastAPI server; ``escapebench openenv`` serves it), playing
  the Gymnasium environment.
* :mod:`escapebench.integrations.verifiers` (extra ``verifiers``): a verifiers taskset and
  environment for language-model RL (``vf-eval``, prime-rl).
* :mod:`escapebench.integrations.inspect` (extra ``inspect``): the Inspect AI task
  ``escapebench/escapebench``; it plays the harness's own episode loop and agents
  (:class:`~escapebench.bench.episode.Episode`), not the engine directly.

Gymnasium and verifiers drive the engine (:class:`~escapebench.engine.EscapeGame`) through a
protocol's session (``protocol="escapebench"`` by default, ``"original"`` with a checkout);
what the model reads goes through :func:`escapebench.integrations.texts.environment_text`.

Only :mod:`escapebench.integrations.texts` is imported here (its names below); the adapters
are imported by name, each needing its extra.
"""

from escapebench.integrations.texts import (
    TEXTS_VERSION,
    choose_protocol,
    environment_text,
    hint_view,
    texts_version,
)

__all__ = ["TEXTS_VERSION", "choose_protocol", "environment_text", "hint_view", "texts_version"]
