"""ScriptedChatModel, make_model and model_settings_record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escapebench.llm.base import ChatModel, ModelUnavailableError, SamplingSettings
from escapebench.llm.cache import CachedChatModel
from escapebench.llm.factory import make_model, model_settings_record
from escapebench.llm.local import LocalGGUFModel, fit_messages, llama_cpp_available
from escapebench.llm.openai_client import OpenAIChatModel
from escapebench.llm.scripted import ScriptedAnswersExhausted, ScriptedChatModel

MESSAGES = [{"role": "user", "content": "look"}]
SETTINGS = SamplingSettings()


async def test_scripted_list_in_order_then_exhausted() -> None:
    model = ScriptedChatModel(["a", "bb"])
    assert isinstance(model, ChatModel)
    first = await model.complete(MESSAGES, SETTINGS)
    second = await model.complete(MESSAGES, SETTINGS)
    assert (first.text, second.text) == ("a", "bb")
    assert first.tokens_in > 0 and second.tokens_out == 1
    assert model.calls == 2 and model.history == [MESSAGES, MESSAGES]
    with pytest.raises(ScriptedAnswersExhausted):
        await model.complete(MESSAGES, SETTINGS)


async def test_scripted_cycle_and_function() -> None:
    cycling = ScriptedChatModel(["x", "y"], cycle=True)
    texts = [(await cycling.complete(MESSAGES, SETTINGS)).text for _ in range(5)]
    assert texts == ["x", "y", "x", "y", "x"]
    echo = ScriptedChatModel(lambda messages: messages[-1]["content"] * 2, name="echo")
    completion = await echo.complete(MESSAGES, SETTINGS)
    assert completion.text == "looklook" and completion.model == "echo"
    assert ScriptedChatModel("only").describe() == {"backend": "scripted", "model": "scripted"}


def test_make_model_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-NEVER-IN-METADATA-42")
    model = make_model("gpt-4o-mini", base_urls=["http://127.0.0.1:9/v1"], timeout=5)
    assert isinstance(model, OpenAIChatModel)
    assert model.name == "gpt-4o-mini" and model.timeout == 5
    prefixed = make_model("openai:local", base_urls=["http://127.0.0.1:9/v1"])
    assert isinstance(prefixed, OpenAIChatModel) and prefixed.name == "local"

    cached = make_model(
        "Qwen/Qwen2.5-7B-Instruct",
        base_urls=["http://u:secret@10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"],
        cache_path=tmp_path / "cache.sqlite",
        max_in_flight=4,
    )
    assert isinstance(cached, CachedChatModel)
    assert cached.name == "Qwen/Qwen2.5-7B-Instruct"
    record = model_settings_record(cached)
    text = json.dumps(record)
    assert "NEVER-IN-METADATA" not in text and "secret" not in text
    assert record["backend"] == "openai"
    assert record["base_urls"] == ["http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"]
    assert record["max_in_flight"] == 4
    assert record["cache_path"] == str(tmp_path / "cache.sqlite")


def test_make_model_gguf_errors(tmp_path: Path) -> None:
    # Without the 'local' extra the install hint comes first; with it, the missing file.
    expected = "not found" if llama_cpp_available() else "GGML_NATIVE=OFF"
    with pytest.raises(ModelUnavailableError, match=expected):
        make_model(f"gguf:{tmp_path / 'missing.gguf'}")
    with pytest.raises(ValueError, match="base URLs"):
        make_model("local", base_urls=["http://127.0.0.1:9/v1"])
    with pytest.raises(ValueError):
        make_model("  ")


@pytest.mark.skipif(not llama_cpp_available(), reason="needs the 'local' extra")
def test_make_model_gguf_path(tmp_path: Path) -> None:
    weights = tmp_path / "tiny-model.Q4.gguf"
    weights.write_bytes(b"GGUF")  # never loaded: loading happens on the first call
    model = make_model(f"gguf:{weights}")
    assert isinstance(model, LocalGGUFModel)
    assert model.name == "tiny-model.Q4"
    assert model_settings_record(model)["backend"] == "llama-cpp"


def test_settings_record_of_plain_model() -> None:
    class Bare:
        name = "bare"

        async def complete(self, messages: object, settings: object) -> object:
            raise NotImplementedError

    assert model_settings_record(Bare()) == {"backend": "Bare", "model": "bare"}  # type: ignore[arg-type]


def test_fit_messages_cuts_the_middle() -> None:
    def count(text: str) -> int:
        return (len(text) + 3) // 4

    system = {"role": "system", "content": "rules " * 10}
    history = [{"role": "user", "content": f"old turn {i} " * 20} for i in range(10)]
    last = {"role": "user", "content": "current question"}
    fitted, cut = fit_messages([system, *history, last], 150, count)
    assert fitted[0] == system and fitted[-1] == last
    assert len(fitted) < 12 and cut > 0
    assert sum(count(m["content"]) + 8 for m in fitted) <= 150

    huge = {"role": "user", "content": "start " + "x" * 4000 + " end"}
    fitted, cut = fit_messages([system, huge], 300, count)
    content = fitted[-1]["content"]
    assert content.startswith("start ") and content.endswith(" end")
    assert "cut to fit" in content
    assert sum(count(m["content"]) + 8 for m in fitted) <= 300

    small = [system, last]
    assert fit_messages(small, 1000, count) == (small, 0)
