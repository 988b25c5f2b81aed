from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def mini() -> Path:
    """A hand-checked six-item project: see tests/fixtures/mini and test_scoring_fixture.py."""
    return FIXTURES / "mini"


@pytest.fixture(autouse=True, scope="session")
def _vectors_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Sentence vectors are cached for the session in its own file (and in the subprocesses it
    starts), never in the user's ~/.cache."""
    os.environ["RAGCARD_VECTOR_CACHE"] = str(tmp_path_factory.mktemp("vectors") / "v.sqlite3")


@pytest.fixture(autouse=True)
def _no_secrets_across_tests() -> Iterator[None]:
    """The secrets a test expands (ragcard.agent._secrets) do not scrub the next test's outputs."""
    yield
    from ragcard.agent._secrets import forget_all

    forget_all()


@pytest.fixture(autouse=True)
def _history_in_tmp(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs made by tests record into a throwaway history, never beside the examples."""
    path = tmp_path_factory.mktemp("history") / "ragcard-history.sqlite"
    monkeypatch.setenv("RAGCARD_HISTORY_URL", f"sqlite:///{path}")


# -- a real headless browser (Debian's chromium and chromium-driver, installed by .ci/run) --

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Flags known to work on these machines: without the background-networking ones, Chromium's
#: own connections are refused by the closed network, many at a time.
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1280,1400",
)  # fmt: skip
#: Screenshots and page sources that browser tests keep (git-ignored), one folder per test.
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


@pytest.fixture
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium driven by Selenium, with the browser's network log kept."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("Debian's chromium and chromium-driver are not installed (.ci/run installs "
                    "them: apt-get install chromium chromium-driver)")  # fmt: skip
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) missing")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Path:
    """``tests/artifacts/<test name>/``: where a browser test keeps its screenshots."""
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    return folder
