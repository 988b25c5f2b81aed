"""A signature verifies without ragcard: with a short script using only ``cryptography`` and
the documented canonical form (docs/signatures.md), and with jq + openssl."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ragcard.outputs.signing import sign_run

DOCS = Path(__file__).resolve().parents[2] / "docs" / "signatures.md"


def documented_script() -> str:
    """The Python snippet of docs/signatures.md, as a reader would copy it."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("```python\n") + len("```python\n")
    return text[start : text.index("```", start)]


def run_documented_script(run: Path, public: Path) -> subprocess.CompletedProcess[str]:
    script = documented_script()
    script = script.replace('pathlib.Path("RUN")', f"pathlib.Path({str(run)!r})")
    script = script.replace('pathlib.Path("ada.pub")', f"pathlib.Path({str(public)!r})")
    script += "\nimport sys\nassert not any(m.startswith('ragcard') for m in sys.modules)\n"
    script += "print('verified')\n"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=run.parent, check=False)


def test_the_documented_script_verifies_a_signature_without_ragcard(
    run_dir: Path, keys: tuple[Path, Path]
) -> None:
    sign_run(run_dir, keys[0], by="Ada Lovelace", decision="ship")
    done = run_documented_script(run_dir, keys[1])
    assert done.returncode == 0 and done.stdout.strip() == "verified", done.stderr
    # and it is a real check: a changed Decision line, or another key, fails it
    md = run_dir / "scorecard.md"
    original = md.read_bytes()
    md.write_text(md.read_text().replace("**Decision: SHIP**", "**Decision: SHIP!**"))
    assert run_documented_script(run_dir, keys[1]).returncode != 0
    md.write_bytes(original)
    doc = json.loads((run_dir / "signature.json").read_text())
    doc["decision"] = "hold"
    (run_dir / "signature.json").write_text(json.dumps(doc))
    failed = run_documented_script(run_dir, keys[1])
    assert failed.returncode != 0 and "InvalidSignature" in failed.stderr


@pytest.mark.skipif(not (shutil.which("jq") and shutil.which("openssl")),
                    reason="jq and openssl (3.x) are not installed")
def test_jq_and_openssl_verify_it_as_documented(
    run_dir: Path, keys: tuple[Path, Path], other_keys: tuple[Path, Path]
) -> None:
    sign_run(run_dir, keys[0], by="Ada Lovelace", decision="ship")
    manifest = subprocess.run(
        ["jq", "-cjS", ". as $d | reduce $d.signed[] as $k ({}; .[$k] = $d[$k])",
         "signature.json"], cwd=run_dir, capture_output=True, check=True,
    ).stdout
    (run_dir / "manifest.json").write_bytes(manifest)
    doc = json.loads((run_dir / "signature.json").read_text())
    import base64

    (run_dir / "signature.bin").write_bytes(base64.b64decode(doc["signature"]))

    def openssl(public: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", str(public), "-rawin",
             "-in", "manifest.json", "-sigfile", "signature.bin"],
            cwd=run_dir, capture_output=True, text=True, check=False,
        )

    checked = openssl(keys[1])
    if "rawin" in checked.stderr and checked.returncode:  # OpenSSL 1.1: no raw Ed25519 input
        pytest.skip("this openssl cannot verify Ed25519 over raw input (needs 3.x)")
    assert checked.returncode == 0 and "Signature Verified Successfully" in checked.stdout
    assert openssl(other_keys[1]).returncode != 0
    for name in ("scorecard.json", "scorecard.md", "results.jsonl"):
        digest = subprocess.run(["sha256sum", name], cwd=run_dir, capture_output=True,
                                text=True, check=True).stdout.split()[0]
        assert digest == doc["digests"][name]
