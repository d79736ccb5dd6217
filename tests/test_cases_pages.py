"""Shared cases C16 and C17 (blists pages), read byte-exact from ../shared/cases, plus variants
covering every entity and obfuscation form of the format doc (section 9)."""

from __future__ import annotations

import pytest

from conftest import CASES
from reviewbot.fetch import openwall as ow

BASE = "https://lists.openwall.net"
URL16 = BASE + "/linux-kernel/2025/03/19/1"
URL17 = BASE + "/linux-kernel/2025/03/19/2"


@pytest.fixture(scope="module")
def c16():
    return ow.parse_message_page((CASES / "C16.html").read_bytes(), URL16, "linux-kernel")


@pytest.fixture(scope="module")
def c17():
    return ow.parse_message_page((CASES / "C17.html").read_bytes(), URL17, "linux-kernel")


# ------------------------------------------------------------------ C16


def test_c16_message_id_exact(c16):
    assert dict(c16.header_lines)["Message-ID"] == "<20250319090000.7070-1-ada@example.org>"


def test_c16_headers(c16):
    assert c16.header_lines == (
        ("Message-ID", "<20250319090000.7070-1-ada@example.org>"),
        ("Date", "Wed, 19 Mar 2025 10:00:00 +0100"),
        ("From", "Ada Example <ada@...mple.org>"),
        ("To", "linux-kernel@...r.kernel.org"),
        ("Cc", "Bob Sample <bob@...nel.example>"),
        ("Subject", "[PATCH] foo: escape firmware names in the debugfs dump"),
    )


def test_c16_entities_decoded_exactly_once(c16):
    lines = c16.body.split("\n")
    assert "+#include <linux/string.h>" in lines
    assert " #include <linux/debugfs.h>" in lines
    assert " \tfor (i = 0; i < fd->nr_fw && fd->fw[i]; i++) {" in lines
    assert "+\t\t/* '&' becomes \"&amp;\" and '<' becomes \"&lt;\" */" in lines
    assert '-\t\tseq_printf(s, "<fw name=\\"%s\\"/>\\n", fd->fw[i]->name);' in lines
    assert "The firmware dump is read by an XML tool, so names containing '&' or" in lines
    assert "'<' broke it. Format description: https://example.org/foo-fw/dump.html" in lines
    assert "&amp;amp;" not in c16.body and "&#64;" not in c16.body and "&lt;" in c16.body


def test_c16_autolinks_become_their_text(c16):
    assert "Link: https://lore.kernel.org/r/20250301-foo-v1-0-1234@example.org" in c16.body.split("\n")
    assert "<a " not in c16.body and "rel=" not in c16.body


def test_c16_body_is_the_mail_text_only(c16):
    assert c16.body.startswith("The firmware dump is read by an XML tool")
    assert c16.body.endswith("-- \n2.43.0\n")
    for noise in ("[next>]", "[day]", "Powered by blists", "lists.openwall.net", "Message-ID:"):
        assert noise not in c16.body
    assert c16.thread_prev_url is None and c16.thread_next_url is None
    assert c16.attachments == () and not c16.censored
    # the diff is intact: hunk headers and +7/-1 lines
    lines = c16.body.split("\n")
    assert "@@ -1,5 +1,6 @@" in lines
    assert "@@ -20,5 +21,10 @@ static int foo_fw_show(struct seq_file *s, void *unused)" in lines
    diff = lines[lines.index("diff --git a/drivers/foo/debugfs.c b/drivers/foo/debugfs.c") :]
    assert sum(1 for ln in diff if ln.startswith("+") and not ln.startswith("+++")) == 7
    removed = [ln for ln in diff if ln.startswith("-") and not ln.startswith("---") and ln != "-- "]
    assert len(removed) == 1


# ------------------------------------------------------------------ C17


def test_c17_message_id_complete(c17):
    assert dict(c17.header_lines)["Message-ID"] == "<20250319100000.7171-1-ada@example.org>"


def test_c17_addresses_stay_partial(c17):
    h = dict(c17.header_lines)
    assert h["From"] == "Ada Example <ada@...mple.org>"
    assert h["To"] == "linux-kernel@...r.kernel.org"
    assert h["Cc"] == "Bob Sample <bob@...nel.example>, Carol Test <carol@...mple.net>"
    lines = c17.body.split("\n")
    assert "Reported-by: Carol Test <carol@...mple.net>" in lines
    assert "Signed-off-by: Ada Example <ada@...mple.org>" in lines
    assert "+M:\tAda Example <ada@...mple.org>" in lines
    assert " L:\tlinux-kernel@...r.kernel.org" in lines
    # the Makefile's "$@.tmp" became "$@...p" on the page; kept as the page shows it
    assert "+      cmd_fwtab = $(src)/gen-fwtab.sh $< > $@...p && mv $@...p $@" in lines
    assert " quiet_cmd_fwtab = GEN     $@" in lines


def test_c17_nav_and_diff(c17):
    assert c17.thread_prev_url is None and c17.thread_next_url is None
    lines = c17.body.split("\n")
    assert "diff --git a/MAINTAINERS b/MAINTAINERS" in lines
    assert "diff --git a/drivers/foo/Makefile b/drivers/foo/Makefile" in lines
    assert c17.body.endswith("-- \n2.43.0\n")


# ------------------------------------------------------------------ variants of the kind

NAV = (
    '<a href="1">[&lt;prev]</a> <a href=".">[day]</a> <a href="..">[month]</a> '
    '<a href="../..">[year]</a> <a href="../../..">[list]</a>\n'
)
FOOT = '<p><a href="https://www.openwall.com/blists/">Powered by blists</a> - more\n'


def render(headers: str, body: str) -> bytes:
    return (
        "<html><head><title>linux-kernel - x</title></head><body>\n"
        + NAV
        + '<pre style="white-space: pre-wrap">\n'
        + headers
        + "\n"
        + body
        + "</pre>\n"
        + FOOT
        + "</body></html>\n"
    ).encode()


def parse(headers: str, body: str):
    return ow.parse_message_page(render(headers, body), URL17, "linux-kernel")


@pytest.mark.parametrize(
    "html_text,text",
    [
        ("a &lt; b &gt; c", "a < b > c"),
        ("x &amp;&amp; y", "x && y"),
        ("literal &amp;lt; and &amp;amp; and &amp;#64;", "literal &lt; and &amp; and &#64;"),
        ("user&#64;...mple.org", "user@...mple.org"),
        ("short a&#64;b.c and x&#64;y", "short a@b.c and x@y"),
        ("raw a@b.c", "raw a@b.c"),
        ("cut&hellip;", "cut\u2026"),
        ("non&nbsp;breaking", "non\u00a0breaking"),
        ("tab\there", "tab\there"),
        ("&gt;From 1234abcd Mon Sep 17 00:00:00 2001", ">From 1234abcd Mon Sep 17 00:00:00 2001"),
        ("ctl . dot", "ctl . dot"),
        ('&quot;quoted&quot; and "plain"', '"quoted" and "plain"'),
        ("#include &lt;linux/string.h&gt;", "#include <linux/string.h>"),
        ("if (a &lt;b&gt; c)", "if (a <b> c)"),  # must not vanish as a tag
    ],
)
def test_every_entity_is_decoded_once(html_text, text):
    raw = parse("Subject: x\n", html_text + "\n")
    assert raw.body == text + "\n"


@pytest.mark.parametrize(
    "link,text",
    [
        (
            '<a href="https://lore.kernel.org/r/20230601092400.27162-1-zhiyin.chen&#64;intel.com" rel="nofollow">'
            "https://lore.kernel.org/r/20230601092400.27162-1-zhiyin.chen&#64;intel.com</a>",
            "https://lore.kernel.org/r/20230601092400.27162-1-zhiyin.chen@intel.com",
        ),
        (
            '<a href="http://www.openwall.com/lists/">http://www.openwall.com/lists/</a>',
            "http://www.openwall.com/lists/",
        ),
        (
            '<a href="ftp://ftp.kernel.org/pub/a?b=1&amp;c=2" rel="nofollow">ftp://ftp.kernel.org/pub/a?b=1&amp;c=2</a>',
            "ftp://ftp.kernel.org/pub/a?b=1&c=2",
        ),
    ],
)
def test_autolinks_reduce_to_their_text(link, text):
    raw = parse("Subject: x\n", f"See {link}.\n")
    assert raw.body == f"See {text}.\n"


def test_obfuscated_addresses_everywhere_but_the_message_id():
    raw = parse(
        "Message-ID: &lt;20250101.1-1-bernd.schubert&#64;fastmail.fm&gt;\n"
        "From: Bernd Schubert &lt;bernd.schubert&#64;...tmail.fm&gt;\n"
        "Cc: linux-kernel&#64;...r.kernel.org,\n        x&#64;...mple.com\n"
        "Subject: Re: [PATCH] a&#64;...mple.org: x\n",
        "Signed-off-by: Bernd Schubert &lt;bernd.schubert&#64;...tmail.fm&gt;\n"
        "+M:\tBernd &lt;bernd&#64;...tmail.fm&gt;\n",
    )
    h = dict(raw.header_lines)
    assert h["Message-ID"] == "<20250101.1-1-bernd.schubert@fastmail.fm>"
    assert h["From"] == "Bernd Schubert <bernd.schubert@...tmail.fm>"
    assert h["Cc"] == "linux-kernel@...r.kernel.org,\nx@...mple.com"
    assert h["Subject"] == "Re: [PATCH] a@...mple.org: x"
    assert raw.body == ("Signed-off-by: Bernd Schubert <bernd.schubert@...tmail.fm>\n+M:\tBernd <bernd@...tmail.fm>\n")


def test_rfc2047_decoded_names_and_odd_spellings():
    raw = parse(
        "Message-Id: &lt;a&#64;b.example&gt;\nDate:\tFri, 20 Feb 2015 20:25:20 -0800 (PST)\n"
        "from: Björn Töpel &lt;bjorn&#64;...mple.org&gt;\nCC:     z&#64;...mple.org\n"
        "SUBJECT: [PATCH] x\n",
        "b\n",
    )
    assert raw.header_lines == (
        ("Message-ID", "<a@b.example>"),
        ("Date", "Fri, 20 Feb 2015 20:25:20 -0800 (PST)"),
        ("From", "Björn Töpel <bjorn@...mple.org>"),
        ("Cc", "z@...mple.org"),
        ("Subject", "[PATCH] x"),
    )


def test_attachment_and_skipped_spans_in_a_variant():
    body = (
        "text part\n\n"
        '<span style="font-family: times;"><strong>View attachment "</strong><a href="2/1">'
        '0001-fix &amp; more.patch</a><strong>" of type "</strong>text/x-patch<strong>" '
        "(23 bytes)</strong></span>\n\n"
        '<span style="font-family: times;"><strong>Content of type "</strong>text/html'
        '<strong>" skipped</strong></span>\n\n'
        '<span style="font-family: times;"><strong>Download attachment "</strong>'
        '<a href="2/2" rel="nofollow" download>blob bin?.dat</a><strong>" of type "</strong>'
        'application/octet-stream<strong>" (256 bytes)</strong></span>\n'
    )
    raw = parse("Subject: [PATCH] x\n", body)
    assert raw.body == "text part\n"
    assert [(a.index, a.filename, a.content_type, a.size, a.url) for a in raw.attachments] == [
        (1, "0001-fix & more.patch", "text/x-patch", 23, URL17 + "/1"),
        (2, "blob bin?.dat", "application/octet-stream", 256, URL17 + "/2"),
    ]
