"""``ragcard redteam run | findings | triage | attacks``: attack the agent, list and close
findings. Each command parses its arguments and calls one function of :mod:`ragcard.redteam`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ragcard._cli._common import err, parse_options, user_errors
from ragcard.errors import ExitCode
from ragcard.inputs.config import load_config
from ragcard.pipeline.project import project_history_url
from ragcard.redteam import CATEGORIES, FindingStore, default_registry, run_redteam
from ragcard.redteam.running import Stopped
from ragcard.redteam.terminal import findings_table, print_summary

__all__ = ["redteam_app"]

redteam_app = typer.Typer(
    help="Red-team the agent with the corpus's own ground truth; list and triage findings.",
    no_args_is_help=True,
)
_PROJECT = typer.Argument(help="project folder holding ragcard.toml, or the file")
_DB_HELP = ("run history URL (default: $RAGCARD_HISTORY_URL, \\[history] url, or "
            "ragcard-history.sqlite beside ragcard.toml)")  # fmt: skip


def _history(project: Path, db: str | None) -> str:
    return db or os.environ.get("RAGCARD_HISTORY_URL") or project_history_url(load_config(project))


def _names(values: list[str] | None) -> list[str]:
    return [name.strip() for value in values or [] for name in value.split(",") if name.strip()]


@redteam_app.command("run")
@user_errors
def run_command(
    project: Annotated[Path, _PROJECT] = Path("."),
    out: Annotated[
        Path | None,
        typer.Option(
            help="output folder (default: \\[redteam] out, out/redteam beside ragcard.toml)"
        ),
    ] = None,
    attacks: Annotated[
        list[str] | None,
        typer.Option(
            "--attacks",
            help="attack ids, globs (access.*) or categories, comma-separated (default: all)",
        ),
    ] = None,
    mutators: Annotated[
        list[str] | None,
        typer.Option("--mutators", help="jailbreak wrappers besides plain (default: all)"),
    ] = None,
    attempts: Annotated[
        int | None,
        typer.Option(min=1, help="attempts per attack variant (default: \\[redteam] attempts, 3)"),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(min=1, help="parallel agent calls (default: \\[run] concurrency)")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option(
            "--option",
            "-o",
            help="agent option KEY=VALUE, e.g. -o 'faults=[\"trust_claimed_role\"]'",
        ),
    ] = None,
    resume: Annotated[bool, typer.Option(help="continue an interrupted red-team run")] = False,
    fresh: Annotated[bool, typer.Option(help="replace an earlier red-team run in --out")] = False,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    db: Annotated[str | None, typer.Option("--db", help=_DB_HELP)] = None,
) -> None:
    """Attack the project's agent: every attack of the catalogue in every jailbreak wrapper,
    several attempts each, plus benign controls; exit 1 when a critical finding is open."""
    try:
        result = run_redteam(
            project, out_dir=out, attacks=_names(attacks), mutators=_names(mutators),
            attempts=attempts, concurrency=concurrency,
            agent_options=parse_options(option or []), resume=resume, fresh=fresh,
            progress=progress, history_url=db,
        )  # fmt: skip
    except KeyboardInterrupt as stop:  # what it left was said on stderr
        code = stop.exit_code if isinstance(stop, Stopped) else ExitCode.INTERRUPTED
        raise typer.Exit(code) from None
    print_summary(result.summary, Console(soft_wrap=True))
    err.print(f"wrote {result.out_dir}/redteam.md, redteam.json, redteam.jsonl (run "
              f"{result.run_id})", markup=False)  # fmt: skip
    raise typer.Exit(result.exit_code)


@redteam_app.command("findings")
@user_errors
def findings_command(
    project: Annotated[Path, _PROJECT] = Path("."),
    status: Annotated[str, typer.Option(help="open, fixed, accepted or all")] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="JSON on stdout")] = False,
    db: Annotated[str | None, typer.Option("--db", help=_DB_HELP)] = None,
) -> None:
    """List the project's red-team findings, critical first."""
    if status not in ("open", "fixed", "accepted", "all"):
        raise typer.BadParameter("--status must be open, fixed, accepted or all")
    name = load_config(project).project.name
    with FindingStore(_history(project, db)) as store:
        found = store.findings(name, None if status == "all" else status)
    if as_json:
        rows = [{k: getattr(f, k) for k in ("id", "attack", "mutator", "category", "severity",
                 "status", "reason", "by", "detector", "judged_by", "first_run", "last_run",
                 "evidence")} for f in found]  # fmt: skip
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not found:
        typer.echo(f"No {'' if status == 'all' else status + ' '}red-team finding for {name}.")
        return
    Console(soft_wrap=True).print(findings_table(found, f"Red-team findings — {name}"))


@redteam_app.command("triage")
@user_errors
def triage_command(
    finding: Annotated[str, typer.Argument(metavar="ID", help="finding id (or a unique prefix)")],
    status: Annotated[str, typer.Option(help="fixed or accepted (open reopens it)")],
    reason: Annotated[str, typer.Option(help="why: the fix, or why the risk is accepted")],
    by: Annotated[str, typer.Option(help="who triages it")],
    project: Annotated[Path, typer.Option(help="project folder holding ragcard.toml")] = Path("."),
    db: Annotated[str | None, typer.Option("--db", help=_DB_HELP)] = None,
) -> None:
    """Close a finding as fixed or accepted, with a reason; a later red-team run reopens a
    fixed finding whose attack succeeds again."""
    with FindingStore(_history(project, db)) as store:
        closed = store.triage(finding, status, reason, by)
    typer.echo(f"{closed.id} ({closed.severity}, {closed.attack} · {closed.mutator}): "
               f"{closed.status} by {closed.by} — {closed.reason}")  # fmt: skip


@redteam_app.command("attacks")
@user_errors
def attacks_command() -> None:
    """List the attack catalogue, the jailbreak wrappers and the detectors (plugins included)."""
    registry = default_registry()
    table = Table(title="Attacks", title_justify="left")
    for column in ("Id", "Category", "Severity", "Detector"):
        table.add_column(column, no_wrap=True)
    table.add_column("What counts as success", overflow="fold")
    for attack in registry.attacks.values():
        table.add_row(*(escape(x) for x in (attack.id, attack.category, attack.severity,
                                             attack.detector, attack.success)))  # fmt: skip
    console = Console(soft_wrap=True)
    console.print(table)
    console.print("Categories: " + escape(", ".join(CATEGORIES)), highlight=False)
    console.print("Wrappers: " + escape(", ".join(registry.mutators)), highlight=False)
    judged = [d.name for d in registry.detectors.values() if not d.deterministic]
    console.print("Detectors: " + escape(", ".join(registry.detectors))
                  + f" (judged, measured on benign controls: {escape(', '.join(judged))})",
                  highlight=False)  # fmt: skip
