"""What Inspect AI loads through the ``inspect_ai`` entry point of this package.

``inspect eval escapebench/escapebench`` finds the task here (pyproject.toml declares
``[project.entry-points.inspect_ai] escapebench = "escapebench.integrations.inspect._registry"``).
"""

from escapebench.integrations.inspect.task import escapebench

__all__ = ["escapebench"]
