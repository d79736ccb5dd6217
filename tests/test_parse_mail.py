"""parse_rfc822 / parse_message: headers, charsets, transfer encodings, format=flowed, MIME, archive parts."""

from __future__ import annotations

import base64
import quopri
from datetime import datetime, timezone

import pytest

from reviewbot.errors import ParseError
from reviewbot.models import Address, AttachmentRef, RawMessage
from reviewbot.parse.mail import (
    FLOWED_NOTE,
    first_msgid,
    msgid_list,
    normalize_msgid,
    parse_date,
    parse_message,
    parse_rfc822,
    unflow,
)
from reviewbot.parse.patch import parse_patch

PATCH_TEXT = (
    "Fix it.\n"
    "\n"
    "Signed-off-by: Ada Example <ada@example.org>\n"
    "---\n"
    " drivers/foo/a.c | 2 +-\n"
    "\n"
    "diff --git a/drivers/foo/a.c b/drivers/foo/a.c\n"
    "index 1111111..2222222 100644\n"
    "--- a/drivers/foo/a.c\n"
    "+++ b/drivers/foo/a.c\n"
    "@@ -1,3 +1,3 @@ int foo(void)\n"
    " {\n"
    "-\treturn 0;\n"
    "+\treturn 1; /* Jürgen's value, a very long line that a mail client would wrap at 72 */\n"
    " }\n"
)


def mail(headers: str, body: bytes, *, crlf: bool = False) -> bytes:
    head = (
        "From: Ada Example <ada@example.org>\n"
        "To: linux-kernel@vger.kernel.org\n"
        "Subject: [PATCH] foo: fix it\n"
        "Date: Tue, 4 Mar 2025 09:00:00 +0100\n"
        "Message-ID: <m1@example.org>\n" + headers
    ).encode()
    data = head + b"\n" + body
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    return data


def check_patch_text(msg):
    patch = parse_patch(msg)
    (f,) = patch.files
    (h,) = f.hunks
    assert h.header == "@@ -1,3 +1,3 @@ int foo(void)"
    assert [line.raw for line in h.lines] == [
        " {",
        "-\treturn 0;",
        "+\treturn 1; /* Jürgen's value, a very long line that a mail client would wrap at 72 */",
        " }",
    ]
    assert [t.key for t in patch.trailers] == ["Signed-off-by"]
    return patch


# ------------------------------------------------------------------ headers


def test_basic_headers():
    msg = parse_rfc822(mail("Cc: Bob <bob@example.net>, carol@example.com\n", PATCH_TEXT.encode()), "t.eml")
    assert msg.message_id == "m1@example.org"
    assert msg.subject.title == "foo: fix it"
    assert msg.from_addr == Address("Ada Example", "ada@example.org")
    assert msg.to == (Address("", "linux-kernel@vger.kernel.org"),)
    assert msg.cc == (Address("Bob", "bob@example.net"), Address("", "carol@example.com"))
    assert msg.date == datetime(2025, 3, 4, 8, 0, tzinfo=timezone.utc)
    assert msg.date_raw == "Tue, 4 Mar 2025 09:00:00 +0100"
    assert msg.source == "t.eml"
    assert msg.in_reply_to is None and msg.references == ()
    assert msg.body_start_line == 8  # 6 header lines, the empty line, then the body
    assert not msg.obfuscated and not msg.flowed


def test_rfc2047_subject_and_names():
    data = (
        b"From: =?UTF-8?B?QmrDtnJuIFTDtnBlbA==?= <bjorn@example.org>\n"
        b"Subject: =?iso-8859-1?q?=5BPATCH=5D_f=FCr?=\n =?utf-8?q?_m=C3=B6glich?=\n"
        b'Cc: "Doe, John" <j@x.org>, =?koi8-r?b?8NLJ18XU?= <p@x.ru>\n'
        b"Message-ID: <x@y>\n\nbody\n"
    )
    msg = parse_rfc822(data, "h")
    assert msg.from_addr == Address("Björn Töpel", "bjorn@example.org")
    assert msg.subject.raw == "[PATCH] für möglich"
    assert msg.subject.tags == ("PATCH",)
    assert [a.name for a in msg.cc] == ["Doe, John", "Привет"]


def test_broken_encoded_words_and_unknown_charset_do_not_crash():
    data = (
        b"From: =?x-unknown?q?Ada?= <ada@example.org>\n"
        b"Subject: =?utf-8?b?!!!notbase64?= =?bogus?Q?a=ZZ?= tail\n"
        b"To: a: b@c.d;, broken <<>>, \n"
        b"Message-ID: <x@y>\n\nbody\n"
    )
    msg = parse_rfc822(data, "broken")
    assert msg.subject.raw.endswith("tail")
    assert msg.from_addr is not None and msg.from_addr.email == "ada@example.org"
    assert Address("", "b@c.d") in msg.to


def test_raw_8bit_headers():
    data = "From: Jürgen <j@x.de>\nSubject: [PATCH] ärger\nMessage-ID: <x@y>\n\nbody\n".encode("utf-8")
    msg = parse_rfc822(data, "8bit")
    assert msg.from_addr.name == "Jürgen"
    assert msg.subject.title == "ärger"
    latin = "From: Jürgen <j@x.de>\nSubject: ärger\nMessage-ID: <x@y>\n\nbody\n".encode("latin-1")
    assert parse_rfc822(latin, "latin").subject.title == "ärger"


def test_folded_message_id_and_references():
    data = (
        b"From: a@b.cd\nSubject: Re: x\nMessage-ID:\n <DS1PR16MB@DS1PR16MB6753.namprd16.prod.outlook.com>\n"
        b"In-Reply-To: <p1@x.org>\nReferences: <r0@x.org>\n\t<r1@x.org> (comment <no@x.org>)\n <p1@x.org>\n\nb\n"
    )
    msg = parse_rfc822(data, "fold")
    assert msg.message_id == "DS1PR16MB@DS1PR16MB6753.namprd16.prod.outlook.com"
    assert msg.in_reply_to == "p1@x.org"
    assert msg.references == ("r0@x.org", "r1@x.org", "p1@x.org")


def test_msgid_helpers():
    assert normalize_msgid(" <a@b> ") == "a@b"
    assert normalize_msgid("a@b") == "a@b"
    assert normalize_msgid("") == ""
    assert first_msgid("") is None
    assert first_msgid("(just a comment)") is None
    assert msgid_list("<a@b> <a@b> <c@d>") == ("a@b", "c@d")


def test_missing_message_id_gets_a_stable_synthetic_one():
    data = b"From: a@b.cd\nSubject: x\n\nbody\n"
    one = parse_rfc822(data, "f.eml")
    two = parse_rfc822(data, "f.eml")
    assert one.message_id == two.message_id
    assert one.message_id.endswith("@reviewbot.invalid")
    assert any("synthetic" in n for n in one.notes)
    assert parse_rfc822(data + b"more\n", "f.eml").message_id != one.message_id


@pytest.mark.parametrize(
    "value,expected",
    [
        ("Tue, 4 Mar 2025 09:00:00 +0100", datetime(2025, 3, 4, 8, 0, tzinfo=timezone.utc)),
        ("Fri, 20 Feb 2015 20:25:20 -0800 (PST)", datetime(2015, 2, 21, 4, 25, 20, tzinfo=timezone.utc)),
        ("Mon,  3 Aug 2009 10:00:00 -0000", datetime(2009, 8, 3, 10, 0, tzinfo=timezone.utc)),
        ("4 Mar 2025 09:00:00", datetime(2025, 3, 4, 9, 0, tzinfo=timezone.utc)),
        ("yesterday", None),
        ("Tue, 99 Foo 2025 99:99:99 +9999", None),
        ("", None),
    ],
)
def test_dates(value, expected):
    assert parse_date(value) == expected


def test_broken_date_is_none_with_a_note():
    msg = parse_rfc822(mail("", b"x\n").replace(b"Tue, 4 Mar 2025 09:00:00 +0100", b"garbage"), "d")
    assert msg.date is None and msg.date_raw == "garbage"
    assert any("Date" in n for n in msg.notes)


def test_not_a_mail_raises_naming_the_source():
    with pytest.raises(ParseError, match="empty.eml"):
        parse_rfc822(b"", "empty.eml")
    with pytest.raises(ParseError, match="junk"):
        parse_rfc822(b"\x00\x01\x02 no headers here", "junk")


# ------------------------------------------------------------------ bodies


def test_quoted_printable_utf8():
    body = quopri.encodestring(PATCH_TEXT.encode("utf-8"))
    msg = parse_rfc822(
        mail("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n", body), "qp"
    )
    assert msg.body == PATCH_TEXT
    assert msg.body_start_line == 1  # not verbatim: numbers would not match the file
    check_patch_text(msg)


@pytest.mark.parametrize("charset", ["iso-8859-1", "windows-1252", "iso-8859-15", "utf-8"])
def test_base64_in_declared_charset(charset):
    body = base64.encodebytes(PATCH_TEXT.encode(charset))
    msg = parse_rfc822(
        mail(f'Content-Type: text/plain; charset="{charset}"\nContent-Transfer-Encoding: base64\n', body), "b64"
    )
    assert msg.body == PATCH_TEXT
    check_patch_text(msg)


def test_undeclared_or_wrong_charset_falls_back():
    utf8 = PATCH_TEXT.encode("utf-8")
    # declared us-ascii, sent UTF-8: read as UTF-8
    msg = parse_rfc822(mail("Content-Type: text/plain; charset=us-ascii\n", utf8), "asc")
    assert msg.body == PATCH_TEXT
    # unknown charset, bytes not UTF-8: Latin-1, no crash
    latin = PATCH_TEXT.encode("latin-1")
    msg = parse_rfc822(mail("Content-Type: text/plain; charset=x-made-up\n", latin), "unk")
    assert msg.body == PATCH_TEXT
    # invalid UTF-8 declared as UTF-8: replacement characters
    msg = parse_rfc822(mail("Content-Type: text/plain; charset=utf-8\n", b"a\xff\xfeb\n"), "bad")
    assert msg.body == "a\ufffd\ufffdb\n"


def test_crlf_mail_becomes_lf_but_bare_cr_survives():
    text = PATCH_TEXT.replace(" {\n", " {\r \n", 1)  # a bare CR inside the context line
    data = mail("", text.encode()).replace(b"\n", b"\r\n").replace(b"\r\r\n", b"\r\n").replace(b"{\r \r\n", b"{\r \r\n")
    msg = parse_rfc822(data, "crlf")
    assert "\r\n" not in msg.body
    assert " {\r \n" in msg.body
    patch = parse_patch(msg)
    assert patch.files[0].hunks[0].lines[0].text == "{\r "
    assert patch.files[0].added_count == 1


def flowed_wrap(text: str, *, delsp: bool, width: int = 60) -> str:
    """Produce format=flowed text the way Thunderbird does (space-stuffing, soft breaks)."""
    out = []
    for line in text.split("\n"):
        if line.startswith((" ", "From ", ">")):
            line = " " + line
        while len(line) > width:
            cut = line.rfind(" ", 1, width)
            if cut <= 0:
                break
            out.append(line[: cut + 1] + (" " if delsp else ""))
            line = line[cut + 1 :]
            if line.startswith(" "):
                line = " " + line
        out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("delsp", [False, True])
@pytest.mark.parametrize("cte", ["7bit-like", "8bit", "quoted-printable", "base64"])
def test_format_flowed_every_encoding(delsp, cte):
    wrapped = flowed_wrap(PATCH_TEXT, delsp=delsp)
    assert wrapped != PATCH_TEXT
    raw = wrapped.encode("utf-8")
    if cte == "quoted-printable":
        raw = quopri.encodestring(raw)
    elif cte == "base64":
        raw = base64.encodebytes(raw)
    ct = "text/plain; charset=utf-8; format=flowed" + ("; delsp=yes" if delsp else "")
    cte_header = "8bit" if cte == "7bit-like" else cte
    msg = parse_rfc822(mail(f"Content-Type: {ct}\nContent-Transfer-Encoding: {cte_header}\n", raw), "flowed")
    assert msg.flowed is True
    assert FLOWED_NOTE in msg.notes
    assert msg.body == PATCH_TEXT
    patch = check_patch_text(msg)
    assert any("format=flowed" in w for w in patch.warnings)


def test_unflow_rules():
    assert unflow("a \nb\n") == "a b\n"
    assert unflow("a \nb\n", delsp=True) == "ab\n"
    assert unflow(" stuffed\n") == "stuffed\n"
    assert unflow("-- \nsig\n") == "-- \nsig\n"  # the signature separator is not flowed
    assert unflow("> quoted \n> more\nplain\n") == "> quoted more\nplain\n"
    assert unflow(">> a \nb\n") == ">> a \nb\n"  # quote depth changes end a paragraph
    assert unflow("last \n") == "last \n"


def test_multipart_inline_and_attachment():
    patch_file = (
        "From 1234 Mon Sep 17 00:00:00 2001\nFrom: Ada <ada@example.org>\nSubject: [PATCH] x\n\n" + PATCH_TEXT
    ).encode()
    body = (
        b"This is a multi-part message in MIME format.\n"
        b"--BOUND\nContent-Type: text/plain; charset=utf-8\n\nPlease see the attached patch.\n"
        b"--BOUND\nContent-Type: text/html\n\n<p>html</p>\n"
        b'--BOUND\nContent-Type: text/x-patch; name="0001-x.patch"\nContent-Disposition: attachment; filename="0001-x.patch"\n'
        b"Content-Transfer-Encoding: base64\n\n"
        + base64.encodebytes(patch_file)
        + b'--BOUND\nContent-Type: application/pgp-signature; name="signature.asc"\n\nsig\n'
        b"--BOUND--\nepilogue\n"
    )
    msg = parse_rfc822(mail('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BOUND"\n', body), "mp")
    assert msg.body == "Please see the attached patch.\n"
    assert [(a.index, a.filename, a.content_type) for a in msg.attachments] == [
        (1, "0001-x.patch", "text/x-patch"),
        (2, "signature.asc", "application/pgp-signature"),
    ]
    assert msg.attachments[0].size == len(patch_file)
    assert msg.attachments[0].text == patch_file.decode()
    assert msg.attachments[1].text is None
    patch = check_patch_text(msg)
    assert any("0001-x.patch" in w for w in patch.warnings)
    assert patch.commit_message.startswith("Fix it.")


def test_multipart_two_inline_parts_like_the_archive():
    body = (
        b"--B\nContent-Type: text/plain\n\nfirst\n"
        b"--B\nContent-Type: text/plain; charset=iso-8859-1\nContent-Disposition: attachment\n\nsecond \xe4\n"
        b"--B--\n"
    )
    msg = parse_rfc822(mail('Content-Type: multipart/mixed; boundary="B"\n', body), "mp2")
    # a Content-Disposition: attachment without parameters is shown inline (blists quirk)
    assert msg.body == "first\n\nsecond ä\n"
    assert msg.attachments == ()


def test_in_body_from_header_is_not_commit_message():
    body = ("From: Real Author <real@example.org>\n\n" + PATCH_TEXT).encode()
    msg = parse_rfc822(mail("", body), "inbody")
    patch = check_patch_text(msg)
    assert patch.commit_message.startswith("Fix it.")
    assert patch.commit_start_line == msg.body_start_line + 2


# ------------------------------------------------------------------ archive kind


def archive_raw(**kw) -> RawMessage:
    base = dict(
        source="https://lists.openwall.net/linux-kernel/2019/07/24/1",
        kind="archive",
        header_lines=(
            ("Message-Id", "<20190724040118.GA31214@sultan-box.localdomain>"),
            ("Date", "Tue, 23 Jul 2019 22:01:18 -0600"),
            ("From", "Sultan Alsawaf <sultan@...neltoast.com>"),
            ("To", "Andreas Dilger <adilger@...ger.ca>"),
            (
                "CC",
                "Alexander Viro <viro@...iv.linux.org.uk>,\n        linux-fsdevel@...r.kernel.org, linux-kernel@...r.kernel.org",
            ),
            ("Subject", "Re: [PATCH] mbcache: Speed up cache\n entry creation"),
        ),
        body="On Tue, Jul 23, 2019, Andreas Dilger wrote:\n> quoted\n\nSigned-off-by: Ada <ada@...mple.org>\n",
        list_name="linux-kernel",
        archive_url="https://lists.openwall.net/linux-kernel/2019/07/24/1",
        attachments=(
            AttachmentRef(
                1, "0001-x.patch", "text/x-patch", 10, url="https://lists.openwall.net/linux-kernel/2019/07/24/1/1"
            ),
        ),
        thread_prev_url="https://lists.openwall.net/linux-kernel/2019/07/23/5",
        thread_next_url=None,
    )
    base.update(kw)
    return RawMessage(**base)


def test_archive_message():
    msg = parse_message(archive_raw())
    assert msg.message_id == "20190724040118.GA31214@sultan-box.localdomain"
    assert msg.date == datetime(2019, 7, 24, 4, 1, 18, tzinfo=timezone.utc)
    assert msg.from_addr == Address("Sultan Alsawaf", "sultan@...neltoast.com", partial=True)
    assert [a.email for a in msg.cc] == [
        "viro@...iv.linux.org.uk",
        "linux-fsdevel@...r.kernel.org",
        "linux-kernel@...r.kernel.org",
    ]
    assert all(a.partial for a in msg.cc)
    assert msg.subject.title == "mbcache: Speed up cache entry creation"
    assert msg.subject.is_reply
    assert msg.obfuscated and msg.in_reply_to is None and msg.references == ()
    assert msg.list_name == "linux-kernel" and msg.archive_url.endswith("/24/1")
    assert msg.thread_prev_url.endswith("/23/5") and msg.thread_next_url is None
    assert msg.attachments[0].filename == "0001-x.patch"
    assert msg.body.startswith("On Tue")


def test_archive_header_spellings_and_missing_id():
    raw = archive_raw(header_lines=(("message-id", "\n <a@b.c>"), ("date", "\tFri, 20 Feb 2015 20:25:20 -0800 (PST)")))
    msg = parse_message(raw)
    assert msg.message_id == "a@b.c"
    assert msg.date == datetime(2015, 2, 21, 4, 25, 20, tzinfo=timezone.utc)
    assert msg.from_addr is None and msg.subject.raw == ""
    nomid = parse_message(archive_raw(header_lines=(("Subject", "x"),)))
    assert nomid.message_id.endswith("@reviewbot.invalid")
    assert nomid.message_id == parse_message(archive_raw(header_lines=(("Subject", "x"),))).message_id


def test_archive_diff_lines_with_obfuscation_are_altered():
    body = (
        "Signed-off-by: Ada <ada@...mple.org>\n---\n"
        "diff --git a/Makefile b/Makefile\n--- a/Makefile\n+++ b/Makefile\n@@ -1,2 +1,2 @@\n"
        " all:\n-\tcp $< $@\n+\tcp $< $@...p && mv $@.tmp $@\n"
    )
    msg = parse_message(archive_raw(body=body, header_lines=(("Message-ID", "<q@r.s>"), ("Subject", "[PATCH] x"))))
    patch = parse_patch(msg)
    lines = patch.files[0].hunks[0].lines
    assert [(line.kind.value, line.altered) for line in lines] == [(" ", False), ("-", False), ("+", True)]
    assert patch.trailers[0].value == "Ada <ada@...mple.org>"


def test_rfc822_raw_with_archive_fields_keeps_them():
    raw = RawMessage(
        source="x", kind="rfc822", data=mail("", b"b\n"), list_name="linux-kernel", archive_url="https://e/x"
    )
    msg = parse_message(raw)
    assert msg.list_name == "linux-kernel" and msg.archive_url == "https://e/x"


def test_unknown_kind():
    with pytest.raises(ParseError, match="src"):
        parse_message(RawMessage(source="src", kind="weird"))  # type: ignore[arg-type]


def test_signed_alternative_and_forwarded_parts():
    signed = (
        b'--S\nContent-Type: multipart/alternative; boundary="A"\n\n'
        b"--A\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\nplain =C3=A4\n"
        b"--A\nContent-Type: text/html\n\n<p>html</p>\n--A--\n"
        b"--S\nContent-Type: message/rfc822\n\nFrom: Fwd <f@x.org>\nSubject: inner\n\ninner body\n"
        b'--S\nContent-Type: application/pgp-signature; name="signature.asc"\n'
        b'Content-Disposition: attachment; filename="signature.asc"\n\n-----BEGIN PGP SIGNATURE-----\n--S--\n'
    )
    msg = parse_rfc822(
        mail('Content-Type: multipart/signed; boundary="S"; protocol="application/pgp-signature"\n', signed), "s"
    )
    assert msg.body.startswith("plain ä\n\n")
    assert "From: Fwd <f@x.org>\nSubject: inner\n\ninner body" in msg.body
    assert "<p>html</p>" not in msg.body
    assert [(a.index, a.filename, a.content_type) for a in msg.attachments] == [
        (1, "signature.asc", "application/pgp-signature")
    ]
    assert msg.body_start_line == 1


def test_hostile_headers_stay_linear_and_never_raise():
    big_to = ("a " * 200_000).encode()
    data = (
        b"From: "
        + b"<" * 100_000
        + b"\nTo: "
        + big_to
        + b"\nSubject: "
        + b"=?utf-8?q?x?= " * 20_000
        + b"\nMessage-ID: <x@y>\n\nb\n"
    )
    msg = parse_rfc822(data, "hostile")
    assert msg.message_id == "x@y"
    assert msg.subject.raw.startswith("x")


def test_null_sender_of_a_bounce_keeps_its_name():
    """``From: Name <>`` (a bounce's null sender): git mailinfo gives the name and an empty address."""
    data = (
        b"From: Postmaster Robot <>\nTo: dev@example.org\nSubject: Undeliverable: hello\n"
        b"Message-ID: <bounce-1@example.org>\n\nYour mail could not be delivered.\n"
    )
    msg = parse_rfc822(data, "bounce.eml")
    assert (msg.from_addr.name, msg.from_addr.email) == ("Postmaster Robot", "")
    assert (
        parse_rfc822(data.replace(b"Postmaster Robot <>", b'"Mail System" < >'), "b.eml").from_addr.name
        == "Mail System"
    )
    assert parse_rfc822(data.replace(b"Postmaster Robot <>", b"<>"), "b.eml").from_addr is None


def test_from_comment_read_as_git_mailinfo_reads_the_author():
    """A comment in From: stays in the author's name as git keeps it; after a bare address it is the name."""

    def author(value: bytes):
        data = b"From: " + value + b"\nSubject: [PATCH] x: y\nMessage-ID: <c-1@example.org>\n\nText.\n"
        a = parse_rfc822(data, "c.eml").from_addr
        return a.name, a.email

    assert author(b"<dev@example.net> (Dana Dev)") == ("Dana Dev", "dev@example.net")
    assert author(b"Dana\n  (work)\n  Dev <dev@example.net> (Lab)") == ("Dana (work) Dev (Lab)", "dev@example.net")
    assert author(b"Dana Dev <dev@example.net>") == ("Dana Dev", "dev@example.net")


def test_an_in_reply_to_written_in_encoded_words_is_decoded() -> None:
    # a bot that encodes its threading headers (tip-bot2 does for long ids): git am and public-inbox thread the
    # mail under the decoded id; read raw, it replied to nothing and a merged commit's notice looked like a patch
    from reviewbot.parse.mail import parse_rfc822

    raw = (
        b"From: bot <bot@example.org>\nMessage-ID: <n-1@example.org>\nSubject: [tip: x/core] qux: fix\n"
        b"In-Reply-To: =?utf-8?q?=3Cabc123=2E1652954372=2Egit=2Eada=40exam?=\n =?utf-8?q?ple=2Eorg=3E?=\n"
        b"References: =?utf-8?q?=3Cabc123=2E1652954372=2Egit=2Eada=40example=2Eorg=3E?=\n\nbody\n"
    )
    msg = parse_rfc822(raw, "notice.eml")
    assert msg.in_reply_to == "abc123.1652954372.git.ada@example.org"
    assert msg.references == ("abc123.1652954372.git.ada@example.org",)
