"""The live progress display of ``escapebench run`` (on stderr).

On a terminal: a block drawn with ``rich.live``, redrawn after steps and at least every second:
an overall line (done/total with a bar, elapsed, ETA, model calls per second, seconds per model
call and the time since the last answer, so that a slow model does not look hung) over a table
with one row per running episode (setting, agent / model, repeat, step, progress, hints). Lines
that stay (an episode finished or stopped) are printed above the block; the block is erased
when the run ends or is interrupted. Elsewhere (a log file, a pipe, CI): plain lines, one when an
episode starts, one when it ends, and a status line at most every ``status_every_s`` seconds.
"""

from __future__ import annotations

import time
from typing import IO, Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from escapebench.bench.costs import Prices, format_cost
from escapebench.bench.episode import EpisodeSpec, StepProgress
from escapebench.bench.metrics import EpisodeResult
from escapebench.terminal import counted

REDRAW_EVERY_S = 0.2
TICKS_PER_S = 1.0  # redraws without events: the clocks move while a model thinks
STATUS_EVERY_S = 10.0


def _count(n: float) -> str:
    """A token count, short: 950, 12.3k, 4.56M."""
    from escapebench.bench.result_tables import short_count

    return short_count(n)


def _tokens(tokens_in: float, tokens_cached: float, tokens_out: float) -> str:
    """``"12.3k in / 8.1k cached / 950 out"``."""
    from escapebench.bench.result_tables import token_cells

    return token_cells(tokens_in, tokens_cached, tokens_out)


def _rate(per_second: float) -> str:
    """Two significant digits: 0.04, 1.2, 37."""
    return f"{per_second:.0f}" if per_second >= 10 else f"{per_second:.2g}"


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


class LiveDisplay:
    """Shows the state of a run; all methods are cheap and safe to call from episode tasks.

    ``console`` (tests, screenshots) replaces the console the live block is drawn on.
    """

    def __init__(
        self,
        *,
        total: int,
        already_done: int = 0,
        stream: IO[str],
        live: bool | None = None,
        quiet: bool = False,
        status_every_s: float = STATUS_EVERY_S,
        console: Console | None = None,
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
        self.calls_done = 0  # model calls of the episodes finished in this run
        self.prices = prices
        self.finished_tokens = [0, 0, 0]  # tokens in, cached, out of the episodes finished here
        self.finished_cost = 0.0
        self.finished_wait = (0, 0.0)  # model calls sent and the seconds they took, finished
        self.last_answer_at: float | None = None  # when a step last brought a model answer
        self._last_draw = 0.0
        self._last_status = self.started_at
        self._live: Live | None = None
        if self.live and not quiet:
            console = console or Console(file=stream, force_terminal=True, highlight=False)
            self._live = Live(
                console=console, auto_refresh=True, refresh_per_second=TICKS_PER_S,
                transient=True,
                get_renderable=self.renderable, redirect_stdout=False, redirect_stderr=False,
            )
            self._live.start()
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
        previous = entry[1].model_calls if entry[1] is not None else 0
        if progress.model_calls > previous:  # this step brought model answers
            self.last_answer_at = now
        if self.live:
            if now - self._last_draw >= REDRAW_EVERY_S:
                self._draw()
        elif now - self._last_status >= self.status_every_s:
            self._last_status = now
            self._line(self._overall())

    def finished(self, spec: EpisodeSpec, result: EpisodeResult) -> None:
        entry = self.running.pop(spec.episode_id, None)
        if entry is not None and entry[1] is not None:
            sent, waited = self.finished_wait
            self.finished_wait = (sent + entry[1].sent_calls, waited + entry[1].model_wait_s)
        self.done += 1
        self.done_here += 1
        self.calls_done += result.model_calls
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
            f"done   {spec.episode_id}: {outcome} in {counted(result.total_steps, 'step')}, "
            f"{counted(result.hints_used, 'hint')}, progress {100 * result.progress:.0f}%{usage}  "
            f"[{self.done}/{self.total}]"
        )

    def stopped(self, spec: EpisodeSpec, reason: str) -> None:
        entry = self.running.pop(spec.episode_id, None)
        if entry is not None and entry[1] is not None:
            sent, waited = self.finished_wait
            self.finished_wait = (sent + entry[1].sent_calls, waited + entry[1].model_wait_s)
        self._line(f"stop   {spec.episode_id}: {reason}")

    def close(self) -> None:
        """Erase the live block (after the run, or when it is interrupted)."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    # ------------------------------------------------------------------ figures
    def eta(self) -> str:
        """Time left, from the rate at which this run has finished episodes."""
        elapsed = time.monotonic() - self.started_at
        left = self.total - self.done
        if left <= 0:
            return "0m00s"
        if self.done_here == 0 or elapsed <= 0:
            return "--"
        return _duration(left * elapsed / self.done_here)

    def calls(self) -> int:
        """Model calls made in this run so far (finished and running episodes)."""
        running = sum(p.model_calls for _, p in self._running() if p is not None)
        return self.calls_done + running

    def _running(self) -> list[tuple[EpisodeSpec, StepProgress | None]]:
        """The running episodes now (a copy: the live block is drawn from another thread)."""
        return list(self.running.values())

    def seconds_per_call(self) -> float | None:
        """Mean seconds a model call sent to the model took (None before the first)."""
        sent, waited = self.finished_wait
        for _, p in self._running():
            if p is not None:
                sent, waited = sent + p.sent_calls, waited + p.model_wait_s
        return waited / sent if sent else None

    def calls_per_second(self) -> float | None:
        """Model calls per second of this run (None in its first second: too early)."""
        elapsed = time.monotonic() - self.started_at
        return self.calls() / elapsed if elapsed >= 1.0 else None

    def _times(self) -> str:
        elapsed = time.monotonic() - self.started_at
        rate = self.calls_per_second()
        calls = f", {_rate(rate)} calls/s" if self.calls() and rate is not None else ""
        per_call = self.seconds_per_call()
        if per_call is not None:
            calls += f", {per_call:.1f}s per call"
        if self.last_answer_at is not None and self.running:
            calls += f", last answer {_duration(time.monotonic() - self.last_answer_at)} ago"
        return f"elapsed {_duration(elapsed)}, ETA {self.eta()}{calls}"

    def tokens(self) -> tuple[int, int, int]:
        """Tokens (in, cached, out) of this run so far: finished and running episodes."""
        totals = list(self.finished_tokens)
        for _, p in self._running():
            if p is not None:
                totals = [totals[0] + p.tokens_in, totals[1] + p.tokens_cached,
                          totals[2] + p.tokens_out]
        return totals[0], totals[1], totals[2]

    def _usage(self) -> str:
        """Tokens in / cached / out so far, and their cost when priced ("" before any call)."""
        tokens = self.tokens()
        if not any(tokens):
            return ""
        usage = f"tokens {_tokens(*tokens)}"
        if self.prices is not None:
            running = [p for _, p in self._running() if p is not None]
            spent = self.finished_cost + sum(
                self.prices.cost(p.tokens_in, p.tokens_cached, p.tokens_out) for p in running)
            usage += f", {format_cost(spent)}"
        return usage

    def _overall(self) -> str:
        usage = self._usage()
        return (
            f"[{self.done}/{self.total} done, {len(self.running)} running] {self._times()}"
            + (f", {usage}" if usage else "")
        )

    # ------------------------------------------------------------------ drawing
    def renderable(self) -> Any:
        """The live block: the overall line and bar, then one row per running episode."""
        head = Table.grid(padding=(0, 1))
        head.add_column(no_wrap=True)
        head.add_column(width=20)
        head.add_row(
            Text(f"{self.done}/{self.total} done, {len(self.running)} running", style="bold"),
            ProgressBar(total=max(self.total, 1), completed=self.done, width=20),
        )
        running = self._running()
        head.add_row(Text(self._times(), style="dim"), "")
        if self._usage():
            head.add_row(Text(self._usage(), style="dim"), "")
        table = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold dim")
        table.add_column("setting", overflow="fold")
        table.add_column("agent / model", overflow="fold")
        table.add_column("rep", justify="right")
        table.add_column("step", justify="right")
        table.add_column("progress", justify="right", no_wrap=True)
        table.add_column("", width=12)
        table.add_column("hints", justify="right")
        table.add_column("tokens in / cached / out", overflow="fold")
        for spec, p in running:
            progress = p.progress if p else 0.0
            table.add_row(
                spec.defn.setting, f"{spec.agent} / {spec.model}", str(spec.repeat),
                str(p.step if p else 0), f"{100 * progress:.1f}%",
                ProgressBar(total=1.0, completed=progress, width=12),
                str(p.hints if p else 0),
                _tokens(p.tokens_in, p.tokens_cached, p.tokens_out) if p and p.tokens_in else "",
            )
        return Group(head, table) if running else head

    def _draw(self) -> None:
        if self._live is None:
            return
        self._last_draw = time.monotonic()
        self._live.refresh()

    def _line(self, text: str) -> None:
        """A permanent line (kept above the live block)."""
        if self.quiet:
            return
        if self._live is not None:
            self._live.console.print(Text(text), soft_wrap=True)
            self._draw()
            return
        self.stream.write(text + "\n")
        self.stream.flush()
