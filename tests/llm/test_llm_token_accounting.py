"""Tokens in, the server's prefix-cached part, and out: read from the server's answer, kept
by the response cache, and never confused between the two caches."""

from __future__ import annotations

from pathlib import Path

from escapebench.llm.base import SamplingSettings
from escapebench.llm.cache import CachedChatModel, ResponseCache
from escapebench.llm.openai_client import OpenAIChatModel, prompt_cache_tokens
from tests.support.fake_openai_server import FakeOpenAIServer

SYSTEM = {"role": "system", "content": "You are in a locked room. " * 40}


def _model(url: str) -> OpenAIChatModel:
    return OpenAIChatModel("fake-model", [url], max_retries=0, timeout=5.0)


async def test_the_cached_part_of_the_prompt_is_what_the_server_reports() -> None:
    with FakeOpenAIServer(answer="click(door)", report_cached=True) as server:
        model = _model(server.base_url)
        first = await model.complete([SYSTEM, {"role": "user", "content": "step 1"}],
                                     SamplingSettings())
        second = await model.complete([SYSTEM, {"role": "user", "content": "step 2"}],
                                      SamplingSettings())
        reported = [r for r in server.requests]
    assert len(reported) == 2
    assert first.tokens_cached == 0  # nothing came before it
    # The shared system prompt is the cached part of the second call, and no more than it.
    assert 0.8 * len(SYSTEM["content"]) / 4 < second.tokens_cached < second.tokens_in
    assert second.tokens_in > 0 and second.tokens_out > 0


async def test_without_a_report_nothing_counts_as_cached() -> None:
    with FakeOpenAIServer(answer="click(door)") as server:
        model = _model(server.base_url)
        await model.complete([SYSTEM, {"role": "user", "content": "a"}], SamplingSettings())
        again = await model.complete([SYSTEM, {"role": "user", "content": "b"}],
                                     SamplingSettings())
    assert again.tokens_cached == 0 and again.tokens_in > 0


def test_llama_cpp_timings_count_as_the_cached_part() -> None:
    assert prompt_cache_tokens({"usage": {"prompt_tokens": 90},
                                "timings": {"cache_n": 70, "prompt_n": 20}}) == 70
    assert prompt_cache_tokens({"usage": {"prompt_tokens_details": {"cached_tokens": 64}}}) == 64
    assert prompt_cache_tokens({"usage": {"prompt_tokens": 9}}) == 0


async def test_a_response_cache_hit_replays_the_counts_and_is_marked_cached(
    tmp_path: Path,
) -> None:
    messages = [SYSTEM, {"role": "user", "content": "step 2"}]
    with FakeOpenAIServer(answer="click(door)", report_cached=True) as server:
        inner = _model(server.base_url)
        await inner.complete([SYSTEM, {"role": "user", "content": "step 1"}], SamplingSettings())
        with ResponseCache(tmp_path / "cache.sqlite") as cache:
            model = CachedChatModel(inner, cache)
            sent = await model.complete(messages, SamplingSettings())
            replayed = await model.complete(messages, SamplingSettings())
        assert server.request_count == 2  # the replay sent nothing
    assert not sent.cached and sent.tokens_cached > 0
    assert replayed.cached
    assert (replayed.tokens_in, replayed.tokens_cached, replayed.tokens_out) == (
        sent.tokens_in, sent.tokens_cached, sent.tokens_out)
