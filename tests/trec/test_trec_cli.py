"""``ragcard trec`` as a command: options in trec_eval's style, output, exit codes."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ragcard._cli.trec import trec_command

FIXTURE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec_eval_fixture"

# Registered the way the real app registers it; a second command keeps typer from collapsing
# the app into a single command, so "trec" must be named as on the real command line.
app = typer.Typer()
app.command("trec")(trec_command)


@app.command("version")
def _version() -> None:
    """Placeholder second command."""


runner = CliRunner()

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n"
RUN = "1 Q0 a 1 1.0 tiny\n1 Q0 b 2 1.0 tiny\n1 Q0 c 3 3.0 tiny\n2 Q0 x 1 0.5 tiny\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def test_measures_and_flags_in_trec_eval_style(files: tuple[str, str]) -> None:
    qrels, run = files
    result = runner.invoke(app, ["trec", "-q", "-m", "map", "-mP.2", qrels, run])
    assert result.exit_code == 0, result.output
    # Query 1 ranks c (3.0), then the tie b, a (docno descending): AP = (1/1 + 2/3) / 2.
    assert result.stdout == (
        "map                   \t1\t0.8333\n"
        "P_2                   \t1\t0.5000\n"
        "map                   \t2\t1.0000\n"
        "P_2                   \t2\t0.5000\n"
        "map                   \tall\t0.9167\n"
        "P_2                   \tall\t0.5000\n"
    )


def test_attached_short_option_values(files: tuple[str, str]) -> None:
    qrels, run = files
    # -l2: only c is relevant in query 1; -M1: only the top document counts.
    result = runner.invoke(app, ["trec", "-mnum_rel", "-mnum_ret", "-l2", "-M1", qrels, run])
    assert result.exit_code == 0, result.output
    assert result.stdout == "num_ret               \tall\t2\nnum_rel               \tall\t1\n"


def test_complete_flag(files: tuple[str, str], tmp_path: Path) -> None:
    qrels, _ = files
    partial = tmp_path / "partial"
    partial.write_text("1 Q0 c 1 3.0 tiny\n")
    result = runner.invoke(app, ["trec", "-c", "-m", "num_q", "-m", "map", qrels, str(partial)])
    assert result.exit_code == 0, result.output
    assert "num_q                 \tall\t2\n" in result.stdout
    assert "map                   \tall\t0.2500\n" in result.stdout


def test_bad_input_exits_2_with_a_message_and_no_traceback(files: tuple[str, str]) -> None:
    qrels, run = files
    swapped = runner.invoke(app, ["trec", run, qrels])
    assert swapped.exit_code == 2
    assert "looks like a run file" in swapped.stderr
    assert "Traceback" not in swapped.output
    unknown = runner.invoke(app, ["trec", "-m", "nope", qrels, run])
    assert unknown.exit_code == 2
    assert "'nope' is not a trec_eval measure" in unknown.stderr
    missing = runner.invoke(app, ["trec", qrels, qrels + ".missing"])
    assert missing.exit_code == 2
    assert "file not found" in missing.stderr
    assert missing.stdout == ""


def test_bad_lines_of_both_files_are_listed_together(tmp_path: Path) -> None:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS + "1 0 d x\n")
    run.write_text(RUN + "1 Q0 d 4 abc tiny\n")
    result = runner.invoke(app, ["trec", str(qrels), str(run)])
    assert result.exit_code == 2 and result.stdout == ""
    assert f"{qrels}:5 field 'rel'" in result.stderr
    assert f"{run}:5 field 'score'" in result.stderr


def test_all_trec_notes_what_is_not_computed_on_stderr(files: tuple[str, str]) -> None:
    qrels, run = files
    result = runner.invoke(app, ["trec", "-m", "all_trec", qrels, run])
    assert result.exit_code == 0
    assert "not computed" in result.stderr and "infAP" in result.stderr
    assert "infAP" not in result.stdout


@pytest.mark.skipif(not (FIXTURE / "out.test").is_file(), reason=f"no fixture at {FIXTURE}")
def test_default_output_is_trec_evals_byte_for_byte() -> None:
    result = runner.invoke(
        app, ["trec", str(FIXTURE / "qrels.test"), str(FIXTURE / "results.test")]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == (FIXTURE / "out.test").read_text()


def _trec_process(qrels: str, run: str) -> subprocess.CompletedProcess[str]:
    def bounded() -> None:  # an endless read must fail, not take the machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))

    return subprocess.run([sys.executable, "-m", "ragcard", "trec", qrels, run],
                          capture_output=True, text=True, timeout=120, preexec_fn=bounded)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_devices_are_refused_not_read_forever() -> None:
    done = _trec_process("/dev/zero", "/dev/zero")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "/dev/zero: is a character device, not a regular file" in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    (tmp_path / "run.txt").write_text(RUN)
    done = _trec_process(str(fifo), str(tmp_path / "run.txt"))
    assert done.returncode == 2, done.stderr[-2000:]
    assert "is a named pipe (FIFO), not a regular file" in done.stderr
