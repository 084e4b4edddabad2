"""Draw docs/terminal-live.png and docs/terminal-table.png: the live display of
``escapebench run`` and the Table-3 summary of a result folder, as an 80-column terminal shows
them (rich's recorded console, exported as SVG, rendered by headless Chromium).

    python docs/terminal_screenshots.py RESULT_FOLDER

RESULT_FOLDER: any folder ``escapebench run`` wrote (the table is its summary); the live
display shows made-up episodes in flight, drawn by the real :class:`LiveDisplay`.
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from escapebench.bench.display import LiveDisplay
from escapebench.bench.episode import EpisodeSpec, StepProgress
from escapebench.bench.metrics import EpisodeResult
from escapebench.bench.result_tables import format_table
from escapebench.bench.summaries import aggregate
from escapebench.games.loading import builtin_files, load_file
from escapebench.report.runs import all_results, load_runs

DOCS = Path(__file__).resolve().parent
WIDTH = 80


def live_console() -> Console:
    """The live display during a run: finished episodes above, three in flight below."""
    defs = {d.setting: d for path in builtin_files() for d in load_file(path)}
    lines = io.StringIO()  # the lines that stay above the block, as the display prints them
    display = LiveDisplay(total=42, stream=lines, live=False)
    display.started_at = time.monotonic() - 754
    screen = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True)
    for n, setting in enumerate(["tutorial", "cabin-easy", "cabin"]):
        spec = EpisodeSpec(f"{setting}__base__gpt-4o-mini__r0", defs[setting], "base",
                           "gpt-4o-mini")
        display.finished(spec, EpisodeResult(
            spec.episode_id, setting, "", "", "base", "gpt-4o-mini", escaped=True,
            total_steps=57 + 31 * n, hints_used=n, progress=1.0, model_calls=60 + 25 * n,
            tokens_in=41_000 * (n + 1), tokens_out=900 * (n + 1)))
    screen.print(Text(lines.getvalue().rstrip("\n")))
    for setting, step, progress, hints, calls in (("cabin-hard", 131, 0.62, 4, 139),
                                                  ("clocktower-easy", 48, 0.35, 0, 49),
                                                  ("clocktower", 12, 0.08, 0, 12)):
        spec = EpisodeSpec(f"{setting}__base__gpt-4o-mini__r0", defs[setting], "base",
                           "gpt-4o-mini")
        display.running[spec.episode_id] = (spec, StepProgress(spec.episode_id, step, progress,
                                                               hints, model_calls=calls))
    screen.print(display.renderable())
    return screen


def table_console(folder: str) -> Console:
    """The summary table ``escapebench run`` prints at the end, at 80 columns."""
    summaries = aggregate(all_results(load_runs([folder])))
    screen = Console(record=True, width=WIDTH, file=io.StringIO(), force_terminal=True)
    screen.print(Text.from_ansi(format_table(summaries, width=WIDTH, styled=True)))
    return screen


def to_png(console: Console, title: str, out: Path) -> None:
    """The console's record as an SVG, screenshot by headless Chromium."""
    from playwright.sync_api import sync_playwright

    svg = console.export_svg(title=title)
    html = ("<html><body style='margin:0;background:#fff'>" + svg + "</body></html>")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1000, "height": 400}, device_scale_factor=1)
        page.set_content(html)
        page.locator("svg").screenshot(path=str(out))
        browser.close()


def main() -> None:
    to_png(live_console(), "escapebench run", DOCS / "terminal-live.png")
    to_png(table_console(sys.argv[1]), "escapebench run: the summary at 80 columns",
           DOCS / "terminal-table.png")


if __name__ == "__main__":
    main()
