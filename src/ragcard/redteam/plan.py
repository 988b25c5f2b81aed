"""Plan a red-team run: the attack context of a project, every attack variant (attack ×
jailbreak wrapper) with its probes, the attacks that do not apply and why, and the benign
controls — all as items the ordinary runner can call (ids ``rt:<attack>~<mutator>#<n>`` and
``control:<item>``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ragcard.inputs.corpus import Corpus, Passage
from ragcard.inputs.questions import Question, QuestionSet
from ragcard.redteam.attacks import Attack, AttackContext, NotApplicable, Probe
from ragcard.redteam.catalogue._common import pick
from ragcard.redteam.mutators import Mutator

__all__ = ["Plan", "Skipped", "Variant", "attack_context", "build_plan", "pick_controls"]

CONTROL_PREFIX = "control:"
PROBE_PREFIX = "rt:"


@dataclass(frozen=True, slots=True)
class Variant:
    """An attack in one wrapper: its (wrapped) probes."""

    attack: Attack
    mutator: Mutator
    probes: tuple[Probe, ...]

    @property
    def id(self) -> str:
        return f"{self.attack.id}~{self.mutator.id}"

    def item_id(self, number: int) -> str:
        return f"{PROBE_PREFIX}{self.id}#{number}"


@dataclass(frozen=True, slots=True)
class Skipped:
    """An attack that did not run, and why."""

    attack: str
    category: str
    reason: str


@dataclass(frozen=True, slots=True)
class Plan:
    variants: tuple[Variant, ...]
    skipped: tuple[Skipped, ...]
    controls: tuple[Question, ...]

    @property
    def planted(self) -> tuple[Passage, ...]:
        """The test passages of every variant, each once."""
        found: dict[str, Passage] = {}
        for variant in self.variants:
            for probe in variant.probes:
                found.update((p.id, p) for p in probe.plant)
        return tuple(found.values())

    def items(self) -> list[Question]:
        """Every probe and control as a question the runner can ask."""
        items = [
            Question(
                id=v.item_id(n),
                question=p.question,
                asker=p.asker,
                program=p.program,
                cutoff=p.cutoff,
            )  # fmt: skip
            for v in self.variants
            for n, p in enumerate(v.probes)
        ]
        return items + list(self.controls)

    def locate(self) -> dict[str, tuple[Variant, int]]:
        """Probe item id -> (variant, probe number)."""
        return {v.item_id(n): (v, n) for v in self.variants for n in range(len(v.probes))}


def _default_asker(questions: QuestionSet, corpus: Corpus) -> str:
    askers = Counter(q.asker for q in questions.questions)
    for asker, _ in askers.most_common():
        if any(not p.visible_to(asker) for p in corpus):
            return asker
    return askers.most_common(1)[0][0] if askers else "public"


def _commonest(values: Sequence[object]) -> object | None:
    counts = Counter(v for v in values if v is not None)
    return counts.most_common(1)[0][0] if counts else None


def attack_context(
    corpus: Corpus,
    questions: QuestionSet,
    *,
    kit: str,
    seed: str,
    run_date: dt.date,
    asker: str | None = None,
    flags: dict[str, str] | None = None,
    secrets: Sequence[str] = (),
    instructions: Sequence[str] = (),
) -> AttackContext:
    """What the attacks may read about a project: its corpus and question set, the role they
    ask as, the roles in its access lists, its program and cutoff, the flags it uses."""
    cutoff = _commonest([q.cutoff for q in questions.questions])
    program = _commonest([q.program for q in questions.questions])
    used = {q.expected_flag for q in questions.questions if q.expected_flag}
    return AttackContext(
        corpus=corpus,
        questions=questions,
        kit=kit,
        seed=seed,
        asker=asker or _default_asker(questions, corpus),
        roles=tuple(sorted({role for p in corpus for role in p.access})),
        program=program if isinstance(program, str) else None,
        cutoff=cutoff if isinstance(cutoff, dt.date) else None,
        flags=frozenset(used | set((flags or {}).values())),
        topic_flags=dict(flags or {}),
        run_date=run_date,
        secrets=tuple(secrets),
        instructions=tuple(instructions),
    )


def pick_controls(questions: QuestionSet, count: int, seed: str) -> tuple[Question, ...]:
    """Up to ``count`` ordinary items of the question set, half answerable and half expected
    to decline where the set has both, asked exactly as written (ids ``control:<item>``)."""
    answerable = [q for q in questions.questions if q.is_answerable]
    declining = [q for q in questions.questions if not q.is_answerable]
    half = count // 2 if declining else count
    chosen = pick(answerable, max(half, count - len(declining)), seed, "controls")
    chosen += pick(declining, count - len(chosen), seed, "controls")
    return tuple(
        q.model_copy(update={"id": CONTROL_PREFIX + q.id})
        for q in sorted(chosen, key=lambda q: q.id)
    )


def build_plan(
    ctx: AttackContext,
    attacks: Sequence[Attack],
    mutators: Sequence[Mutator],
    controls: int,
    cannot_plant: str | None,
) -> Plan:
    """Build every variant; an attack that does not apply, or needs test passages the agent
    cannot index (``cannot_plant`` says why), is skipped with the reason."""
    variants: list[Variant] = []
    skipped: list[Skipped] = []
    for attack in attacks:
        try:
            probes = tuple(attack.build(ctx))
        except NotApplicable as reason:
            skipped.append(Skipped(attack.id, attack.category, str(reason)))
            continue
        if not probes:
            skipped.append(Skipped(attack.id, attack.category, "it built no probe"))
            continue
        if cannot_plant and any(probe.plant for probe in probes):
            skipped.append(Skipped(attack.id, attack.category, cannot_plant))
            continue
        wrappers = mutators if attack.mutable else mutators[:1]
        for mutator in wrappers:
            wrapped = tuple(
                dataclasses.replace(p, question=mutator.apply(p.question)) for p in probes
            )
            variants.append(Variant(attack, mutator, wrapped))
    # the controls do not change from run to run (the question set's hash picks them), so that
    # false-positive rates compare across runs
    chosen = pick_controls(ctx.questions, controls, ctx.questions.sha256)
    return Plan(tuple(variants), tuple(skipped), chosen)
