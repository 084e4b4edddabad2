"""Draw docs/inspect-view.png, docs/inspect-view-transcript.png and docs/inspect-view-step.png:
``inspect view`` of real runs of the task ``escapebench/escapebench``, shot by headless Chromium.

    PYTHONPATH=src python docs/inspect_screenshots.py [WORK_FOLDER]

Everything runs on 127.0.0.1, with no network: ``escapebench fake-server``, then two
``inspect eval`` runs of the tutorial games (the example run of docs/inspect.md: its three
settings; and ``tutorial__r0`` alone with ``-T patience=2 -T help_steps=2``, so that hints come
early), each log served by
``inspect view`` and shot through Playwright. The console output of the first run is printed
(the text block of docs/inspect.md). WORK_FOLDER (default: a new temporary folder) keeps the
logs.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DOCS = Path(__file__).resolve().parent
SRC = DOCS.parent / "src"
WIDTH = 1400
EVAL = ["-T", "games=tutorial", "-T", "agent=base", "--display", "plain"]


def _env() -> dict[str, str]:
    """The environment of every command: this checkout's package first on the path (unless
    it is the one installed: Inspect then finds no task when the same folder is also on
    PYTHONPATH)."""
    env = dict(os.environ)
    import escapebench

    if Path(escapebench.__file__).resolve().parents[1] != SRC.resolve():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


def _command(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        sys.exit(f"{name}: not found on PATH (pip install -e '.[inspect]')")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@contextmanager
def _serving(args: list[str], ready_url: str, cwd: Path) -> Iterator[None]:
    """A server process for the block's duration; stopped by its own handle afterwards."""
    with open(cwd / f"{Path(args[0]).name}-{args[1]}.log", "w") as out:
        proc = subprocess.Popen(args, cwd=cwd, env=_env(), stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_for(ready_url)
            yield
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def run_eval(base_url: str, folder: Path, extra: list[str]) -> tuple[str, Path]:
    """One ``inspect eval`` of the task against the fake server: its console output and log."""
    folder.mkdir(parents=True, exist_ok=True)
    env = _env() | {"FAKE_BASE_URL": base_url, "FAKE_API_KEY": "none"}
    done = subprocess.run(
        [_command("inspect"), "eval", "escapebench/escapebench",
         "--model", "openai-api/fake/fake-model", *EVAL, *extra, "--log-dir", "logs"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=900,
    )
    if done.returncode != 0:
        sys.exit(f"inspect eval failed ({done.returncode}):\n{done.stdout}{done.stderr[-3000:]}")
    logs = sorted((folder / "logs").glob("*.eval"))
    return done.stderr + done.stdout, logs[-1]


def _browser(playwright):  # type: ignore[no-untyped-def]
    return playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                      args=["--no-sandbox", "--disable-gpu"])


def _scroll_to(page, text: str, margin: int) -> None:  # type: ignore[no-untyped-def]
    """Scroll the transcript so that ``text`` sits ``margin`` pixels below its top."""
    page.get_by_text(text).first.evaluate(
        """(e, margin) => {
          let s = e.parentElement;
          while (s && !(s.scrollHeight > s.clientHeight
                        && /auto|scroll/.test(getComputedStyle(s).overflowY))) s = s.parentElement;
          s.scrollTop += e.getBoundingClientRect().top - s.getBoundingClientRect().top - margin;
        }""",
        margin,
    )


def shoot_run(view_url: str, log: Path, first_sample: str) -> None:
    """The samples list of the run, then the first sample's transcript (steps as spans)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": WIDTH, "height": 900}, device_scale_factor=1)
        page.goto(f"{view_url}/#/tasks/{log.name}")
        page.get_by_text(first_sample, exact=True).first.wait_for()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(DOCS / "inspect-view.png"))
        page.goto(f"{view_url}/#/tasks/{log.name}/samples/sample/{first_sample}/1/")
        page.get_by_text("step 1", exact=True).first.wait_for()
        page.mouse.move(WIDTH - 10, 890)  # no hover highlight on the outline
        page.wait_for_timeout(1500)
        page.screenshot(path=str(DOCS / "inspect-view-transcript.png"))
        browser.close()


def hinted_step(log: Path, sample: str) -> int:
    """The first step of the sample that the model answered with a hint on screen."""
    from inspect_ai.log import read_eval_log

    run = read_eval_log(str(log), resolve_attachments=True)
    events = next(s for s in run.samples or [] if str(s.id) == sample).events
    for event in events:
        text = str(getattr(event, "data", "")) if event.event == "info" else ""
        if "**Hint:**" in text and "**Answer:**" in text:
            return int(str(event.source).rsplit(" ", 1)[-1])
    raise SystemExit(f"{log.name}: no step of {sample} answered in help")


def shoot_step(view_url: str, log: Path, sample: str) -> None:
    """The first step in help of the hinted run that the model answered: its summary (the hint,
    the answer, the feedback) and the next step's, where the hint system plays the action for
    the agent."""
    from playwright.sync_api import sync_playwright

    step = hinted_step(log, sample)

    with sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": WIDTH, "height": 1300}, device_scale_factor=1)
        page.goto(f"{view_url}/#/tasks/{log.name}/samples/sample/{sample}/1/")
        outline = page.get_by_text(f"step {step}", exact=True).first
        outline.wait_for()
        outline.click()  # the transcript jumps to the step's span
        page.wait_for_timeout(1500)
        _scroll_to(page, f"escapebench step {step}", margin=150)
        page.mouse.move(WIDTH - 10, 1290)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(DOCS / "inspect-view-step.png"))
        browser.close()


def _first_sample(log: Path) -> str:
    """The sample to open: the normal difficulty's if the run has it, else the first."""
    from inspect_ai.log import read_eval_log

    samples = read_eval_log(str(log)).samples or []
    normal = [s for s in samples if (s.metadata or {}).get("difficulty") == "normal"]
    return str((normal or samples)[0].id)


def main() -> None:
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="eb-shots-"))
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    server = [_command("escapebench"), "fake-server", "--port", str(port),
              "--model-name", "fake-model"]
    with _serving(server, f"{base_url}/models", work):
        output, run_log = run_eval(base_url, work / "run", [])
        _, hinted_log = run_eval(base_url, work / "hinted", [
            "-T", "patience=2", "-T", "help_steps=2", "--sample-id", "tutorial__r0",
            "--sample-shuffle", "0"])  # inspect-ai 0.3.285 shuffles by default, and refuses
            # --sample-id with a shuffle
    print(output)
    for log, shoot in ((run_log, shoot_run), (hinted_log, shoot_step)):
        view_port = _free_port()
        view = [_command("inspect"), "view", "--host", "127.0.0.1", "--port", str(view_port),
                "--log-dir", str(log.parent)]
        with _serving(view, f"http://127.0.0.1:{view_port}/", log.parent.parent):
            shoot(f"http://127.0.0.1:{view_port}", log, _first_sample(log))
    print(f"logs under {work}; wrote {DOCS}/inspect-view*.png")


if __name__ == "__main__":
    main()
