"""The SQLite store on real files: schema version, idempotent upserts, transactions, queries."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from reviewbot.errors import StoreError
from reviewbot.models import (
    Address,
    AttachmentRef,
    DiffLine,
    FileDiff,
    Finding,
    FindingState,
    Hunk,
    LineKind,
    Message,
    Patch,
    RuleFailure,
    Severity,
    Subject,
    Trailer,
)
from reviewbot.parse.subject import parse_subject
from reviewbot.store import SCHEMA_VERSION, ChangedFile, Store, hunk_from_json, hunk_to_json

BASE = "http://127.0.0.1:9/linux-kernel"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def _message(
    n: int,
    *,
    day: str = "2023/06/09",
    subject: str = "[PATCH] mm: speed up x",
    prev: str | None = None,
    mid: str | None = None,
) -> Message:
    return Message(
        message_id=mid or f"2023060{n}.1234-{n}-ada@example.org",
        subject=Subject(
            raw=subject,
            title=subject.split("] ", 1)[-1],
            tags=("PATCH",) if "[PATCH" in subject else (),
            is_reply=subject.startswith("Re:"),
        ),
        from_addr=Address("Ada Lovelace", "ada@...mple.org", partial=True),
        date=datetime(2023, 6, 9, 10, n, tzinfo=timezone.utc),
        date_raw=f"Fri, 9 Jun 2023 12:{n:02d}:00 +0200",
        to=(Address("", "linux-kernel@...r.kernel.org", True),),
        cc=(Address("Bob", "bob@...mple.com", True), Address("Carol", "carol@...mple.net", True)),
        body=f"Body {n}\n\ndiff --git a/x.c b/x.c\n",
        source=f"{BASE}/{day}/{n}",
        list_name="linux-kernel",
        archive_url=f"{BASE}/{day}/{n}",
        obfuscated=True,
        attachments=(AttachmentRef(1, "0001-x.patch", "text/x-patch", 23, f"{BASE}/{day}/{n}/1", "diff"),),
        thread_prev_url=prev,
    )


def _hunk() -> Hunk:
    return Hunk(
        header="@@ -1,2 +1,3 @@ struct foo {",
        old_start=1,
        old_len=2,
        new_start=1,
        new_len=3,
        section="struct foo {",
        lines=(
            DiffLine(LineKind.CONTEXT, "\tint a;", 1, 1, 10),
            DiffLine(LineKind.ADDED, "\tint b;", None, 2, 11),
            DiffLine(LineKind.REMOVED, "\tint c;", 2, None, 12, altered=True),
        ),
    )


def _finding(mid: str, fp: str, state: FindingState = FindingState.OPEN) -> Finding:
    return Finding(
        rule_id="RB101",
        rule_name="struct-reorder-needs-comment",
        severity=Severity.WARNING,
        message="struct foo reordered without a layout comment",
        message_id=mid,
        path="include/foo.h",
        line=2,
        lines=(2,),
        input_line=11,
        hunk=_hunk(),
        symbol="foo",
        details={"moved": ["b"]},
        state=state,
        fingerprint=fp,
    )


def test_fresh_store_has_schema_version_and_wal(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "rb.db"
    with Store(path) as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        row = store.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        assert row[0] == str(SCHEMA_VERSION)
        assert {"messages", "patches", "findings", "rule_failures", "pages", "cursor", "message_urls"} <= set(
            store.db.table_names()
        )


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rb.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError) as info:
        Store(path)
    assert str(path) in str(info.value)
    assert f"schema version {SCHEMA_VERSION + 1}" in str(info.value)


def test_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError) as info:
        Store(path)
    assert str(path) in str(info.value)


def test_message_round_trip_and_idempotent_upsert(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        msg = _message(1)
        with store.transaction():
            key = store.put_message(msg)
        assert key == msg.message_id
        before = store.dump_rows()
        changes = store.conn.total_changes
        with store.transaction():
            store.put_message(msg)
        assert store.conn.total_changes == changes  # same values: no row touched
        assert store.dump_rows() == before
        back = store.load_message(key)
        assert back is not None
        assert back.message_id == msg.message_id
        assert back.date == msg.date
        assert back.from_addr == msg.from_addr
        assert back.cc == msg.cc and back.to == msg.to
        assert back.body == msg.body
        assert back.attachments == msg.attachments
        assert back.thread_prev_url is None
        row = store.message_row(key)
        assert row is not None and row.message_id == key
        assert row.day == "2023-06-09" and row.seq == 1 and row.thread_id is None and row.is_patch
        assert row.message.date is not None and row.message.date.isoformat() == "2023-06-09T10:01:00+00:00"
        assert row.message.subject == parse_subject(msg.subject.raw)  # the subject parsed again
        assert store.known_urls("linux-kernel") == {msg.archive_url: key}
        assert store.has_url(msg.archive_url)
        assert not store.has_url(msg.archive_url + "0")


def test_duplicate_message_id_keeps_first_url(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        first = _message(1, mid="same@example.org")
        second = _message(7, mid="same@example.org", day="2023/06/10")
        store.put_message(first)
        store.put_message(second)
        store.put_message(first)
        store.put_message(second)
        stored = store.message_row("same@example.org")
        assert stored is not None and stored.message.archive_url == first.archive_url
        assert store.known_urls() == {first.archive_url: "same@example.org", second.archive_url: "same@example.org"}
        assert store.count("messages") == 1


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        with pytest.raises(RuntimeError):
            with store.transaction():
                store.put_message(_message(1))
                with store.transaction():  # nested joins the outer one
                    store.put_message(_message(2))
                raise RuntimeError("boom")
        assert store.count("messages") == 0
        assert store.count("message_urls") == 0


def test_thread_ids_and_members(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        a, b = _message(1), _message(2, subject="Re: [PATCH] mm: speed up x", prev=f"{BASE}/2023/06/09/1")
        store.put_message(b)
        store.put_message(a)
        assert store.set_thread_ids({a.message_id: a.message_id, b.message_id: a.message_id}) == 2
        assert store.set_thread_ids({a.message_id: a.message_id, b.message_id: a.message_id}) == 0
        members = store.thread_members(a.message_id)
        assert [m.message_id for m in members] == [a.message_id, b.message_id]
        assert [m.message.subject.is_reply for m in members] == [False, True]
        assert store.thread_member_ids(a.message_id) == [(a.message_id, True), (b.message_id, False)]
        assert store.thread_member_ids("no-such-thread") == []
        # put_message without a thread id keeps the computed one
        store.put_message(b)
        stored = store.message_row(b.message_id)
        assert stored is not None and stored.thread_id == a.message_id
        links = sorted(store.thread_links("linux-kernel"))
        assert links[1] == (b.archive_url, b.message_id, a.archive_url, a.message_id)
        rows = store.messages("linux-kernel", date(2023, 6, 9), date(2023, 6, 9), patches_only=True)
        assert [r.message_id for r in rows] == [a.message_id]
        assert store.messages("linux-kernel", date(2023, 6, 10)) == []


def test_patch_upsert(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        msg = _message(1, subject="[PATCH v2 1/3] mm: speed up x")
        msg = Message(
            **{
                **msg.__dict__,
                "subject": Subject(
                    raw=msg.subject.raw, title="mm: speed up x", tags=("PATCH",), version=2, index=1, total=3
                ),
            }
        )
        patch = Patch(
            message=msg,
            commit_message="Faster.\n\nSigned-off-by: Ada <ada@...mple.org>\n",
            trailers=(Trailer("Signed-off-by", "Ada <ada@...mple.org>", 3),),
            files=(FileDiff("mm/x.c", "mm/x.c", "mm/x.c", (_hunk(),)),),
        )
        store.put_message(msg)
        store.put_patch(patch)
        store.set_series_key(msg.message_id, "thread|v2|3")
        store.put_patch(patch)  # a re-run keeps the series key
        row = store.patch_row(msg.message_id)
        assert row is not None
        assert (row.version, row.index, row.total, row.series_key) == (2, 1, 3, "thread|v2|3")
        assert (row.title, row.tags, row.commit_message) == ("mm: speed up x", ("PATCH",), patch.commit_message)
        assert row.files == (ChangedFile(path="mm/x.c", status="modified", added=1, removed=1),)
        assert row.trailers == (("Signed-off-by", "Ada <ada@...mple.org>"),)
        assert store.series_rows("thread|v2|3") == [row]
        assert store.patch_row("unknown@example.org") is None


def test_findings_replace_keep_first_seen_and_dismissed(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        msg = _message(1)
        store.put_message(msg)
        mid = msg.message_id
        store.replace_findings(
            mid, [_finding(mid, "fp1"), _finding(mid, "fp2")], [RuleFailure("RB999", mid, "ValueError: x")], now=NOW
        )
        assert store.count("findings") == 2 and store.count("rule_failures") == 1
        snap = store.dump_rows(include_volatile=True)
        later = datetime(2026, 12, 5, tzinfo=timezone.utc)
        store.replace_findings(
            mid, [_finding(mid, "fp1"), _finding(mid, "fp2")], [RuleFailure("RB999", mid, "ValueError: x")], now=later
        )
        assert store.dump_rows(include_volatile=True) == snap  # first_seen kept
        store.set_finding_state("fp2", FindingState.DISMISSED)
        store.replace_findings(mid, [_finding(mid, "fp1", FindingState.RAISED)], [], now=later)
        got = {f.fingerprint: f for f in store.findings_for(mid)}
        assert set(got) == {"fp1", "fp2"}
        assert got["fp1"].state is FindingState.RAISED
        assert got["fp2"].state is FindingState.DISMISSED  # a person's decision stays
        assert got["fp1"].hunk == _hunk()
        assert got["fp1"].details == {"moved": ["b"]}
        assert store.count("rule_failures") == 0
        assert store.finding_counts("linux-kernel") == {"RB101": 2}
        assert store.patches_with_open_findings() == []
        store.replace_findings(mid, [_finding(mid, "fp3")], now=later)
        assert store.patches_with_open_findings("linux-kernel") == [mid]
        assert store.findings_for(mid)[0].fingerprint in {"fp2", "fp3"}


def test_drafts_skips_and_one_finding_come_back_as_values(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        msg = _message(1)
        store.put_message(msg)
        mid = msg.message_id
        store.replace_findings(mid, [_finding(mid, "fp1"), _finding(mid, "fp2"), _finding(mid, "fp3")], now=NOW)
        assert store.finding("fp1") == _finding(mid, "fp1")
        assert store.finding("unknown") is None
        for n, fps in ((2, ["fp1"]), (1, ["fp2"])):
            store.record_draft(
                message_id=f"draft-{n}@example.org",
                in_reply_to=mid,
                fingerprints=fps,
                list_name="linux-kernel",
                subject="Re: [PATCH] mm: speed up x",
                path=f"/outbox/{n}.eml",
                maildir_key=None,
                recipients_complete=n == 1,
                created=NOW,
            )
        drafts = store.all_drafts()
        assert [(d.message_id, d.fingerprints, d.recipients_complete) for d in drafts] == [
            ("draft-1@example.org", ("fp2",), True),
            ("draft-2@example.org", ("fp1",), False),
        ]
        assert store.skip_counts() == {}
        assert store.dismiss("fp3", "not a hot struct")
        assert not store.dismiss("unknown", "no such finding")
        assert store.skip_counts() == {"dismissed": 1}
        skip = store.skip_for("fp3")
        assert skip is not None and skip.reason == "dismissed: not a hot struct"
        finding = store.finding("fp3")
        assert finding is not None and finding.state is FindingState.DISMISSED


def test_hunk_json_round_trip() -> None:
    assert hunk_from_json(hunk_to_json(_hunk())) == _hunk()
    assert hunk_from_json(hunk_to_json(None)) is None


def test_fetch_log_and_cursor(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        url = f"{BASE}/2023/06/09/3"
        store.page_failed(url, kind="message", error="HTTP 500", attempts=5, list_name="linux-kernel", now=NOW)
        store.page_failed(url, kind="message", error="timed out", attempts=5, list_name="linux-kernel", now=NOW)
        [row] = store.failed_pages("linux-kernel")
        assert (row.url, row.attempts, row.last_error, row.kind, row.list_name) == (
            url,
            10,
            "timed out",
            "message",
            "linux-kernel",
        )
        assert store.failed_pages("netdev") == []
        assert store.page_ok(url) is True
        assert store.page_ok(url) is False
        assert store.failed_pages() == []
        assert store.get_cursor("linux-kernel") is None
        store.set_cursor("linux-kernel", date(2023, 6, 30))
        store.set_cursor("linux-kernel", date(2023, 6, 1))  # never backwards
        assert store.get_cursor("linux-kernel") == date(2023, 6, 30)


def test_sql_injection_in_values_is_inert(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        evil = _message(1, mid="x'); DROP TABLE messages; --@example.org")
        store.put_message(evil)
        stored = store.message_row(evil.message_id)
        assert stored is not None and stored.message_id == evil.message_id
        assert store.count("messages") == 1


def test_reopen_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "rb.db"
    with Store(path) as store:
        store.put_message(_message(1))
        before = store.dump_rows()
    with Store(path) as store:
        assert store.dump_rows() == before


def test_patch_ids_and_message_rows_in_arrival_order(tmp_path: Path) -> None:
    with Store(tmp_path / "rb.db") as store:
        msgs = [_message(3), _message(1), _message(2, subject="Re: [PATCH] mm: speed up x")]
        for m in msgs:
            store.put_message(m)
        store.set_thread_ids({m.message_id: "t1" for m in msgs})
        ids = store.patch_ids("linux-kernel", date(2023, 6, 9), date(2023, 6, 9))
        assert ids == [(msgs[1].message_id, "t1"), (msgs[0].message_id, "t1")]
        assert store.patch_ids("linux-kernel", date(2023, 6, 10)) == []
        rows = store.message_rows([msgs[0].message_id, "unknown@x", msgs[2].message_id, msgs[1].message_id])
        assert [r.seq for r in rows] == [1, 2, 3]


def test_database_with_sample_rows_loses_them(tmp_path: Path) -> None:
    """Messages an earlier release stored from the made-up sample pages (``sample`` = 1) are removed on
    open with what hangs on them; real rows stay; the column goes (the demo has its own database now)."""
    path = tmp_path / "rb.db"
    with Store(path) as store:
        real, made_up = _message(1), _message(2, mid="sample-2@example.net")
        for m in (real, made_up):
            store.put_message(m)
            store.replace_findings(m.message_id, [_finding(m.message_id, "fp-" + m.message_id)], now=NOW)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE messages ADD COLUMN sample INTEGER DEFAULT 0")
    conn.execute("UPDATE messages SET sample = 1 WHERE message_id = 'sample-2@example.net'")
    conn.commit()
    conn.close()
    with Store(path) as store:
        assert [r.message_id for r in store.messages()] == [real.message_id]
        assert "sample" not in store.db["messages"].columns_dict
        assert store.known_urls() == {real.archive_url: real.message_id}
        assert [f.fingerprint for f in store.findings_for(real.message_id)] == ["fp-" + real.message_id]
        assert store.count("findings") == 1
        assert list(store.undrafted_findings()) == [real.message_id]
