"""Locating messages in their input: the line offsets that make ``#N`` a line of the file."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.checking import messages_from_bytes, raw_subject

_WORD = st.text(alphabet="abcdefghij -:>F", min_size=0, max_size=12)


def _mail(i: int, body_lines: list[str]) -> bytes:
    head = f"From ada@example.org Mon Mar  3 10:0{i % 10}:00 2025\nFrom: Ada <ada@example.org>\nSubject: [PATCH {i}/9] x\n\n"
    body = "".join(line.replace("\n", " ") + "\n" for line in body_lines)
    return (head + body).encode()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_WORD, max_size=6), min_size=1, max_size=6))
def test_offsets_point_at_each_message_first_line(bodies: list[list[str]]) -> None:
    # mboxo: a body line starting with "From " is escaped as ">From " inside the file
    parts = []
    for i, lines in enumerate(bodies):
        escaped = [(">" + line) if line.startswith("From ") else line for line in lines]
        parts.append(_mail(i, escaped))
    blob = b"\n".join(parts)
    items = messages_from_bytes(blob, "x.mbox")
    assert len(items) == len(bodies)
    file_lines = blob.split(b"\n")
    for item in items:
        first = item.raw.data.split(b"\n", 1)[0]
        assert item.offset is not None
        assert file_lines[item.offset] == first
        # the Subject line sits at the same distance from the start in the file and in the message
        subj_at = item.raw.data.split(b"\n").index(f"Subject: [PATCH {item.index}/9] x".encode())
        assert file_lines[item.offset + subj_at] == f"Subject: [PATCH {item.index}/9] x".encode()


def test_single_eml_has_offset_zero() -> None:
    (item,) = messages_from_bytes(b"From: a@b\nSubject: [PATCH] y\n\nbody\n", "y.eml")
    assert (item.input, item.offset, item.index) == ("y.eml", 0, 0)


def test_raw_subject() -> None:
    assert raw_subject(b"From x\nSubject: Re: [PATCH]\n foo\nTo: a\n\nbody") == "Re: [PATCH] foo"
    assert raw_subject(b"subject: hi\n\nbody") == "hi"
    assert raw_subject(b"Subject: hi there\r\nTo: x\r\n\r\nbody") == "hi there"
    assert raw_subject(b"From: a\n\nSubject: in the body") is None
