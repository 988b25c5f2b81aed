"""A real ``python -m llama_cpp.server`` on loopback for the judge tests (SmolLM2-135M), and
why those tests skip when it cannot run. Used by ``test_llm_server`` and
``test_run_resume_llm_server`` through the ``server`` fixture in this folder's conftest."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from ragcard.judges.models import find_model

_SERVER_MODULES = (
    "llama_cpp",
    "uvicorn",
    "fastapi",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)


def why_skip() -> str | None:
    missing = [name for name in _SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        return (
            f"needs llama-cpp-python[server] ({', '.join(missing)} not importable); "
            "see tests/judges/README.md"
        )
    if find_model("smollm2-135m") is None:
        return (
            "needs the smollm2-135m model: ragcard judges install-local --model "
            "smollm2-135m (see tests/judges/README.md)"
        )
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """``python -m llama_cpp.server`` on a loopback port, started and killed on demand."""

    def __init__(self, model: Path, log: Path) -> None:
        self.model, self.log, self.port = model, log, _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout_s: float = 120.0) -> None:
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--model_alias",
            "smollm2",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            "2048",
            "--n_threads",
            "-1",
            "--n_threads_batch",
            "-1",
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log.read_text(errors="replace")[-3000:]
                raise RuntimeError(
                    f"llama_cpp.server exited with {self.process.returncode}:\n{tail}"
                )
            try:
                if httpx.get(f"{self.url}/models", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        self.kill()
        raise RuntimeError(f"llama_cpp.server not up within {timeout_s:g} s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None
