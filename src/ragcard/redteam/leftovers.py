"""Test passages a killed red-team run left in an agent's live index, found from any folder.

A red-team run that plants test passages through hooks records it in the run history first
(one row per project, whatever its ``--out``) and clears the row once its remove hook has
succeeded. A run killed in between (SIGKILL, power loss) leaves the row; every later
``ragcard run`` and ``ragcard redteam run`` of the project runs the recorded remove hook before
anything else, or refuses with the fix when it cannot (docs/redteam.md, "How test passages
reach the agent").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ragcard.errors import ConfigError
from ragcard.redteam.store import FindingStore, Planted
from ragcard.redteam.testcorpus import FOLDER, Delivery, run_hook

__all__ = ["HistoryLedger", "repair_leftovers"]


class HistoryLedger:
    """The project's row in the history while test passages are in its agent's index."""

    def __init__(self, url: str, project: str, out_dir: Path, cwd: Path) -> None:
        self.url, self.project, self.out_dir, self.cwd = url, project, out_dir, cwd

    def mark(self, remove: Sequence[str]) -> None:
        with FindingStore(self.url) as store:
            store.mark_planted(self.project, str(self.out_dir), remove, str(self.cwd))

    def clear(self) -> None:
        with FindingStore(self.url) as store:
            store.clear_planted(self.project)


def repair_leftovers(url: str, project: str, say: Callable[[str], None]) -> Planted | None:
    """Run the remove hook of a red-team run of ``project`` that was killed with its test
    passages planted, then clear its row; None when nothing was left. A hook that fails (or
    none recorded) is a :class:`ConfigError` with the fix, and the row stays."""
    with FindingStore(url) as store:
        left = store.planted(project)
        if left is None:
            return None
        where = (f"a red-team run killed on {left.planted_at:%Y-%m-%d %H:%M} UTC (--out "
                 f"{left.out_dir})")  # fmt: skip
        if not left.remove:
            raise ConfigError(
                f"{where} left test passages in the agent's index and recorded no "
                "remove_command: remove them by hand, then run `ragcard redteam run` with a "
                "[redteam] remove_command (it removes them and clears the record)"
            )
        folder = Path(left.out_dir) / FOLDER
        delivery = Delivery("hooks", remove=left.remove, cwd=Path(left.cwd))
        try:
            run_hook(left.remove, delivery, folder / "corpus.jsonl", folder / "planted.jsonl")
        except ConfigError as error:
            raise ConfigError(
                f"{where} left test passages in the agent's index, and removing them failed: "
                f"{error} — no run may use the index until they are out"
            ) from None
        store.clear_planted(project)
    say(f"removed the test passages {where} left in the agent's index")
    return left
