"""The live progress display."""

from __future__ import annotations

import io
import time

from rich.console import Console

from escapebench.bench.display import LiveDisplay
from escapebench.bench.episode import EpisodeSpec, StepProgress
from escapebench.bench.metrics import EpisodeResult


def _result(spec: EpisodeSpec, **kw: object) -> EpisodeResult:
    return EpisodeResult(spec.episode_id, "mini", "mini", "normal", "base", "m", **kw)


def test_the_live_display_redraws_one_row_per_running_episode(mini):
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=80, color_system=None)
    display = LiveDisplay(total=3, stream=stream, live=True, console=console)
    spec = EpisodeSpec("mini__base__m__r0", mini, "base", "m")
    display.started(spec)
    display._last_draw = 0  # no throttling in the test
    display.update(StepProgress(spec.episode_id, 42, 0.5, 2, model_calls=40))
    screen = Console(record=True, width=80, file=io.StringIO())
    screen.print(display.renderable())
    block = screen.export_text()  # what the terminal shows now
    row = next(line for line in block.splitlines() if line.startswith("mini "))
    assert row.split()[:7] == ["mini", "base", "/", "m", "0", "42", "50.0%"]
    assert row.split()[-1] == "2"  # hints
    assert "0/3 done, 1 running" in block and "ETA --" in block
    assert display.calls() == 40
    assert "\x1b[" in stream.getvalue()  # redrawn in place
    assert all(len(line) <= 80 for line in block.splitlines())
    display.finished(spec, _result(spec, escaped=True, total_steps=50, progress=1.0,
                                   model_calls=45))
    assert display.calls() == 45
    display.close()
    text = stream.getvalue()
    assert "done   mini__base__m__r0: escaped in 50 steps" in text
    tail = text[text.rindex("\x1b[?25h"):]  # the cursor shown again, then the block erased
    assert tail.count("\x1b[1A\x1b[2K") == 2 and tail.endswith("\x1b[2K")


def test_the_plain_display_prints_lines_without_escape_codes(mini):
    stream = io.StringIO()
    display = LiveDisplay(total=1, stream=stream, live=False, status_every_s=0)
    spec = EpisodeSpec("e", mini, "base", "m")
    display.started(spec)
    display.update(StepProgress("e", 3, 0.25, 0))
    display.finished(spec, _result(spec, escaped=False, total_steps=3, progress=0.25))
    display.close()
    assert "\x1b" not in stream.getvalue()
    assert stream.getvalue().splitlines() == [
        "start  e",
        "[0/1 done, 1 running] elapsed 0m00s, ETA --",
        "done   e: not escaped in 3 steps, 0 hints, progress 25%  [1/1]",
    ]


def test_a_finished_line_counts_one_step_and_one_hint_in_the_singular(mini):
    stream = io.StringIO()
    display = LiveDisplay(total=1, stream=stream, live=False, status_every_s=0)
    spec = EpisodeSpec("e", mini, "base", "m")
    display.started(spec)
    display.finished(spec, _result(spec, escaped=True, total_steps=1, hints_used=1, progress=1))
    display.close()
    assert "done   e: escaped in 1 step, 1 hint, progress 100%  [1/1]" in stream.getvalue()


def test_a_stream_that_is_not_a_terminal_gets_plain_lines(mini):
    stream = io.StringIO()  # isatty() is False: no live block unless asked
    display = LiveDisplay(total=1, stream=stream)
    display.started(EpisodeSpec("e", mini, "base", "m"))
    display.close()
    assert stream.getvalue() == "start  e\n"


def test_the_display_shows_tokens_in_cached_out_and_the_cost_so_far(mini):
    from escapebench.bench.costs import Prices

    stream = io.StringIO()
    display = LiveDisplay(total=2, stream=stream, live=True, prices=Prices(1.0, 0.5, 4.0))
    spec = EpisodeSpec("mini__base__m__r0", mini, "base", "m")
    display.started(spec)
    display._last_draw = 0
    display.update(StepProgress(spec.episode_id, 7, 0.5, 0, tokens_in=12_000,
                                tokens_cached=8_000, tokens_out=900))
    assert "12k in / 8000 cached / 900 out" in stream.getvalue()
    display.finished(spec, EpisodeResult(spec.episode_id, "mini", "mini", "normal", "base", "m",
                                         total_steps=9, model_calls=9, tokens_in=1_000_000,
                                         tokens_cached=0, tokens_out=250_000))
    assert "9 model calls, tokens 1M in / 0 cached / 250k out, $2.00" in stream.getvalue()
    assert display.tokens() == (1_000_000, 0, 250_000)  # the finished episode's, in the total
    assert "$2.00" in display._overall()


def test_a_slow_model_shows_seconds_per_call_and_the_time_since_its_last_answer(mini):
    # A local model on a CPU: a call every 25 s read "0.0 calls/s, ETA --" for minutes.
    stream = io.StringIO()
    display = LiveDisplay(total=1, stream=stream, live=False, status_every_s=0)
    spec = EpisodeSpec("e", mini, "base", "m")
    display.started(spec)
    display.started_at -= 250  # the run began 250 s ago
    display.update(StepProgress("e", 10, 0.1, 0, model_calls=10, sent_calls=10,
                                model_wait_s=248.0))
    display.last_answer_at = time.monotonic() - 12  # the latest answer came 12 s ago
    line = display._overall()
    assert "0.04 calls/s, 24.8s per call, last answer 0m12s ago" in line
    assert "0.0 calls/s" not in line
    # A call answered from the response cache took no model time: not in the mean.
    display.update(StepProgress("e", 11, 0.1, 0, model_calls=11, sent_calls=10,
                                model_wait_s=248.0))
    assert "24.8s per call, last answer 0m00s ago" in display._overall()
    display.finished(spec, _result(spec, total_steps=11, model_calls=11))
    assert display.seconds_per_call() == 24.8
    display.close()


def test_the_live_block_keeps_its_clocks_moving_between_steps(mini):
    # Between two answers of a slow model no step happens; the block is redrawn anyway.
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=100, color_system=None)
    display = LiveDisplay(total=1, stream=stream, live=True, console=console)
    spec = EpisodeSpec("e", mini, "base", "m")
    display.started(spec)
    before = stream.getvalue().count("elapsed")
    time.sleep(1.5)
    assert stream.getvalue().count("elapsed") >= before + 1
    display.close()
