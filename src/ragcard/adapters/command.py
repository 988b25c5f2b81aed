"""Run a command per call: the request as JSON on stdin, the response as JSON on stdout.

TOML (``[agent]`` table)::

    [agent]
    type = "command"
    command = ["python", "agent.py", "--answer"]   # or one string, split like a shell would
    timeout = 30                                    # seconds; default: the run's timeout
    retry_on_exit = false                           # retry non-zero exits (flaky wrappers)
    env = { OPENAI_API_KEY = "${OPENAI_API_KEY}" }  # extra variables; ${VAR} read at call time
    cwd = "agents/"                                 # working directory (see below)
    send_attempt = false                            # add "attempt": n to the request

``cwd`` is used as given here; in a project (``ragcard run``) it is relative to the folder of
``ragcard.toml``, which is also the default, so ``command = ["python", "agent.py"]`` finds
``agent.py`` beside ``ragcard.toml`` from any working directory.

Stdout must hold one JSON response; if the whole of it is not JSON, its last non-empty line
is tried (agents that log to stdout). A non-zero exit raises
:class:`~ragcard.errors.AgentTransportError` with the tail of stderr (transient only with
``retry_on_exit``); a timeout kills the process and its children and raises
:class:`AgentTimeout`; unusable stdout raises :class:`AgentOutputError` with the raw text.
Latency includes starting the process. A command still running when ragcard ends — however it
ends, ``kill -9`` included — is killed with its children (:mod:`ragcard.adapters._reaper`).
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import time
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragcard.adapters._common import (
    deadline,
    decode_response,
    env_references,
    expand_env,
    load_config,
    make_reply,
)
from ragcard.adapters._reaper import forget_group, watch_group
from ragcard.adapters.base import AgentCall, AgentReply
from ragcard.errors import AgentOutputError, AgentTransportError, ConfigError
from ragcard.inputs.responses import AgentResponse

__all__ = ["CommandAdapter", "CommandConfig"]

_STDERR_TAIL = 2000


class CommandConfig(BaseModel):
    """The ``[agent]`` keys of ``type = "command"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: list[str] = Field(min_length=1)
    timeout: float | None = Field(default=None, gt=0)
    retry_on_exit: bool = False
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    send_attempt: bool = False

    @field_validator("command", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return shlex.split(value) if isinstance(value, str) else value


class CommandAdapter:
    """Starts the command once per call (asyncio subprocess)."""

    name = "command"

    def __init__(
        self,
        command: str | list[str],
        *,
        timeout: float | None = None,
        retry_on_exit: bool = False,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        send_attempt: bool = False,
    ) -> None:
        self.config = load_config(
            CommandConfig,
            {
                "command": command,
                "timeout": timeout,
                "retry_on_exit": retry_on_exit,
                "env": dict(env or {}),
                "cwd": cwd,
                "send_attempt": send_attempt,
            },
            "command",
        )

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> CommandAdapter:
        """Build from the ``[agent]`` table (without ``type``)."""
        return cls(**load_config(CommandConfig, config, "command").model_dump())

    async def respond(self, call: AgentCall) -> AgentReply:
        """Run the command once with the request on stdin."""
        config = self.config
        request = dict(call.request)
        if config.send_attempt:
            request["attempt"] = call.attempt
        stdin = json.dumps(request, ensure_ascii=False).encode("utf-8")
        timeout = config.timeout or call.timeout_s
        start = time.monotonic()
        process = await self._start()
        grouped = os.name == "posix"
        if grouped:  # killed with it if ragcard dies mid-call (kill -9, SIGTERM)
            watch_group(process.pid)
        try:
            async with deadline(timeout, f"command {self._program}"):
                stdout, stderr = await process.communicate(stdin)
        finally:
            if process.returncode is None:  # timed out or cancelled: leave nothing running
                _kill(process)
                await process.wait()
            if grouped:
                forget_group(process.pid)
        measured = (time.monotonic() - start) * 1000.0
        if process.returncode:  # non-zero (never None once communicate returned)
            raise self._exit_error(process.returncode, stderr)
        return make_reply(
            _decode_stdout(stdout.decode("utf-8", errors="replace")), measured_latency_ms=measured
        )

    async def aclose(self) -> None:
        """Nothing to release: each call's process is gone when the call returns."""

    def describe(self) -> dict[str, Any]:
        """The command and settings; environment variable names only, never values."""
        config = self.config
        return {
            "type": self.name,
            "command": config.command,
            "timeout": config.timeout,
            "retry_on_exit": config.retry_on_exit,
            "env": sorted(config.env),
            "cwd": config.cwd,
            "send_attempt": config.send_attempt,
        }

    @property
    def _program(self) -> str:
        return self.config.command[0]

    def preflight(self) -> None:
        """Before the first call: every ``${VAR}`` of ``env`` is set and holds no NUL byte."""
        self._environment()

    def _environment(self) -> dict[str, str] | None:
        if not self.config.env:
            return None
        env = dict(os.environ)
        for name, template in self.config.env.items():
            value = expand_env(template, f"[agent] env {name!r}")
            if "\x00" in value:
                refs = ", ".join(f"${{{ref}}}" for ref in env_references(template)) or "it"
                raise ConfigError(
                    f"[agent] env {name!r}: {refs} holds a NUL byte, which no environment "
                    "variable can carry. Fix the variable (its value is not shown)"
                )
            env[name] = value
        return env

    async def _start(self) -> asyncio.subprocess.Process:
        env = self._environment()
        try:
            return await asyncio.create_subprocess_exec(
                *self.config.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.config.cwd,
                env=env,
                # its own process group, so a timeout also kills what the command started
                start_new_session=os.name == "posix",
            )
        except FileNotFoundError:
            where = f" in {self.config.cwd!r}" if self.config.cwd else ""
            raise ConfigError(
                f"[agent] command: {self._program!r} not found{where}; check the "
                "command (and PATH, or cwd)"
            ) from None
        except PermissionError:
            raise ConfigError(
                f"[agent] command: {self._program!r} is not executable; check its permissions"
            ) from None

    def _exit_error(self, returncode: int, stderr: bytes) -> AgentTransportError:
        tail = stderr.decode("utf-8", errors="replace")[-_STDERR_TAIL:].strip()
        if returncode < 0:
            try:
                status = f"was killed by {signal.Signals(-returncode).name}"
            except ValueError:
                status = f"was killed by signal {-returncode}"
        else:
            status = f"exited with status {returncode}"
        return AgentTransportError(
            f"command {self._program} {status}: {tail or '(nothing on stderr)'}",
            raw=tail or None,
            transient=self.config.retry_on_exit,
        )


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except ProcessLookupError:
        pass  # it exited between the check and the kill


def _decode_stdout(text: str) -> AgentResponse:
    try:
        return decode_response(text)
    except AgentOutputError as whole:
        # agents that log to stdout: the response is the last line
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1:
            try:
                return decode_response(lines[-1])
            except AgentOutputError:
                pass
        raise AgentOutputError(f"stdout is not a response: {whole}", whole.raw) from None
