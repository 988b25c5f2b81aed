"""An experiment, not a judge: would a yes/no question serve the local model better?

The ``local`` judge asks Qwen2.5-Coder-1.5B for JSON verdicts and reads P(supported) where it
writes each one. This script asks the same model, per claim, "Is the statement fully supported
by the passages? Answer Yes or No." and reads P(Yes) / (P(Yes) + P(No)) from the logits of the
first answer token — one forward pass over the prompt, nothing generated. It scores either the
judge acceptance fixture (48 hand-made claims) or the first N claims of a WiCE-100 part (score
of a claim: its lowest sub-claim probability on a chunk, the best chunk), and prints AUROC and
(for the fixture) the cases misjudged at 0.5.

Needs the ``local`` extra and the model (``ragcard judges install-local``). Run::

    .venv/bin/python benchmarks/probe_yes_no.py fixture
    .venv/bin/python benchmarks/probe_yes_no.py wice --part dev --limit 60 --json out.json

The figures are in benchmarks/README.md ("a yes/no probe instead of JSON verdicts").
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "judges" / "fixtures" / "judge_acceptance.jsonl"
SYSTEM = "You are a careful fact checker."
QUESTION = "Is the statement fully supported by the passages? Answer Yes or No."


class YesNoProbe:
    """P(Yes) for a statement against passages, from the first answer token's logits."""

    def __init__(self, model: Path, n_threads: int) -> None:
        from llama_cpp import Llama  # type: ignore[import-untyped,import-not-found,unused-ignore]

        self.llm = Llama(model_path=str(model), n_ctx=4096, n_threads=n_threads,
                         n_threads_batch=n_threads, verbose=False, seed=0)  # fmt: skip
        self.yes = self._first_tokens(["Yes", "yes", " Yes", " yes", "YES"])
        self.no = self._first_tokens(["No", "no", " No", " no", "NO"])

    def _tokens(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode(), add_bos=False, special=True))

    def _first_tokens(self, words: Sequence[str]) -> list[int]:
        return sorted({self._tokens(word)[0] for word in words})

    def p_yes(self, passages: Sequence[tuple[str, str]], claim: str) -> float:
        shown = "\n\n".join(f"[{pid}] {text}" for pid, text in passages)
        user = f"Passages:\n{shown}\n\nStatement: {claim}\n\n{QUESTION}"
        # Qwen's chat template (ChatML), ending where the assistant's answer begins
        prompt = (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
                  "<|im_start|>assistant\n")  # fmt: skip
        self.llm.reset()
        self.llm.eval(self._tokens(prompt))
        # without logits_all, llama-cpp-python keeps no scores: read the context's last row
        raw = np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.llm.n_vocab(),))
        logits = np.asarray(raw, dtype=np.float64)
        p = np.exp(logits - logits.max())
        yes, no = float(p[self.yes].sum()), float(p[self.no].sum())
        return yes / (yes + no)


def fixture_rows(probe: YesNoProbe) -> list[dict[str, Any]]:
    rows = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        passages = [(p["id"], p["text"]) for p in case["passages"]]
        score = probe.p_yes(passages, case["claim"])
        rows.append({"id": case["id"], "kind": case["kind"], "label": case["label"],
                     "supported": case["label"] == "supported", "score": score})  # fmt: skip
    return rows


def wice_rows(probe: YesNoProbe, data_dir: Path, part: str, limit: int) -> list[dict[str, Any]]:
    from ragcard.judges.metaeval.datasets import load_dataset

    examples = load_dataset("wice-100", data_dir).part(part)[:limit]  # type: ignore[arg-type]
    rows = []
    for example in examples:
        best = max(
            min(probe.p_yes([(e.id, e.text) for e in chunk], claim) for claim in example.claims)
            for chunk in example.evidence_sets
        )
        rows.append({"id": example.id, "supported": example.supported, "score": best})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", choices=["fixture", "wice"])
    parser.add_argument("--part", default="dev", choices=["dev", "test"], help="WiCE-100 part")
    parser.add_argument("--limit", type=int, default=60, help="first N WiCE claims")
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)

    from ragcard.judges.metaeval.metrics import auroc
    from ragcard.judges.models import find_model

    model = find_model(args.model)
    if model is None:
        parser.exit(2, f"model {args.model} not installed: ragcard judges install-local\n")
    if args.data == "wice" and not (args.data_dir / "wice").is_dir():
        parser.exit(0, f"skipped: no WiCE data under {args.data_dir}\n")
    probe = YesNoProbe(model, args.threads)
    started = time.monotonic()
    if args.data == "fixture":
        rows = fixture_rows(probe)
    else:
        rows = wice_rows(probe, args.data_dir, args.part, args.limit)
    seconds = time.monotonic() - started
    human = [r["supported"] for r in rows]
    print(f"{len(rows)} claims, {seconds / len(rows):.2f} s a claim")
    print(f"AUROC {auroc(human, [r['score'] for r in rows]):.3f}")
    for threshold in (0.3, 0.5, 0.7):
        right = sum((r["score"] >= threshold) == r["supported"] for r in rows)
        print(f"agrees with the human label on {right}/{len(rows)} at threshold {threshold}")
    for r in rows:
        if "kind" in r and (r["score"] >= 0.5) != r["supported"]:
            print(f"  misjudged {r['id']} {r['kind']:<10} {r['label']:<13} P(yes) {r['score']:.3f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
