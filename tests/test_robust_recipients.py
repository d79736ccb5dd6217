"""Issue 13: recipients are certain or absent.

A ``From:`` without an address (``root``, ``"Just A Name"``) made a draft go
``To: root`` marked complete; an ``--addresses-from`` mail holding a look-alike
domain completed the archive's obfuscated address to the look-alike. Now such
addresses are left out and the draft goes to the list, marked incomplete.
Crafted mails (the barrier thread with its From changed; a spam mbox) through
the real parser, drafter and renderer.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from reviewbot.models import Address
from reviewbot.parse.mail import parse_addresses
from reviewbot.respond.draft import complete_address, resolve_recipients
from reviewbot.respond.runner import addresses_from_mail
from reviewbot.store import Store
from helpers import IDENTITY, LIST_ADDRESS, THREADS, load_thread, read_mbox_messages, draft_fixed

LINUS = Address("Linus Torvalds", "torvalds@...ux-foundation.org", True)


@pytest.fixture(scope="module")
def rules():
    from reviewbot.registry import load_rules

    return load_rules(entry_points=False)


@pytest.mark.parametrize("header", ["root", '"Just A Name"', "Just A Name", "<>"])
def test_from_without_address_is_never_a_recipient(tmp_path: Path, rules, header: str) -> None:
    msgs = read_mbox_messages(THREADS / "barrier.mbox")
    author = parse_addresses(header)
    msgs[0] = dataclasses.replace(msgs[0], from_addr=author[0] if author else None)
    with Store(tmp_path / "db.sqlite") as store:
        load_thread(store, msgs, rules)
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    [written] = summary.written
    # the list in To; the people the mail names with full addresses kept in Cc
    assert written.draft.to == (Address("", LIST_ADDRESS),)
    assert [a.email for a in written.draft.cc] == [
        a.email for a in (*msgs[0].to, *msgs[0].cc) if a.email != LIST_ADDRESS
    ]
    assert not written.draft.recipients_complete
    text = written.path.read_text(encoding="utf-8")
    head, body = text.split("\n\n", 1)
    assert "X-Reviewbot-Recipients: incomplete" in head
    # ... and the person sending it reads why at the top of the body
    note = body.split("\n\n", 1)[0]
    assert note.startswith("[Before sending:") and note.endswith("then delete this note.]")
    name = author[0].name if author else ""
    assert (
        f'"{name or author[0].email}" has no e-mail address'
        if author and (name or author[0].email)
        else "the patch has no From"
    ) in " ".join(note.split())
    assert "root" not in head.replace("Subject:", "").split("To:", 1)[1].split("\n")[0]


def _spam_mbox(tmp_path: Path, sender: str) -> Path:
    path = tmp_path / "mine.mbox"
    path.write_bytes(
        b"From spam@example.net Thu Jan  1 00:00:00 2025\n"
        + f"From: {sender}\nTo: me@example.com\nSubject: urgent\n\nclick\n".encode()
    )
    return path


def test_look_alike_with_the_same_name_is_not_a_completion_when_the_real_one_is_known(tmp_path: Path) -> None:
    spam = addresses_from_mail([_spam_mbox(tmp_path, "Linus Torvalds <torvalds@evlux-foundation.org>")])
    assert complete_address(LINUS, spam) == Address("Linus Torvalds", "torvalds@evlux-foundation.org")  # alone, it fits
    real = Address("Linus Torvalds", "torvalds@linux-foundation.org")
    assert complete_address(LINUS, [real, *spam]) is None  # two candidates in the sources: not certain
    assert complete_address(LINUS, [real]) == real


def test_look_alike_under_another_name_is_not_a_completion(tmp_path: Path) -> None:
    spam = addresses_from_mail([_spam_mbox(tmp_path, "Prize Office <torvalds@evlux-foundation.org>")])
    assert complete_address(LINUS, spam) is None
    msg = read_mbox_messages(THREADS / "barrier.mbox")[0]
    msg = dataclasses.replace(msg, from_addr=LINUS, obfuscated=True)
    rcpt = resolve_recipients(msg, identity=IDENTITY, list_address=LIST_ADDRESS, known=spam)
    assert not rcpt.complete and rcpt.to == (Address("", LIST_ADDRESS),)
    assert rcpt.unresolved == ("torvalds@...ux-foundation.org",) and rcpt.missing == (LINUS,)


def test_nameless_archive_address_still_completes_from_one_candidate() -> None:
    assert (
        complete_address(Address("", "ada@...mple.org", True), [Address("A", "ada@example.org")]).email
        == "ada@example.org"
    )
    assert (
        complete_address(Address("", "ada@...mple.org", True), [Address("", "ada@e,ample.org")]) is None
    )  # no usable address
