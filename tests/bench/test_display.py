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
