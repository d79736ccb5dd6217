"""Every message of the real corpus (../shared/corpus/lkml-real.mbox, 4,416 mails) parses.

The oracle is corpus/index.tsv: Message-ID, Subject (whitespace runs counted
as one, as the index writes them) and Date (UTC) of each message, in mbox order.
"""

from __future__ import annotations

import csv
import re

import pytest

from conftest import CORPUS
from reviewbot.fetch.mailfiles import read_path
from reviewbot.parse.mail import parse_message
from reviewbot.parse.patch import is_submission, parse_patch
from reviewbot.parse.threads import assign_threads, group_series

pytestmark = [pytest.mark.slow, pytest.mark.shared]


@pytest.fixture(scope="module")
def corpus():
    raws = list(read_path(CORPUS / "lkml-real.mbox"))
    messages = [parse_message(r) for r in raws]
    patches = [parse_patch(m) for m in messages]  # no ParseError may escape
    with open(CORPUS / "index.tsv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    return raws, messages, patches, rows


def test_every_message_matches_the_index(corpus):
    raws, messages, _, rows = corpus
    assert len(raws) == len(rows) == 4416
    for row, msg in zip(rows, messages):
        assert msg.message_id == row["message_id"].strip("<>"), msg.source
        assert " ".join(msg.subject.raw.split()) == " ".join(row["subject"].split()), msg.source
        assert msg.date is not None, msg.source
        assert msg.date.strftime("%Y-%m-%dT%H:%M:%SZ") == row["date_utc"], msg.source
        irt = row["in_reply_to"]
        if irt not in ("", "-"):  # the index keeps comments: "<id> (X's message of ...)"
            assert msg.in_reply_to == irt.split(">", 1)[0].strip().lstrip("<"), msg.source


def test_diff_counts(corpus):
    _, messages, patches, rows = corpus
    with_diff = [p for p in patches if p.has_diff]
    # measured: 1,561 messages carry a parseable diff, 1,895 are submissions,
    # 79 replies carry their own diff, 14 non-patch messages hold a diff that is malformed
    assert len(with_diff) >= 1550
    assert sum(is_submission(p) for p in patches) >= 1880
    suggestions = [p for p in with_diff if p.message.subject.is_reply]
    assert 60 <= len(suggestions) <= 100
    # replies are never submissions, and every diff line has numbers on its side
    for p in with_diff:
        for f in p.files:
            for h in f.hunks:
                for line in h.lines:
                    if line.kind.value == "+":
                        assert line.new_no is not None and line.old_no is None
                    elif line.kind.value == "-":
                        assert line.old_no is not None and line.new_no is None
                    assert line.input_line is not None
    flowed = [m for m in messages if m.flowed]
    assert len(flowed) == 363  # measured (top-level and MIME parts)


def test_threads_and_series(corpus):
    _, messages, patches, rows = corpus
    threads = assign_threads(messages)
    assert len(threads) == len({m.message_id for m in messages})
    # every reply whose parent is in the corpus shares its parent's thread
    ids = {m.message_id for m in messages}
    joined = 0
    for m in messages:
        if m.in_reply_to in ids:
            assert threads[m.message_id] == threads[m.in_reply_to]
            joined += 1
    assert joined >= 2000
    series = group_series(patches, threads)
    multi = [s for s in series if s.total > 1]
    assert len(multi) >= 100
    for s in multi:
        idx = [p.message.subject.index for p in s.patches]
        assert idx == sorted(set(idx)) and set(idx).isdisjoint(s.missing)
        assert len(idx) + len(s.missing) == s.total
        assert all(not p.message.subject.is_reply for p in s.patches)


# the archive's address obfuscation (openwall-format.md section 9), to compare mbox text with pages
_ADDR = r"A-Za-z0-9!#$%&'*+\-/=?^_`{|}~."
_OBFUSCATE = re.compile(rf"(?<=[{_ADDR}])@[{_ADDR}]{{3}}(?=[{_ADDR}])")


def _as_archive_shows(text: str) -> str:
    text = _OBFUSCATE.sub("@...", text.replace("\r", ""))
    return "".join(c if c in "\t\n" or ord(c) >= 0x20 else "." for c in text)


def test_archive_pages_parse_like_their_mbox_copies(corpus):
    """All mirror pages -> Message -> Patch: same ids, dates, bodies and diffs as the mbox copy."""
    from conftest import MIRROR
    from reviewbot.fetch.openwall import parse_message_page

    _, messages, patches, _ = corpus
    by_id = {p.message_id: p for p in patches}
    with open(MIRROR / "manifest.tsv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    compared = body_equal = from_escaped = diffs_equal = 0
    for row in rows:
        page = MIRROR / (row["path"].lstrip("/") + ".html")
        url = "https://lists.openwall.net" + row["path"]
        msg = parse_message(parse_message_page(page.read_bytes(), url, "linux-kernel"))
        patch = parse_patch(msg)  # never a ParseError on a real page
        mbox = by_id.get(msg.message_id)
        if mbox is None:
            continue
        compared += 1
        assert msg.obfuscated and msg.archive_url == url
        assert msg.date == mbox.message.date, url
        assert " ".join(msg.subject.raw.split()) == " ".join(mbox.message.subject.raw.split()), url
        if mbox.message.flowed:
            continue  # the page shows the text as sent, the mbox copy is unflowed
        a = _as_archive_shows(msg.body).rstrip("\n")
        b = _as_archive_shows(mbox.message.body).rstrip("\n")
        if a == b:
            body_equal += 1
        else:
            # the only other difference: mboxo ">From " kept on the page, undone in the mbox reader
            assert a == re.sub(r"(?m)^From ", ">From ", b), url
            from_escaped += 1
        if not mbox.message.attachments:
            assert [(f.path, f.added_count, f.removed_count) for f in patch.files] == [
                (f.path, f.added_count, f.removed_count) for f in mbox.files
            ], url
            diffs_equal += 1
    # measured: 4,416 pages with an mbox copy; 363 flowed; 34 differ only by ">From "
    assert compared == 4416
    assert from_escaped <= 41 and body_equal + from_escaped == compared - 363
    assert diffs_equal >= 3990
