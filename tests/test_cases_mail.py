"""The mail/patch cases of ../shared/cases, read byte-exact, against their .expected.md.

Each test asserts the parsing facts of its case (files, hunk headers, +/-
counts, line numbers, decoded text, thread and series); the rule and draft
facts belong to the rule and respond tests.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from conftest import CASES
from reviewbot.fetch.mailfiles import read_path
from reviewbot.models import LineKind
from reviewbot.parse.mail import parse_message, parse_rfc822
from reviewbot.parse.patch import WARN_EMBEDDED_DIFF, find_embedded_diff, is_submission, parse_patch
from reviewbot.parse.threads import assign_threads, group_series


def case_bytes(name: str) -> bytes:
    return (CASES / name).read_bytes()


def case_patch(name: str):
    return parse_patch(parse_rfc822(case_bytes(name), str(CASES / name)))


def lines_of(hunk, kind):
    return [(line.old_no, line.new_no, line.text) for line in hunk.lines if line.kind is kind]


# ------------------------------------------------------------------ C01 bare CR


def test_c01_input_really_has_a_bare_cr():
    data = case_bytes("C01.patch")
    assert data.split(b"\n")[20] == b" foo: progress  40%\r 100%"


def test_c01_bare_cr_stays_inside_its_line():
    patch = case_patch("C01.patch")
    assert [f.path for f in patch.files] == ["tools/testing/selftests/foo/load.expected"]
    (f,) = patch.files
    (h,) = f.hunks
    assert h.header == "@@ -1,3 +1,3 @@"
    assert (f.added_count, f.removed_count) == (1, 1)
    assert lines_of(h, LineKind.REMOVED) == [(3, None, "foo: load result: FAIL")]
    assert lines_of(h, LineKind.ADDED) == [(None, 3, "foo: load result: PASS")]
    ctx = lines_of(h, LineKind.CONTEXT)
    assert ctx == [(1, 1, "foo: loading firmware image"), (2, 2, "foo: progress  40%\r 100%")]
    assert len(h.lines) == 4
    # input lines count like the file (line 21 holds the CR)
    assert [line.input_line for line in h.lines] == [20, 21, 22, 23]
    assert f.header_input_line == 15
    # the optional informational note: line 2 of the file holds a bare CR
    assert patch.warnings == (
        "tools/testing/selftests/foo/load.expected: new line 2 (input line 21) contains a bare "
        "carriage return (^M); it is kept as part of that line",
    )


def test_c01_read_through_read_path_keeps_the_cr():
    (raw,) = list(read_path(CASES / "C01.patch"))
    assert raw.data == case_bytes("C01.patch")
    patch = parse_patch(parse_message(raw))
    assert patch.files[0].hunks[0].lines[1].text == "foo: progress  40%\r 100%"
    assert patch.message.subject.title == "selftests/foo: expect PASS after the firmware fix"
    assert [t.key for t in patch.trailers] == ["Signed-off-by"]


# ------------------------------------------------------------------ C02 diff in commit message


def test_c02_only_the_real_diff_is_the_change():
    patch = case_patch("C02.patch")
    assert patch.message.subject.version == 2
    assert [f.path for f in patch.files] == ["drivers/foo/queue.c"]
    (f,) = patch.files
    assert [h.header for h in f.hunks] == [
        "@@ -38,5 +38,5 @@ static void foo_queue_pop(struct foo_queue *q, unsigned int n)"
    ]
    assert (f.added_count, f.removed_count) == (1, 1)
    assert lines_of(f.hunks[0], LineKind.ADDED) == [(None, 40, "\tq->len = n > q->len ? 0 : q->len - n;")]
    assert lines_of(f.hunks[0], LineKind.REMOVED) == [(40, None, "\tq->len--;")]


def test_c02_commit_message_keeps_the_example_and_the_trailers():
    patch = case_patch("C02.patch")
    assert "--- a/drivers/foo/queue.c\n+++ b/drivers/foo/queue.c\n@@ -40,1 +40,1 @@" in patch.commit_message
    assert "Clamp at zero instead." in patch.commit_message
    assert [(t.key, t.value) for t in patch.trailers] == [
        ("Fixes", '0123456789ab ("foo: add batched pop")'),
        ("Signed-off-by", "Ada Example <ada@example.org>"),
    ]
    assert [t.input_line for t in patch.trailers] == [17, 18]


def test_c02_warns_about_the_unindented_diff_with_its_line():
    patch = case_patch("C02.patch")
    (warning,) = patch.warnings
    assert "unindented diff" in warning
    assert "line 9" in warning and "'--- a/drivers/foo/queue.c'" in warning
    assert "git am" in warning and "trailers" in warning
    assert warning.code == WARN_EMBEDDED_DIFF  # the code RB301 claims (RuleMeta.claims)
    emb = find_embedded_diff(patch)
    assert emb is not None
    assert emb.input_line == 9
    assert emb.text == "--- a/drivers/foo/queue.c"
    assert "Clamp at zero instead." in emb.dropped
    assert emb.dropped.endswith("Signed-off-by: Ada Example <ada@example.org>")


# ------------------------------------------------------------------ C04 marker mid-hunk


def test_c04_no_newline_marker_does_not_shift_numbers():
    patch = case_patch("C04.patch")
    assert [f.path for f in patch.files] == ["drivers/foo/foo_stats.h", "drivers/foo/stats.c"]
    h_file, c_file = patch.files
    (h,) = h_file.hunks
    assert h.header == "@@ -5,5 +5,6 @@"
    assert lines_of(h, LineKind.REMOVED) == [(7, None, "\tu32 errors;"), (8, None, "\tu32 drops;"), (9, None, "};")]
    assert lines_of(h, LineKind.ADDED) == [
        (None, 7, "\tu32 drops;"),
        (None, 8, "\tu32 errors;"),
        (None, 9, "\tu32 resets;"),
        (None, 10, "};"),
    ]
    assert (h_file.added_count, h_file.removed_count) == (4, 3)
    assert (c_file.added_count, c_file.removed_count) == (1, 0)
    assert lines_of(c_file.hunks[0], LineKind.ADDED) == [(None, 31, "\tfd->stats.resets++;")]


def test_c04_marker_is_kept_in_place_for_quoting():
    (h,) = case_patch("C04.patch").files[0].hunks
    raws = [line.raw for line in h.lines]
    i = raws.index("\\ No newline at end of file")
    assert raws[i - 1] == "-};" and raws[i + 1] == "+\tu32 drops;"
    marker = h.lines[i]
    assert marker.kind is LineKind.MARKER
    assert (marker.old_no, marker.new_no) == (None, None)
    assert marker.input_line == 22


# ------------------------------------------------------------------ C06 flowed + QP


def test_c06_flowed_quoted_printable_is_undone():
    msg = parse_rfc822(case_bytes("C06.eml"), "C06.eml")
    assert msg.flowed is True
    assert any("format=flowed" in n for n in msg.notes)
    patch = parse_patch(msg)
    (f,) = patch.files
    assert f.path == "drivers/foo/queue.c"
    (h,) = f.hunks
    assert h.header == "@@ -20,4 +20,6 @@ static int foo_set_depth(struct foo_dev *fd, unsigned int depth)"
    assert (f.added_count, f.removed_count) == (3, 1)
    added = [line.raw for line in h.added]
    assert '+\t\tdev_warn(fd->dev, "queue depth %u exceeds limit %u, clamping\\n", depth, FOO_MAX_DEPTH);' in added
    assert "+\tfd->depth = min(depth, FOO_MAX_DEPTH);" in added  # =3D decoded
    ctx = [line.raw for line in h.lines if line.kind is LineKind.CONTEXT]
    assert ctx == [" {", " \treturn 0;", " }"]
    assert any("format=flowed" in w and "git send-email" in w for w in patch.warnings)
    assert patch.diffstat.startswith(" drivers/foo/queue.c | 4 +++-")


# ------------------------------------------------------------------ C07 base64 latin-1


def test_c07_base64_iso_8859_1_decoded():
    msg = parse_rfc822(case_bytes("C07.eml"), "C07.eml")
    assert "Reported-by: Jürgen Beispiel <juergen@example.de>" in msg.body
    assert "\ufffd" not in msg.body and "Ã" not in msg.body
    assert [str(a) for a in msg.cc] == ["Jürgen Beispiel <juergen@example.de>"]
    patch = parse_patch(msg)
    (f,) = patch.files
    assert f.path == "drivers/foo/calib.c"
    assert [h.header for h in f.hunks] == ["@@ -14,4 +14,5 @@ int foo_load_calib(struct foo_dev *fd)"]
    assert (f.added_count, f.removed_count) == (1, 0)
    assert lines_of(f.hunks[0], LineKind.ADDED) == [(None, 16, "\tfd->calib_fw = NULL;")]
    assert ("Reported-by", "Jürgen Beispiel <juergen@example.de>") in [(t.key, t.value) for t in patch.trailers]


# ------------------------------------------------------------------ C09 reply with a diff


def test_c09_reply_is_not_a_submission():
    msg = parse_rfc822(case_bytes("C09.eml"), "C09.eml")
    assert msg.in_reply_to == "20250311090000.7777-1-ada@example.org"
    assert msg.references == ("20250311090000.7777-1-ada@example.org",)
    assert msg.subject.is_reply and not msg.subject.is_patch
    patch = parse_patch(msg)
    assert not is_submission(patch)
    assert any("suggested change" in w for w in patch.warnings)
    # the suggestion: 1 file, +1; quoted "> " lines are not part of it
    (f,) = patch.files
    assert f.path == "drivers/foo/link.c"
    assert (f.added_count, f.removed_count) == (1, 0)
    assert [h.header for h in f.hunks] == ["@@ -40,2 +40,3 @@ static int foo_link_status(struct foo_dev *fd)"]
    assert all(not line.text.startswith(">") for line in f.hunks[0].lines)
    assert lines_of(f.hunks[0], LineKind.ADDED) == [(None, 41, "\tfoo_wait_link_up(fd, FOO_LINK_TIMEOUT_MS);")]


def test_c09_text_before_the_diff_stays_separate():
    patch = case_patch("C09.eml")
    assert patch.commit_message.split("\n")[-1] == "instead?"
    assert "> +\t\treturn -ETIMEDOUT;" in patch.commit_message
    assert patch.files[0].header_input_line == 26
    assert patch.trailers == ()


def test_c09_thread_and_series():
    parent = parse_patch(
        parse_rfc822(
            b"From: Ada Example <ada@example.org>\nSubject: [PATCH] foo: wait for the link before reading status\n"
            b"Message-ID: <20250311090000.7777-1-ada@example.org>\n\nbody\n",
            "parent",
        )
    )
    reply = case_patch("C09.eml")
    threads = assign_threads([parent.message, reply.message])
    assert threads["Z9BbR2x7@kernel.example"] == "20250311090000.7777-1-ada@example.org"
    series = group_series([parent, reply])
    assert len(series) == 1 and series[0].patches == (parent,)


# ------------------------------------------------------------------ C10 no-space prefixes


def test_c10_one_series_ordered():
    raws = list(read_path(CASES / "C10.mbox"))
    assert len(raws) == 4
    patches = [parse_patch(parse_message(r)) for r in raws]
    subjects = [p.message.subject for p in patches]
    assert [(s.tags, s.index, s.total, s.version) for s in subjects] == [(("PATCH",), i, 3, 1) for i in range(4)]
    assert subjects[0].is_cover_letter
    threads = assign_threads([p.message for p in patches])
    assert set(threads.values()) == {"20250314090000.3030-0-ada@example.org"}
    assert [p.message.in_reply_to for p in patches[1:]] == ["20250314090000.3030-0-ada@example.org"] * 3
    series = group_series(patches)
    assert len(series) == 1
    (s,) = series
    assert (s.version, s.total, s.missing) == (1, 3, ())
    assert s.cover is patches[0]
    assert [p.message.subject.index for p in s.patches] == [1, 2, 3]
    assert [p.message.subject.title for p in s.patches] == [
        "foo: wait for the link before reading status",
        "foo: make the link timeout configurable",
        "foo: log link flaps at debug level",
    ]
    counts = [(p.files[0].path, p.files[0].added_count, p.files[0].removed_count) for p in s.patches]
    assert counts == [("drivers/foo/link.c", 1, 0), ("drivers/foo/link.c", 2, 1), ("drivers/foo/link.c", 1, 1)]
    assert s.cover.files == ()


def test_c10_missing_patch_is_listed():
    raws = list(read_path(CASES / "C10.mbox"))
    patches = [parse_patch(parse_message(r)) for r in raws]
    (s,) = group_series([patches[3], patches[0], patches[1]])
    assert [p.message.subject.index for p in s.patches] == [1, 3]
    assert s.missing == (2,)


# ------------------------------------------------------------------ C12 In-Reply-To comment


def test_c12_in_reply_to_comment_dropped():
    raws = list(read_path(CASES / "C12.mbox"))
    assert len(raws) == 2
    patch_msg, reply = (parse_message(r) for r in raws)
    assert reply.message_id == "87a5b3c2d1.fsf@example.net"
    assert reply.in_reply_to == "20250317080000.5050-1-ada@example.org"
    assert reply.references == ()
    assert reply.date == datetime(2025, 3, 17, 12, 30, tzinfo=timezone.utc)
    threads = assign_threads([patch_msg, reply])
    assert threads == {
        "20250317080000.5050-1-ada@example.org": "20250317080000.5050-1-ada@example.org",
        "87a5b3c2d1.fsf@example.net": "20250317080000.5050-1-ada@example.org",
    }
    p = parse_patch(patch_msg)
    (f,) = p.files
    assert f.hunks[0].header == "@@ -51,6 +51,4 @@ static void foo_queue_reset(struct foo_queue *q)"
    assert (f.added_count, f.removed_count) == (0, 2)


def test_c12_reply_arriving_first_joins_the_thread():
    raws = list(read_path(CASES / "C12.mbox"))
    patch_msg, reply = (parse_message(r) for r in raws)
    only_reply = assign_threads([reply])
    assert only_reply == {"87a5b3c2d1.fsf@example.net": "20250317080000.5050-1-ada@example.org"}
    both = assign_threads([reply, patch_msg])
    assert set(both.values()) == {"20250317080000.5050-1-ada@example.org"}


@pytest.mark.parametrize(
    "value",
    [
        b"<20250317080000.5050-1-ada@example.org> (message from Ada\n Example on Mon, 17 Mar 2025 09:00:00 +0100)",
        b"<20250317080000.5050-1-ada@example.org>\r\n (message from Ada <ada@example.org>)",
        b"(Ada's message of Mon) <20250317080000.5050-1-ada@example.org>",
        b'Your message of "Mon, 17 Mar 2025"\n\t<20250317080000.5050-1-ada@example.org>',
        b" \n <20250317080000.5050-1-ada@example.org> <other@example.org>",
    ],
)
def test_c12_kind_in_reply_to_forms(value):
    data = (
        b"From: Dan <dan@example.net>\nSubject: Re: x\nMessage-ID: <r@example.net>\nIn-Reply-To: " + value + b"\n\nok\n"
    )
    msg = parse_rfc822(data, "irt")
    assert msg.in_reply_to == "20250317080000.5050-1-ada@example.org"
