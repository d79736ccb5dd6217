"""Issue 24, the newcomer's list: what a first user trips over, each on the real command and a real database.

The database is an offline scan of the checkout's ``archive_cache/`` (real pages of June 2023, real
SQLite file); the drafts go to a real outbox and Maildir folder.
"""

from __future__ import annotations

import dataclasses
import json
import mailbox
import re
from datetime import date, datetime, timezone
from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import cli_env
from reviewbot.cli import main
from reviewbot.config import Settings, shipped_cache_dir
from reviewbot.models import FindingState, Message
from reviewbot.parse.mail import parse_rfc822
from reviewbot.respond.runner import SKIP_STATES
from reviewbot.scan import scan
from reviewbot.store import Store

pytestmark = pytest.mark.skipif(shipped_cache_dir() is None, reason="needs the checkout's archive_cache/")

NOW = datetime(2023, 7, 1, 6, 0, tzinfo=timezone.utc)
COPY = (shipped_cache_dir() or Path("/")) / "lists.openwall.net"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cli_env(tmp_path, monkeypatch)
    monkeypatch.setenv("REVIEWBOT_LORE_URL", "off")
    settings = Settings(db_path=tmp_path / "db.sqlite", cache_dir=COPY, rate=0.0, lore_url="")
    summary = scan(
        settings, "linux-kernel", date(2023, 6, 1), date(2023, 6, 30), fetch_all=True, offline=True, clock=lambda: NOW
    )
    assert summary.ok and summary.findings > 0
    return settings.db_path


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_findings_state_takes_every_state_it_prints(db: Path) -> None:
    with Store(db) as store:
        (first, *_rest) = store.finding_rows()
        store.record_skip(store.finding(first.fingerprint), "withdrawn", "the author asked to ignore the patch")
    listed = invoke("findings", "--db", str(db), "--state", "withdrawn")
    assert listed.exit_code == 0, listed.output
    assert first.fingerprint in listed.output and listed.output.rstrip().endswith("1 finding(s)")
    for state in (*(s.value for s in FindingState), "drafted", *SKIP_STATES):
        res = invoke("findings", "--db", str(db), "--state", state)
        assert res.exit_code == 0, (state, res.output)


def test_draft_refuses_an_unknown_rule(db: Path, tmp_path: Path) -> None:
    res = invoke("draft", "--db", str(db), "--outbox", str(tmp_path / "out"), "--rule", "RB999")
    assert res.exit_code == 2
    assert "--rule RB999: no such rule (the rules: RB101, RB102, RB201, RB202, RB301" in res.output
    assert not (tmp_path / "out").exists()
    ok = invoke("draft", "--db", str(db), "--outbox", str(tmp_path / "out"), "--rule", "rb102", "--dry-run")
    assert ok.exit_code == 0, ok.output


def test_offline_scan_with_a_missing_cache_dir_is_an_error(tmp_path: Path, isolated_env: Path) -> None:
    missing = tmp_path / "no-such-copy"
    for command in (["scan", "linux-kernel", "--since", "2023-06-01"], ["cron", "linux-kernel"]):
        res = invoke(*command, "--offline", "--cache-dir", str(missing), "--db", str(tmp_path / "db.sqlite"))
        assert res.exit_code == 2, res.output
        assert f"--cache-dir {missing}: no such folder" in res.output
    assert not (tmp_path / "db.sqlite").exists()  # no failed pages recorded anywhere


def test_a_missing_cache_dir_from_the_config_is_named_as_the_config_key(
    tmp_path: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new user with cache-dir in his config, who never typed --cache-dir, was told "--cache-dir X: no such
    folder"; the error names the key and the config file instead."""
    missing = tmp_path / "no-such-copy"
    config = tmp_path / "mine.toml"
    config.write_text(f"cache-dir = {str(missing)!r}\n", encoding="utf-8")
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    res = invoke("scan", "linux-kernel", "--since", "2023-06-01", "--offline", "--db", str(tmp_path / "db.sqlite"))
    assert res.exit_code == 2, res.output
    assert f"cache-dir = '{missing}' (from {config} or $REVIEWBOT_CACHE_DIR): no such folder" in res.output
    assert "--cache-dir" not in res.output


def test_dismiss_takes_the_draft_out_of_the_maildir(db: Path, tmp_path: Path) -> None:
    box_dir = tmp_path / "Mail" / "Drafts"
    res = invoke("draft", "--db", str(db), "--outbox", str(tmp_path / "out"), "--maildir", str(box_dir))
    assert res.exit_code == 0, res.output
    with Store(db) as store:
        rows = [r for r in store.finding_rows() if r.draft]
    box = mailbox.Maildir(str(box_dir), create=False)
    before = len(box)
    assert rows and before > 0
    message_id = rows[0].message_id
    gone = invoke(
        "dismiss", f"<{message_id}>", "--reason", "not worth a reply", "--db", str(db), "--maildir", str(box_dir)
    )
    assert gone.exit_code == 0, gone.output
    assert "removed its draft <" in gone.output and f"from the Maildir {box_dir}" in gone.output
    box = mailbox.Maildir(str(box_dir), create=False)
    assert len(box) == before - 1
    left = [box.get_message(k)["In-Reply-To"] for k in box.keys()]
    assert f"<{message_id}>" not in left


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("with_maintainers", [False, True])
def test_draft_summary_and_lore_line_agree(db: Path, tmp_path: Path, with_maintainers: bool) -> None:
    """lore refuses the connection (a real closed port on 127.0.0.1): the summary's count of incomplete
    drafts and the line about lore say the same, also when a MAINTAINERS file completed every address."""
    args = [
        "draft",
        "--db",
        str(db),
        "--outbox",
        str(tmp_path / "out"),
        "--lore-url",
        f"http://127.0.0.1:{_closed_port()}",
    ]
    if with_maintainers:
        maintainers = tmp_path / "MAINTAINERS"
        # the two people the archive hides in June 2023's one finding (Jens Axboe's io_uring futex patch),
        # their addresses as the real mail gives them (tests/data/mail/lkml-sample.mbox)
        people = ["Jens Axboe <axboe@kernel.dk>", "andres@anarazel.de"]
        maintainers.write_text("".join(f"M:\t{p}\n" for p in people))
        args += ["--maintainers", str(maintainers)]
    res = invoke(*args)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    (counts,) = [line for line in lines if " draft(s) written for the " in line]
    incomplete = int(counts.rsplit(", ", 1)[1].split()[0])
    (unreachable,) = [line for line in lines if line.startswith("lore could not be reached")]
    if with_maintainers:
        assert incomplete == 0 and unreachable.endswith("no draft is marked incomplete")
    else:
        assert incomplete > 0 and f"the {incomplete} draft(s) with incomplete recipients" in unreachable


def _reply(in_reply_to: str, sender: str, message_id: str) -> Message:
    """A reply mail as the archive shows it (the address hidden), parsed as a scan parses one."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "linux-kernel@vger.kernel.org"
    msg["Subject"] = "Re: the patch"
    msg["Date"] = "Mon, 26 Jun 2023 09:00:00 +0000"
    msg["Message-ID"] = f"<{message_id}>"
    msg["In-Reply-To"] = f"<{in_reply_to}>"
    msg.set_content("> +\tsmp_wmb();\n\nWhat does this pair with?\n")
    return dataclasses.replace(parse_rfc822(msg.as_bytes(), message_id), list_name="linux-kernel")


def test_a_sent_draft_is_marked_sent_when_the_reply_shows_up(db: Path, tmp_path: Path) -> None:
    """The loop after sending: the reviewer's own reply (the archive's hidden form of his address,
    In-Reply-To the patch) in the database marks the draft's findings `sent`, no longer open; someone
    else's reply, or one with the reviewer's name but another address, does not."""
    out = str(tmp_path / "out")
    assert invoke("draft", "--db", str(db), "--outbox", out).exit_code == 0
    with Store(db) as store:
        drafted = [r for r in store.finding_rows() if r.draft]
        patch = drafted[0].message_id
        ours = {r.fingerprint for r in drafted if r.message_id == patch}
        for n, sender in enumerate(("Zoë Reviewer <zoe@...mple.org>", "Ada Other <ada@...mple.com>")):
            store.put_message(_reply(patch, sender, f"not-ours-{n}@example.com"), thread_id=patch)
    again = invoke("draft", "--db", str(db), "--outbox", out)
    assert again.exit_code == 0 and "marked sent" not in again.output
    with Store(db) as store:
        store.put_message(_reply(patch, "Zoë Reviewer <zoe@...mple.com>", "sent-1@example.com"), thread_id=patch)
    again = invoke("draft", "--db", str(db), "--outbox", out)
    assert again.exit_code == 0, again.output
    assert f"{len(ours)} drafted finding(s) marked sent" in again.output
    sent = invoke("findings", "--db", str(db), "--state", "sent", "--format", "json")
    assert {row["fingerprint"] for row in json.loads(sent.stdout)} == ours
    still_open = invoke("findings", "--db", str(db), "--state", "open", "--format", "json")
    assert not ours & {row["fingerprint"] for row in json.loads(still_open.stdout)}


def test_cron_report_names_each_drafts_rule_and_point(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `draft:` line of a cron run (and of draft) says what the draft asks about."""
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())  # the copy's days, nothing after them to read
    res = invoke("cron", "linux-kernel", "--offline", "--no-lore", "--db", str(db), "--cache-dir", str(COPY))
    assert res.exit_code == 0, res.output
    drafts = [line for line in res.output.splitlines() if line.startswith("draft: ")]
    # June 2023's one finding: Jens Axboe's io_uring futex patch (new file, so no function is named)
    [futex] = drafts
    assert (
        "-io-uring-add-support-for-futex-wake-and-wait-" in futex
        and "(RB102 smp_store_release() in io_futex_wake_fn())" in futex
    )
    for line in drafts:
        assert re.search(r"\.eml \((RB\d{3} [^;)]+(; )?)+\)", line), line


def test_drafting_says_what_it_does_on_a_terminal(db: Path, tmp_path: Path) -> None:
    """On a terminal (a real pseudo-terminal as stderr) drafting says what it is doing while it works; with
    stderr not a terminal (cron, a pipe) it says nothing of it."""
    import os
    import pty
    import shutil
    import subprocess
    import sys

    exe = shutil.which("reviewbot")
    cmd = [*([exe] if exe else [sys.executable, "-m", "reviewbot"]), "draft", "--db", str(db), "--no-lore"]
    controller, terminal = pty.openpty()
    try:
        proc = subprocess.run(
            [*cmd, "--outbox", str(tmp_path / "a")], stdout=subprocess.PIPE, stderr=terminal, timeout=120
        )
        os.close(terminal)
        said = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                break
            if not chunk:
                break
            said += chunk
    finally:
        os.close(controller)
    assert proc.returncode == 0
    text = said.decode()
    assert "reviewbot draft: [1/" in text and "reading the thread of <" in text
    assert "drafting the reply to <20230609183125.673140-6-axboe@kernel.dk>: RB102 smp_store_release()" in text
    piped = subprocess.run([*cmd, "--again", "x@y", "--outbox", str(tmp_path / "b")], capture_output=True)
    quiet = subprocess.run([*cmd, "--outbox", str(tmp_path / "c")], capture_output=True, timeout=120)
    assert piped.returncode == 2 and quiet.returncode == 0 and b"reading the thread" not in quiet.stderr


def test_a_preview_needs_no_identity_a_real_draft_does(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new user previews a draft before setting an identity: `draft --dry-run` shows it with a stand-in From
    and says what a real run needs; `draft` itself still refuses, naming the config file."""
    nobody = tmp_path / "nobody.toml"
    nobody.write_text("rate = 0\n", encoding="utf-8")
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(nobody))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.gitconfig: no git identity either
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    preview = CliRunner().invoke(main, ["draft", "--db", str(db), "--dry-run", "--unsure"])
    assert preview.exit_code == 0, preview.output
    assert "From: Your Name <you@example.invalid>" in preview.stdout
    assert "Thanks,\nYour Name\n" in preview.stdout and "\nYour\n" not in preview.stdout  # signed as the stand-in
    assert "no identity for drafts yet: the preview's From is a stand-in" in preview.stderr
    assert str(nobody) in preview.stderr
    real = invoke("draft", "--db", str(db), "--outbox", str(tmp_path / "out"))
    assert real.exit_code == 2 and "no identity for drafts" in real.output
    assert str(nobody) in real.output  # names the file to edit, as the preview does (a new user's report)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.eml"))
