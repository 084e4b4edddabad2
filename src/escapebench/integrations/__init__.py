"""Adapters to other frameworks, each behind an optional extra.

* :mod:`escapebench.integrations.gym` (extra ``gym``): Gymnasium environments, one id per
  built-in setting (``escapebench/lab-hard-v0``) and a generic ``escapebench/game-v0``;
  ``import escapebench.gym`` registers them.
* :mod:`escapebench.integrations.verifiers` (extra ``verifiers``): a verifiers taskset and
  environment for language-model RL (``vf-eval``, prime-rl).

Both drive the engine (:class:`~escapebench.engine.EscapeGame`) directly; what the model reads
goes through :func:`escapebench.integrations.texts.observation_text`.
"""
