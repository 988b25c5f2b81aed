"""``ragcard report RUN``: reports a team reads — one self-contained HTML file (``--html``, the
default) and the persona kit's eval report (``--persona``, Markdown, and HTML with ``--html``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragcard._cli._common import err, user_errors
from ragcard._cli.history import DbOption, resolve_history_url
from ragcard.errors import ConfigError
from ragcard.outputs.history import HistoryStore
from ragcard.report.html import render_html
from ragcard.report.run_report import build_run_report

__all__ = ["report_command"]


def _baseline(ref: str | None, run: Path, project: Path, db: str | None) -> Path | None:
    """The baseline run's folder: ``shipped`` (the project's last shipped run on this
    question set), a run id or a folder."""
    if ref is None:
        return None
    if ref != "shipped" and (Path(ref) / "scorecard.json").is_file():
        return Path(ref)
    from ragcard.report.loaded import read_scorecard

    card = read_scorecard(run / "scorecard.json")
    with HistoryStore(resolve_history_url(project, db)) as store:
        if ref != "shipped":
            return Path(store.get(ref).out_dir)
        questions = card.get("config", {}).get("questions", {}).get("sha256")
        entry = store.last_shipped(str(card.get("project")), questions)
    if entry is None:
        raise ConfigError(
            f"no shipped run of {card.get('project')!r} on this question set in the history: "
            "pass --baseline RUN (a folder or run id), or ship one with `ragcard ship`"
        )
    return Path(entry.out_dir)


@user_errors
def report_command(
    run: Annotated[Path, typer.Argument(metavar="RUN", help="a run's output folder")],
    html: Annotated[
        bool, typer.Option("--html", help="write RUN/report.html (the default without --persona)")
    ] = False,
    persona: Annotated[
        bool,
        typer.Option(
            "--persona",
            help="write the persona kit's eval report, RUN/eval-report.md (and .html with --html)",
        ),
    ] = False,
    baseline: Annotated[
        str | None,
        typer.Option(help="compare with 'shipped' (the last shipped run) or a run id/folder"),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="where to write report.html")] = None,
    questions: Annotated[Path | None, typer.Option(help="the run's question set, if moved")] = None,
    corpus: Annotated[Path | None, typer.Option(help="the run's corpus, if moved")] = None,
    project: Annotated[
        Path, typer.Option(help="project folder (its history is the default)")
    ] = Path("."),
    db: DbOption = None,
) -> None:
    """Write a run's report: decision and gates first, measures with intervals as charts, per
    category, latency, recall@k, the baseline diff, failures to browse and filter, blind
    review and red-teaming; self-contained, no external request, restricted text redacted."""
    base = _baseline(baseline, run, project, db)
    report = build_run_report(run, baseline=base, questions=questions, corpus=corpus)
    written = []
    if html or not persona:
        target = out or run / "report.html"
        target.write_text(render_html(report), encoding="utf-8")
        written.append(target)
    if persona:
        from ragcard.report.persona import persona_fields, render_persona_html, render_persona_md

        with HistoryStore(resolve_history_url(project, db)) as store:
            fields = persona_fields(report, store)
        md = run / "eval-report.md"
        md.write_text(render_persona_md(fields), encoding="utf-8")
        written.append(md)
        if html:
            page = run / "eval-report.html"
            page.write_text(render_persona_html(fields), encoding="utf-8")
            written.append(page)
    for path in written:
        typer.echo(path)
    err.print(f"wrote {', '.join(map(str, written))}", markup=False, highlight=False)
