"""Shared fixtures: where the test data is, and a real HTTP server serving a mirror on 127.0.0.1.

Two places hold real data. ``tests/data`` (``DATA``, fixture ``data_dir``) ships with
the project: a few months of archive pages, the mails and the cases most tests
use (see tests/data/README.md). ``../shared`` (``SHARED``, fixture ``shared_dir``;
``REVIEWBOT_SHARED=DIR`` points elsewhere) is the large data: the whole mirror,
the labelled corpus, the evaluation set. A test that needs it requests
``shared_dir`` (or ``mirror_server``) or carries ``@pytest.mark.shared``; when the
folder is absent such tests are skipped with one reason, never failed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SHARED = Path(os.environ.get("REVIEWBOT_SHARED", ROOT.parent / "shared")).resolve()
MIRROR = SHARED / "openwall-mirror"
CORPUS = SHARED / "corpus"
DATA = TESTS / "data"
DATA_MIRROR = DATA / "openwall-mirror"  # a few months of MIRROR, byte for byte
DATA_MAIL = DATA / "mail"  # mbox copies of DATA_MIRROR's 2023-06..07 messages and named corpus mails
CASES = DATA / "cases"  # byte-exact copy of ../shared/cases
NO_SHARED = f"needs the shared data: {SHARED} not found (put it at ../shared or set REVIEWBOT_SHARED=DIR)"

sys.path.insert(0, str(TESTS))

from mirror_server import MirrorServer  # noqa: E402
from lore_server import lore_inbox, lore_server  # noqa: E402,F401  (fixtures: a public-inbox stand-in for lore)

# No test reaches the real lore.kernel.org: drafting asks lore only where a test points it at lore_server.
os.environ.setdefault("REVIEWBOT_LORE_URL", "off")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "shared: needs ../shared (REVIEWBOT_SHARED); skipped when it is absent")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that reaches ``shared_dir`` as ``shared``; skip them all when ../shared is absent."""
    absent = not SHARED.is_dir()
    for item in items:
        if "shared_dir" in getattr(item, "fixturenames", ()) and item.get_closest_marker("shared") is None:
            item.add_marker(pytest.mark.shared)
        if absent and item.get_closest_marker("shared") is not None:
            item.add_marker(pytest.mark.skip(reason=NO_SHARED))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared (or REVIEWBOT_SHARED); the test is skipped when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(NO_SHARED)
    return SHARED


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: the real pages, mails and cases that ship with the project."""
    return DATA


@pytest.fixture(scope="session")
def mirror_server(shared_dir: Path):
    """A session-wide server over the whole shared mirror (no faults). Use ``reset_log()`` before counting."""
    with MirrorServer(MIRROR) as server:
        yield server


@pytest.fixture(scope="session")
def data_mirror_server(data_dir: Path):
    """A session-wide server over tests/data's mirror (no faults). Use ``reset_log()`` before counting."""
    with MirrorServer(DATA_MIRROR) as server:
        yield server


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every XDG dir into tmp_path so no test touches the user's config, cache or data."""
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    for var in ("REVIEWBOT_DB", "REVIEWBOT_CACHE_DIR", "REVIEWBOT_CONFIG", "REVIEWBOT_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path
