"""``import escapebench.gym`` registers the Gymnasium ids (optional extra ``gym``).

One id per built-in setting (``escapebench/lab-hard-v0``, ``escapebench/tutorial-v0`` for the
normal version) and the generic ``escapebench/game-v0`` (``game=`` a game file, an original
data folder or a built-in name; ``setting=`` one setting of it), and
``escapebench/generated-v0`` (``tier=``: a fresh generated game at each reset, from its
seed). The environments and wrappers are in :mod:`escapebench.integrations.gym`;
``gym.make("escapebench.gym:ID")`` imports this module itself.
"""

from escapebench.integrations.gym import (
    GENERATED_ID,
    GENERIC_ID,
    EscapeBenchEnv,
    GeneratedEnv,
    HintWrapper,
    RecordSteps,
    builtin_ids,
    env_id,
    register_envs,
)

__all__ = [
    "GENERATED_ID",
    "GENERIC_ID",
    "EscapeBenchEnv",
    "GeneratedEnv",
    "HintWrapper",
    "RecordSteps",
    "builtin_ids",
    "env_id",
    "register_envs",
]

register_envs()
