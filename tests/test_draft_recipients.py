"""Issue 11: drafts are addressed as a reply-all would be, or say on their top who is missing.

Two real archive pages of the mirror (lists.openwall.net, linux-kernel) whose
patch carries an in-body ``From:`` of another author than the sender:

* 2020/03/08/2 "[PATCH v2 10/12] task_isolation: ringbuffer: ..." posted by
  Alex Belits, ``From: Yuri Norov <ynorov@...vell.com>`` in the body; Yuri's
  full address is only in other mails' bodies (``Signed-off-by:``, quoted);
* 2023/12/11/2 "[PATCH v3 1/5] block: Optimize bio io priority setting"
  posted from Hongyu Jin's gmail address, in-body ``From: Hongyu Jin
  <hongyu.jin@...soc.com>``, the same mailbox without a name in the patch's Cc.

The mail file completing the addresses is written by the test (the lines a
reviewer's own mail archive holds for these people), read by the real
``--addresses-from`` reader.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.fetch.openwall import parse_message_page
from reviewbot.models import Address, Finding, Severity
from reviewbot.parse.mail import parse_message
from reviewbot.parse.patch import parse_patch
from reviewbot.respond.draft import MISSING_NOTE, build_draft, same_mailbox
from reviewbot.respond.render import render_message
from reviewbot.respond.runner import addresses_from_mail

ME = Address("Zoë Reviewer", "zoe@example.com")
LIST = "linux-kernel@vger.kernel.org"


def _page(shared_dir: Path, day: str, n: int):
    url = f"https://lists.openwall.net/linux-kernel/{day}/{n}"
    page = (shared_dir / "openwall-mirror" / "linux-kernel" / day / f"{n}.html").read_bytes()
    message = parse_message(parse_message_page(page, url, "linux-kernel"))
    return message, parse_patch(message)


def _finding(patch) -> Finding:
    fd = patch.files[0]
    line = next(dl.new_no for dl in fd.hunks[0].lines if dl.kind.value == "+")
    return Finding(
        rule_id="RB999",
        rule_name="test-note",
        severity=Severity.WARNING,
        message="a note",
        fingerprint="fp-test",
        path=fd.path,
        line=line,
        lines=(line,),
        hunk=fd.hunks[0],
    )


def _draft(patch, message, known):
    return build_draft(
        patch, [_finding(patch)], {}, identity=ME, list_address=LIST, store_addresses=known, sender=message.from_addr
    )


def _mbox(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.mbox"
    path.write_text(text, encoding="utf-8")
    return path


TASK_ISOLATION_MAIL = """\
From mutt Thu Mar  5 00:00:00 2020
From: Alex Belits <abelits@marvell.com>
To: Frederic Weisbecker <frederic@kernel.org>, Steven Rostedt <rostedt@goodmis.org>
Cc: Ingo Molnar <mingo@kernel.org>, Peter Zijlstra <peterz@infradead.org>,
 Prasun Kapoor <pkapoor@marvell.com>, Thomas Gleixner <tglx@linutronix.de>,
 Catalin Marinas <catalin.marinas@arm.com>, "David S. Miller" <davem@davemloft.net>,
 Will Deacon <will@kernel.org>
Subject: Re: [PATCH 10/12] task_isolation: ringbuffer: don't interrupt CPUs
Message-ID: <test-1@example.org>

> From: Yuri Norov <ynorov@marvell.com>
>
> Signed-off-by: Yuri Norov <ynorov@marvell.com>

Thanks.
"""


def test_in_body_author_completed_from_a_trailer_and_the_sender_gets_the_reply(
    shared_dir: Path, tmp_path: Path
) -> None:
    message, patch = _page(shared_dir, "2020/03/08", 2)
    assert patch.message.from_addr == Address("Yuri Norov", "ynorov@...vell.com", True)  # the in-body From
    assert message.from_addr.email == "abelits@...vell.com"
    known = addresses_from_mail([_mbox(tmp_path, TASK_ISOLATION_MAIL)])
    assert Address("Yuri Norov", "ynorov@marvell.com") in known  # from the quoted in-body From/trailer
    draft = _draft(patch, message, known)
    assert draft.recipients_complete is True
    assert draft.to == (Address("Yuri Norov", "ynorov@marvell.com"), Address("Alex Belits", "abelits@marvell.com"))
    assert not draft.body.startswith(MISSING_NOTE)
    assert "X-Reviewbot-Recipients" not in render_message(draft).split(b"\n\n", 1)[0].decode()


def test_an_address_left_uncertain_is_named_on_top_of_the_draft(shared_dir: Path, tmp_path: Path) -> None:
    """Without Yuri's address: everyone else is kept, Yuri is named in the note the sender reads."""
    message, patch = _page(shared_dir, "2020/03/08", 2)
    text = TASK_ISOLATION_MAIL.replace("> From: Yuri Norov <ynorov@marvell.com>\n", "").replace(
        "> Signed-off-by: Yuri Norov <ynorov@marvell.com>\n", ""
    )
    draft = _draft(patch, message, addresses_from_mail([_mbox(tmp_path, text)]))
    assert draft.recipients_complete is False
    assert draft.to == (Address("Alex Belits", "abelits@marvell.com"),)
    assert {a.email for a in draft.cc} >= {
        "frederic@kernel.org",
        "will@kernel.org",
        LIST,
        "linux-arm-kernel@lists.infradead.org",
    }
    note, rest = draft.body.split("\n\n", 1)
    assert " ".join(note.split()) == (
        "[Before sending: Yuri Norov <ynorov@...vell.com> is not in To/Cc: the archive hides part of the "
        "address and no mail file, stored message or MAINTAINERS entry completes it. Add the address by "
        "hand, then delete this note.]"
    )
    assert rest.startswith("On Sun, 8 Mar 2020 03:55:24 +0000, Yuri Norov wrote:")
    head = render_message(draft).split(b"\n\n", 1)[0].decode()
    assert "X-Reviewbot-Recipients: incomplete" in head and "@..." not in head


def test_in_body_author_completed_as_the_patch_s_own_cc_shows_it(shared_dir: Path, tmp_path: Path) -> None:
    """``Hongyu Jin <hongyu.jin@...soc.com>`` (in-body From) is the Cc ``hongyu.jin@...soc.com``, which one
    nameless full address completes; the name alone would not be evidence enough for the From."""
    message, patch = _page(shared_dir, "2023/12/11", 2)
    assert patch.message.from_addr.email == "hongyu.jin@...soc.com"
    assert any(a.email == "hongyu.jin@...soc.com" and not a.name for a in message.cc)
    mail = (
        "From mutt Mon Dec 11 00:00:00 2023\nFrom: Jens Axboe <axboe@kernel.dk>\n"
        "To: Hongyu Jin <hongyu.jin.cn@gmail.com>\nCc: hongyu.jin@unisoc.com, zhiguo.niu@unisoc.com,\n"
        " ke.wang@unisoc.com, yibin.ding@unisoc.com, agk@redhat.com, snitzer@kernel.org,\n"
        " mpatocka@redhat.com, ebiggers@kernel.org\nSubject: Re: x\nMessage-ID: <t2@example.org>\n\nok\n"
    )
    draft = _draft(patch, message, addresses_from_mail([_mbox(tmp_path, mail)]))
    assert draft.recipients_complete is True
    # the author in To; the mailbox the patch was posted from (the same person) first in Cc
    assert draft.to == (Address("Hongyu Jin", "hongyu.jin@unisoc.com"),)
    assert draft.cc[0] == Address("Hongyu Jin", "hongyu.jin.cn@gmail.com")
    assert [a.email for a in draft.cc].count("hongyu.jin@unisoc.com") == 0  # once, in To


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("ada@...mple.org", "ada@example.org", True),
        ("ADA@example.org", "ada@example.org", True),
        ("ada@...mple.org", "ada@xexample.org", False),
        ("ada@...mple.org", "ada@...mple.org", True),
        ("ada@...mple.org", "bob@example.org", False),
    ],
)
def test_same_mailbox(a: str, b: str, same: bool) -> None:
    assert same_mailbox(Address("", a, "@..." in a), Address("", b, "@..." in b)) is same


def test_an_address_shown_as_a_name_gives_way_to_the_person_s_name() -> None:
    """The archive shows ``"frederic@...nel.org" <frederic@...nel.org>``; mail files know the address with
    the person's name and also as ``"frederic@kernel.org" <frederic@kernel.org>``: the draft says
    ``Frederic Weisbecker <frederic@kernel.org>``, and a bare address when no name is known."""
    from reviewbot.respond.draft import complete_address, complete_list_address

    shown = Address("frederic@...nel.org", "frederic@...nel.org", True)
    as_name = Address("frederic@kernel.org", "frederic@kernel.org")
    person = Address("Frederic Weisbecker", "frederic@kernel.org")
    assert complete_address(shown, [as_name, person]) == person
    assert complete_address(shown, [as_name]) == Address("", "frederic@kernel.org")
    lst = Address("linux-block@...r.kernel.org", "linux-block@...r.kernel.org", True)
    assert complete_list_address(lst) == Address("", "linux-block@vger.kernel.org")


def test_the_note_names_each_missing_mailbox_once() -> None:
    """Without mail files, "block: Optimize bio io priority setting" misses its in-body author, who is in
    the patch's Cc too (nameless there): the note names her once, with her name."""
    from reviewbot.respond.draft import RecipientResult, missing_note

    rcpt = RecipientResult(
        (Address("", LIST),),
        (),
        False,
        ("x",),
        (
            Address("Hongyu Jin", "hongyu.jin@...soc.com", True),
            Address("", "agk@...hat.com", True),
            Address("", "hongyu.jin@...soc.com", True),
        ),
    )
    assert " ".join(missing_note(rcpt).split()) == (
        "[Before sending: 2 people are not in To/Cc, as the archive hides part of their addresses and no mail "
        "file, stored message or MAINTAINERS entry completes them: Hongyu Jin <hongyu.jin@...soc.com>, "
        "agk@...hat.com. Add the addresses by hand, then delete this note.]"
    )
