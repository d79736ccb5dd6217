#!/usr/bin/env python3
"""Rebuild a label-only first-look set's mails from the public-inbox mirrors it was drawn from.

    python benchmarks/first_look_sets/materialize.py SET_DIR MIRRORS_DIR OUT_DIR
    reviewbot eval --set OUT_DIR --by-list

``SET_DIR`` holds a ``labels.tsv`` in the evalset layout whose ``list`` column names a mirror
(``linux-mailinglist-archives/<list>``) and whose ``commit`` and ``cover_commit`` columns name the mirror
commits whose file ``m`` is the patch mail and its cover letter, byte for byte. ``MIRRORS_DIR`` holds the
mirrors as bare git directories, as ``<owner>+<list>/repo`` (the layout of a fetched snapshot), ``<list>.git``
or ``<list>``. Writes ``OUT_DIR/labels.tsv`` and ``OUT_DIR/mail/ID.eml`` (``ID.cover.eml`` where there is a
cover letter). The mails are public and large, so the project keeps only the labels: the first-look batches
after first7 no longer fit the size of ``tests/data`` (see ``tests/test_data_fixtures.py``).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path


def mirror_dir(mirrors: Path, name: str) -> Path:
    """The bare git directory of the mirror ``name`` (``owner/list``) under ``mirrors``."""
    owner, _, repo = name.partition("/")
    for candidate in (mirrors / f"{owner}+{repo}" / "repo", mirrors / f"{repo}.git", mirrors / repo):
        if (candidate / "HEAD").is_file() or (candidate / "objects").is_dir():
            return candidate
    raise SystemExit(f"materialize: no mirror of {name} under {mirrors} (fetch github:{name} first)")


def blob(git: Path, commit: str) -> bytes:
    done = subprocess.run(["git", f"--git-dir={git}", "show", f"{commit}:m"], capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"materialize: {git}: commit {commit} has no file m: {done.stderr.decode().strip()}")
    return done.stdout


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: materialize.py SET_DIR MIRRORS_DIR OUT_DIR", file=sys.stderr)
        return 2
    src, mirrors, out = (Path(a) for a in argv)
    (out / "mail").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "labels.tsv", out / "labels.tsv")
    rows = list(csv.DictReader((src / "labels.tsv").open(encoding="utf-8"), delimiter="\t"))
    for row in rows:
        git = mirror_dir(mirrors, row["list"])
        (out / "mail" / f"{row['id']}.eml").write_bytes(blob(git, row["commit"]))
        if row.get("cover_commit"):
            (out / "mail" / f"{row['id']}.cover.eml").write_bytes(blob(git, row["cover_commit"]))
    print(f"{len(rows)} patch mails written to {out / 'mail'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
