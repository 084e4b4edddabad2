"""The live progress display of ``escapebench run`` (on stderr).

On a terminal: a block redrawn a few times a second with one line per running episode
(setting, agent, model, steps, progress, hints) under an overall line (done/total, elapsed,
ETA). Elsewhere (a log file, a pipe, CI): plain lines, one when an episode starts, one when it
ends, and a status line at most every ``status_every_s`` seconds.
"""

from __future__ import annotations

import time
from typing import IO

from escapebench.bench.costs import Prices, format_cost
from escapebench.bench.episode import EpisodeSpec, StepProgress
from escapebench.bench.metrics import EpisodeResult

REDRAW_EVERY_S = 0.2
STATUS_EVERY_S = 10.0
_CLEAR_BELOW = "\x1b[J"


def _count(n: float) -> str:
    """A token count, short: 950, 12.3k, 4.56M."""
    from escapebench.bench.result_tables import short_count

    return short_count(n)


def _tokens(tokens_in: float, tokens_cached: float, tokens_out: float) -> str:
    """``"12.3k in / 8.1k cached / 950 out"``."""
    from escapebench.bench.result_tables import token_cells

    return token_cells(tokens_in, tokens_cached, tokens_out)


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


class LiveDisplay:
    """Shows the state of a run; all methods are cheap and safe to call from episode tasks."""

    def __init__(
        self,
        *,
        total: int,
        already_done: int = 0,
        stream: IO[str],
        live: bool | None = None,
        quiet: bool = False,
        status_every_s: float = STATUS_EVERY_S,
        prices: Prices | None = None,
    ) -> None:
        self.total = total
        self.done = already_done
        self.done_here = 0
        self.stream = stream
        self.quiet = quiet
        isatty = getattr(stream, "isatty", None)
        self.live = bool(isatty and isatty()) if live is None else live
        self.status_every_s = status_every_s
        self.started_at = time.monotonic()
        self.running: dict[str, tuple[EpisodeSpec, StepProgress | None]] = {}
        self.prices = prices
        self.finished_tokens = [0, 0, 0]  # tokens in, cached, out of the episodes finished here
        self.finished_cost = 0.0
        self._drawn_lines = 0
        self._last_draw = 0.0
        self._last_status = self.started_at
        if not quiet and already_done:
            self._line(f"{already_done} of {total} episodes already finished in this folder")

    # ------------------------------------------------------------------ events
    def started(self, spec: EpisodeSpec) -> None:
        self.running[spec.episode_id] = (spec, None)
        if not self.live:
            self._line(f"start  {spec.episode_id}")
        self._draw()

    def update(self, progress: StepProgress) -> None:
        entry = self.running.get(progress.episode_id)
        if entry is None:
            return
        self.running[progress.episode_id] = (entry[0], progress)
        now = time.monotonic()
        if self.live:
            if now - self._last_draw >= REDRAW_EVERY_S:
                self._draw()
        elif now - self._last_status >= self.status_every_s:
            self._last_status = now
            self._line(self._overall())

    def finished(self, spec: EpisodeSpec, result: EpisodeResult) -> None:
        self.running.pop(spec.episode_id, None)
        self.done += 1
        self.done_here += 1
        outcome = "escaped" if result.escaped else "not escaped"
        usage = ""
        tokens = (result.tokens_in, result.tokens_cached, result.tokens_out)
        self.finished_tokens = [a + b for a, b in zip(self.finished_tokens, tokens, strict=True)]
        if self.prices is not None:
            self.finished_cost += result.cost(self.prices)
        if result.model_calls:
            usage = f", {result.model_calls} model calls, tokens {_tokens(*tokens)}"
            if self.prices is not None:
                usage += f", {format_cost(result.cost(self.prices))}"
        self._line(
            f"done   {spec.episode_id}: {outcome} in {result.total_steps} steps, "
            f"{result.hints_used} hints, progress {100 * result.progress:.0f}%{usage}  "
            f"[{self.done}/{self.total}]"
        )

    def stopped(self, spec: EpisodeSpec, reason: str) -> None:
        self.running.pop(spec.episode_id, None)
        self._line(f"stop   {spec.episode_id}: {reason}")

    def close(self) -> None:
        self._erase()

    # ------------------------------------------------------------------ drawing
    def eta(self) -> str:
        """Time left, from the rate at which this run has finished episodes."""
        elapsed = time.monotonic() - self.started_at
        left = self.total - self.done
        if left <= 0:
            return "0m00s"
        if self.done_here == 0 or elapsed <= 0:
            return "--"
        return _duration(left * elapsed / self.done_here)

    def tokens(self) -> tuple[int, int, int]:
        """Tokens (in, cached, out) of this run so far: finished and running episodes."""
        totals = list(self.finished_tokens)
        for _, p in self.running.values():
            if p is not None:
                totals = [totals[0] + p.tokens_in, totals[1] + p.tokens_cached,
                          totals[2] + p.tokens_out]
        return totals[0], totals[1], totals[2]

    def _overall(self) -> str:
        elapsed = time.monotonic() - self.started_at
        tokens = self.tokens()
        usage = f", tokens {_tokens(*tokens)}" if any(tokens) else ""
        if usage and self.prices is not None:
            running = [p for _, p in self.running.values() if p is not None]
            spent = self.finished_cost + sum(
                self.prices.cost(p.tokens_in, p.tokens_cached, p.tokens_out) for p in running)
            usage += f", {format_cost(spent)}"
        return (
            f"[{self.done}/{self.total} done, {len(self.running)} running] "
            f"elapsed {_duration(elapsed)}, ETA {self.eta()}{usage}"
        )

    def _episode_line(self, spec: EpisodeSpec, p: StepProgress | None) -> str:
        steps = p.step if p else 0
        progress = 100 * p.progress if p else 0.0
        hints = p.hints if p else 0
        usage = f"  {_tokens(p.tokens_in, p.tokens_cached, p.tokens_out)}" if (
            p and p.tokens_in) else ""
        return (
            f"  {spec.defn.setting:<22} {spec.agent}/{spec.model} r{spec.repeat}  "
            f"step {steps:>5}  progress {progress:5.1f}%  hints {hints:>3}{usage}"
        )

    def _erase(self) -> None:
        if self.live and self._drawn_lines and not self.quiet:
            self.stream.write(f"\x1b[{self._drawn_lines}F{_CLEAR_BELOW}")
            self.stream.flush()
        self._drawn_lines = 0

    def _draw(self) -> None:
        if not self.live or self.quiet:
            return
        self._last_draw = time.monotonic()
        lines = [self._overall()]
        lines += [self._episode_line(spec, p) for spec, p in self.running.values()]
        self._erase()
        self.stream.write("\n".join(lines) + "\n")
        self.stream.flush()
        self._drawn_lines = len(lines)

    def _line(self, text: str) -> None:
        """A permanent line (kept above the live block)."""
        if self.quiet:
            return
        self._erase()
        self.stream.write(text + "\n")
        self.stream.flush()
        self._draw()
