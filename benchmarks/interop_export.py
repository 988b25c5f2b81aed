"""Write a small evaluation dataset with Ragas's or DeepEval's own documented example code,
for `ragcard import ragas|deepeval` to round-trip (tests/test_interop.py).

Run it with the library installed (each in a virtualenv of its own; neither is a ragcard
dependency):

    python3 -m venv .venv-ragas && .venv-ragas/bin/pip install -r benchmarks/requirements-ragas.txt
    .venv-ragas/bin/python benchmarks/interop_export.py ragas OUT_DIR
    python3 -m venv .venv-deepeval && .venv-deepeval/bin/pip install deepeval==4.3.1
    .venv-deepeval/bin/python benchmarks/interop_export.py deepeval OUT_DIR

Ragas: ``SingleTurnSample`` → ``EvaluationDataset(samples=…)`` → ``to_jsonl`` and ``to_csv``
(docs.ragas.io, "Evaluation Dataset"). DeepEval: ``LLMTestCase`` and ``Golden`` →
``EvaluationDataset(goldens=…)`` → ``save_as(file_type=…, include_test_cases=True)``
(deepeval.com, "Datasets"). The same three questions in both, one of which the sources do not
answer, one with two passages.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROWS = [
    {
        "question": "How many days of annual leave do I get?",
        "contexts": ["Employees get 25 days of annual leave a year, plus public holidays."],
        "ids": ["leave-1"],
        "answer": "You get 25 days of annual leave a year, plus public holidays.",
        "reference": "25 days a year, plus public holidays.",
    },
    {
        "question": "What meal allowance do I get, and by when must I claim it?",
        "contexts": ["The meal allowance while travelling is 40 euros a day.",
                     "Submit expense claims within 30 days of the end of the trip."],
        "ids": ["expenses-1", "expenses-2"],
        "answer": "40 euros a day; claim within 30 days of the trip.",
        "reference": "40 euros a day, claimed within 30 days of the end of the trip.",
    },
    {
        "question": "Can I bring my dog to the office?",
        "contexts": ["Book economy class for flights shorter than six hours."],
        "ids": ["travel-1"],
        "answer": "I can't find that in the handbook.",
        "reference": "The handbook does not say.",
    },
]


def ragas(out: Path) -> None:
    from ragas import EvaluationDataset, SingleTurnSample

    samples = [
        SingleTurnSample(
            user_input=row["question"],
            retrieved_contexts=row["contexts"],
            retrieved_context_ids=row["ids"],
            response=row["answer"],
            reference=row["reference"],
            reference_contexts=row["contexts"][:1] if row["ids"][0] != "travel-1" else None,
            reference_context_ids=row["ids"][:1] if row["ids"][0] != "travel-1" else None,
        )
        for row in ROWS
    ]
    dataset = EvaluationDataset(samples=samples)
    dataset.to_jsonl(str(out / "ragas.jsonl"))
    dataset.to_csv(str(out / "ragas.csv"))


def deepeval(out: Path) -> None:
    from deepeval.dataset import EvaluationDataset, Golden
    from deepeval.test_case import LLMTestCase

    dataset = EvaluationDataset(
        goldens=[
            Golden(input=row["question"], expected_output=row["reference"], context=row["contexts"])
            for row in ROWS
        ]
    )
    for row in ROWS:
        dataset.add_test_case(
            LLMTestCase(
                input=row["question"],
                actual_output=row["answer"],
                expected_output=row["reference"],
                retrieval_context=row["contexts"],
                context=row["contexts"],
            )
        )
    for file_type in ("json", "jsonl", "csv"):
        dataset.save_as(file_type=file_type, directory=str(out), file_name="deepeval",
                        include_test_cases=True)  # fmt: skip


if __name__ == "__main__":
    library, folder = sys.argv[1], Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    {"ragas": ragas, "deepeval": deepeval}[library](folder)
    print(f"wrote the {library} dataset to {folder}")
