"""A small corpus with every case the reference agent must handle.

Handbook side: an in-force leave policy and the version it superseded, a version not yet in
force, a manager/HR-only passage, two ordinary passages. Persona side: dated tier-A letters on
both sides of a cutoff, and tier-B commentary written long after it (one about later events).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragcard.inputs.corpus import Corpus, load_corpus

PASSAGES: list[dict[str, Any]] = [
    {
        "id": "leave@2025#1",
        "doc": "leave-policy",
        "section": "Annual leave",
        "version": "2025",
        "effective_from": "2025-01-01",
        "text": "Full-time employees receive 28 days of annual leave per calendar year. "
        "Part-time employees receive a pro-rata share of the 28 days.",
    },
    {
        "id": "leave@2023#1",
        "doc": "leave-policy",
        "section": "Annual leave",
        "version": "2023",
        "status": "superseded",
        "superseded_by": "leave@2025#1",
        "effective_from": "2023-01-01",
        "effective_to": "2024-12-31",
        "text": "Full-time employees receive 25 days of annual leave per calendar year. "
        "Unused leave days expire on 31 December and cannot be carried over.",
    },
    {
        "id": "parental@2027#1",
        "doc": "parental-leave",
        "section": "Duration",
        "effective_from": "2027-01-01",
        "text": "From January 2027 parental leave lasts 26 weeks on full pay.",
    },
    {
        "id": "salary-bands#1",
        "doc": "salary-bands",
        "section": "Band C",
        "access": ["manager", "hr"],
        "text": "Band C salaries range from 61,500 to 74,250 euros a year. "
        "Band reviews take place every March.",
    },
    {
        "id": "expenses#2",
        "doc": "expenses-policy",
        "section": "Travel expenses",
        "text": "Expense claims must be submitted within 30 days of travel. "
        "Receipts are required for every item over 25 euros.",
    },
    {
        "id": "remote#1",
        "doc": "remote-work",
        "section": "Working from home",
        "text": "Employees may work from home up to two days a week with their manager's "
        "approval. This does not apply during the probation period.",
    },
    {
        "id": "MM-A-1847-10-01",
        "doc": "Letters",
        "tier": "A",
        "date": "1847-10-01",
        "text": "I arrived in Leeds on a rainy Tuesday. The mill owners received me coldly.",
    },
    {
        "id": "MM-A-1852-03-14",
        "doc": "Letters",
        "tier": "A",
        "date": "1852-03-14",
        "text": "My book about the northern factories was published this spring.",
    },
    {
        "id": "MM-B-smith-4",
        "doc": "Smith, A Life in Letters",
        "tier": "B",
        "date": "1998-05-01",
        "text": "The cold reception in Leeds hardened her resolve to campaign for factory reform.",
    },
    {
        "id": "MM-B-mill-1",
        "doc": "mill-history-1990",
        "tier": "B",
        "date": "1990-01-01",
        "text": "The Kirkstall mill was demolished in 1921 to make way for a railway yard.",
    },
]


def write_corpus(folder: Path, passages: list[dict[str, Any]]) -> Path:
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in passages), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def corpus_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("reference"), PASSAGES)


@pytest.fixture(scope="session")
def corpus(corpus_path: Path) -> Corpus:
    return load_corpus(corpus_path)
