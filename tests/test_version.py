"""The version is written once (reviewbot/__init__.py); the package metadata and ``--version`` say the same."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import reviewbot


def test_version_is_written_once_and_reviewbot_version_prints_it() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", reviewbot.__version__)
    assert version("reviewbot") == reviewbot.__version__  # setuptools reads it from reviewbot/__init__.py
    pyproject = tomllib.loads((Path(reviewbot.__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]  # no second copy
    out = subprocess.run([sys.executable, "-m", "reviewbot", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == f"reviewbot, version {reviewbot.__version__}\n"
