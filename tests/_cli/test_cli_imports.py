"""`ragcard --version` loads the command line, not the library: each subcommand's module is
imported when that subcommand runs."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from ragcard._cli.main import app

_PROBE = """
import json, sys
sys.argv = ["ragcard", "--version"]
from ragcard._cli.main import app
try:
    app(prog_name="ragcard")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""

#: The library's heavy dependencies: none is needed to print a version.
HEAVY = ("numpy", "pydantic", "httpx", "sqlalchemy", "rich", "jinja2", "onnxruntime", "bm25s")


def test_version_imports_no_library_module() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          timeout=120, check=True)
    version_line, modules_json = done.stdout.strip().splitlines()
    assert version_line.startswith("ragcard ")
    modules = json.loads(modules_json)
    loaded = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    assert not loaded, f"ragcard --version imported {loaded}"
    library = [m for m in modules if m.startswith("ragcard.") and not m.startswith(
        ("ragcard._cli.main", "ragcard._version")) and m != "ragcard._cli"]
    assert not library, f"ragcard --version imported {library}"
    # typer alone is ~140 modules; the whole library was over 1,000
    assert len(modules) < 400, len(modules)


def test_every_subcommand_is_still_listed_and_runs_its_help() -> None:
    runner = CliRunner()
    listing = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert listing.exit_code == 0, listing.output
    for name in ("run", "score", "init", "trec", "compare", "history", "ship", "stale",
                 "report", "thresholds", "sign", "verify", "keys", "judges", "questions",
                 "import", "review", "redteam"):
        assert f" {name} " in listing.output, name
        assert runner.invoke(app, [name, "--help"]).exit_code == 0, name
    assert "install-local" in runner.invoke(app, ["judges", "--help"]).output
