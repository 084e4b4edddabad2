"""What tokens cost: the prices a user gives (``--price-in``, ``--price-cached``,
``--price-out``, USD per million tokens) and the cost of a count of tokens at those prices.

escapebench ships no price table (prices change): without prices there are no cost columns.
Input tokens the server read from its prefix cache are priced at ``--price-cached`` (at the
input price when it is not given); the others at ``--price-in``. A call answered from
escapebench's own response cache (``--cache``) sent nothing and costs nothing: results count
its tokens like those of the call it replays, and cost leaves them out.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any

__all__ = ["Prices", "add_price_arguments", "format_cost", "prices_from_args"]

PER_TOKENS = 1_000_000


@dataclass(frozen=True)
class Prices:
    """USD per million tokens: input, input read from the server's prefix cache, output."""

    input: float
    cached: float | None = None  # None: cached input tokens cost the input price
    output: float = 0.0

    @property
    def cached_input(self) -> float:
        """The price of an input token the server read from its cache."""
        return self.input if self.cached is None else self.cached

    def cost(self, tokens_in: float, tokens_cached: float, tokens_out: float) -> float:
        """USD for ``tokens_in`` input tokens (``tokens_cached`` of them from the server's
        prefix cache) and ``tokens_out`` output tokens."""
        cached = min(max(tokens_cached, 0), tokens_in)
        return (
            (tokens_in - cached) * self.input
            + cached * self.cached_input
            + tokens_out * self.output
        ) / PER_TOKENS

    def record(self) -> dict[str, Any]:
        """As written to ``run.json`` (USD per million tokens)."""
        return {"unit": "USD per 1M tokens", "input": self.input,
                "cached_input": self.cached_input, "output": self.output}

    @classmethod
    def from_record(cls, data: object) -> Prices | None:
        """The prices of a ``run.json`` record (None: none recorded or unreadable)."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(float(data["input"]), float(data.get("cached_input", data["input"])),
                       float(data.get("output", 0.0)))
        except (KeyError, TypeError, ValueError):
            return None

    def label(self) -> str:
        """``"$0.15 in / $0.075 cached / $0.6 out per 1M tokens"``."""
        return (f"${self.input:g} in / ${self.cached_input:g} cached / ${self.output:g} out "
                "per 1M tokens")


def _price(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a price: {text!r} (USD per million tokens)") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"a price must be a number >= 0, not {text!r}")
    return value


def add_price_arguments(parser: argparse.ArgumentParser | Any) -> None:
    """``--price-in``, ``--price-cached`` and ``--price-out`` (USD per million tokens)."""
    parser.add_argument("--price-in", type=_price, default=None, metavar="USD",
                        help="price of input tokens, USD per million (adds cost columns)")
    parser.add_argument("--price-cached", type=_price, default=None, metavar="USD",
                        help="price of input tokens the server read from its prompt cache, "
                        "USD per million (default: the input price)")
    parser.add_argument("--price-out", type=_price, default=None, metavar="USD",
                        help="price of output tokens, USD per million")


def prices_from_args(args: argparse.Namespace) -> Prices | None:
    """The prices a command line gives (None when it gives none)."""
    given = [getattr(args, n, None) for n in ("price_in", "price_cached", "price_out")]
    if all(v is None for v in given):
        return None
    p_in, p_cached, p_out = given
    return Prices(p_in or 0.0, p_cached, p_out or 0.0)


def format_cost(usd: float) -> str:
    """``"$12.34"``, with more digits for small sums (``"$0.0042"``)."""
    if usd >= 100:
        return f"${usd:,.0f}"
    if usd >= 1:
        return f"${usd:.2f}"
    return f"${usd:.2g}" if usd else "$0"
