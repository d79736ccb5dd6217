"""Property tests (issue 5 item 4): hostile input to the subject, mail, patch and mbox parsers.

Only our own errors may escape (ParseError, InputError), and they name the
input. A fixed budget keeps CI time bounded and the runs reproducible
(``derandomize``).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewbot.errors import InputError, ParseError
from reviewbot.fetch.mailfiles import read_bytes, split_mbox_bytes
from reviewbot.models import Message, Patch, RawMessage, Subject
from reviewbot.parse.mail import parse_message, parse_rfc822, unflow
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.subject import parse_subject
from reviewbot.parse.threads import assign_threads, group_series

BUDGET = settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

SOURCE = "fuzz-input.eml"

# pieces that steer the generators into the interesting corners
SUBJECT_BITS = [
    "Re:",
    "RE[2]:",
    "Fwd:",
    "AW:",
    "[",
    "]",
    "[PATCH",
    "v2",
    "1/3",
    "PATCHv3",
    "[PATCH1/2]",
    " ",
    ",",
    "[linux-kernel]",
    "0/0",
    "99999999999/1",
    "v",
    "/",
    "\t",
    "\n",
]
DIFF_BITS = [
    "diff --git a/x b/x",
    "diff -",
    "Index: x",
    "--- a/x",
    "+++ b/x",
    "--- /dev/null",
    "+++ /dev/null",
    "---",
    "@@ -1 +1 @@",
    "@@ -1,2 +1,3 @@ f",
    "@@ -0,0 +1 @@",
    "@@ -999999999999,1 +1 @@",
    "+a",
    "-b",
    " c",
    "",
    "\\ No newline at end of file",
    "> +quoted",
    "-- ",
    "2.43.0",
    "Signed-off-by: A <a@...b.cd>",
    "new file mode 100644",
    "deleted file mode 100644",
    "rename from x",
    "rename to y",
    "Binary files a/x and b/x differ",
    "GIT binary patch",
    "index 1..2 100644",
    "Fixes: abc",
    "x\ry",
    "From: z",
]
HEADER_BITS = [
    "From: A <a@b.cd>",
    "Subject: [PATCH] x",
    "Message-ID: <m@x>",
    "Message-ID:",
    "In-Reply-To: <p@x> (c <q@x>)",
    "References: <a@x>\n <b@x>",
    "Date: Tue, 4 Mar 2025 09:00:00 +0100",
    "Date: 99 Foo",
    "To: a: b@c.d;",
    "Cc: =?utf-8?b?!!?= <c@d.e>",
    "Content-Type: text/plain; charset=x-bogus; format=flowed; delsp=yes",
    "Content-Type: multipart/mixed; boundary=B",
    "Content-Transfer-Encoding: base64",
    "Content-Transfer-Encoding: quoted-printable",
    "Content-Disposition: attachment; filename=a.patch",
    "--B",
    "--B--",
    "Subject: =?iso-8859-1?q?=FC?=",
]


def lines_of(bits):
    return st.lists(st.one_of(st.sampled_from(bits), st.text(max_size=20)), max_size=40)


@BUDGET
@given(st.one_of(st.text(max_size=300), lines_of(SUBJECT_BITS).map("".join)))
def test_subject_never_raises(text):
    s = parse_subject(text)
    assert isinstance(s, Subject)
    assert s.raw == text
    assert s.version >= 0


@BUDGET
@given(st.binary(max_size=2000))
def test_rfc822_random_bytes(data):
    try:
        msg = parse_rfc822(data, SOURCE)
    except ParseError as exc:
        assert SOURCE in str(exc)
        return
    assert isinstance(msg, Message) and msg.message_id


@BUDGET
@given(
    lines_of(HEADER_BITS),
    st.lists(st.one_of(st.sampled_from(DIFF_BITS), st.text(max_size=30)), max_size=60),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["utf-8", "latin-1"]),
)
def test_structured_mail_then_patch(headers, body_lines, eol, enc):
    data = (eol.join(headers) + eol + eol + eol.join(body_lines)).encode(enc, "replace")
    try:
        msg = parse_rfc822(data, SOURCE)
    except ParseError as exc:
        assert SOURCE in str(exc)
        return
    try:
        patch = parse_patch(msg)
    except ParseError as exc:
        assert (msg.message_id in str(exc)) and exc.line is not None
        return
    assert isinstance(patch, Patch)
    for f in patch.files:
        for h in f.hunks:
            for line in h.lines:
                assert "\n" not in line.text


@BUDGET
@given(
    st.lists(st.one_of(st.sampled_from(DIFF_BITS), st.text(max_size=30)), max_size=80),
    st.sampled_from(["[PATCH] x", "Re: [PATCH] x", "x"]),
)
def test_patch_from_diffish_bodies(body_lines, subject):
    msg = Message(
        message_id="fuzz@x",
        subject=parse_subject(subject),
        from_addr=None,
        date=None,
        body="\n".join(body_lines),
        source=SOURCE,
    )
    try:
        patch = parse_patch(msg)
    except ParseError as exc:
        assert "fuzz@x" in str(exc)
        assert subject == "[PATCH] x"  # only submissions raise; replies and plain mail degrade
        return
    total_lines = sum(len(h.lines) for f in patch.files for h in f.hunks)
    assert total_lines <= len(body_lines)
    group_series([patch])
    assign_threads([msg])


@BUDGET
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Message-ID", "message-id", "Date", "From", "To", "CC", "Subject", "X"]),
            st.text(max_size=60),
        ),
        max_size=8,
    ),
    st.text(max_size=500),
)
def test_archive_parts(header_lines, body):
    raw = RawMessage(source="https://example.invalid/x/1", kind="archive", header_lines=tuple(header_lines), body=body)
    msg = parse_message(raw)
    assert msg.obfuscated and msg.message_id
    try:
        parse_patch(msg)
    except ParseError as exc:
        assert msg.message_id in str(exc)


@BUDGET
@given(
    st.one_of(
        st.binary(max_size=1500),
        lines_of(["From a@b Fri Mar 14 10:00:00 2025", ">From x", "", "From: a@b.cd", "Subject: s", "body"]).map(
            lambda ls: "\n".join(ls).encode()
        ),
    )
)
def test_mbox_bytes(data):
    try:
        raws = list(read_bytes(data, "fuzz.mbox"))
    except InputError as exc:
        assert "fuzz.mbox" in str(exc)
        return
    assert raws
    if data.startswith(b"From "):
        assert b"".join(r.data for r in raws).count(b"\n") <= data.count(b"\n")
        split_mbox_bytes(data, "fuzz.mbox")
    for r in raws:
        try:
            parse_message(r)
        except ParseError as exc:
            assert "fuzz.mbox" in str(exc)


@BUDGET
@given(st.text(alphabet=" >\n-a", max_size=400), st.booleans())
def test_unflow_only_joins_lines(text, delsp):
    out = unflow(text, delsp=delsp)
    assert out.count("\n") <= text.count("\n")
    assert out.replace(">", "").replace(" ", "").replace("\n", "") == text.replace(">", "").replace(" ", "").replace(
        "\n", ""
    )


def _unidiff_full(lines: list[str]):
    """unidiff's own full parse of the same lines, as (path, [(kind, old, new, text)]) per file."""
    from unidiff import PatchSet

    out = []
    for pf in PatchSet([line + "\n" for line in lines]):
        rows = []
        for h in pf:
            for ln in h:
                if ln.line_type == "":
                    continue  # empty lines unidiff keeps after a hunk
                text = ln.value[:-1] if ln.value.endswith("\n") else ln.value
                rows.append((ln.line_type, ln.source_line_no, ln.target_line_no, text))
        out.append(rows)
    return out


HUNK_BITS = [
    " a",
    "+b",
    "-c",
    "",
    "\r",
    "\\ No newline at end of file",
    "@@ -1,2 +1,2 @@",
    "@@ -1 +1,3 @@ f",
    "--- a/x",
    "+++ b/x",
    "diff --git a/x b/x",
    "x\ry",
    "+",
    "-",
    " ",
    "text",
]


HUNK_HEADERS = ["@@ -1,2 +1,2 @@", "@@ -1 +1,3 @@ f", "@@ -3,1 +3 @@", "@@ -0,0 +1 @@"]
BODY_BITS = [
    " a",
    "+b",
    "-c",
    "",
    "\r",
    "\\ No newline at end of file",
    "x\ry",
    "+",
    "-",
    " ",
    "--- a/x",
    "+++ b/x",
    "text",
]
hunks = st.lists(
    st.tuples(st.sampled_from(HUNK_HEADERS), st.lists(st.sampled_from(BODY_BITS), max_size=6)), min_size=1, max_size=4
).map(lambda hs: [line for header, body in hs for line in [header, *body]])


@BUDGET
@given(st.one_of(st.lists(st.sampled_from(HUNK_BITS), max_size=40), hunks))
def test_hunk_reader_agrees_with_unidiff_full_mode(tail):
    """Our one-pass hunk reader gives what unidiff's full (slower) mode gives, line by line."""
    from reviewbot.parse.patch import parse_diff

    lines = ["diff --git a/x b/x", "--- a/x", "+++ b/x"] + tail
    try:
        ours = parse_diff(lines, 0, 1, subject="d@x")
    except ParseError as ours_error:
        try:
            _unidiff_full(lines)
        except Exception:
            return  # both reject it
        # ours may only accept more (trailing empty context lines restored); never reject more
        raise AssertionError("parse_diff rejected a diff unidiff accepts") from ours_error
    try:
        theirs = _unidiff_full(lines)
    except Exception:
        return  # accepted thanks to restored trailing empty context lines
    mine = [
        [
            (line.kind.value if line.kind.value != "\\" else "\\", line.old_no, line.new_no, line.text)
            for h in f.hunks
            for line in h.lines
        ]
        for f in ours
    ]
    assert mine == theirs


# ------------------------------------------------------------------ the whole check command (issue 12)

CHECK_HEADER_BITS = HEADER_BITS + [
    "Subject: Re: [PATCH] x",
    "Subject: RE [PATCH 1 of 2] x",
    "In-Reply-To: <m@x>",
    "From: B <b@c.de>",
    'Content-Type: text/plain; charset="u\x00d"',
    "Content-Type: text/plain; charset=\x01",
]
CHECK_BODY_BITS = DIFF_BITS + [
    "From: Ada <ada@example.org>",
    "Subject: [PATCH] y",
    " <ada@example.org>",
    "@@ -1, +1,2 @@",
    "@@ -1,3 +1,3 @@",
    "--- x",
    "+++ x",
    "\tsmp_mb();",
    "+\tsmp_mb();",
    "commit 1111111111111111111111111111111111111111",
]


@BUDGET
@given(
    st.one_of(
        st.binary(max_size=1500),
        st.tuples(
            st.sampled_from(["", "  \n", "From a@b Fri Mar 14 10:00:00 2025\n"]),
            lines_of(CHECK_HEADER_BITS),
            st.lists(st.one_of(st.sampled_from(CHECK_BODY_BITS), st.text(max_size=30)), max_size=50),
            st.sampled_from(["\n", "\r\n"]),
        ).map(lambda t: (t[0] + t[3].join(t[1]) + t[3] + t[3] + t[3].join(t[2])).encode("utf-8", "surrogatepass")),
        st.lists(st.one_of(st.sampled_from(CHECK_BODY_BITS), st.text(max_size=30)), max_size=50).map(
            lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass")
        ),
    )
)
def test_check_command_never_crashes(data):
    """Any bytes on stdin: exit 0 (clean), 1 (findings) or 2 (a readable error per problem); never a
    traceback and never the internal-error line (the command turns any exception into it)."""
    from click.testing import CliRunner

    from reviewbot.cli import main

    res = CliRunner().invoke(main, ["check", "--format", "json", "-"], input=data, catch_exceptions=False)
    assert res.exit_code in (0, 1, 2), res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    for line in res.stderr.splitlines():
        assert line.startswith("reviewbot check: ")
    if res.exit_code != 2 or res.stdout:
        import json

        doc = json.loads(res.stdout)
        assert doc["summary"]["patches"] == len(doc["patches"])
        if res.exit_code == 2:
            assert doc["problems"]
