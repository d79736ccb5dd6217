"""Shared fixtures: where ../shared is, and a real HTTP server serving the mirror on 127.0.0.1."""

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
CASES = SHARED / "cases"

sys.path.insert(0, str(TESTS))

from mirror_server import MirrorServer  # noqa: E402
from lore_server import lore_inbox, lore_server  # noqa: E402,F401  (fixtures: a public-inbox stand-in for lore)

# No test reaches the real lore.kernel.org: drafting asks lore only where a test points it at lore_server.
os.environ.setdefault("REVIEWBOT_LORE_URL", "off")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"../shared not found at {SHARED}; set REVIEWBOT_SHARED")
    return SHARED


@pytest.fixture(scope="session")
def mirror_server(shared_dir: Path):
    """A session-wide server over the mirror (no faults). Use ``reset_log()`` before counting."""
    with MirrorServer(MIRROR) as server:
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
