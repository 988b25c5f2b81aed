"""``ragcard review …``: people in the loop — blind-review packets, the review app, importing
the ratings into the run, and the action each answer rated wrong must get.

Each command parses its options and calls :mod:`ragcard.review`; results to stdout,
diagnostics to stderr; bad input exits 2; ``import`` and ``act`` exit 0 when the run's
decision is ship and 1 when it holds.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ragcard._cli._common import err, user_errors
from ragcard._cli.history import DbOption, resolve_history_url
from ragcard.errors import ConfigError, ExitCode, MissingExtraError
from ragcard.outputs.history import HistoryStore
from ragcard.review import (
    act_on_item,
    ensure_recorded,
    import_review,
    load_packet,
    load_run,
    make_packet,
)
from ragcard.review._run import RunData
from ragcard.review.apply import key_for
from ragcard.review.labels import import_grading
from ragcard.review.packet import MadePacket, Packet, ReviewKey, sealed_path_of
from ragcard.review.records import ACTIONS, record_packet

__all__ = ["review_app"]

review_app = typer.Typer(
    help="People in the loop: blind review packets, the review app, import, actions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_RUN = typer.Argument(metavar="RUN", help="a run's output folder (scorecard.json, results.jsonl)")
_PACKET = typer.Argument(metavar="PACKET", help="the packet folder `ragcard review make` wrote")
ProjectOption = Annotated[
    Path,
    typer.Option("--project", help="project folder (its ragcard-history.sqlite is the default)"),
]


@review_app.command("make")
@user_errors
def make_command(
    run: Annotated[Path, _RUN],
    out: Annotated[Path, typer.Option("--out", help="folder to write the packet to")],
    n: Annotated[int, typer.Option("--n", help="generated answers to draw")] = 50,
    controls: Annotated[
        int | None,
        typer.Option(help="authored answers mixed in as controls (default: as many as the "
                     "question set's authored_answer items supply, up to 5; 0 for none)"),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="seed of the draw (default: random, kept in the key)")
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(help="where to write the sealed key (default: RUN/review/<packet>.key.json)"),
    ] = None,
    questions: Annotated[Path | None, typer.Option(help="the run's question set, if moved")] = None,
    corpus: Annotated[Path | None, typer.Option(help="the run's corpus, if moved")] = None,
    project: ProjectOption = Path("."),
    db: DbOption = None,
) -> None:
    """Draw a blind-review packet from a run: answers stratified by category, controls mixed
    in, shuffled; nothing that identifies the system or its scores."""
    data = load_run(run, questions=questions, corpus=corpus)
    made = make_packet(data, out, n=n, controls=controls, seed=seed, key_path=key)
    _record(made, data, run, out, "blind", resolve_history_url(project, db))
    for note in made.notes:
        err.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    err.print(f"sealed key: {made.key_path} (keep it away from the reviewers)", markup=False,
              highlight=False)  # fmt: skip
    _say_sealed(made)
    typer.echo(
        f"packet {made.key.packet_id}: {len(made.packet.items)} items ({n} generated, "
        f"{made.key.controls} controls) in {out} (packet.jsonl, packet.csv)"
    )


def _say_sealed(made: MadePacket) -> None:
    if made.packet.manifest.sealed_sha256 is None:
        return
    path = sealed_path_of(made.key_path, made.key.packet_id)
    err.print(f"restricted text: sealed in {path}, not in the packet (give it only to whoever "
              "serves the app: `review serve PACKET --sealed FILE`)", markup=False,
              highlight=False)  # fmt: skip


@review_app.command("serve")
@user_errors
def serve_command(
    packet: Annotated[Path, _PACKET],
    reviewer: Annotated[
        list[str] | None,
        typer.Option(
            "--reviewer",
            metavar="NAME:ROLE",
            help="add a reviewer (repeatable); ROLE decides which restricted passages they "
            "may read (`public`: none); a known reviewer's NAME alone keeps their role",
        ),
    ] = None,
    new_token: Annotated[
        bool,
        typer.Option(help="give the --reviewer(s) named a new link (their old one stops working)"),
    ] = False,
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8765,
    no_serve: Annotated[
        bool, typer.Option("--no-serve", help="add reviewers, print their links and exit")
    ] = False,
    sealed: Annotated[
        Path | None,
        typer.Option(
            help="the packet's sealed restricted text (<packet>.sealed.jsonl beside the key): "
            "without it no reviewer sees restricted passages or the answers quoting them"
        ),
    ] = None,
) -> None:
    """Serve a packet to its reviewers: one link each, one item at a time, autosaved; nothing
    that identifies the system or its scores reaches the browser. Needs the review extra."""
    from ragcard.review.app import create_app
    from ragcard.review.packet import load_packet
    from ragcard.review.store import STORE_FILE, ReviewStore

    loaded = load_packet(packet)
    store = ReviewStore(loaded.folder / STORE_FILE)
    base = f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}"
    for spec in reviewer or []:
        name, colon, role = spec.partition(":")
        if colon and not role.strip():
            raise ConfigError(f"--reviewer {spec}: the role after ':' is empty")
        token = store.add_reviewer(name, role if colon else None, new_token=new_token)
        if token is None:
            err.print(f"{name}: already a reviewer (their link stands; --new-token to replace it)",
                      markup=False, highlight=False)  # fmt: skip
        else:
            typer.echo(f"{name.strip()}: {base}/r/{token}")
    if no_serve:
        return
    if not store.reviewers():
        raise ConfigError("no reviewer yet: add one with --reviewer NAME:ROLE")
    app = create_app(loaded.folder, sealed)
    try:
        import uvicorn
    except ImportError:
        raise MissingExtraError("uvicorn", "review", "The review app") from None

    err.print(f"serving packet {loaded.manifest.packet_id} on {base} (Ctrl-C to stop)",
              markup=False, highlight=False)  # fmt: skip
    uvicorn.run(app, host=host, port=port, log_level="warning")


@review_app.command("queue")
@user_errors
def queue_command(
    run: Annotated[Path, _RUN],
    out: Annotated[Path, typer.Option("--out", help="folder to write the queue to")],
    sample: Annotated[int, typer.Option(help="answers drawn at random from the rest")] = 20,
    seed: Annotated[int | None, typer.Option(help="seed of the sample")] = None,
    labels: Annotated[
        list[Path] | None,
        typer.Option(
            "--labels",
            help="earlier correctness or support labels (.jsonl; repeatable): answers "
            "the run's judge disagrees with are queued",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="a second judge: answers on which it and the run's judge disagree are queued"
        ),
    ] = None,
    judge_option: Annotated[
        list[str] | None, typer.Option(help="KEY=VALUE for --judge (repeatable)")
    ] = None,
    project: ProjectOption = Path("."),
    db: DbOption = None,
) -> None:
    """Build the grading queue of a run — every rubric 0, every disagreement between two
    judges or a judge and an earlier human label, a sample of the rest — to label in the
    review app (`ragcard review serve`), then `ragcard review import`."""
    from ragcard._cli._common import parse_options
    from ragcard.pipeline.project import judge_from_spec
    from ragcard.review.queue import make_queue

    data = load_run(run)
    second = None
    if judge is not None:
        second = judge_from_spec({**parse_options(judge_option or [], "--judge-option"),
                                  "backend": judge})  # fmt: skip
    elif judge_option:
        raise ConfigError("--judge-option goes with --judge NAME")
    made = make_queue(data, out, sample=sample, seed=seed, judge=second,
                      label_files=labels or [])  # fmt: skip
    _record(made, data, run, out, "grading", resolve_history_url(project, db))
    _say_sealed(made)
    reasons: dict[str, int] = {}
    for e in made.key.items.values():
        for reason in e.reasons:
            reasons[reason] = reasons.get(reason, 0) + 1
    typer.echo(f"grading queue {made.key.packet_id}: {len(made.packet.items)} answers in {out}")
    for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
        typer.echo(f"  {count} × {reason}")


def _record(made: MadePacket, data: RunData, run: Path, out: Path, kind: str, url: str) -> None:
    """Note a packet drawn from a run in the history (so that `review import` finds its key)."""
    with HistoryStore(url) as store:
        entry = ensure_recorded(store, run, data.scorecard)
        record_packet(store, packet_id=made.key.packet_id, run_id=entry.id,
                      project=entry.project, kind=kind, packet_dir=str(out.resolve()),
                      key_path=str(made.key_path.resolve()),
                      items=len(made.packet.items))  # fmt: skip


def _import_answers(packet: Packet, key: ReviewKey, project: Path) -> None:
    """The people's typed answers → ``PACKET/responses.jsonl`` → scored as the run was."""
    from ragcard.inputs.config import CONFIG_NAME, load_config
    from ragcard.pipeline.project import build_run_judge
    from ragcard.review.answers import check_run, responses_from_answers
    from ragcard.review.human import score_people
    from ragcard.review.store import STORE_FILE, ReviewStore

    run = check_run(key)
    saved = ReviewStore(packet.folder / STORE_FILE).answers()
    path = packet.folder / "responses.jsonl"
    count = responses_from_answers(key, [(a.item, a.reviewer, a.data) for a in saved], path)
    if not count:
        raise ConfigError(f"no answer typed in {packet.folder} yet: nothing to score")
    judged = run.scorecard.get("config", {}).get("judge", {}).get("name", "none") != "none"
    judge = None
    if judged:
        if not (project / CONFIG_NAME).is_file():
            raise ConfigError(
                f"the run was judged: pass --project (the folder whose [judge] scored it), or "
                f"score them with `ragcard review human {run.folder} --responses {path} --judge …`"
            )
        judge = build_run_judge(load_config(project))
    baseline = score_people(
        run.folder, path, judge=judge, source=f"typed in packet {key.packet_id}"
    )
    typer.echo(f"{count} answers → {path}")
    typer.echo(baseline.block["line"])


@review_app.command("answers")
@user_errors
def answers_command(
    run: Annotated[Path, _RUN],
    out: Annotated[Path, typer.Option("--out", help="folder to write the answer packet to")],
    n: Annotated[
        int | None,
        typer.Option("--n", help="questions to draw, stratified by category (default: all)"),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the draw")] = None,
    project: ProjectOption = Path("."),
    db: DbOption = None,
) -> None:
    """The human baseline typed into the review app: the run's questions and its sources (the
    corpus, searchable) for the people who answer them today; `review import` scores them."""
    from ragcard.review.answers import make_answer_packet

    data = load_run(run)
    made = make_answer_packet(data, out, n=n, seed=seed)
    _record(made, data, run, out, "answer", resolve_history_url(project, db))
    _say_sealed(made)
    typer.echo(f"answer packet {made.key.packet_id}: {len(made.packet.items)} questions in {out}")


@review_app.command("human")
@user_errors
def human_command(
    run: Annotated[Path, _RUN],
    responses: Annotated[
        Path,
        typer.Option(help="the people's answers (responses.jsonl; attempt numbers the people)"),
    ],
    out: Annotated[Path | None, typer.Option(help="their run's folder (default RUN/human)")] = None,
    judge: Annotated[
        str | None,
        typer.Option(help="the run's judge, configured as it was (or --project: its \\[judge])"),
    ] = None,
    judge_option: Annotated[list[str] | None, typer.Option(help="KEY=VALUE for --judge")] = None,
    project: Annotated[
        Path | None, typer.Option(help="project folder whose \\[judge] scored the run")
    ] = None,
) -> None:
    """Score answers written by the people who answer these questions today with the same
    rubric, layers and judge as the run, side by side with the agent on its scorecard."""
    from ragcard._cli._common import parse_options
    from ragcard.inputs.config import load_config
    from ragcard.pipeline.project import build_run_judge, judge_from_spec
    from ragcard.review.human import score_people

    chosen = None
    if judge is not None:
        chosen = judge_from_spec({**parse_options(judge_option or [], "--judge-option"),
                                  "backend": judge})  # fmt: skip
    elif project is not None:
        chosen = build_run_judge(load_config(project))
    try:
        baseline = score_people(run, responses, out=out, judge=chosen)
    finally:
        close = getattr(chosen, "close", None)
        if callable(close):
            close()
    typer.echo(baseline.block["line"])
    err.print(f"wrote {baseline.folder} (their run; `ragcard compare {baseline.folder} {run}` "
              "tests the difference) and the human_baseline block of the run's scorecard",
              markup=False, highlight=False)  # fmt: skip


@review_app.command("import")
@user_errors
def import_command(
    packet: Annotated[Path, _PACKET],
    key: Annotated[
        Path | None, typer.Option(help="the packet's key (default: as recorded in the history)")
    ] = None,
    ratings: Annotated[
        list[Path] | None,
        typer.Option(
            "--ratings",
            help="a rated packet.csv or ratings .jsonl (repeatable); the review app's "
            "ratings are read from the packet folder",
        ),
    ] = None,
    by: Annotated[str | None, typer.Option(help="who imports (default: the OS user)")] = None,
    after_ship: Annotated[
        str | None,
        typer.Option(
            "--after-ship",
            metavar="WHY",
            help="the run was shipped: change its decision all the same, recording who and why",
        ),
    ] = None,
    project: ProjectOption = Path("."),
    db: DbOption = None,
) -> None:
    """Unblind the ratings, record the review measures in the run's scorecard and history,
    and decide the run again (exit 0 ship, 1 hold); a shipped run's decision changes only
    with --after-ship."""
    with HistoryStore(resolve_history_url(project, db)) as store:
        loaded = load_packet(packet)
        if loaded.manifest.kind == "grading":
            graded = import_grading(loaded, key_for(loaded, store, key), store, ratings or [],
                                    by or getpass.getuser())  # fmt: skip
            typer.echo(f"judge: {graded.line}")
            typer.echo(f"{graded.correctness_path} ({graded.correctness} labels)")
            typer.echo(f"{graded.support_path} ({graded.support} labels)")
            err.print(f"measure a judge on them: ragcard judges evaluate --judge NAME --dataset "
                      f"{graded.support_path}", markup=False, highlight=False)  # fmt: skip
            return
        if loaded.manifest.kind == "answer":
            _import_answers(loaded, key_for(loaded, store, key), project)
            return
        outcome = import_review(packet, store, key_path=key, rating_files=ratings or [],
                                by=by or getpass.getuser(), after_ship=after_ship)  # fmt: skip
    card = outcome.scorecard
    typer.echo(card.header["review"]["line"])
    for note in outcome.notes:
        err.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    _decision(card.decision.decision, card.decision.reasons)
    raise typer.Exit(outcome.exit_code)


@review_app.command("act")
@user_errors
def act_command(
    run: Annotated[str, typer.Argument(metavar="RUN", help="run id, id prefix or folder")],
    item: Annotated[str, typer.Argument(metavar="ITEM", help="the question id rated wrong")],
    action: Annotated[str, typer.Option(help=f"one of {', '.join(ACTIONS)}")],
    by: Annotated[str, typer.Option(help="who decided it")],
    why: Annotated[str, typer.Option(help="what was done and why")],
    project: ProjectOption = Path("."),
    db: DbOption = None,
) -> None:
    """Record what an answer rated wrong becomes (a corpus fix, a rule or an authored answer);
    the run cannot ship until every answer rated wrong has one."""
    with HistoryStore(resolve_history_url(project, db)) as store:
        card = act_on_item(store, run, item, action, by, why)
    typer.echo(card.header["review"]["line"])
    _decision(card.decision.decision, card.decision.reasons)
    raise typer.Exit(ExitCode.OK if card.decision.decision == "ship" else ExitCode.HOLD)


def _decision(decision: str, reasons: tuple[str, ...]) -> None:
    colour = "green" if decision == "ship" else "red"
    err.print(f"[bold {colour}]Decision: {decision.upper()}[/]")
    for reason in reasons:
        err.print(f"  • {escape(reason)}", highlight=False)
