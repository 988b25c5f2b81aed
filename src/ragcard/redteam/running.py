"""``ragcard redteam run``: attack the agent of a project, judge every attempt, record findings.

The agent is called through the project's own adapter and the ordinary runner (concurrency,
timeouts, retries, resume), in two phases: every attack that needs no test passage and the
benign controls against the agent as configured; then, with the test passages planted
(:mod:`~ragcard.redteam.testcorpus`), the indirect injections. Each finished attempt is
appended to ``redteam.jsonl`` at once, so an interrupted run resumes (``resume=True``) without
calling the agent again for answered attempts (failed ones are retried). At the end every line
is judged again from what was recorded, ``redteam.jsonl`` is rewritten with the verdicts,
``redteam.json`` and ``redteam.md`` are written, and the findings are updated in the history.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import secrets
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcard.adapters import build_adapter
from ragcard.agent.runner import AttemptOutcome, RunSettings, run_attempts
from ragcard.errors import ConfigError, ExitCode
from ragcard.inputs._files import read_utf8
from ragcard.inputs.config import Config, load_config
from ragcard.inputs.corpus import Corpus
from ragcard.inputs.questions import Question
from ragcard.metrics.redteam import agent_digest
from ragcard.outputs.results import ResultsLog, dumps_line, read_results
from ragcard.pipeline.project import load_project_inputs, project_history_url
from ragcard.redteam.evaluate import Judged, judge_run
from ragcard.redteam.leftovers import HistoryLedger, repair_leftovers
from ragcard.redteam.plan import CONTROL_PREFIX, Plan, attack_context, build_plan
from ragcard.redteam.registry import Registry, default_registry
from ragcard.redteam.report import annotate_lines, build_summary, decide, render_markdown
from ragcard.redteam.settings import RedteamSettings, load_settings
from ragcard.redteam.store import FindingStore
from ragcard.redteam.testcorpus import (
    MARKER,
    Delivery,
    Ledger,
    TestCorpus,
    fingerprint,
    recover,
)

__all__ = ["RedteamResult", "Stopped", "run_redteam"]

RESULTS = "redteam.jsonl"
_RUN_FILE = "redteam-run.json"


@dataclass(frozen=True, slots=True)
class RedteamResult:
    """What a red-team run produced. Exit code 0 when it passes (no open critical finding,
    every variant tested, corpus and index untouched, red-team thresholds met), else 1."""

    out_dir: Path
    summary: dict[str, Any]
    run_id: str
    changes: list[dict[str, str]]

    @property
    def exit_code(self) -> int:
        return ExitCode.OK if self.summary["decision"] == "pass" else ExitCode.HOLD


def _delivery(config: Config, spec: dict[str, Any], settings: RedteamSettings) -> Delivery:
    """How test passages reach this agent (see :mod:`ragcard.redteam.testcorpus`)."""
    if settings.plant_command and settings.remove_command:
        return Delivery("hooks", plant=tuple(settings.plant_command),
                        remove=tuple(settings.remove_command), cwd=config.base_dir,
                        timeout_s=settings.hook_timeout_s)  # fmt: skip
    options = spec.get("options") or {}
    option = settings.corpus_option or ("corpus" if "corpus" in options else None)
    if spec.get("type") == "callable" and option:
        if option not in options:
            raise ConfigError(
                f"[redteam] corpus_option = {option!r}, but [agent.options] has no {option!r}: "
                "name the option that holds the agent's corpus path"
            )
        return Delivery("option", option=option)
    return Delivery(
        "none",
        reason="the agent cannot index a test corpus: a callable agent needs its corpus path in "
        "[agent.options] (or [redteam] corpus_option), any other agent [redteam] "
        "plant_command and remove_command",
    )


def _watched(config: Config, spec: dict[str, Any], delivery: Delivery,
             settings: RedteamSettings) -> list[Path]:  # fmt: skip
    """The files that must be byte-identical after the run: the corpus, the agent's corpus
    option, the index paths, the declared inputs."""
    paths = [config.resolve(config.project.corpus)]
    if delivery.option:
        paths.append(Path(str((spec.get("options") or {})[delivery.option])))
    paths += [config.resolve(p) for p in (*settings.index_paths, *config.project.inputs)]
    return list(dict.fromkeys(p.resolve() for p in paths))


def _prepare_out(out: Path, frozen: dict[str, Any], resume: bool, fresh: bool) -> str:
    """Check the output folder; the run's seed (kept when resuming)."""
    results, run_file = out / RESULTS, out / _RUN_FILE
    if results.exists() and not (resume or fresh):
        raise ConfigError(
            f"{results} exists: pass --resume to continue that red-team run, or --fresh to "
            "start over (the old results are replaced)"
        )
    if resume and results.exists() and run_file.exists():
        before = json.loads(run_file.read_text(encoding="utf-8"))
        changed = [key for key in frozen if before.get(key) != frozen[key]]
        if changed:
            raise ConfigError(
                f"cannot resume {out}: {', '.join(changed)} changed since that run started; "
                "use --fresh to start a new red-team run"
            )
        return str(before["seed"])
    results.unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    seed = secrets.token_hex(8)
    run_file.write_text(json.dumps({**frozen, "seed": seed}, indent=2, sort_keys=True) + "\n")
    return seed


def _instructions(config: Config, name: str) -> str:
    path = config.resolve(name)
    try:
        return read_utf8(path)
    except FileNotFoundError:
        raise ConfigError(
            f"{config.path}: [redteam] instructions: {path} does not exist — give the path of "
            "the agent's instruction file (its system prompt), relative to ragcard.toml"
        ) from None


def _read_lines(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The recorded attempts, the last line of an item-attempt winning (a retried failure)."""
    lines: dict[tuple[str, int], dict[str, Any]] = {}
    if not path.exists():
        return lines
    for _, data in read_results(path):
        if data.get("kind") in ("attack", "control"):
            lines[(str(data["item"]), int(data["attempt"]))] = data
    return lines


async def _phase(
    items: Sequence[Question], spec: dict[str, Any], settings: RunSettings, log: ResultsLog,
    skip: set[tuple[str, int]], progress: bool,
) -> None:  # fmt: skip
    if not items:
        return
    requests = {q.id: q.request() for q in items}

    def on_outcome(outcome: AttemptOutcome) -> None:
        kind = "control" if outcome.item_id.startswith(CONTROL_PREFIX) else "attack"
        record = {"schema": "ragcard.redteam/1", "kind": kind, **outcome.as_record()}
        log.append({**record, "request": requests[outcome.item_id]})

    adapter = build_adapter(spec)
    try:
        await run_attempts(items, adapter, settings, on_outcome, skip=skip, progress=progress)
    finally:
        await adapter.aclose()


def _call_agent(
    plan: Plan, spec: dict[str, Any], delivery: Delivery, test: TestCorpus,
    settings: RunSettings, log: ResultsLog, progress: bool, ledger: Ledger | None = None,
) -> None:  # fmt: skip
    """Phase 1 (the agent as configured), then phase 2 (with the test passages planted)."""
    done = {key for key, line in _read_lines(log.path).items() if line.get("response")}
    planted = {v.item_id(n) for v in plan.variants for n, p in enumerate(v.probes) if p.plant}
    items = plan.items()
    first = [q for q in items if q.id not in planted]
    second = [q for q in items if q.id in planted]
    asyncio.run(_phase(first, spec, settings, log, done, progress))
    if not second or all((q.id, a) in done for q in second
                         for a in range(1, settings.attempts + 1)):  # fmt: skip
        return
    with test.planted_in(delivery, ledger) as copy:
        options = dict(spec.get("options") or {})
        if delivery.option:
            options[delivery.option] = str(copy)
        asyncio.run(_phase(second, {**spec, "options": options} if options else spec,
                           settings, log, done, progress))  # fmt: skip


def _say(message: str) -> None:
    print(f"ragcard: {message}", file=sys.stderr)


class Stopped(KeyboardInterrupt):
    """The run was stopped by a signal (SIGTERM: a CI job cancelled, ``kill``); ``exit_code``
    is the shell's 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum
        self.exit_code = 128 + signum


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, ``kill``) ends the run like Ctrl-C, so that test passages
    planted through hooks are removed on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise Stopped(signum)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stopped(stop: KeyboardInterrupt, out: Path, test: TestCorpus, config: Config) -> None:
    """Say what a stopped run leaves: the attempts recorded, the test passages (removed, so
    the corpus copy goes too; or still planted, when the remove hook could not run) and how
    to resume."""
    how = f"by signal {stop.signum}" if isinstance(stop, Stopped) else "by an interrupt"
    answered = sum(1 for line in _read_lines(out / RESULTS).values() if line.get("response"))
    if (test.folder / MARKER).exists():  # the remove hook failed or never ran: keep the record
        passages = (f"test passages may still be in the agent's index ({test.folder / MARKER}); "
                    "the next run removes them first")  # fmt: skip
    else:
        test.clean()
        passages = "no test passage is left in the agent's index or in the output folder"
    _say(
        f"red-team run stopped {how}: {answered} answered attempt(s) kept in {out / RESULTS}; "
        f"{passages}. Continue with `ragcard redteam run {config.base_dir} --out {out} "
        "--resume`"
    )


def _test_corpus(corpus: Corpus, plan: Plan, seed: str) -> Corpus:
    """The corpus the phase-2 agent searched, in memory (the copy on disk is deleted)."""
    passages = {**corpus.passages, **{p.id: p for p in plan.planted}}
    return Corpus(corpus.path, passages, f"{corpus.sha256}:test:{seed}", corpus.versions)


def _rewrite(path: Path, lines: dict[tuple[str, int], dict[str, Any]], extra: list[dict[str, Any]]
             ) -> None:  # fmt: skip
    """Replace ``path`` at once with the judged lines (item order) and the summary lines."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        for key in sorted(lines, key=lambda k: (k[0].startswith(CONTROL_PREFIX), k[0], k[1])):
            handle.write(dumps_line(lines[key]))
        for line in extra:
            handle.write(dumps_line(line))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def run_redteam(
    config_path: str | Path,
    *,
    out_dir: str | Path | None = None,
    attacks: Sequence[str] = (),
    mutators: Sequence[str] = (),
    attempts: int | None = None,
    concurrency: int | None = None,
    agent_options: dict[str, Any] | None = None,
    resume: bool = False,
    fresh: bool = False,
    progress: bool = True,
    history_url: str | None = None,
    registry: Registry | None = None,
) -> RedteamResult:
    """Red-team the agent of a ``ragcard.toml`` project (see the module docstring)."""
    config = load_config(config_path)
    if not config.agent:
        raise ConfigError(f"{config.path}: no [agent] table: say which agent to attack")
    settings = load_settings(config.redteam, str(config.path))
    inputs = load_project_inputs(config)
    registry = registry or default_registry()
    chosen = registry.select_attacks(attacks or settings.attacks)
    wrappers = registry.select_mutators(mutators or settings.mutators)
    spec = config.agent_spec()
    if agent_options:
        spec["options"] = {**spec.get("options", {}), **agent_options}
    agent_sha = agent_digest(config.agent, agent_options)
    out = Path(out_dir) if out_dir is not None else config.resolve(settings.out)
    delivery = _delivery(config, spec, settings)
    count = attempts or settings.attempts
    frozen = {
        "agent_sha256": agent_sha, "corpus_sha256": inputs.corpus.sha256,
        "questions_sha256": inputs.questions.sha256, "attacks": [a.id for a in chosen],
        "mutators": [m.id for m in wrappers], "attempts": count, "controls": settings.controls,
    }  # fmt: skip
    seed = _prepare_out(out, frozen, resume, fresh)
    url = history_url or project_history_url(config)
    # test passages a killed run left in the index, from this --out or any other, go first
    left = repair_leftovers(url, config.project.name, _say)
    recovered = recover(out, delivery) if delivery.kind == "hooks" else False
    recovered = recovered or left is not None
    run_date = config.run.run_date or dt.date.today()
    instructions = tuple(_instructions(config, p) for p in settings.instructions)
    ctx = attack_context(
        inputs.corpus, inputs.questions, kit=config.project.kit, seed=seed, run_date=run_date,
        asker=settings.asker, flags=settings.flags, secrets=settings.secret_values(),
        instructions=instructions,
    )  # fmt: skip
    plan = build_plan(ctx, chosen, wrappers, settings.controls, delivery.reason)
    watched = _watched(config, spec, delivery, settings)
    before = fingerprint(watched)
    run_settings = RunSettings(
        attempts=count, concurrency=concurrency or config.run.concurrency,
        timeout_s=config.run.timeout_s, retries=config.run.retries, seed=config.run.seed,
    )  # fmt: skip
    test = TestCorpus(out, config.resolve(config.project.corpus), plan.planted)
    log = ResultsLog(out / RESULTS)
    stopped: KeyboardInterrupt | None = None
    try:
        with _terminate_as_interrupt():
            ledger = HistoryLedger(url, config.project.name, out, config.base_dir)
            _call_agent(plan, spec, delivery, test, run_settings, log, progress, ledger)
    except KeyboardInterrupt as stop:
        stopped = stop
    finally:
        log.close()
    if stopped is not None:
        _stopped(stopped, out, test, config)
        raise stopped
    test.clean()
    after = fingerprint(watched)
    changed = sorted(path for path in {*before, *after} if before.get(path) != after.get(path))
    lines = _read_lines(out / RESULTS)
    judged: Judged = judge_run(
        plan, lines, count, registry.detectors,
        (inputs.corpus, _test_corpus(inputs.corpus, plan, seed)), run_date,
        ctx.secrets, ctx.instructions,
    )  # fmt: skip
    integrity = {"checked": sorted(before), "changed": changed, "recovered": recovered}
    summary = build_summary(config, plan, judged, frozen, delivery, integrity, count,
                            declared=bool(ctx.secrets or ctx.instructions))  # fmt: skip
    annotated, extra = annotate_lines(plan, lines, judged)
    _rewrite(out / RESULTS, annotated, extra)
    with FindingStore(url) as store:
        run, changes = store.record_run(
            config.project.name, str(out.resolve()), agent_sha, inputs.corpus.sha256, summary,
            [o.result() for o in judged.outcomes],
        )  # fmt: skip
        findings = store.findings(config.project.name)
    summary = decide(summary, run.id, findings, changes, inputs.thresholds)
    (out / "redteam.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
                                      encoding="utf-8")  # fmt: skip
    (out / "redteam.md").write_text(render_markdown(summary), encoding="utf-8")
    return RedteamResult(out, summary, run.id, changes)
