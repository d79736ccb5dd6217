"""Golden reply drafts, byte for byte, for small threads written for these tests (tests/data/threads).

Each thread goes the real way: mbox -> parse_rfc822 -> Store -> rules (engine,
with the thread as context) -> draft_pending -> outbox ``.eml``. The clock and
the Message-ID factory are fixed. ``REVIEWBOT_UPDATE_GOLDEN=1`` rewrites the
golden files (review the diff before committing).
"""

from __future__ import annotations

import dataclasses
import mailbox
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from reviewbot.engine import check_patch
from reviewbot.models import Address, FindingState
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.runner import draft_pending
from reviewbot.rule import RuleContext
from reviewbot.store import Store

TESTS = Path(__file__).resolve().parent
THREADS = TESTS / "data" / "threads"
GOLDEN = TESTS / "golden" / "drafts"
FIXED_NOW = datetime(2025, 3, 20, 8, 30, tzinfo=timezone.utc)
IDENTITY = Address("Zoë Reviewer", "zoe@example.com")
LIST_ADDRESS = "linux-kernel@vger.kernel.org"


def fixed_msgid_factory():
    """Message-IDs ``draft-N@domain``, N counting from 1 (deterministic across runs)."""
    counter = {"n": 0}

    def make(domain: str) -> str:
        counter["n"] += 1
        return f"draft-{counter['n']}@{domain}"

    return make


def read_mbox_messages(path: Path, list_name: str = "linux-kernel"):
    """Parsed Messages of an mbox file, in file order (raw bytes of each entry, as stored)."""
    box = mailbox.mbox(str(path), create=False)
    try:
        out = []
        for n, key in enumerate(box.keys()):
            data = box.get_bytes(key)
            msg = parse_rfc822(data, f"{path}:{n + 1}")
            out.append(dataclasses.replace(msg, list_name=list_name))
        return out
    finally:
        box.close()


def load_thread(store: Store, messages, rules) -> dict[str, list]:
    """Store one thread (first message is the root), run the rules on its patches with the thread
    as context, store the findings. Returns Message-ID -> findings."""
    root = messages[0].message_id
    found: dict[str, list] = {}
    with store.transaction():
        for msg in messages:
            store.put_message(msg, thread_id=root)
    for msg in messages:
        if not msg.subject.is_patch:
            continue
        patch = parse_patch(msg)
        store.put_patch(patch)
        ctx = RuleContext(thread=tuple(m for m in messages if m.message_id != msg.message_id))
        report = check_patch(patch, rules, ctx)
        store.replace_findings(msg.message_id, report.findings, report.failures, now=FIXED_NOW)
        found[msg.message_id] = list(report.findings)
    return found


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def run_thread(tmp_path: Path, name: str, rules, maildir: Path | None = None):
    store = Store(tmp_path / "reviewbot.db")
    messages = read_mbox_messages(THREADS / f"{name}.mbox")
    found = load_thread(store, messages, rules)
    summary = draft_pending(
        store,
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


@pytest.mark.parametrize("name", ["struct-reorder", "barrier", "perf-claim"])
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


def test_author_posted_numbers_no_draft(tmp_path: Path, rules) -> None:
    store, found, summary = run_thread(tmp_path, "perf-claim-answered", rules)
    patch_id = "20250314090000.4444-1-ada@example.org"
    perf = [f for f in found[patch_id] if f.rule_id == "RB201"]
    assert len(perf) == 1
    assert summary.drafts == 0
    assert summary.answered == 1 and summary.raised == 0
    skip = store.skip_for(perf[0].fingerprint)
    assert skip is not None and skip["state"] == "answered"
    assert not (tmp_path / "outbox").exists() or not list((tmp_path / "outbox").iterdir())
    store.close()


def test_point_already_raised_no_draft(tmp_path: Path, rules) -> None:
    store, found, summary = run_thread(tmp_path, "barrier-raised", rules)
    patch_id = "20250315090000.5555-1-ada@example.org"
    barrier = [f for f in found[patch_id] if f.rule_id == "RB102"]
    assert len(barrier) == 1
    assert summary.drafts == 0 and summary.raised == 1
    skip = store.skip_for(barrier[0].fingerprint)
    assert skip["state"] == "raised" and "87bob5678.fsf@example.com" in skip["reason"]
    store.close()


def test_second_run_drafts_nothing(tmp_path: Path, rules) -> None:
    store, _, summary = run_thread(tmp_path, "perf-claim", rules)
    assert summary.drafts == 1
    again = draft_pending(store, rules=rules, identity=IDENTITY, list_address=LIST_ADDRESS,
                          outbox=tmp_path / "outbox", clock=lambda: FIXED_NOW, make_msgid=fixed_msgid_factory())
    assert again.drafts == 0 and again.findings == 0
    assert len(list((tmp_path / "outbox").iterdir())) == 1
    store.close()
