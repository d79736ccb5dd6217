"""Golden reply drafts, byte for byte, for small threads written for these tests (tests/data/threads).

Each thread goes the real way: mbox -> parse_rfc822 -> Store -> rules (engine,
with the thread as context) -> draft_pending -> outbox ``.eml``. The clock and
the Message-ID factory are fixed. ``REVIEWBOT_UPDATE_GOLDEN=1`` rewrites the
golden files (review the diff before committing).
"""

from __future__ import annotations

import mailbox
import os
from pathlib import Path

import pytest

from reviewbot.models import Address, FindingState
from reviewbot.registry import load_rules
from reviewbot.respond.runner import draft_pending
from reviewbot.store import Store
from helpers import (
    FIXED_NOW,
    IDENTITY,
    LIST_ADDRESS,
    THREADS,
    cli_env,
    fixed_msgid_factory,
    load_thread,
    read_mbox_messages,
)

TESTS = Path(__file__).resolve().parent
GOLDEN = TESTS / "golden" / "drafts"


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def run_thread(tmp_path: Path, name: str, rules, maildir: Path | None = None):
    store = Store(tmp_path / "reviewbot.db")
    messages = read_mbox_messages(THREADS / f"{name}.mbox")
    found = load_thread(store, messages, rules)
    summary = draft_pending(
        store,
        unsure=True,
        rules=rules,
        identity=IDENTITY,
        list_address=LIST_ADDRESS,
        outbox=tmp_path / "outbox",
        maildir=maildir,
        clock=lambda: FIXED_NOW,
        make_msgid=fixed_msgid_factory(),
    )
    return store, found, summary


def check_golden(name: str, data: bytes) -> None:
    golden = GOLDEN / f"{name}.eml"
    if os.environ.get("REVIEWBOT_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(data)
    assert golden.is_file(), f"{golden} missing; run with REVIEWBOT_UPDATE_GOLDEN=1"
    assert data == golden.read_bytes()


@pytest.mark.parametrize("name", ["struct-reorder", "barrier", "perf-claim", "perf-claim-subject"])
def test_golden_draft(tmp_path: Path, rules, name: str) -> None:
    store, found, summary = run_thread(tmp_path, name, rules)
    assert summary.drafts == 1, summary
    assert summary.raised == summary.answered == 0
    written = summary.written[0]
    assert written.path.parent == tmp_path / "outbox"
    assert written.path.name.startswith("2025-03-20-linux-kernel-")
    check_golden(name, written.path.read_bytes())
    # one row per draft, every open finding covered once
    fps = {f.fingerprint for fs in found.values() for f in fs if f.state is FindingState.OPEN}
    assert store.drafted_fingerprints() == fps
    store.close()


def test_golden_struct_reorder_names_members(tmp_path: Path, rules) -> None:
    _, found, summary = run_thread(tmp_path, "struct-reorder", rules)
    body = summary.written[0].draft.body
    assert "struct foo_queue" in body
    assert "> -\tconst struct foo_ops\t*ops;" in body
    assert "> +\tconst struct foo_ops\t*ops;" in body
    assert "> +++ b/drivers/foo/queue.h" in body
    assert summary.written[0].draft.to == (Address("Ada Example", "ada@example.org"),)
    assert [a.email for a in summary.written[0].draft.cc] == [LIST_ADDRESS, "bob@example.com"]


def test_golden_barrier_quotes_the_barrier_line(tmp_path: Path, rules) -> None:
    _, _, summary = run_thread(tmp_path, "barrier", rules)
    draft = summary.written[0].draft
    assert "> +\tsmp_wmb();" in draft.body
    assert "smp_wmb()" in draft.body.split("> +\tsmp_wmb();", 1)[1]
    # Bob's reply did not raise the barrier point: still drafted; Bob's address is not ours to drop
    assert [a.email for a in draft.cc] == [LIST_ADDRESS, "juergen@example.de", "bob@example.com"]
    assert draft.cc[1].name == "Jürgen Beispiel"


def test_subject_only_claim_quotes_the_subject_line(tmp_path: Path, rules) -> None:
    """A speed claim only in the Subject: the draft quotes it as the header line it is, not as a
    line of the body (which it is not)."""
    _, found, summary = run_thread(tmp_path, "perf-claim-subject", rules)
    assert [f.rule_id for fs in found.values() for f in fs] == ["RB201"]
    body = summary.written[0].draft.body
    quoted = [line for line in body.splitlines() if line.startswith(">")]
    assert quoted == ["> Subject: [PATCH v3 3/3] block: Improve performance of foo_tag_put()"]


def test_author_posted_numbers_no_draft(tmp_path: Path, rules) -> None:
    store, found, summary = run_thread(tmp_path, "perf-claim-answered", rules)
    patch_id = "20250314090000.4444-1-ada@example.org"
    perf = [f for f in found[patch_id] if f.rule_id == "RB201"]
    assert len(perf) == 1
    assert summary.drafts == 0
    assert summary.answered == 1 and summary.raised == 0
    skip = store.skip_for(perf[0].fingerprint)
    assert skip is not None and skip.state == "answered"
    assert not (tmp_path / "outbox").exists() or not list((tmp_path / "outbox").iterdir())
    store.close()


def test_point_already_raised_no_draft(tmp_path: Path, rules) -> None:
    store, found, summary = run_thread(tmp_path, "barrier-raised", rules)
    patch_id = "20250315090000.5555-1-ada@example.org"
    barrier = [f for f in found[patch_id] if f.rule_id == "RB102"]
    assert len(barrier) == 1
    assert summary.drafts == 0 and summary.raised == 1
    skip = store.skip_for(barrier[0].fingerprint)
    assert skip is not None and skip.state == "raised" and "87bob5678.fsf@example.com" in skip.reason
    store.close()


def test_second_run_drafts_nothing(tmp_path: Path, rules) -> None:
    store, _, summary = run_thread(tmp_path, "perf-claim", rules)
    assert summary.drafts == 1
    again = draft_pending(
        store,
        unsure=True,
        rules=rules,
        identity=IDENTITY,
        list_address=LIST_ADDRESS,
        outbox=tmp_path / "outbox",
        clock=lambda: FIXED_NOW,
        make_msgid=fixed_msgid_factory(),
    )
    assert again.drafts == 0 and again.findings == 0
    assert len(list((tmp_path / "outbox").iterdir())) == 1
    store.close()


# --------------------------------------------------------------------- commands and crash repair


def test_draft_and_show_commands(tmp_path: Path, monkeypatch, rules) -> None:
    from click.testing import CliRunner

    from reviewbot.cli import main

    cli_env(tmp_path, monkeypatch)
    db = tmp_path / "reviewbot.db"
    with Store(db) as store:
        load_thread(store, read_mbox_messages(THREADS / "barrier.mbox"), rules)
        load_thread(store, read_mbox_messages(THREADS / "perf-claim-answered.mbox"), rules)
    runner = CliRunner()
    done = runner.invoke(
        main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "out"), "--maildir", str(tmp_path / "Drafts")]
    )
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert len([line for line in lines if line.startswith("draft: ")]) == 1
    assert lines[-2:] == [
        "2 finding(s): 1 drafted now, 0 skipped as already raised in the thread, "
        "1 skipped as already answered by the author, 0 skipped as the patch is already applied, "
        "0 drafted or skipped by earlier runs",
        "1 draft(s) written for the 1 finding(s) drafted now, 0 with incomplete recipients",
    ]
    eml = next((tmp_path / "out").glob("*.eml"))
    # byte-equal to the golden draft except for the Message-ID (the stable default, not the test factory)
    want = (GOLDEN / "barrier.eml").read_bytes()
    got = eml.read_bytes()
    assert got.split(b"\nMessage-ID: ")[0] == want.split(b"\nMessage-ID: ")[0]
    assert got.split(b"\nIn-Reply-To: ")[1] == want.split(b"\nIn-Reply-To: ")[1]
    again = runner.invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "out")])
    assert again.output.splitlines()[-2:] == [
        "2 finding(s): 0 drafted now, 0 skipped as already raised in the thread, "
        "0 skipped as already answered by the author, 0 skipped as the patch is already applied, "
        "2 drafted or skipped by earlier runs",
        "0 draft(s) written for the 0 finding(s) drafted now, 0 with incomplete recipients",
    ]

    shown = runner.invoke(main, ["show", "<20250312090000.2222-1-ada@example.org>", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "Subject: [PATCH] foo: publish the ring tail after the slot is written" in shown.output
    assert "RB102 WARNING drivers/foo/ring.c:44:" in shown.output
    assert "  state: drafted" in shown.output  # as `findings` says and f"  draft: {eml}" in shown.output
    answered = runner.invoke(main, ["show", "20250314090000.4444-1-ada@example.org", "--db", str(db)])
    assert "RB201" in answered.output and "answered" in answered.output and "draft:" not in answered.output
    missing = runner.invoke(main, ["show", "<nope@example.org>", "--db", str(db)])
    assert missing.exit_code == 2 and "no such message" in missing.output


def test_crash_between_outbox_and_store_is_repaired(tmp_path: Path, rules, monkeypatch) -> None:
    """A run dies after writing the file (and the Maildir copy) but before recording the draft: the
    next run writes the very same file again, no second Maildir message, one drafts row."""
    store = Store(tmp_path / "reviewbot.db")
    load_thread(store, read_mbox_messages(THREADS / "struct-reorder.mbox"), rules)

    class Killed(BaseException):
        pass

    def die(**_kw):
        raise Killed()

    monkeypatch.setattr(store, "record_draft", die)
    kwargs = dict(
        rules=rules,
        identity=IDENTITY,
        list_address=LIST_ADDRESS,
        outbox=tmp_path / "outbox",
        maildir=tmp_path / "Drafts",
        clock=lambda: FIXED_NOW,
    )
    with pytest.raises(Killed):
        draft_pending(store, unsure=True, **kwargs)
    first = {p.name: p.read_bytes() for p in (tmp_path / "outbox").iterdir()}
    monkeypatch.undo()
    summary = draft_pending(store, unsure=True, **kwargs)
    assert summary.drafts == 1
    assert {p.name: p.read_bytes() for p in (tmp_path / "outbox").iterdir()} == first
    assert len(mailbox.Maildir(str(tmp_path / "Drafts"), create=False)) == 1
    assert store.count("drafts") == 1
    store.close()


def test_obfuscated_author_completed_from_another_source(tmp_path: Path, rules) -> None:
    """The archive shows ``ada@...mple.org``; a mail file stored earlier has ``ada@example.org``."""
    from reviewbot.fetch.openwall import parse_message_page
    from reviewbot.parse.mail import parse_message
    from conftest import CASES

    store = Store(tmp_path / "reviewbot.db")
    full = read_mbox_messages(THREADS / "struct-reorder.mbox")  # Ada and Bob with full addresses
    load_thread(store, full, rules)
    page = (CASES / "C17.html").read_bytes()
    msg = parse_message(
        parse_message_page(page, "https://lists.openwall.net/linux-kernel/2025/03/19/5", "linux-kernel")
    )
    known = store.known_addresses()
    assert Address("Ada Example", "ada@example.org") in known
    assert not any("@..." in a.email for a in known)
    from reviewbot.respond.draft import resolve_recipients

    rcpt = resolve_recipients(msg, identity=IDENTITY, list_address=LIST_ADDRESS, known=known)
    # Ada and the list complete; Bob Sample (bob@...nel.example) and Carol do not: Ada in To, the list in
    # Cc, the two others left out and named for the note on top of the draft
    assert rcpt.complete is False and rcpt.to == (Address("Ada Example", "ada@example.org"),)
    assert rcpt.cc == (Address("", LIST_ADDRESS),)
    assert set(rcpt.unresolved) == {"bob@...nel.example", "carol@...mple.net"}
    assert {a.name for a in rcpt.missing} == {"Bob Sample", "Carol Test"}
    known += [Address("Bob Sample", "bob@kernel.example"), Address("Carol Test", "carol@example.net")]
    rcpt = resolve_recipients(msg, identity=IDENTITY, list_address=LIST_ADDRESS, known=known)
    assert rcpt.complete and rcpt.to == (Address("Ada Example", "ada@example.org"),)
    store.close()


def test_addresses_from_mail_files_complete_the_archive_message(tmp_path: Path) -> None:
    """``--addresses-from``: full addresses of local mail files (here an mbox and a Maildir) complete
    every obfuscated recipient of the C17 archive page."""
    from reviewbot.fetch.openwall import parse_message_page
    from reviewbot.parse.mail import parse_message
    from reviewbot.respond.draft import resolve_recipients
    from reviewbot.respond.runner import addresses_from_mail
    from conftest import CASES

    maildir = mailbox.Maildir(str(tmp_path / "mail"), create=True)
    maildir.add(
        b"From: Bob Sample <bob@kernel.example>\nTo: Carol Test <carol@example.net>\n"
        b"Cc: =?iso-8859-1?q?J=FCrgen?= <juergen@example.de>\nSubject: hi\n\nhi\n"
    )
    known = addresses_from_mail([THREADS / "struct-reorder.mbox", tmp_path / "mail"])
    assert Address("Ada Example", "ada@example.org") in known
    assert Address("Jürgen", "juergen@example.de") in known
    page = (CASES / "C17.html").read_bytes()
    msg = parse_message(
        parse_message_page(page, "https://lists.openwall.net/linux-kernel/2025/03/19/5", "linux-kernel")
    )
    rcpt = resolve_recipients(msg, identity=IDENTITY, list_address=LIST_ADDRESS, known=known)
    assert rcpt.complete
    assert rcpt.to == (Address("Ada Example", "ada@example.org"),)
    assert [a.email for a in rcpt.cc] == [LIST_ADDRESS, "bob@kernel.example", "carol@example.net"]
