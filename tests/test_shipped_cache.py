"""archive_cache/: the real pages of June 2023 shipped for offline use stay what its README says they are.

Byte copies of tests/data/openwall-mirror (itself a byte copy of ``../shared/openwall-mirror``, checked
by test_data_fixtures.py when the shared data is there), small, every message in its manifest, and all
of it in the wheel's package data.
"""

from __future__ import annotations

import csv
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

from conftest import DATA_MIRROR
from reviewbot.config import shipped_cache_dir

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "archive_cache"
HOST = SHIPPED / "lists.openwall.net"


def _files() -> list[Path]:
    return sorted(p for p in HOST.rglob("*") if p.is_file())


def test_the_checkout_finds_its_shipped_copy() -> None:
    assert shipped_cache_dir() == SHIPPED


def test_shipped_pages_are_byte_copies_of_the_test_mirror() -> None:
    files = _files()
    assert len(files) == 50  # list page, 2023 year page, June month page, 10 day pages, 37 messages
    for path in files:
        rel = path.relative_to(HOST)
        assert (DATA_MIRROR / rel).read_bytes() == path.read_bytes(), rel
    assert sum(p.stat().st_size for p in files) < 1_000_000


def test_the_manifest_names_every_shipped_message() -> None:
    with (SHIPPED / "manifest.tsv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    pages = {
        "/" + p.relative_to(HOST).as_posix()[: -len(".html")]
        for p in _files()
        if p.name != "index.html" and p.suffix == ".html"
    }
    assert {r["path"] for r in rows} == pages and len(pages) == 37
    assert "20230609183125.673140-6-axboe@kernel.dk" in {r["message_id"] for r in rows}
    mirror_rows = (DATA_MIRROR / "manifest.tsv").read_text(encoding="utf-8").splitlines()
    assert set((SHIPPED / "manifest.tsv").read_text(encoding="utf-8").splitlines()) <= set(mirror_rows)


def test_the_wheel_takes_every_shipped_file() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = project["tool"]["setuptools"]
    assert "reviewbot.archive_cache" in setuptools["packages"]
    assert setuptools["package-dir"]["reviewbot.archive_cache"] == "archive_cache"
    patterns = setuptools["package-data"]["reviewbot.archive_cache"]
    shipped = [p.relative_to(SHIPPED).as_posix() for p in [*_files(), SHIPPED / "README.md", SHIPPED / "manifest.tsv"]]
    for rel in shipped:
        # setuptools' "**" matches any depth; fnmatch's "*" crosses "/" too, so this is the same test
        assert any(fnmatch(rel, pattern.replace("**/", "")) for pattern in patterns), rel


@pytest.mark.parametrize("name", ["README.md", "manifest.tsv"])
def test_the_shipped_copy_says_where_it_comes_from(name: str) -> None:
    text = (SHIPPED / name).read_text(encoding="utf-8")
    assert text.strip()
    if name == "README.md":
        assert "../shared/openwall-mirror/" in text and "byte copy" in text
