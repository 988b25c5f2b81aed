"""A canary secret reaches no file ragcard writes, nor its terminal, across runs with echoing
and failing agents; a header value HTTP cannot carry stops the run before the first call,
naming the variable and never the value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chaos_support import http_agent, make_project
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.adapters.testing import FaultPlan, FaultServer
from ragcard.agent._secrets import check_header_value, scrub, scrub_data

runner = CliRunner()
CANARY = "canary-7f3a9d1e-token"


def files_holding(root: Path, secret: str) -> list[Path]:
    """Every file under ``root`` whose bytes hold ``secret`` (as is, or JSON-escaped)."""
    forms = {secret.encode(), json.dumps(secret)[1:-1].encode()}
    return [
        path for path in sorted(root.rglob("*"))
        if path.is_file() and any(form in path.read_bytes() for form in forms)
    ]  # fmt: skip


def run(project: Path, out: Path, env: dict[str, str], *extra: str):
    args = ["run", str(project), "--out", str(out), "--no-progress", "--fresh",
            "--eval-dir", str(out.parent / "eval"), *extra]
    return runner.invoke(app, args, env=env)


@pytest.mark.parametrize(
    ("label", "plan", "echo_headers", "route"),
    [
        ("401 echoing the credential", FaultPlan(echo_rate=1.0), False, "/answer"),
        ("answers that quote it", FaultPlan(), True, "/answer"),
        ("streams that quote it", FaultPlan(), True, "/sse"),
        ("a mix of failures", FaultPlan(seed=4, echo_rate=0.3, error_rate=0.2,
                                        wrong_body_rate=0.2, refused_rate=0.1), True, "/sse"),
    ],
)
def test_a_canary_secret_appears_in_no_output_file(
    tmp_path: Path, label: str, plan: FaultPlan, echo_headers: bool, route: str
) -> None:
    env = {"AGENT_TOKEN": CANARY, "RAGCARD_HISTORY_URL": f"sqlite:///{tmp_path / 'h.sqlite'}"}
    with FaultServer(plan, echo_headers=echo_headers) as server:
        agent = http_agent(
            f"{server.url}{route}?key=${{AGENT_TOKEN}}",
            headers={"Authorization": "Bearer ${AGENT_TOKEN}", "X-Echo": "${AGENT_TOKEN}"},
            **({"stream": "sse"} if route == "/sse" else {}),
        )
        project = make_project(tmp_path / "p", agent, questions=8)
        first = run(project, tmp_path / "out", env)
        again = run(project, tmp_path / "out2", env, "--attempts", "2")
        assert server.requests > 0
    assert first.exit_code in (0, 1) and again.exit_code in (0, 1), first.output
    assert files_holding(tmp_path, CANARY) == [], label
    for result in (first, again):
        assert CANARY not in result.output
    results = (tmp_path / "out" / "results.jsonl").read_text()
    assert "***" in results  # what was echoed is there, masked


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("tok-1234\r", "a carriage return (CR) at its end"),
        ("tok\n1234", "a line feed (LF)"),
        ("tok-\u20ac-1234", "outside ASCII"),
        ("tok\x07bell", "control character U+0007"),
    ],
)
def test_a_header_value_http_cannot_carry_stops_the_run_before_any_call(
    tmp_path: Path, value: str, what: str
) -> None:
    with FaultServer() as server:
        agent = http_agent(server.url + "/answer",
                           headers={"Authorization": "Bearer ${AGENT_TOKEN}"})
        project = make_project(tmp_path / "p", agent, questions=3)
        result = run(project, tmp_path / "out", {"AGENT_TOKEN": value})
        assert server.requests == 0  # nothing was sent, nothing retried as transient
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "header 'Authorization'" in message and "${AGENT_TOKEN}" in message and what in message
    assert value.strip() not in result.output and "tok" not in message
    assert not (tmp_path / "out").exists()  # refused before the folder was touched


def test_header_checks_and_scrubbing_in_detail() -> None:
    assert check_header_value("Bearer fine\ttoken", "Authorization", ["T"]) is None
    assert check_header_value("Bearer fine-token\t", "Authorization", ["T"]) is not None
    found = check_header_value("Bearer x\r", "Authorization", ["A", "B"])
    assert found is not None and "the values of ${A}, ${B}" in found and "x\r" not in found
    from ragcard.agent._secrets import remember

    remember('se"cr\\et-9')
    assert scrub('got {"t": "se\\"cr\\\\et-9"}') == 'got {"t": "***"}'  # the JSON-escaped form
    assert scrub("key=se%22cr%5Cet-9&x=1") == "key=***&x=1"  # the URL-encoded form
    assert scrub_data({"a": ['se"cr\\et-9 !'], 'se"cr\\et-9': 1.5}) == {"a": ["*** !"], "***": 1.5}
    remember("ab")  # too short to mean anything: never masked
    assert scrub("ab cab") == "ab cab"


ECHO_AGENT = '''
import json, os, sys

request = json.loads(sys.stdin.read())
token = os.environ["AGENT_SECRET"].strip()  # what a program makes of a .env value ending in CR
print(json.dumps({"answer": f"The sources answer it. Token {token}.", "retrieved": [],
                  "meta": {"model": f"m-{token}", "echo": token}}))
'''


@pytest.mark.parametrize("tail", ["\r", "\r\n", " ", "\n"])
def test_a_command_agents_secret_with_trailing_whitespace_is_scrubbed_everywhere(
    tmp_path: Path, tail: str
) -> None:
    """The agent strips the value it is given and echoes it in its answer and its meta: no
    file, no history row and no line on the terminal holds it, trimmed or not."""
    import sqlite3

    history = tmp_path / "h.sqlite"
    env = {"AGENT_TOKEN": CANARY + tail, "RAGCARD_HISTORY_URL": f"sqlite:///{history}"}
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "echo_agent.py").write_text(ECHO_AGENT)
    agent = {"type": "command", "command": ["python3", "echo_agent.py"],
             "env": {"AGENT_SECRET": "${AGENT_TOKEN}"}}  # fmt: skip
    project = make_project(tmp_path / "p", agent, questions=3)
    result = run(project, tmp_path / "out", env)
    assert result.exit_code in (0, 1), result.output
    report = runner.invoke(app, ["report", str(tmp_path / "out"), "--html"], env=env)
    assert report.exit_code == 0, report.output
    assert (tmp_path / "out" / "report.html").exists()
    assert files_holding(tmp_path, CANARY) == []
    assert CANARY not in result.output and CANARY not in report.output
    rows = sqlite3.connect(history).execute("SELECT * FROM ragcard_runs").fetchall()
    assert rows and CANARY not in repr(rows)
    assert "m-***" in (tmp_path / "out" / "results.jsonl").read_text()


@pytest.mark.parametrize(
    ("value", "what"),
    [("tok-1234 ", "a space at its end"), (" tok-1234", "a space at its start"),
     ("tok-1234\t", "a tab at its end"), ("tok-\u00e9-1234", "U+00E9, outside ASCII")],
)  # fmt: skip
def test_latin_1_and_surrounding_whitespace_fail_the_pre_run_check(
    tmp_path: Path, value: str, what: str
) -> None:
    with FaultServer() as server:
        agent = http_agent(server.url + "/answer", headers={"X-Token": "${AGENT_TOKEN}"})
        project = make_project(tmp_path / "p", agent, questions=3)
        result = run(project, tmp_path / "out", {"AGENT_TOKEN": value})
        assert server.requests == 0
    message = " ".join(result.output.split())
    assert result.exit_code == 2 and what in message and "${AGENT_TOKEN}" in message, message
    assert "tok-" not in message
