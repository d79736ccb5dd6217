"""Issue 13: ordinary list traffic must never stop a drafting run.

Crafted mails (the barrier and perf-claim threads of tests/data/threads with
their Message-IDs changed) in a real SQLite file, drafted by the real runner
and by the ``draft`` command. A message whose Message-ID no reply can carry
is recorded as skipped with the reason; every other patch is still drafted;
a failure on one message (a damaged row) leaves the others drafted.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.parse.mail import parse_rfc822
from reviewbot.respond.render import MAX_MSGID_LEN, msgid_problem
from reviewbot.respond.runner import SKIP_UNUSABLE_ID, draft_pending
from reviewbot.store import Store
from helpers import (
    draft_fixed,
    FIXED_NOW,
    IDENTITY,
    LIST_ADDRESS,
    THREADS,
    cli_env,
    fixed_msgid_factory,
    load_thread,
    read_mbox_messages,
)


@pytest.fixture(scope="module")
def rules():
    from reviewbot.registry import load_rules

    return load_rules(entry_points=False)


def _barrier_with_id(mid: str):
    """The barrier thread with the patch's Message-ID replaced by ``mid`` (the reply points at it)."""
    msgs = read_mbox_messages(THREADS / "barrier.mbox")
    return [dataclasses.replace(msgs[0], message_id=mid)] + [
        dataclasses.replace(m, in_reply_to=mid, references=(mid,)) for m in msgs[1:]
    ]


BAD_IDS = {
    "non-ascii": "20250312090000.2222-1-ad\u00e4@example.org",
    "raw-8bit-byte": "20250312090000.2222-1-ad\ufffd@example.org",  # a page's undecodable byte
    "escape": "20250312090000.2222-1-\x1b[31mada@example.org",
    "space": "x1 a@evil.example",
    "too-long": "a" * 5000 + "@example.org",
}


@pytest.mark.parametrize("name", sorted(BAD_IDS))
def test_unusable_message_id_is_skipped_and_later_patches_drafted(tmp_path: Path, rules, name: str) -> None:
    bad = BAD_IDS[name]
    with Store(tmp_path / "db.sqlite") as store:
        load_thread(store, _barrier_with_id(bad), rules)  # arrives first
        load_thread(store, read_mbox_messages(THREADS / "perf-claim.mbox"), rules)
        summary = draft_pending(
            store,
            unsure=True,
            rules=rules,
            identity=IDENTITY,
            list_address=LIST_ADDRESS,
            outbox=tmp_path / "outbox",
            clock=lambda: FIXED_NOW,
            make_msgid=fixed_msgid_factory(),
        )
        assert summary.drafts == 1 and summary.written[0].patch_message_id.startswith("20250313")
        assert summary.unusable == 1 and summary.failed == 0
        assert summary.drafted + summary.unusable == summary.findings
        skips = [store.skip_for(f.fingerprint) for f in store.findings_for(bad)]
        assert [s.state if s else None for s in skips] == [SKIP_UNUSABLE_ID]
        assert skips[0] is not None and skips[0].reason.startswith("no reply possible: Message-ID ")
        again = draft_fixed(store, rules, tmp_path / "outbox")
        assert again.findings == 0 and not again.errors  # recorded once, not retried forever
    for eml in (tmp_path / "outbox").glob("*.eml"):
        head = eml.read_bytes().split(b"\n\n", 1)[0]
        assert head.isascii() and max(len(line) for line in head.split(b"\n")) <= 998


def test_draft_command_exit_0_with_unusable_id(tmp_path: Path, monkeypatch, rules) -> None:
    cli_env(tmp_path, monkeypatch)
    db = tmp_path / "reviewbot.db"
    with Store(db) as store:
        load_thread(store, _barrier_with_id(BAD_IDS["raw-8bit-byte"]), rules)
        load_thread(store, read_mbox_messages(THREADS / "perf-claim.mbox"), rules)
    result = CliRunner().invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "outbox")])
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "outbox").glob("*.eml"))) == 1
    assert "1 skipped as the patch's Message-ID cannot be used in a reply" in result.output
    assert "U+FFFD" in result.output


def test_unusable_reference_is_left_out_of_references(tmp_path: Path, rules) -> None:
    msgs = read_mbox_messages(THREADS / "perf-claim.mbox")
    msgs[0] = dataclasses.replace(msgs[0], references=("caf\u00e9@example.org", "ok@example.org"))
    with Store(tmp_path / "db.sqlite") as store:
        load_thread(store, msgs, rules)
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    assert summary.drafts == 1
    assert summary.written[0].draft.references == ("ok@example.org", msgs[0].message_id)


def test_a_damaged_message_row_fails_alone(tmp_path: Path, rules) -> None:
    """A failure other than the Message-ID (here: a damaged stored row) is isolated like a rule crash:
    reported, counted as failed, left for the next run; the later patch is drafted."""
    db = tmp_path / "db.sqlite"
    with Store(db) as store:
        load_thread(store, read_mbox_messages(THREADS / "barrier.mbox"), rules)
        load_thread(store, read_mbox_messages(THREADS / "perf-claim.mbox"), rules)
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE messages SET references_json = 'not json' WHERE message_id = ?",
            ("20250312090000.2222-1-ada@example.org",),
        )
    with Store(db) as store:
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    assert summary.drafts == 1 and summary.failed == 1
    assert summary.drafted + summary.failed == summary.findings
    assert summary.errors[0].startswith("<20250312090000.2222-1-ada@example.org>: JSONDecodeError")


def test_message_ids_with_a_space_get_distinct_keys(tmp_path: Path) -> None:
    def mail(mid: str, subject: str) -> bytes:
        return (
            f"From: A <a@example.org>\nMessage-ID: {mid}\nSubject: {subject}\n"
            f"Date: Wed, 12 Mar 2025 10:00:00 +0100\n\nbody\n"
        ).encode()

    one = parse_rfc822(mail("<x1 a@evil.example>", "one"), "one")
    two = parse_rfc822(mail("<x1 b@other.example>", "two"), "two")
    assert one.message_id != two.message_id
    with Store(tmp_path / "db.sqlite") as store:
        store.put_message(one)
        store.put_message(two)
        assert store.count("messages") == 2
        stored = store.message_row("x1 b@other.example")
        assert stored is not None and stored.message.subject.raw == "two"


def test_msgid_problem_limits() -> None:
    assert msgid_problem("a@b") is None
    assert msgid_problem("a" * (MAX_MSGID_LEN - 2) + "@b") is None
    assert "does not fit" in msgid_problem("a" * MAX_MSGID_LEN + "@b")
    assert "control character" in msgid_problem("a\x07@b")
    assert "angle bracket" in msgid_problem("a>@b")


def test_control_characters_and_long_names_never_reach_a_header(tmp_path: Path, rules) -> None:
    """A page's subject with ESC/BEL and a 5,000-character display name: the draft's header lines
    hold no control character and none is longer than RFC 5322's 998 octets."""
    from reviewbot.models import Address

    msgs = read_mbox_messages(THREADS / "barrier.mbox")
    subject = dataclasses.replace(
        msgs[0].subject, raw="[PATCH] foo: \x1b[2Jring\x07 tail", title="foo: \x1b[2Jring\x07 tail"
    )
    msgs[0] = dataclasses.replace(msgs[0], subject=subject, from_addr=Address("A" * 5000, "ada@example.org"))
    with Store(tmp_path / "db.sqlite") as store:
        load_thread(store, msgs, rules)
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    [written] = summary.written
    head = written.path.read_bytes().split(b"\n\n", 1)[0]
    assert not any(b < 32 and b not in (9, 10) or b == 127 for b in head)
    assert max(len(line) for line in head.split(b"\n")) <= 998
    assert b"Subject: Re: [PATCH] foo: [2Jring tail" in head


def test_show_prints_no_control_characters(tmp_path: Path, monkeypatch, rules) -> None:
    msgs = read_mbox_messages(THREADS / "barrier.mbox")
    subject = dataclasses.replace(msgs[0].subject, raw="[PATCH] \x1b]0;owned\x07foo", title="\x1b]0;owned\x07foo")
    msgs[0] = dataclasses.replace(msgs[0], subject=subject, body="line\x1b[2J\n\tcode\n")
    cli_env(tmp_path, monkeypatch)
    db = tmp_path / "reviewbot.db"
    with Store(db) as store:
        load_thread(store, msgs, rules)
    result = CliRunner().invoke(main, ["show", msgs[0].message_id, "--db", str(db), "--body"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "Subject: [PATCH] \\x1b]0;owned\\x07foo" in result.output and "\tcode" in result.output
