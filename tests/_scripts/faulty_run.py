"""Run the acceptance configuration against a fresh FaultServer, one JSON line per outcome.

``faulty_run.py CONFIG_JSON OUT_JSONL`` — the test kills this process mid-way (SIGKILL) and
resumes from what it wrote. Each outcome is written and flushed on its own, as the CLI does.
"""

from __future__ import annotations

import asyncio
import json
import sys

from ragcard.adapters.http import HttpAdapter
from ragcard.adapters.testing import FaultPlan, FaultServer, synthetic_questions
from ragcard.agent.runner import AttemptOutcome, RunSettings, run_attempts


async def main(config: dict, out_path: str) -> None:
    with (
        FaultServer(FaultPlan(**config["plan"]), **config["server"]) as server,
        open(out_path, "a", encoding="utf-8") as out,
    ):

        def write(outcome: AttemptOutcome) -> None:
            out.write(json.dumps(outcome.as_record()) + "\n")
            out.flush()

        adapter = HttpAdapter(server.url + "/sse", stream="sse", send_attempt=True)
        try:
            await run_attempts(
                synthetic_questions(config["questions"]),
                adapter,
                RunSettings(**config["settings"]),
                write,
                progress=False,
            )
        finally:
            await adapter.aclose()


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        asyncio.run(main(json.load(handle), sys.argv[2]))
