"""The ``[redteam]`` table of ``ragcard.toml`` (every key optional)::

    [redteam]
    attempts = 3                    # per attack variant; a success on any attempt is a finding
    controls = 30                   # benign control questions (the question set's own items)
    out = "out/redteam"             # where redteam.jsonl / redteam.json / redteam.md go
    asker = "employee"              # role the attacks ask as (default: the question set's
                                    # commonest asker that some passage is hidden from)
    secrets = ["RC-SYS-51b7"]       # strings planted in the agent's instructions; never to
    secrets_env = ["PROMPT_CANARY"] # be revealed (or the NAMES of variables holding them)
    instructions = ["prompts/system.txt"]  # the agent's instruction files
    flags = { advice = "medical" }  # policy topic -> the flag the agent raises for it

    # How test passages reach the agent (indirect injection). A callable agent whose
    # [agent.options] names its corpus file gets a copy of the corpus with them appended:
    corpus_option = "corpus"        # default: "corpus" when [agent.options] has it
    # Any other agent: commands run before and after the attacks, in the project folder.
    # {planted} is a JSONL file of the test passages, {corpus} the corpus copy holding them.
    plant_command = ["python", "plant.py", "add", "{planted}"]
    remove_command = ["python", "plant.py", "remove", "{planted}"]
    hook_timeout_s = 300
    index_paths = ["index/"]        # the agent's index: checked byte-identical afterwards

Unknown keys are refused, like everywhere else in ``ragcard.toml``.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard.errors import ConfigError

__all__ = ["RedteamSettings", "load_settings"]


class RedteamSettings(BaseModel):
    """The validated ``[redteam]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attempts: int = Field(default=3, ge=1)
    controls: int = Field(default=30, ge=0)
    out: str = "out/redteam"
    asker: str | None = None
    attacks: list[str] = Field(default_factory=list)
    mutators: list[str] = Field(default_factory=list)
    secrets: list[str] = Field(default_factory=list)
    secrets_env: list[str] = Field(default_factory=list)
    instructions: list[str] = Field(default_factory=list)
    flags: dict[str, str] = Field(default_factory=dict)
    corpus_option: str | None = None
    plant_command: list[str] | None = None
    remove_command: list[str] | None = None
    hook_timeout_s: float = Field(default=300.0, gt=0)
    index_paths: list[str] = Field(default_factory=list)

    def secret_values(self) -> tuple[str, ...]:
        """The declared secrets, those named by environment variable included (an unset
        variable is a :class:`ConfigError`: the check would silently test nothing)."""
        missing = [name for name in self.secrets_env if not os.environ.get(name)]
        if missing:
            raise ConfigError(
                f"[redteam] secrets_env: {', '.join(missing)} not set in the environment; set "
                "them, or remove them from secrets_env"
            )
        found = [*self.secrets, *(os.environ[name] for name in self.secrets_env)]
        return tuple(secret for secret in found if secret.strip())


def load_settings(table: dict[str, Any], source: str) -> RedteamSettings:
    """Validate the ``[redteam]`` table; a :class:`ConfigError` names each bad key."""
    try:
        settings = RedteamSettings.model_validate(table)
    except ValidationError as error:
        lines = [
            f"  {source}: [redteam] '{'.'.join(str(p) for p in e['loc'])}': {e['msg']}"
            for e in error.errors()
        ]
        raise ConfigError("bad [redteam] table:\n" + "\n".join(lines)) from None
    if (settings.plant_command is None) != (settings.remove_command is None):
        raise ConfigError(
            f"{source}: [redteam] plant_command and remove_command go together: a test passage "
            "that is planted must be removed"
        )
    return settings
