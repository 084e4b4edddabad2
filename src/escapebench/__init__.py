"""escapebench: room-escape games that measure the creative intelligence of LLM agents."""

__version__ = "0.1.0"
