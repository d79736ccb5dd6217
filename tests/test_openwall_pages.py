"""blists page parsing on real mirror pages: single pages from tests/data, whole-mirror checks from ../shared."""

from __future__ import annotations

import email.policy
import mailbox
import re
from datetime import date

import pytest

from conftest import CORPUS, DATA_MIRROR, MIRROR
from reviewbot.errors import ParseError, UsageError
from reviewbot.fetch import openwall as ow

BASE = "https://lists.openwall.net"
LK = DATA_MIRROR / "linux-kernel"  # the pages shipped in tests/data
ALL = MIRROR / "linux-kernel"  # the whole shared mirror


def page(rel: str) -> bytes:
    return (LK / rel).read_bytes()


def manifest(root=MIRROR) -> list[tuple[str, str, int]]:
    rows = []
    for line in (root / "manifest.tsv").read_text().splitlines()[1:]:
        mid, path, _when, _src, atts = line.split("\t")
        rows.append((mid, path, int(atts)))
    return rows


# ------------------------------------------------------------------ URLs


def test_url_builders_are_slash_terminated_and_zero_padded():
    assert ow.list_url(BASE, "linux-kernel") == "https://lists.openwall.net/linux-kernel/"
    assert ow.year_url(BASE + "/", "netdev", 2023) == "https://lists.openwall.net/netdev/2023/"
    assert ow.month_url(BASE, "linux-kernel", 2023, 6) == "https://lists.openwall.net/linux-kernel/2023/06/"
    assert ow.day_url(BASE, "linux-kernel", date(2019, 7, 4)) == "https://lists.openwall.net/linux-kernel/2019/07/04/"
    assert (
        ow.message_url(BASE, "linux-kernel", date(2019, 7, 4), 12)
        == "https://lists.openwall.net/linux-kernel/2019/07/04/12"
    )


@pytest.mark.parametrize("name", ["../etc", "Linux-Kernel", "", "a/b", "-x", "lk\x00", "a b", "x" * 80])
def test_bad_list_names_are_usage_errors(name):
    with pytest.raises(UsageError) as err:
        ow.validate_list_name(name)
    assert repr(name) in str(err.value)


def test_month_13_is_refused():
    with pytest.raises(UsageError):
        ow.month_url(BASE, "linux-kernel", 2023, 13)


@pytest.mark.parametrize(
    "path,kind,parts",
    [
        ("/linux-kernel/", "list", (None, None, None, None, None)),
        ("/linux-kernel/2023/", "year", (2023, None, None, None, None)),
        ("/linux-kernel/2023/06/", "month", (2023, 6, None, None, None)),
        ("/linux-kernel/2023/06/01/", "day", (2023, 6, 1, None, None)),
        ("/linux-kernel/2023/06/01/17", "message", (2023, 6, 1, 17, None)),
        ("/linux-kernel/2019/08/23/1/2", "attachment", (2019, 8, 23, 1, 2)),
        ("/linux-kernel/1970/01/01/", "day", (1970, 1, 1, None, None)),
    ],
)
def test_classify_url(path, kind, parts):
    info = ow.classify_url(BASE + path)
    assert info.kind == kind
    assert info.list_name == "linux-kernel"
    assert (info.year, info.month, info.day, info.number, info.attachment) == parts
    assert info.path == path


@pytest.mark.parametrize(
    "path",
    [
        "/linux-kernel",
        "/linux-kernel/2023",
        "/linux-kernel/2023/6/",
        "/linux-kernel/2023/06/01/0",
        "/linux-kernel/2023/06/01/01",
        "/linux-kernel/2023/06/01/1/",
        "/linux-kernel/2023/13/",
        "/linux-kernel/2023/02/30/",
        "/Linux/2023/",
        "/linux-kernel/2023/06/01/1/1/1",
        "/linux-kernel/%32023/",
        "/linux-kernel/2023/06/01/1?x=1",
        "/linux-kernel/../etc/",
    ],
)
def test_classify_rejects_everything_else(path):
    with pytest.raises(ow.BadArchiveURL) as err:
        ow.classify_url(BASE + path)
    assert err.value.url == BASE + path
    assert isinstance(err.value, ValueError)


# ------------------------------------------------------------------ error pages


def test_error_reason_on_blists_error_pages():
    body = (
        b"<html><head><title>The request has failed: No such message</title>\n"
        b'<meta name="robots" content="noindex"></head><body>\n'
        b"<p>The request has failed: No such message\n"
        b'<p><a href="https://www.openwall.com/blists/">Powered by blists</a> - more\n'
    )
    assert ow.error_reason(body) == "No such message"
    # "No messages for this month" keeps the month title; only the body says it
    month = (
        b"<title>linux-kernel mailing list - 2023/02</title></head><body>\n"
        b'<a href="..">[year]</a>\n<p>The request has failed: No messages for this month\n'
        b'<p><a href="https://www.openwall.com/blists/">Powered by blists</a>\n'
    )
    assert ow.error_reason(month) == "No messages for this month"


def test_error_reason_is_none_on_real_pages():
    for rel in ("index.html", "2023/index.html", "2023/06/index.html", "2023/06/01/index.html", "2023/06/01/1.html"):
        assert ow.error_reason(page(rel)) is None


def test_message_mentioning_the_error_text_is_not_an_error_page():
    head, pre = page("2023/06/01/1.html").split(b'pre-wrap">', 1)
    body = (
        head
        + b'pre-wrap">'
        + pre.replace(b"\n\n", b"\n\nIt said: &lt;p&gt;The request has failed: No such message\n", 1)
    )
    assert ow.error_reason(body) is None


# ------------------------------------------------------------------ index pages


@pytest.mark.shared
def test_list_page_lists_every_month_with_mail():
    months = ow.parse_list_page(page("index.html"), BASE + "/linux-kernel/")
    dirs = sorted((int(p.parent.name), int(p.name)) for p in ALL.glob("[12][0-9][0-9][0-9]/[01][0-9]") if p.is_dir())
    assert sorted(months) == dirs
    assert months[0] == (2026, 1)  # newest year first, as the page shows
    assert (2018, 11) in months and (2019, 1) not in months


def test_year_page_months():
    assert ow.parse_year_page(page("2019/index.html"), BASE + "/linux-kernel/2019/") == [
        (2019, m) for m in range(4, 13)
    ]
    assert ow.parse_year_page(page("2018/index.html"), BASE + "/linux-kernel/2018/") == [(2018, 11)]


def test_month_page_days_come_from_the_calendar():
    days = ow.parse_month_page(page("2023/06/index.html"), BASE + "/linux-kernel/2023/06/")
    assert days == [date(2023, 6, d) for d in (1, 9, 12, 13, 14, 23, 25, 27, 28, 29)]


@pytest.mark.shared
def test_every_month_page_matches_the_day_directories():
    for month_dir in sorted(p for p in ALL.glob("[12]*/[01][0-9]") if p.is_dir()):
        y, m = int(month_dir.parent.name), int(month_dir.name)
        url = ow.month_url(BASE, "linux-kernel", y, m)
        days = ow.parse_month_page((month_dir / "index.html").read_bytes(), url)
        expected = sorted(date(y, m, int(d.name)) for d in month_dir.iterdir() if d.is_dir())
        assert days == expected, url


def test_month_page_beyond_99_per_day_uses_calendar_links():
    # blists lists at most 99 entries per day on month pages: the calendar still links the day
    body = (
        b'<a href="..">[year]</a> <a href="../..">[list]</a>\n'
        b"<p><h2>linux-kernel mailing list - 2023/06</h2>\n\n"
        b"<table border=0 class=cal_mon><tr><th>Mon<th>Tue<th>Wed<th>Thu<th>Fri<th>Sat<th>Sun\n"
        b'<tr><td><sup>5</sup>&nbsp;<a href="05/">102</a><td><sup>6</sup>&nbsp;\n</table>\n'
        b'<p>Messages by day:\n<p>\n<b>June 5</b> (<a href="05/">102 messages</a>)<br>\n<ul>\n'
        b'<li><a href="05/1">bulk 1</a> (Bulk &lt;x&#64;...mple.com&gt;)\n'
        b'<li><a href="05/">3 more messages</a>\n</ul>\n<p>102 messages\n'
        b'<p><a href="https://www.openwall.com/blists/">Powered by blists</a>\n'
    )
    assert ow.parse_month_page(body, BASE + "/linux-kernel/2023/06/") == [date(2023, 6, 5)]


def test_day_page_with_many_messages():
    url = BASE + "/linux-kernel/2024/05/30/"
    refs = ow.parse_day_page(page("2024/05/30/index.html"), url)
    files = sorted(int(p.stem) for p in (LK / "2024/05/30").glob("*.html") if p.stem.isdigit())
    assert [r.number for r in refs] == files == list(range(1, 33))
    assert all(r.url == f"{url}{r.number}" for r in refs)
    assert all(r.day == "2024-05-30" and r.list_name == "linux-kernel" for r in refs)
    assert all("&" not in r.subject or "&amp;" not in r.subject for r in refs)


def test_day_page_entries_unescaped_once_and_whitespace_collapsed():
    refs = ow.parse_day_page(page("2023/06/13/index.html"), BASE + "/linux-kernel/2023/06/13/")
    assert refs[0].subject == "Re: [PATCH 5/6] io_uring: add support for futex wake and wait"
    assert refs[0].author == "Jens Axboe <axboe@...nel.dk>"
    # folded subject: newline + space inside the link
    assert refs[1].subject == (
        "io_uring link semantics (was [PATCH 5/6] io_uring: add support for futex wake and wait)"
    )
    assert not any(r.truncated for r in refs)


def test_day_page_truncated_entries_and_empty_fields():
    body = (
        '<a href="..">[month]</a>\n<p><h2>linux-kernel mailing list - 2023/06/02</h2>\n<ul>\n'
        '<li><a href="1">Re: [PATCH 0/2] demo: a series</a> (Björn Töpel &lt;bjorn&#64;...mple.org&gt;)\n'
        '<li><a href="2">(no subject)</a> ()\n'
        '<li><a href="3">[PATCH 1/2] demo: a very long subject line that goes on and on'
        " arou&hellip;</a> (Alice Example &lt;alice&#64;...mple.com&gt;)\n"
        '<li><a href="4">[PATCH] x: a &amp;amp; b</a> (Bob (ACME) &lt;b&#64;...mple.&hellip;)\n'
        '<li><a href="../../../2023/06/03/1">foreign</a> (x)\n'
        "</ul>\n<p>5 messages\n"
        '<p><a href="https://www.openwall.com/blists/">Powered by blists</a> - more\n'
    ).encode()
    refs = ow.parse_day_page(body, BASE + "/linux-kernel/2023/06/02/")
    assert [r.number for r in refs] == [1, 2, 3, 4]
    assert refs[0].author == "Björn Töpel <bjorn@...mple.org>" and not refs[0].truncated
    assert (refs[1].subject, refs[1].author) == ("(no subject)", "")
    assert refs[2].truncated and refs[2].subject.endswith("arou…")
    assert refs[3].subject == "[PATCH] x: a &amp; b"  # decoded exactly once
    assert refs[3].author == "Bob (ACME) <b@...mple.…" and refs[3].truncated


def test_error_page_is_not_a_day_page():
    body = (
        b"<title>The request has failed: No messages for this day</title>\n"
        b"<p>The request has failed: No messages for this day\n<p>Powered by blists\n"
    )
    with pytest.raises(ParseError) as err:
        ow.parse_day_page(body, BASE + "/linux-kernel/2023/06/02/")
    assert "No messages for this day" in str(err.value)
    assert "2023/06/02" in str(err.value)


def test_every_day_page_of_the_fixture_lists_every_message_file():
    total = 0
    for index in LK.glob("[12]*/[01][0-9]/[0-3][0-9]/index.html"):
        rel = index.parent.relative_to(DATA_MIRROR)
        refs = ow.parse_day_page(index.read_bytes(), f"{BASE}/{rel}/")
        files = sorted(int(p.stem) for p in index.parent.glob("*.html") if p.stem.isdigit())
        assert [r.number for r in refs] == files, rel
        total += len(refs)
    assert total == len(manifest(DATA_MIRROR)) > 300


@pytest.mark.shared
def test_every_day_page_lists_every_message_file():
    total = 0
    for index in ALL.glob("[12]*/[01][0-9]/[0-3][0-9]/index.html"):
        rel = index.parent.relative_to(MIRROR)
        refs = ow.parse_day_page(index.read_bytes(), f"{BASE}/{rel}/")
        files = sorted(int(p.stem) for p in index.parent.glob("*.html") if p.stem.isdigit())
        assert [r.number for r in refs] == files, rel
        total += len(refs)
    assert total == len(manifest()) == 4419


# ------------------------------------------------------------------ message pages


def test_message_page_headers_body_and_nav():
    url = BASE + "/linux-kernel/2019/08/23/1"
    raw = ow.parse_message_page(page("2019/08/23/1.html"), url, "linux-kernel")
    h = dict(raw.header_lines)
    assert [k for k, _ in raw.header_lines] == ["Message-ID", "Date", "From", "To", "Cc", "Subject"]
    assert h["Message-ID"] == "<20190823102801.GG12092@stefanha-x1.localdomain>"
    assert h["Date"] == "Fri, 23 Aug 2019 11:28:01 +0100"  # padded "Date:   " stripped
    assert h["From"] == "Stefan Hajnoczi <stefanha@...hat.com>"
    assert h["Cc"].split("\n") == [
        "Jens Axboe <axboe@...nel.dk>, linux-block@...r.kernel.org,",
        "Christoph Hellwig <hch@....de>,",
        "Roman Penyaev <rpenyaev@...e.de>,",
        "Julia Suvorova <jusual@...hat.com>",
    ]
    assert raw.kind == "archive" and raw.source == url and raw.archive_url == url
    assert raw.list_name == "linux-kernel"
    assert raw.thread_prev_url == BASE + "/linux-kernel/2019/08/22/3"
    assert raw.thread_next_url is None
    assert raw.body.startswith("On Thu, Aug 22, 2019 at 07:54:08AM -0700, Bart Van Assche wrote:\n> On 8/22/19 6:14 AM")
    # the signature attachment line is gone, the text part ends as it did
    assert raw.body.endswith("liburing.git patch :P.\n\nStefan\n")
    assert "attachment" not in raw.body and "Powered by" not in raw.body
    assert raw.attachments == (
        ow.AttachmentRef(
            index=1,
            filename="signature.asc",
            content_type="application/pgp-signature",
            size=489,
            url=BASE + "/linux-kernel/2019/08/23/1/1",
        ),
    )


@pytest.mark.shared
def test_all_attachments_of_the_mirror():
    headers = sorted(MIRROR.rglob("*.headers"))
    assert len(headers) == 59
    for meta in headers:
        att = meta.with_suffix("")  # N/A
        number, index = int(att.parent.name), int(att.name)
        day_dir = att.parent.parent
        rel = day_dir.relative_to(MIRROR)
        url = f"{BASE}/{rel}/{number}"
        raw = ow.parse_message_page((day_dir / f"{number}.html").read_bytes(), url, "linux-kernel")
        refs = {a.index: a for a in raw.attachments}
        assert index in refs, url
        ref = refs[index]
        length = re.search(r"Content-Length: (\d+)", meta.read_text()).group(1)
        assert ref.size == int(length) == att.stat().st_size
        assert ref.url == f"{url}/{index}"
        assert ref.filename and ref.content_type
        assert f'"{ref.filename}"' not in raw.body


def test_text_patch_attachment():
    raws = []
    for meta in DATA_MIRROR.rglob("*.headers"):
        if "text/" in meta.read_text():
            att = meta.with_suffix("")
            day_dir = att.parent.parent
            url = f"{BASE}/{day_dir.relative_to(DATA_MIRROR)}/{att.parent.name}"
            raws.append(ow.parse_message_page((day_dir / f"{att.parent.name}.html").read_bytes(), url, "linux-kernel"))
    types = {a.content_type for r in raws for a in r.attachments}
    assert "text/x-patch" in types
    patch_diff = [a for r in raws for a in r.attachments if a.filename == "patch.diff"]
    assert patch_diff and patch_diff[0].content_type == "text/x-patch" and patch_diff[0].size == 5325


def test_skipped_content_line_is_removed():
    url = BASE + "/linux-kernel/2019/06/24/1"
    body = page("2019/06/24/1.html")
    assert b"Content of type" in body
    raw = ow.parse_message_page(body, url, "linux-kernel")
    assert "Content of type" not in raw.body and "skipped" not in raw.body[-200:]
    assert raw.attachments == ()


def test_folded_message_id_on_the_next_line():
    raw = ow.parse_message_page(page("2025/12/17/2.html"), BASE + "/linux-kernel/2025/12/17/2", "linux-kernel")
    h = dict(raw.header_lines)
    assert h["Message-ID"] == ("<DU2PR04MB85674FE4D7603484469B5127EDABA@DU2PR04MB8567.eurprd04.prod.outlook.com>")
    assert h["Subject"] == (
        "RE: [EXT] Re: [PATCH v2 0/2] Optimize secure erase performance for\ncertain Kingston eMMC devices"
    )


@pytest.mark.parametrize("spelling", ["Message-Id:", "CC:", "cc:"])
def test_header_spellings_of_the_mirror_are_normalised(spelling):
    hits = [
        p
        for p in LK.rglob("*.html")
        if p.stem.isdigit()
        and f"\n{spelling}".encode() in p.read_bytes().split(b'pre-wrap">', 1)[-1].split(b"\n\n", 1)[0]
    ]
    assert hits, spelling
    raw = ow.parse_message_page(hits[0].read_bytes(), f"{BASE}/{hits[0].relative_to(DATA_MIRROR)}"[:-5], "linux-kernel")
    names = [k for k, _ in raw.header_lines]
    assert {"Message-ID", "Date", "From", "To", "Cc", "Subject"} >= set(names)
    assert len(names) == len(set(names))


@pytest.mark.parametrize("sep,fold", [("\t", "\t"), ("   ", "        "), (" ", " ")])
def test_header_block_in_every_spacing(sep, fold):
    pre = (
        f'<a href=".">[day]</a> <a href="..">[month]</a> <a href="../..">[year]</a> '
        f'<a href="../../..">[list]</a>\n<pre style="white-space: pre-wrap">\n'
        f"Message-ID: &lt;1&#64;x.example&gt;\nDate:{sep}Mon,  3 Aug 2009 10:00:00 +0200\n"
        f"From:{sep}A &lt;a&#64;...mple.org&gt;\nTo:{sep}B &lt;b&#64;...mple.org&gt;,\n"
        f"{fold}C &lt;c&#64;...mple.org&gt;\nCc:{sep}d&#64;...mple.org\n"
        f"Subject: [PATCH] x: y\n{fold}z\n\nbody line\n</pre>\n"
        '<p><a href="https://www.openwall.com/blists/">Powered by blists</a>\n'
    )
    raw = ow.parse_message_page(pre.encode(), BASE + "/linux-kernel/2009/08/03/1", "linux-kernel")
    assert raw.header_lines == (
        ("Message-ID", "<1@x.example>"),
        ("Date", "Mon,  3 Aug 2009 10:00:00 +0200"),
        ("From", "A <a@...mple.org>"),
        ("To", "B <b@...mple.org>,\nC <c@...mple.org>"),
        ("Cc", "d@...mple.org"),
        ("Subject", "[PATCH] x: y\nz"),
    )
    assert raw.body == "body line\n"


def test_message_without_headers_and_censored():
    pre = (
        '<a href=".">[day]</a>\n<pre style="white-space: pre-wrap">\n'
        "Subject: spam\n\n"
        '<span style="font-family: times;"><strong>Content removed</strong></span>\n</pre>\n'
        "<p>Powered by blists\n"
    )
    raw = ow.parse_message_page(pre.encode(), BASE + "/linux-kernel/2020/01/01/1", "linux-kernel")
    assert raw.censored and raw.header_lines == (("Subject", "spam"),)
    assert raw.body == ""
    bare = '<pre style="white-space: pre-wrap">\n\nonly a body\n</pre>\nPowered by blists'
    raw = ow.parse_message_page(bare.encode(), BASE + "/linux-kernel/2020/01/01/2", "linux-kernel")
    assert raw.header_lines == () and raw.body == "only a body\n" and not raw.censored


def test_thread_links_resolved_against_the_message_url():
    nav = (
        '<a href="../../../2023/06/01/1">[&lt;prev]</a> <a href="2">[next&gt;]</a> '
        '<a href="../../../2022/12/31/7">[&lt;thread-prev]</a> <a href="3">[thread-next&gt;]</a> '
        '<a href=".">[day]</a> <a href="..">[month]</a> <a href="../..">[year]</a> '
        '<a href="../../..">[list]</a>\n<pre style="white-space: pre-wrap">\n'
        "Subject: Re: x\n\nhi\n</pre>\n<p>Powered by blists\n"
    )
    raw = ow.parse_message_page(nav.encode(), BASE + "/linux-kernel/2023/06/02/1", "linux-kernel")
    assert raw.thread_prev_url == BASE + "/linux-kernel/2022/12/31/7"
    assert raw.thread_next_url == BASE + "/linux-kernel/2023/06/02/3"


def test_invalid_utf8_bytes_become_replacement_characters():
    head, pre = page("2023/06/01/1.html").split(b'pre-wrap">', 1)
    body = head + b'pre-wrap">' + pre.replace(b"\n\n", b"\n\nbad \xff\xfe bytes \xc3\n", 1)
    raw = ow.parse_message_page(body, BASE + "/linux-kernel/2023/06/01/1", "linux-kernel")
    assert raw.body.startswith("bad \ufffd\ufffd bytes \ufffd\n")


@pytest.mark.parametrize(
    "body",
    [b"", b"garbage", b"<html><body>nothing</body></html>", b'<pre style="white-space: pre-wrap">\ncut off here'],
)
def test_garbage_is_a_parse_error_naming_the_url(body):
    url = BASE + "/linux-kernel/2023/06/01/1"
    with pytest.raises(ParseError) as err:
        ow.parse_message_page(body, url, "linux-kernel")
    assert url in str(err.value)


def _obfuscate(text: str) -> str:
    """blists' address obfuscation (format doc section 9), to compare mbox text with pages."""
    chars = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$%&'*+-/=?^_`{|}~")
    out, i = [], 0
    while i < len(text):
        if (
            text[i] == "@"
            and i > 0
            and text[i - 1] in chars
            and len(text) >= i + 5
            and all(c in chars for c in text[i + 1 : i + 5])
        ):
            out.append("@...")
            i += 4
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


@pytest.mark.shared
def test_headers_match_the_mbox_for_a_sample_of_300_messages():
    paths = {mid: path for mid, path, _ in manifest()}
    box = mailbox.mbox(
        CORPUS / "lkml-real.mbox",
        create=False,
        factory=lambda f: email.message_from_binary_file(f, policy=email.policy.default),
    )
    checked = 0
    for k, msg in enumerate(box):
        if k % 14:
            continue
        mid = " ".join(str(msg["Message-ID"] or "").split())
        path = paths[mid.strip("<>")]
        raw = ow.parse_message_page((MIRROR / (path.lstrip("/") + ".html")).read_bytes(), BASE + path, "linux-kernel")
        h = dict(raw.header_lines)
        assert " ".join(h["Message-ID"].split()) == mid, path
        subject = re.sub(r"\[linux-kernel\]\s*", "", str(msg["Subject"] or ""), flags=re.I)
        assert " ".join(h.get("Subject", "").split()) == " ".join(_obfuscate(subject).split()), path
        checked += 1
    box.close()
    assert checked >= 300


# ------------------------------------------------------------------ subjects


@pytest.mark.parametrize(
    "subject",
    [
        "[PATCH] mm: fix",
        "[PATCH v2 3/7] mm: fix",
        "[RFC PATCH 0/3] x",
        "[RFC] x: y",
        "[PATCHv2] x",
        "[PATCH1/3] x",
        "[PATCH-next V13 1/3] x",
        "[net-next 1/3] x",
        "[RFC][PATCH] x",
        "  [PATCH 2/2] lead space",
        "[PATCHSET RFC 0/6] x",
        "[patch] lower",
        "[PATCH v5 12/3…",
        "[RESEND PATCH] x",
    ],
)
def test_looks_like_patch(subject):
    assert ow.looks_like_patch(subject)


@pytest.mark.parametrize(
    "subject",
    [
        "Re: [PATCH] mm: fix",
        "RE: [PATCH v2 3/7] x",
        "Fwd: [PATCH] x",
        "AW: [PATCH] x",
        "re:[PATCH] x",
        "Re[2]: [PATCH] x",
        "io_uring link semantics (was [PATCH 5/6] io_uring: x)",
        "(no subject)",
        "",
        "[GIT PULL] fixes",
        "Linux 6.4-rc1",
        "[ANNOUNCE] x",
    ],
)
def test_does_not_look_like_patch(subject):
    assert not ow.looks_like_patch(subject)


def _displayed_text(msg) -> str:
    """What bit shows of a mail: its inline text parts (no file name, not HTML), joined by newlines."""
    parts = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        name = part.get_param("filename", header="content-disposition") or part.get_param("name")
        if name or part.get_content_maintype() != "text" or part.get_content_type() == "text/html":
            continue
        parts.append(part.get_content())
    return "\n".join(parts)


def _comparable(text: str) -> list[str]:
    # bit: CR dropped, other control characters shown as '.'; URL lines keep full addresses
    text = "".join("." if ord(c) < 32 and c not in "\t\n" else c for c in text.replace("\r", ""))
    return [line for line in text.rstrip("\n").split("\n") if "://" not in line]


@pytest.mark.slow
@pytest.mark.shared
def test_bodies_match_the_mbox_up_to_obfuscation():
    """Every corpus message: page body == the mail's displayed text, obfuscated like blists does.

    Lines holding URLs are left out (links keep their full addresses), and so are trailing
    empty lines (the page ends with the last text line).
    """
    paths = {mid: path for mid, path, _ in manifest()}
    box = mailbox.mbox(
        CORPUS / "lkml-real.mbox",
        create=False,
        factory=lambda f: email.message_from_binary_file(f, policy=email.policy.default),
    )
    compared = 0
    for msg in box:
        path = paths[str(msg["Message-ID"]).strip().strip("<>")]
        raw = ow.parse_message_page((MIRROR / (path.lstrip("/") + ".html")).read_bytes(), BASE + path, "linux-kernel")
        assert _comparable(raw.body) == _comparable(_obfuscate(_displayed_text(msg))), path
        compared += 1
    box.close()
    assert compared == 4416


@pytest.mark.shared
def test_thread_links_form_consistent_chains_over_the_whole_mirror():
    """thread-next of A is B  <=>  thread-prev of B is A, across days, months and years."""
    prev_of: dict[str, str] = {}
    next_of: dict[str, str] = {}
    for _mid, path, _n in manifest():
        url = BASE + path
        raw = ow.parse_message_page((MIRROR / (path.lstrip("/") + ".html")).read_bytes(), url, "linux-kernel")
        if raw.thread_prev_url:
            prev_of[url] = raw.thread_prev_url
        if raw.thread_next_url:
            next_of[url] = raw.thread_next_url
    assert len(next_of) == len(prev_of) > 1000
    assert {b: a for a, b in next_of.items()} == prev_of
    crossing = [a for a, b in next_of.items() if a.rsplit("/", 2)[0] != b.rsplit("/", 2)[0]]
    assert crossing  # some chains cross days
    for url in list(prev_of)[:50]:
        assert ow.classify_url(prev_of[url]).kind == "message"


def test_hostile_attachment_name_is_read_from_the_structure():
    name = '" of type "x" (9 bytes)' * 500
    pre = (
        '<a href=".">[day]</a>\n<pre style="white-space: pre-wrap">\nSubject: x\n\nhi\n\n'
        '<span style="font-family: times;"><strong>View attachment "</strong><a href="1/1">'
        + name.replace('"', "&quot;")
        + '</a><strong>" of type "</strong>text/x-diff<strong>" '
        "(5 bytes)</strong></span>\n</pre>\n<p>Powered by blists\n"
    )
    raw = ow.parse_message_page(pre.encode(), BASE + "/linux-kernel/2023/06/01/1", "linux-kernel")
    assert raw.body == "hi\n"
    assert [(a.filename, a.content_type, a.size) for a in raw.attachments] == [(name, "text/x-diff", 5)]


def test_hostile_index_markup_parses_to_nothing():
    month = "<p><h2>x</h2><table class=cal_mon>" + "<a href=" * 20000 + "</table>Powered by blists"
    assert ow.parse_month_page(month.encode(), BASE + "/linux-kernel/2023/06/") == []
    day = "<p><h2>x</h2><ul>" + '<li><a href="1">' * 20000 + "</ul>Powered by blists"
    assert ow.parse_day_page(day.encode(), BASE + "/linux-kernel/2023/06/01/") == []
