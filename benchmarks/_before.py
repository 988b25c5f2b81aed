"""Load a ragcard module as it was at an earlier git revision, to time it beside today's.

Its imports are rewritten to today's tree (issue 11 folded the flat modules into stage
packages: ``ragcard.stats`` is ``ragcard.aggregation.stats`` now), so the old code runs on
today's helpers: only the module itself is the old one.
"""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: Where each flat module of the earlier tree lives now.
MOVED = {
    module: package
    for package, modules in {
        "inputs": "questions corpus responses config interop _recorded _fields _toml _files "
        "_jsonl _limits",
        "agent": "runner _retry _secrets",
        "aggregation": "scoring _scorer _parallel coverage stats diagnosis",
        "pipeline": "project preflight evaluation running",
        "decision": "thresholds baseline governance",
        "outputs": "results _runfolder _writing history signing _signing_files _signing_v1 "
        "_signing_v2",
    }.items()
    for module in modules.split()
}
_DOTTED = re.compile(r"\bragcard\.(" + "|".join(sorted(MOVED, key=len, reverse=True)) + r")\b")
_FROM = re.compile(r"^(\s*)from ragcard import (\w+)", re.M)


def today_imports(source: str) -> str:
    """``source`` with its imports of moved modules pointed at where they live now."""
    source = _DOTTED.sub(lambda m: f"ragcard.{MOVED[m.group(1)]}.{m.group(1)}", source)
    return _FROM.sub(
        lambda m: f"{m.group(1)}from ragcard.{MOVED[m.group(2)]} import {m.group(2)}"
        if m.group(2) in MOVED
        else m.group(0),
        source,
    )


def load_before(rev: str, path: str, name: str) -> Any:
    """The module at ``path`` (relative to the repository) as it was at ``rev``."""
    source = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType(name)
    sys.modules[name] = module  # (dataclasses look their module up)
    exec(compile(today_imports(source), f"{rev}:{path}", "exec"), module.__dict__)
    return module
