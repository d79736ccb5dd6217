"""Issue 11: a point found on most patches of a series is asked once, in reply to the cover letter,
and the sentence naming the patches comes after the question it is about.

The series follows "[PATCH 0/6] bitmap: optimize API usage" (linux-kernel 2024/05/13): every patch's
subject says "optimize" and none shows a measurement. Its mails are written here (three patches).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.store import Store
from helpers import load_thread, read_mbox_messages, draft_fixed


def _mail(n: int, subject: str, body: str) -> str:
    refs = "" if n == 0 else "In-Reply-To: <s-0@example.org>\nReferences: <s-0@example.org>\n"
    return (
        f"From ada@example.org Mon May 13 22:0{n}:00 2024\nFrom: Ada Example <ada@example.org>\n"
        f"To: linux-kernel@vger.kernel.org\nSubject: {subject}\nDate: Mon, 13 May 2024 22:0{n}:00 +0000\n"
        f"Message-ID: <s-{n}@example.org>\n{refs}\n{body}\n"
    )


def _patch(n: int, func: str) -> str:
    # "cheaper" names the cost: a bare subject "optimize" over a changelog naming none is only a CHECK (RB201)
    body = (
        f"Use the cheaper bitmap API in {func}() directly.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/lib/f{n}.c b/lib/f{n}.c\n--- a/lib/f{n}.c\n+++ b/lib/f{n}.c\n"
        f"@@ -1,3 +1,3 @@ int {func}(void)\n {{\n-\treturn slow_{n}();\n+\treturn fast_{n}();\n }}\n-- \n2.43.0\n"
    )
    return _mail(n, f"[PATCH {n}/3] lib: optimize {func}()", body)


@pytest.fixture(scope="module")
def rules():
    from reviewbot.registry import load_rules

    return load_rules(entry_points=False)


def test_a_claim_on_every_patch_is_asked_once_on_the_cover_letter(tmp_path: Path, rules) -> None:
    mbox = tmp_path / "series.mbox"
    mbox.write_text(
        _mail(0, "[PATCH 0/3] lib: optimize API usage", "Three small changes.\n")
        + "".join(_patch(n, f"foo{n}") for n in (1, 2, 3))
    )
    msgs = read_mbox_messages(mbox)
    with Store(tmp_path / "db.sqlite") as store:
        found = load_thread(store, msgs, rules)
        assert sorted(f.rule_id for fs in found.values() for f in fs) == ["RB201"] * 3
        for m in msgs:  # linked as one series, as the scan does
            store.set_series_key(m.message_id, "v1:s-0@example.org")
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    [written] = summary.written
    assert written.draft.in_reply_to == "s-0@example.org"
    body = written.draft.body
    assert body.count("Do you have numbers for this?") == 1
    # the question first, then which patches it holds for (no "same point" before any point was made)
    question = body.index("Do you have numbers for this?")
    assert body.index("The same goes for every patch of this series.") > question


def _conversion(n: int, total: int, claim: bool) -> str:
    # after "[PATCH v3 15/18] ext4: switch to using the crc32c library" (linux-kernel 2024/11/03): the
    # cover letter's speed claim copied into each conversion patch's changelog, no numbers anywhere
    why = (
        "Just use crc32c().  This is much simpler, and it improves performance\ndue to eliminating the crypto API overhead.\n"
        if claim
        else "Rename the helper to match the others.\n"
    )
    body = (
        f"{why}\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/fs/f{n}/crc.c b/fs/f{n}/crc.c\n--- a/fs/f{n}/crc.c\n+++ b/fs/f{n}/crc.c\n"
        f"@@ -1,3 +1,3 @@ u32 f{n}_csum(void)\n {{\n-\treturn old_csum_{n}();\n+\treturn crc32c_{n}();\n }}\n-- \n2.43.0\n"
    )
    return _mail(n, f"[PATCH {n}/{total}] f{n}: switch to using the crc32c library", body)


def test_the_cover_letters_claim_repeated_in_a_few_patches_is_asked_once_on_the_cover_letter(
    tmp_path: Path, rules
) -> None:
    mbox = tmp_path / "series.mbox"
    cover = (
        "Now that the crc32c() library uses the arch-optimized code, switch the users to it.\n"
        "This is much simpler and also improves performance due to eliminating the\ncrypto API overhead.\n"
    )
    mbox.write_text(
        _mail(0, "[PATCH 0/5] Wire up CRC32 library functions", cover)
        + "".join(_conversion(n, 5, claim=n >= 4) for n in (1, 2, 3, 4, 5))
    )
    msgs = read_mbox_messages(mbox)
    with Store(tmp_path / "db.sqlite") as store:
        found = load_thread(store, msgs, rules)
        on = sorted(mid for mid, fs in found.items() if any(f.rule_id == "RB201" for f in fs))
        assert on == ["s-4@example.org", "s-5@example.org"]  # two of five: not "most patches"
        for m in msgs:
            store.set_series_key(m.message_id, "v1:s-0@example.org")
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    [written] = summary.written
    assert written.draft.in_reply_to == "s-0@example.org"
    body = written.draft.body
    assert body.count("Do you have numbers for this?") == 1
    # the cover letter's sentence with the claim is quoted above the question (not cited again in prose)
    assert "> This is much simpler and also improves performance due to eliminating the" in body
    assert body.index('The same goes for "improves performance" in patches 4/5 and 5/5.') > body.index(
        "Do you have numbers for this?"
    )


def test_the_cover_letter_is_quoted_at_the_claim_the_patches_repeat_not_at_a_background_sentence(
    tmp_path: Path, rules
) -> None:
    # after "[PATCH v3 00/18] Wire up CRC32 library functions": the cover letter's first speed words are about
    # CRC32 hardware in general ("become far faster still with ... instructions"), not a claim of the series;
    # the series' claim, repeated in the patches, is the sentence to quote
    mbox = tmp_path / "series.mbox"
    cover = (
        "CRC32 is quite fast with a portable C implementation and becomes far faster still with the\n"
        "carry-less multiply instructions that most CPUs have.\n\n"
        "Now that the crc32c() library uses the arch-optimized code, switch the users to it.\n"
        "This is much simpler and also improves performance due to eliminating the\ncrypto API overhead.\n"
    )
    mbox.write_text(
        _mail(0, "[PATCH 0/5] Wire up CRC32 library functions", cover)
        + "".join(_conversion(n, 5, claim=n >= 4) for n in (1, 2, 3, 4, 5))
    )
    msgs = read_mbox_messages(mbox)
    with Store(tmp_path / "db.sqlite") as store:
        load_thread(store, msgs, rules)
        for m in msgs:
            store.set_series_key(m.message_id, "v1:s-0@example.org")
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    [written] = summary.written
    body = written.draft.body
    assert "> This is much simpler and also improves performance due to eliminating the" in body
    assert "far faster still" not in body
