"""The OpenEnv environment, with the real ``openenv`` package: its validator on the environment
folder and on the running server, its typed client playing the tutorial through over a real
WebSocket on 127.0.0.1, and the environment itself against the Gymnasium one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openenv", reason="needs the 'openenv' extra")

from escapebench.catalog import pick_setting  # noqa: E402
from escapebench.integrations.openenv import (  # noqa: E402
    EscapeBenchAction,
    EscapeBenchClient,
    EscapeBenchEnvironment,
    OpenEnvConfig,
)
from tests.support.reference_walk import typed_reference  # noqa: E402
from tests.support.serve_process import ROOT, server_verb  # noqa: E402

ENV_FOLDER = ROOT / "openenv"


def tutorial_actions() -> list[str]:
    """The tutorial's reference chain as a player types it (moves included)."""
    defn = pick_setting("tutorial", "normal")
    return [f"move({x})" if kind == "move" else x for kind, x in typed_reference(defn)]


def openenv_cli(*args: str) -> tuple[int, str]:
    """OpenEnv's own command line (``openenv ARGS``), run in this process (it takes seconds
    to import; this process has imported it already)."""
    from openenv.cli.__main__ import app
    from typer.testing import CliRunner

    done = CliRunner().invoke(app, list(args))
    return done.exit_code, done.output


def test_openenv_validate_passes_on_the_environment_folder() -> None:
    code, out = openenv_cli("validate", str(ENV_FOLDER), "--level", "static")
    assert code == 0, out
    assert "PASS  static.manifest" in out and "Verdict: PASS" in out
    dockerfile = (ENV_FOLDER / "Dockerfile").read_text()
    assert "COPY src ./src" in dockerfile and "'.[openenv]'" in dockerfile
    assert "escapebench.integrations.openenv:app" in dockerfile


@pytest.mark.slow
def test_the_server_validates_and_openenvs_client_plays_the_tutorial_twice() -> None:
    import httpx

    actions = tutorial_actions()
    with server_verb("openenv", "--games", "tutorial", "--hints") as url:
        code, out = openenv_cli("validate", "--url", url.rstrip("/"))
        assert code == 0, out
        assert "PASS  health_endpoint" in out and "Verdict: PASS" in out
        # the Host header is checked (a page of another site cannot reach the server)
        assert httpx.get(url + "health", headers={"Host": "evil.example"}).status_code == 400
        schema = httpx.get(url + "schema").json()
        assert "action" in schema["action"]["properties"]
        assert {"text", "valid_actions", "progress"} <= set(schema["observation"]["properties"])
        assert httpx.get(url + "metadata").json()["name"] == "escapebench"
        plays = []
        for _ in range(2):
            with EscapeBenchClient(base_url=url.rstrip("/")).sync() as env:
                result = env.reset(setting="tutorial")
                seen = [result.observation.model_dump()]
                total = 0.0
                for action in actions:
                    assert not result.done
                    result = env.step(EscapeBenchAction(action=action))
                    seen.append(result.observation.model_dump())
                    total += result.reward or 0.0
                state = env.state()
            assert result.done and result.observation.escaped
            obs = result.observation
            assert total == obs.total_key_steps + obs.total_tools == obs.key_steps + \
                obs.tools_collected
            assert state.escaped and state.step_count == len(actions)
            assert state.setting == "tutorial" and state.total_reward == total
            plays.append(seen)
    assert plays[0] == plays[1]  # the same play-through, observation for observation


def test_rewards_and_texts_are_the_gym_environments() -> None:
    from escapebench.integrations.gym import EscapeBenchEnv

    actions = ["click(nothing)", *tutorial_actions()]
    env = EscapeBenchEnvironment(OpenEnvConfig(games=("tutorial",)))
    gym_env = EscapeBenchEnv("tutorial")
    obs = env.reset()
    text, _ = gym_env.reset()
    assert obs.text == text and obs.setting == "tutorial" and obs.reward is None
    for action in actions:
        obs = env.step(EscapeBenchAction(action=action))
        text, reward, terminated, _, info = gym_env.step(action)
        assert (obs.text, obs.reward, obs.done) == (text, reward, terminated)
        assert obs.valid_actions == info["valid_actions"]
    assert obs.done and obs.escaped
    again = env.step(EscapeBenchAction(action="click(door)"))  # after the end: no change
    assert again.done and again.reward == 0.0 and again.text == obs.text


def test_the_hint_system_step_limit_and_settings_are_options() -> None:
    config = OpenEnvConfig(games=("tutorial",), hints=True, patience=2, help_steps=1,
                           max_steps=6)
    env = EscapeBenchEnvironment(config)
    obs = env.reset(setting="tutorial-hard")
    assert obs.setting == "tutorial-hard"
    forced = []
    for _ in range(6):
        obs = env.step(EscapeBenchAction(action="click(nothing here)"))
        forced.append(obs.forced)
    assert any(forced) and obs.done and obs.truncated and not obs.escaped
    assert env.state.hints_started >= 1
    with pytest.raises(ValueError, match="no setting 'lab' here"):
        env.reset(setting="lab")


def test_a_generated_game_is_served_too() -> None:
    env = EscapeBenchEnvironment(OpenEnvConfig(games=("gen:tier=1,count=1,seed=3",)))
    obs = env.reset()
    assert obs.valid_actions and obs.total_key_steps > 0 and obs.setting


def test_bad_games_are_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "escapebench.cli", "openenv", "--games", str(tmp_path / "no"),
         "--port", "0"], capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("escapebench openenv: ") and done.stderr.count("\n") == 1


@pytest.mark.parametrize("host", ["127.1", "127.0.0.2", "::ffff:127.0.0.1"])
def test_a_loopback_address_however_written_refuses_other_host_headers(host: str) -> None:
    """DNS rebinding: with --host 127.1 (a loopback address) a page of another site whose name
    was made to point here must not reach the environment; the loopback names still do."""
    from starlette.testclient import TestClient

    from escapebench.integrations.openenv import create_app

    app = create_app(OpenEnvConfig(games=("tutorial",), host=host))
    client = TestClient(app, base_url="http://127.0.0.1")
    assert client.get("/health", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/health", headers={"Host": "127.0.0.1:8000"}).status_code == 200
