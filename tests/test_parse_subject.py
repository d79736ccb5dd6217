"""parse_subject: one table of real-world subject forms."""

from __future__ import annotations

import pytest

from reviewbot.parse.subject import parse_subject

# (subject, title, tags, version, index, total, is_reply)
TABLE = [
    ("[PATCH] mm: fix a leak", "mm: fix a leak", ("PATCH",), 1, None, None, False),
    ("[PATCH v2 3/7] mm: title", "mm: title", ("PATCH",), 2, 3, 7, False),
    ("[RFC PATCH net-next v3 01/12] net: x", "net: x", ("RFC", "PATCH", "NET-NEXT"), 3, 1, 12, False),
    ("[PATCH RESEND] foo: bar", "foo: bar", ("PATCH", "RESEND"), 1, None, None, False),
    ("[PATCH RESEND v4 2/2] foo: bar", "foo: bar", ("PATCH", "RESEND"), 4, 2, 2, False),
    ("[PATCH 6.1 12/40] x: y", "x: y", ("PATCH", "6.1"), 1, 12, 40, False),
    ("[PATCH1/3] foo: wait", "foo: wait", ("PATCH",), 1, 1, 3, False),
    ("[PATCH0/3] foo: link handling fixes", "foo: link handling fixes", ("PATCH",), 1, 0, 3, False),
    ("[PATCHv2 1/3] foo", "foo", ("PATCH",), 2, 1, 3, False),
    ("[PATCH V2] foo", "foo", ("PATCH",), 2, None, None, False),
    ("[PATCH v2 0/5] cover", "cover", ("PATCH",), 2, 0, 5, False),
    ("[RFCv3] idea", "idea", ("RFC",), 3, None, None, False),
    ("[PATCH bpf-next,v2 1/2] bpf: z", "bpf: z", ("PATCH", "BPF-NEXT"), 2, 1, 2, False),
    ("[PATCH 1/3 v2] late version", "late version", ("PATCH",), 2, 1, 3, False),
    ("[linux-kernel] [PATCH] listed", "listed", ("PATCH",), 1, None, None, False),
    ("[LINUX-KERNEL] plain", "plain", (), 1, None, None, False),
    ("[PATCH] [media] uvc: fix", "uvc: fix", ("PATCH", "MEDIA"), 1, None, None, False),
    ("[GIT PULL] sched fixes", "sched fixes", ("GIT", "PULL"), 1, None, None, False),
    (
        "[PATCHSET v3 0/5]  io_uring: use polled async retry",
        "io_uring: use polled async retry",
        ("PATCHSET",),
        3,
        0,
        5,
        False,
    ),
    ("Re: [PATCH v2 3/7] mm: title", "mm: title", ("PATCH",), 2, 3, 7, True),
    ("RE: [PATCH] x", "x", ("PATCH",), 1, None, None, True),
    ("re: re: Re: [PATCH] x", "x", ("PATCH",), 1, None, None, True),
    ("Re[2]: [PATCH] x", "x", ("PATCH",), 1, None, None, True),
    ("Re(3): x", "x", (), 1, None, None, True),
    ("AW: [PATCH] x", "x", ("PATCH",), 1, None, None, True),
    ("Antw: [PATCH] x", "x", ("PATCH",), 1, None, None, True),
    ("Fwd: [PATCH 2/2] x", "x", ("PATCH",), 1, 2, 2, True),
    ("FW: x", "x", (), 1, None, None, True),
    ("Re : spaced", "spaced", (), 1, None, None, True),
    ("[EXT] Re: [PATCH v3 03/13] task_isolation: add", "task_isolation: add", ("EXT", "PATCH"), 3, 3, 13, True),
    ('Revert "mm: x"', 'Revert "mm: x"', (), 1, None, None, False),
    ("Regression in 6.1", "Regression in 6.1", (), 1, None, None, False),
    ("fs: plain title without prefix", "fs: plain title without prefix", (), 1, None, None, False),
    ("", "", (), 1, None, None, False),
    ("[PATCH unclosed title", "[PATCH unclosed title", (), 1, None, None, False),
    ("[] empty group", "empty group", (), 1, None, None, False),
    ("  [PATCH]\n\tfolded  title ", "folded title", ("PATCH",), 1, None, None, False),
    # stgit / David Howells: the version tag at the end of the subject (watch_queue, LKML 2019-2020)
    (
        "[PATCH 02/10] General notification queue with user mmap()'able ring buffer [ver #3]",
        "General notification queue with user mmap()'able ring buffer",
        ("PATCH",),
        3,
        2,
        10,
        False,
    ),
    (
        "[RFC][PATCH 00/13] Mount, FS, Block and Keyrings notifications [ver #4]",
        "Mount, FS, Block and Keyrings notifications",
        ("RFC", "PATCH"),
        4,
        0,
        13,
        False,
    ),
    ("Re: [PATCH 04/11] General notification queue [ver #8]", "General notification queue", ("PATCH",), 8, 4, 11, True),
    ("[PATCH] foo: bar [v3]", "foo: bar", ("PATCH",), 3, None, None, False),
    ("[PATCH v2] foo: bar [ver #5]", "foo: bar", ("PATCH",), 2, None, None, False),
    ("[PATCH] foo: bar [RESEND]", "foo: bar", ("PATCH", "RESEND"), 1, None, None, False),
    ("[PATCH] foo: use a[v2] index", "foo: use a[v2] index", ("PATCH",), 1, None, None, False),
    ("Plain title [v3]", "Plain title [v3]", (), 1, None, None, False),
    ("[PATCH v2 3/7] a [PATCH] inside stays", "a [PATCH] inside stays", ("PATCH",), 2, 3, 7, False),
]


@pytest.mark.parametrize("text,title,tags,version,index,total,is_reply", TABLE, ids=[t[0][:40] for t in TABLE])
def test_subject_table(text, title, tags, version, index, total, is_reply):
    s = parse_subject(text)
    assert s.raw == text
    assert (s.title, s.tags, s.version, s.index, s.total, s.is_reply) == (title, tags, version, index, total, is_reply)


def test_derived_flags():
    assert parse_subject("[PATCH v2 0/5] x").is_cover_letter
    assert not parse_subject("Re: [PATCH v2 0/5] x").is_patch
    assert parse_subject("[RFC] x").rfc and parse_subject("[RFC] x").is_patch
    assert parse_subject("[PATCH RESEND] x").resend
    assert parse_subject("[net-next 1/3] x").is_patch  # a counter alone marks a patch
    assert not parse_subject("[GIT PULL] x").is_patch
    assert not parse_subject("hello").is_patch


def test_hostile_subjects_are_linear():
    assert parse_subject("[" * 200_000).title == "[" * 200_000
    assert parse_subject("Re: " * 50_000 + "x").title == "x"
    assert parse_subject("[a]" * 50_000 + "t").title == "t"
    s = parse_subject("[PATCH " + "v1 " * 50_000 + "1/2] t")
    assert (s.version, s.index, s.title) == (1, 1, "t")
