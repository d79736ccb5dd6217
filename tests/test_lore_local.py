"""A local copy of lore's epochs as the source of ``scan --source lore`` (reviewbot/fetch/lore_local.py).

The same month is scanned from a real public-inbox server over HTTP
(tests/lore_server.py) and from the inbox's folder on disk, in each layout a
local copy comes in (the inbox folder, a grokmirror-like tree, one bare
epoch); the stores must hold the same rows. A snapshot-like epoch is built
with git itself (one commit per message, the message in ``m``) with the
impossible time zones such snapshots carry, to show months are picked by the
Date header in UTC.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import pytest
import sqlite_utils

from reviewbot.config import Settings
from reviewbot.errors import UsageError
from reviewbot.fetch.lore_local import LocalInbox, is_local, local_root
from reviewbot.scan_lore import scan_lore

JUNE = (date(2023, 6, 1), date(2023, 6, 30))

# columns that name where a message was read (the host or the folder); everything else must agree
_WHERE = {"archive_url", "source"}


def settings_for(tmp_path: Path, url: str, name: str) -> Settings:
    return Settings(
        lore_url=url, db_path=tmp_path / f"{name}.sqlite", rate=0, retries=1, backoff=0, obey_robots=False, timeout=5
    )


def rows(db: Path) -> dict[str, list[tuple]]:
    """Every stored message, patch and finding, without the columns naming the source."""
    out = {}
    database = sqlite_utils.Database(db)
    for table, key in (("messages", "message_id"), ("patches", "message_id"), ("findings", "fingerprint")):
        cols = [c.name for c in database[table].columns if c.name not in _WHERE and c.name != "first_seen"]
        out[table] = sorted(tuple(r[c] for c in cols) for r in database[table].rows_where(order_by=key))
    database.close()
    return out


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_local_copy_stores_what_the_server_serves(lore_server, lore_inbox, tmp_path, cache_home) -> None:
    over_http = settings_for(tmp_path, lore_server.url, "http")
    served = scan_lore(over_http, "linux-kernel", *JUNE)
    expected = rows(over_http.db_path)
    june = {m.message_id for m in lore_inbox.mails if JUNE[0] <= m.day <= JUNE[1]}
    assert served.messages_stored == len(june) > 30
    assert len(expected["messages"]) == len(june) and expected["patches"] and expected["findings"]

    inbox_dir = lore_inbox.home / "lkml"  # a public-inbox v2 inbox folder: git/0.git
    layouts = {
        "inbox-url": inbox_dir.as_uri(),
        "inbox-path": str(inbox_dir),
        "tree": str(lore_inbox.home),  # grokmirror-like: <inbox>/git/N.git
        "epoch": str(inbox_dir / "git" / "0.git"),  # one bare epoch
    }
    for name, url in layouts.items():
        local = settings_for(tmp_path, url, name)
        summary = scan_lore(local, "linux-kernel", *JUNE)
        assert summary.git_operations == 0 and summary.http_requests == 0, name
        assert summary.messages_stored == served.messages_stored and summary.ok, name
        assert rows(local.db_path) == expected, name
        again = scan_lore(local, "linux-kernel", *JUNE)  # the epoch's cursor: nothing read twice
        assert again.commits_read == 0 and again.messages_stored == 0, name


def _mail(mid: str, when: datetime, subject: str) -> bytes:
    return (
        f"From: Ada Lovelace <ada@example.org>\n"
        f"To: list@vger.kernel.org\n"
        f"Subject: {subject}\n"
        f"Date: {format_datetime(when)}\n"
        f"Message-ID: <{mid}>\n"
        f"\n"
        f"Some words.\n"
    ).encode()


def _impossible_zone(offset: timedelta) -> str:
    """How the snapshots print a negative zone: -0300 becomes +2100 (24 hours added)."""
    minutes = int(offset.total_seconds() // 60)
    if minutes < 0:
        minutes += 24 * 60
    return f"+{minutes // 60:02d}{minutes % 60:02d}"


def snapshot_epoch(path: Path, mails: list[tuple[bytes, datetime]]) -> Path:
    """A bare repository with one commit per mail (the file ``m``), author time the Date, zone printed wrong."""
    env = dict(os.environ, GIT_AUTHOR_NAME="a", GIT_AUTHOR_EMAIL="a@a", GIT_COMMITTER_NAME="a")
    env.update(GIT_COMMITTER_EMAIL="a@a", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True, env=env)
    parent: list[str] = []

    def git(*args: str, data: bytes = b"", extra: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["git", "--git-dir", str(path), *args],
            input=data,
            capture_output=True,
            check=True,
            env={**env, **(extra or {})},
        )
        return done.stdout.decode().strip()

    for data, when in mails:
        blob = git("hash-object", "-w", "--stdin", data=data)
        tree = git("mktree", data=f"100644 blob {blob}\tm\n".encode())
        assert when.utcoffset() is not None
        stamp = f"{int(when.timestamp())} {_impossible_zone(when.utcoffset())}"
        commit = git(
            "commit-tree", tree, *parent, "-m", "m", extra={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        )
        parent = ["-p", commit]
    git("update-ref", "refs/heads/master", parent[1])
    return path


def test_months_are_picked_by_the_date_header_in_utc(tmp_path, cache_home) -> None:
    brasilia, tokyo = timezone(timedelta(hours=-3)), timezone(timedelta(hours=9))
    mails = [
        # the 30th of June in Brasilia is the 1st of July in UTC: not June's
        (
            _mail("late@x", datetime(2023, 6, 30, 22, 30, tzinfo=brasilia), "late"),
            datetime(2023, 6, 30, 22, 30, tzinfo=brasilia),
        ),
        # the 1st of June in Tokyo is still the 31st of May in UTC: not June's
        (_mail("early@x", datetime(2023, 6, 1, 8, 0, tzinfo=tokyo), "early"), datetime(2023, 6, 1, 8, 0, tzinfo=tokyo)),
        (
            _mail("inside@x", datetime(2023, 6, 15, 9, 0, tzinfo=brasilia), "inside"),
            datetime(2023, 6, 15, 9, 0, tzinfo=brasilia),
        ),
        (
            _mail("first@x", datetime(2023, 6, 1, 10, 0, tzinfo=tokyo), "first"),
            datetime(2023, 6, 1, 10, 0, tzinfo=tokyo),
        ),
    ]
    epoch = snapshot_epoch(tmp_path / "list.vger.kernel.org.0", mails)
    printed = subprocess.run(
        ["git", "--git-dir", str(epoch), "log", "--format=%ad", "--date=raw"], capture_output=True, check=True
    ).stdout.decode()
    assert "+2100" in printed  # the impossible zone is really there
    settings = settings_for(tmp_path, f"file://{epoch}", "snap")
    summary = scan_lore(settings, "linux-kernel", *JUNE)
    database = sqlite_utils.Database(settings.db_path)
    stored = {r["message_id"]: r["day"] for r in database["messages"].rows}
    assert stored == {"inside@x": "2023-06-15", "first@x": "2023-06-01"}
    assert summary.commits_read == 2
    july = scan_lore(settings_for(tmp_path, str(epoch), "july"), "linux-kernel", date(2023, 7, 1), date(2023, 7, 31))
    assert july.messages_stored == 1


def test_what_is_local() -> None:
    assert is_local("file:///srv/lore") and is_local("/srv/lore") and is_local("./lore")
    assert not is_local("https://lore.kernel.org") and not is_local("") and not is_local(None)


def test_a_folder_without_epochs_is_named(tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError) as exc:
        LocalInbox(Settings(), "bpf", local_root(str(tmp_path / "empty")))
    assert "no epochs of 'bpf'" in exc.value.message and str(tmp_path / "empty") in exc.value.message
    with pytest.raises(UsageError, match="no such folder"):
        local_root(f"file://{tmp_path}/missing")
    with pytest.raises(UsageError, match="folder on this machine"):
        local_root("file://otherhost/srv/lore")


def test_scan_command_reads_a_local_copy_and_names_a_bad_one(lore_inbox, tmp_path) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    db = str(tmp_path / "db.sqlite")

    def scan(url: str) -> subprocess.CompletedProcess[str]:
        args = [
            "scan",
            "linux-kernel",
            "--source",
            "lore",
            "--lore-url",
            url,
            "--since",
            "2023-06",
            "--until",
            "2023-06",
        ]
        return subprocess.run(
            [sys.executable, "-m", "reviewbot", *args, "--db", db], env=env, capture_output=True, text=True, timeout=300
        )

    done = scan((lore_inbox.home / "lkml").as_uri())
    june = sum(1 for m in lore_inbox.mails if JUNE[0] <= m.day <= JUNE[1])
    assert done.returncode == 0, done.stderr
    assert f"messages stored (new): {june}" in done.stdout
    assert "git clones/fetches/probes over the network: 0" in done.stdout
    bad = scan(str(tmp_path))  # a folder, but no epochs in it
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "no epochs of 'lkml'" in bad.stderr and str(tmp_path) in bad.stderr


def test_first_look_benchmark_writes_each_draft_with_its_thread(lore_inbox, tmp_path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import first_look_drafts

    out = tmp_path / "first-look"
    epoch = lore_inbox.home / "lkml" / "git" / "0.git"
    args = [str(epoch), "--since", "2023-06", "--until", "2023-06", "--out", str(out), "--list", "linux-kernel"]
    assert first_look_drafts.main([*args, "--grace-days", "5", "--unsure"]) == 0  # the unsure points: more drafts
    index = (out / "index.tsv").read_text().splitlines()
    folders = sorted((out / "drafts").iterdir())
    assert len(folders) == len(index) - 1 == len(list((out / "outbox").glob("*.eml"))) > 0
    for line, folder in zip(index[1:], folders):
        n, rules, mid, subject, size = line.split("\t")[:5]
        assert folder.name == n and rules.startswith("RB")
        draft = (folder / "draft.eml").read_text()
        assert f"In-Reply-To: <{mid}>" in draft
        assert f"Message-ID: <{mid}>" in (folder / "patch.txt").read_text()
        thread = (folder / "thread.txt").read_text()
        assert sum(1 for text in thread.splitlines() if text.startswith("===== ")) == int(size) >= 1
        assert f"Message-ID: <{mid}>" in thread
    misses = (out / "misses.tsv").read_text().splitlines()
    assert misses[0].startswith("point\t")
    assert all(m.split("\t")[0] in ("numbers", "pairing", "layout") for m in misses[1:])
    with pytest.raises(SystemExit, match="not empty"):
        first_look_drafts.main(args)


def test_first_look_benchmark_leaves_out_patches_addressed_to_an_evaluation_list() -> None:
    """A reading of linux-clk held a patch also sent to linux-pci, a list kept for the project's evaluation
    (never read or tuned on): such a patch's draft is left out of the folders and of the misses."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import first_look_drafts

    from reviewbot.parse.mail import parse_rfc822

    def mail(cc: str):
        raw = (
            "From: Ada <ada@example.org>\nTo: linux-clk@vger.kernel.org\n"
            f"Cc: {cc}\nSubject: [PATCH] clk: x\nMessage-ID: <x@example.org>\n"
            "Date: Mon, 1 Dec 2025 10:00:00 +0000\n\nbody\n"
        ).encode()
        return parse_rfc822(raw, "test")

    assert first_look_drafts.kept_out(mail("linux-pci@vger.kernel.org, bob@example.com"))
    assert first_look_drafts.kept_out(mail("Nvdimm <nvdimm@lists.linux.dev>"))
    assert not first_look_drafts.kept_out(mail("linux-arm-kernel@lists.infradead.org"))
