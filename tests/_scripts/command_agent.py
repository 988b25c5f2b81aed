"""A tiny agent for the command adapter's tests: ``command_agent.py MODE [ARG]``.

Modes: ``echo`` (answers from the request on stdin), ``fail`` (exit 3 with stderr), ``sleep``
(writes its pid to ARG, then sleeps), ``garbage`` (stdout is not JSON), ``noisy`` (logs to
stdout before the JSON line), ``reports`` (reports its own latency), ``env`` (says whether
the variable ARG is set, never its value).
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    mode = sys.argv[1]
    request = json.loads(sys.stdin.read() or "{}")
    if mode == "echo":
        print(
            json.dumps(
                {
                    "answer": f"echo: {request['question']}",
                    "retrieved": ["p1"],
                    "meta": {"request": request},
                }
            )
        )
    elif mode == "fail":
        sys.stderr.write("x" * 5000 + "\nTraceback: index not found\n")
        return 3
    elif mode == "sleep":
        with open(sys.argv[2], "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid()))
        time.sleep(30)
    elif mode == "garbage":
        print("this is not json")
    elif mode == "noisy":
        print("loading index…")
        print(json.dumps({"answer": "after the logs"}))
    elif mode == "reports":
        print(json.dumps({"answer": "timed", "latency_ms": 1234.5}))
    elif mode == "env":
        print(json.dumps({"answer": "set" if os.environ.get(sys.argv[2]) else "unset"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
