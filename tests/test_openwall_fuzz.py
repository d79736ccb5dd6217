"""Property tests: blists page parsers on mutated real mirror pages (tests/data) raise nothing but ParseError."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import DATA_MIRROR
from reviewbot.errors import ParseError
from reviewbot.fetch import openwall as ow

BASE = "https://lists.openwall.net"
LK = DATA_MIRROR / "linux-kernel"

MESSAGES = {
    "/linux-kernel/2019/08/23/1": LK / "2019/08/23/1.html",  # attachment, thread link, folded Cc
    "/linux-kernel/2025/12/17/2": LK / "2025/12/17/2.html",  # folded Message-ID
    "/linux-kernel/2019/06/24/1": LK / "2019/06/24/1.html",  # skipped part
    "/linux-kernel/2023/08/17/1": LK / "2023/08/17/1.html",  # text/x-patch attachment
}
DAYS = {
    "/linux-kernel/2024/05/30/": LK / "2024/05/30/index.html",
    "/linux-kernel/2023/06/13/": LK / "2023/06/13/index.html",
}
INDEXES = {
    "/linux-kernel/2023/06/": (LK / "2023/06/index.html", ow.parse_month_page),
    "/linux-kernel/2023/": (LK / "2023/index.html", ow.parse_year_page),
    "/linux-kernel/": (LK / "index.html", ow.parse_list_page),
}

NASTY = [
    b"<",
    b">",
    b"&",
    b"&#",
    b"&#x110000;",
    b"&#0;",
    b"\x00",
    b"\xff\xfe",
    b"\xc3",
    b"</pre>",
    b'<pre style="white-space: pre-wrap">',
    b'<span style="font-family: times;">',
    b'<a href="',
    b"[thread-next&gt;]",
    b"\n\n",
    b"\n ",
    b"Message-ID:",
    b"<li>",
    b"</ul>",
    b"<ul>",
    b"&hellip;",
    b"<!--",
    b"<![CDATA[",
    b"\r",
    b"<p><h2>",
    b"Powered by blists",
    b'href="../../.."',
]


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """Apply 1-4 random edits: cut, insert (random or nasty bytes), duplicate, truncate."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        if not out:
            break
        pos = draw(st.integers(0, len(out)))
        op = draw(st.sampled_from(["cut", "insert", "nasty", "dup", "truncate", "flip"]))
        if op == "cut":
            end = min(len(out), pos + draw(st.integers(1, 2000)))
            del out[pos:end]
        elif op == "insert":
            out[pos:pos] = draw(st.binary(min_size=1, max_size=40))
        elif op == "nasty":
            out[pos:pos] = draw(st.sampled_from(NASTY))
        elif op == "dup":
            end = min(len(out), pos + draw(st.integers(1, 500)))
            out[pos:pos] = out[pos:end]
        elif op == "truncate":
            del out[pos:]
        else:
            if pos < len(out):
                out[pos] ^= draw(st.integers(1, 255))
    return bytes(out)


FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("path", sorted(MESSAGES))
def test_message_page_parser_only_raises_parse_error(path):
    original = MESSAGES[path].read_bytes()
    url = BASE + path

    @FUZZ
    @given(mutated(original))
    def run(body):
        try:
            raw = ow.parse_message_page(body, url, "linux-kernel")
        except ParseError as exc:
            assert url in str(exc)
            return
        assert raw.kind == "archive" and raw.source == url
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in raw.header_lines)
        for att in raw.attachments:
            assert att.url is None or att.url.startswith(url + "/")

    run()


@pytest.mark.parametrize("path", sorted(DAYS))
def test_day_page_parser_only_raises_parse_error(path):
    original = DAYS[path].read_bytes()
    url = BASE + path

    @FUZZ
    @given(mutated(original))
    def run(body):
        try:
            refs = ow.parse_day_page(body, url)
        except ParseError as exc:
            assert url in str(exc)
            return
        for ref in refs:
            assert ref.url == f"{url}{ref.number}"  # never a link off this day

    run()


@pytest.mark.parametrize("path", sorted(INDEXES))
def test_index_parsers_only_raise_parse_error(path):
    file, parser = INDEXES[path]
    original = file.read_bytes()
    url = BASE + path

    @FUZZ
    @given(mutated(original))
    def run(body):
        try:
            parser(body, url)
        except ParseError:
            pass
        ow.error_reason(body)

    run()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=3000))
def test_random_bytes(body):
    for fn, url in (
        (ow.parse_day_page, BASE + "/linux-kernel/2023/06/13/"),
        (ow.parse_month_page, BASE + "/linux-kernel/2023/06/"),
    ):
        try:
            fn(body, url)
        except ParseError:
            pass
    try:
        ow.parse_message_page(body, BASE + "/linux-kernel/2023/06/13/1", "linux-kernel")
    except ParseError:
        pass


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=200))
def test_looks_like_patch_and_classify_never_crash(text):
    ow.looks_like_patch(text)
    try:
        ow.classify_url(BASE + "/" + text)
    except ow.BadArchiveURL:
        pass
