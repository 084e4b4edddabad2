"""EscapeBench as an Inspect AI task (``pip install 'escapebench[inspect]'``).

* :func:`escapebench`: the task, ``inspect eval escapebench/escapebench --model ...``;
* :func:`play_episode`: the solver (our episode loop, agents and hint system);
* :func:`escape_metrics`: the scorer (the paper's metrics, Table 3 over the samples);
* :class:`InspectChatModel`: our agents' model calls answered by Inspect's model.
"""

from escapebench.integrations.extras import warn_openai_clash
from escapebench.integrations.inspect.model import InspectChatModel
from escapebench.integrations.inspect.scorer import escape_metrics
from escapebench.integrations.inspect.task import escapebench, play_episode

__all__ = ["InspectChatModel", "escape_metrics", "escapebench", "play_episode"]

warn_openai_clash()  # one line where verifiers has put openai 2.x under Inspect
