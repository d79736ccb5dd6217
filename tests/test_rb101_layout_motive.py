"""RB101 on real mails: packing with a "more cache-line friendly" aside is a CHECK, not a WARNING.

DX001/DX002 are linux-input patches carried in tests/data/evalset-extra/mail (source named in its README):
the members move to fill holes (pahole before/after), and the changelog adds "It saves a few bytes of memory
and is more cache-line friendly." The layout is packing; the cache words are a by-product of the size.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.models import Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.rules import rb101_struct_reorder as rb101

MAIL = Path(__file__).parent / "data" / "evalset-extra" / "mail"


@pytest.mark.parametrize(("name", "struct"), [("DX001", "struct hid_field"), ("DX002", "struct hid_input")])
def test_packing_with_a_cache_friendly_aside_is_a_check(name: str, struct: str) -> None:
    path = MAIL / f"{name}.eml"
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    findings = list(rb101.check(patch, RuleContext(strict=True)))
    assert [f.message.split(":")[0] for f in findings] == [struct]
    assert findings[0].severity is Severity.CHECK
    assert findings[0].details["motivation"] == "packing"


def test_a_specific_cache_line_reason_next_to_packing_stays_a_warning() -> None:
    assert (
        rb101._without_vague_cache("to remove a hole and avoid having bio_work split between 2 cache lines")
        == "to remove a hole and avoid having bio_work split between 2 cache lines"
    )
    assert "friendly" not in rb101._without_vague_cache("It saves a few bytes and is more cache-line friendly.")
    assert "friendly" in rb101._without_vague_cache("Reorder the members to be more cache-line friendly.")
