"""``reviewbot scan`` offline, as the README shows it: a mistyped list name is refused with the lists the
cache holds (the real mirror pages of tests/data/openwall-mirror as ``--cache-dir``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.status import ExitStatus

MIRROR = Path(__file__).resolve().parent / "data" / "openwall-mirror"


def test_offline_typo_is_refused_with_the_lists_the_cache_holds(isolated_env: Path) -> None:
    cache = isolated_env / "mirror"
    shutil.copytree(MIRROR, cache)
    (cache / "not-a-list").mkdir()  # a folder without year pages is no list
    db = isolated_env / "db.sqlite"
    args = ["--since", "2024-05-01", "--until", "2024-05-01", "--offline", "--cache-dir", str(cache), "--db", str(db)]
    res = CliRunner().invoke(main, ["scan", "linux-kernal", *args])
    assert res.exit_code == ExitStatus.USAGE, res.output
    assert res.stderr == (f"reviewbot scan: 'linux-kernal': no such list in the cache {cache} (--offline); "
                          "known lists: linux-kernel\n")
    assert not db.exists()  # nothing queued as a failed page
    res = CliRunner().invoke(main, ["scan", "linux-kernel", *args])  # the right name is scanned
    assert res.exit_code in (ExitStatus.OK, ExitStatus.FINDINGS), res.output
    assert db.exists()
