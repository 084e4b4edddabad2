"""``--model gguf:PATH`` naming something that is not a GGUF file: one line naming it, said
before a result folder is created (was 'not found: .' for an empty path, 'not found' for a
folder, and a non-GGUF file made an empty result folder before it failed to load)."""

from __future__ import annotations

from pathlib import Path

import pytest

from escapebench.cli import main as cli_main
from escapebench.exit_codes import EXIT_MODEL_UNAVAILABLE, EXIT_USAGE
from escapebench.llm.base import ModelUnavailableError
from escapebench.llm.local import LocalGGUFModel

pytest.importorskip("llama_cpp")


def run_gguf(spec: str, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli_main(["run", "--agent", "base", "--model", spec, "--games", "tutorial",
                     "--difficulty", "easy", "--out", str(out), "--no-cache", "--quiet"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err
    return code, err


@pytest.mark.parametrize("spec", ["gguf:", "gguf:  "])
def test_gguf_without_a_path_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    code, err = run_gguf(spec, tmp_path / "o", capsys)
    assert code == EXIT_USAGE
    assert "gguf: needs the path of a GGUF file" in err
    assert not (tmp_path / "o").exists()


def test_gguf_naming_a_folder_says_it_is_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_gguf(f"gguf:{tmp_path}", tmp_path / "o", capsys)
    assert code == EXIT_MODEL_UNAVAILABLE
    assert f"{tmp_path} is a folder, not a GGUF file" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "content", [b"", b"\x00" * 3, b"<html>not found</html>\n" * 20], ids=["empty", "nul", "html"]
)
def test_a_file_that_is_not_gguf_is_refused_before_anything_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(content)
    with pytest.raises(ModelUnavailableError, match="not a GGUF file"):
        LocalGGUFModel(fake)
    code, err = run_gguf(f"gguf:{fake}", tmp_path / "o", capsys)
    assert code == EXIT_MODEL_UNAVAILABLE
    assert f"{fake} cannot be loaded: not a GGUF file" in err
    assert not (tmp_path / "o").exists()
