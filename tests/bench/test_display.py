"""The live progress display."""

from __future__ import annotations

import io

from escapebench.bench.display import LiveDisplay
from escapebench.bench.episode import EpisodeSpec, StepProgress
from escapebench.bench.metrics import EpisodeResult


def test_the_live_display_redraws_one_line_per_running_episode(mini):
    stream = io.StringIO()
    display = LiveDisplay(total=3, stream=stream, live=True)
    spec = EpisodeSpec("mini__base__m__r0", mini, "base", "m")
    display.started(spec)
    display._last_draw = 0  # no throttling in the test
    display.update(StepProgress(spec.episode_id, 42, 0.5, 2))
    text = stream.getvalue()
    assert "step    42  progress  50.0%  hints   2" in text
    assert "[0/3 done, 1 running]" in text and "\x1b[" in text  # redrawn in place
    display.finished(spec, EpisodeResult(spec.episode_id, "mini", "mini", "normal", "base", "m",
                                         escaped=True, total_steps=50, progress=1.0))
    display.close()
    assert "escaped in 50 steps" in stream.getvalue()


def test_the_plain_display_prints_lines_without_escape_codes(mini):
    stream = io.StringIO()
    display = LiveDisplay(total=1, stream=stream, live=False, status_every_s=0)
    spec = EpisodeSpec("e", mini, "base", "m")
    display.started(spec)
    display.update(StepProgress("e", 3, 0.25, 0))
    assert "\x1b" not in stream.getvalue()
    assert stream.getvalue().splitlines() == ["start  e", "[0/1 done, 1 running] "
                                              "elapsed 0m00s, ETA --"]


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
