"""The one review pipeline (reviewbot.review): check and scan agree; threads, series and post-filters once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from helpers import fake_rule
from reviewbot.checking import check_messages, messages_from_bytes
from reviewbot.cli import main
from reviewbot.models import FindingState, Severity
from reviewbot.parse.mail import parse_message, parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.review import chain_roots, review, thread_roots

RULES = tuple(load_rules(entry_points=False))
EXAMPLES = Path(next(r for r in RULES if r.id == "RB201").examples_dir)


def _month_pages(shared_dir: Path, year: str, month: str) -> list[Path]:
    root = shared_dir / "openwall-mirror" / "linux-kernel" / year / month
    return sorted(p for p in root.glob("*/*.html") if p.stem.isdigit())


def test_check_of_a_months_pages_and_scan_of_that_month_give_the_same_findings(
    shared_dir: Path, isolated_env: Path
) -> None:
    """Every patch gets the same findings; the store keeps one row per fingerprint (v1 and v2 of a patch share one).

    Before the one pipeline, month by month over the whole mirror 28 of 318
    patches with findings differed: 22 only by that store row, 6 because check
    ignored the replies it was given (5, RB201 answered in the thread) or
    reviewed a ``[tip:...]`` commit notice scan does not take for a patch (1).
    """
    pages = _month_pages(shared_dir, "2023", "11")
    checked = CliRunner().invoke(main, ["check", "--format", "json", *map(str, pages)])
    assert checked.exit_code in (0, 1), checked.output
    data = json.loads(checked.stdout)
    assert not data["problems"]
    db = isolated_env / "scan.db"
    scanned = CliRunner().invoke(
        main,
        [
            "scan",
            "linux-kernel",
            "--since",
            "2023-11",
            "--until",
            "2023-11",
            "--all",
            "--offline",
            "--cache-dir",
            str(shared_dir / "openwall-mirror"),
            "--db",
            str(db),
        ],
    )
    assert scanned.exit_code == 0, scanned.output

    def key(rule, severity, path, line, message):
        return (rule, severity.upper(), path, line, message)

    by_patch: dict[str, set] = {}
    fingerprints: dict[str, set] = {}
    for f in data["findings"]:
        mid = f["message_id"].strip("<>")
        by_patch.setdefault(mid, set()).add(key(f["rule"], f["severity"], f["file"], f["line"], f["message"]))
        fingerprints.setdefault(f["fingerprint"], set()).add(mid)
    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT fingerprint, message_id, rule_id, severity, path, line, message, state FROM findings"
        ).fetchall()
    stored: dict[str, set] = {}
    for fp, mid, rule, sev, path, line, message, state in rows:
        if state in (FindingState.ANSWERED.value, FindingState.DISMISSED.value):
            continue  # check shows the author's view: an answered finding is no problem to fix (strict: CHECK)
        stored.setdefault(mid, set()).add(key(rule, sev, path, line, message))
        # the store keeps one row per fingerprint (the same finding on v1 and v2 of a patch): it names one of them
        assert mid in fingerprints.get(fp, set()), (fp, mid)
    shared = {mid for mids in fingerprints.values() if len(mids) > 1 for mid in mids}
    assert set(fingerprints) == {fp for fp, _m, *_r, state in rows if state not in ("answered", "dismissed")}
    patches = (set(by_patch) | set(stored)) - shared
    assert patches, "the month has findings"
    for mid in sorted(patches):
        assert by_patch.get(mid, set()) == stored.get(mid, set()), mid


def test_archive_pages_thread_by_their_thread_prev_links(shared_dir: Path) -> None:
    pages = _month_pages(shared_dir, "2023", "11")
    items = [m for p in pages for m in messages_from_bytes(p.read_bytes(), str(p))]
    messages = [parse_message(i.raw) for i in items]
    roots = thread_roots(messages)
    # a series posted with its cover letter (0/20): its patches and the replies to them share the cover's thread
    (cover,) = [
        m
        for m in messages
        if m.subject.title == "remove the SLAB allocator" and m.subject.version == 1 and not m.subject.is_reply
    ]
    assert roots[cover.message_id] == cover.message_id
    series = [
        m
        for m in messages
        if m.subject.total == 20
        and m.subject.version == 1
        and not m.subject.is_reply
        and m.from_addr == cover.from_addr
    ]
    replies = [
        m
        for m in messages
        if m.subject.is_reply and m.subject.total == 20 and m.subject.title in {s.subject.title for s in series}
    ]
    assert len(series) > 10 and replies
    assert {roots[m.message_id] for m in series + replies} == {cover.message_id}


def test_chain_roots_follows_prev_links_and_names_a_missing_page() -> None:
    links = {"u/3": ("c@x", "u/2"), "u/2": ("b@x", "u/1"), "u/1": ("a@x", None), "u/9": ("z@x", "u/8")}
    assert chain_roots(links) == {"u/1": "a@x", "u/2": "a@x", "u/3": "a@x", "u/9": "u/8"}
    assert chain_roots({"u/1": ("a@x", "u/2"), "u/2": ("b@x", "u/1")})["u/1"] in ("u/1", "u/2")  # a loop ends


def _bad_speed_up_with_id() -> bytes:
    data = (EXAMPLES / "bad-speed-up.patch").read_bytes()
    head, _, rest = data.partition(b"\nFrom: ")
    return head + b"\nMessage-ID: <speedup-1@example.org>\nFrom: " + rest


AUTHOR_REPLY = b"""From: Ada Example <ada@example.org>
Date: Tue, 11 Mar 2025 09:00:00 +0100
Subject: Re: [PATCH] foocache: Speed up cache entry creation
Message-ID: <answer-1@example.org>
In-Reply-To: <speedup-1@example.org>
References: <speedup-1@example.org>

> Can you share any data about this optimization?

Sure: 2310 -> 1290 cycles per call (-44%).
"""


def test_check_gives_the_replies_it_reads_to_the_rules_as_the_thread() -> None:
    rb201 = [r for r in RULES if r.id == "RB201"]
    alone = check_messages(messages_from_bytes(_bad_speed_up_with_id(), "p.patch"), rb201)
    assert [f.rule_id for f in alone.findings] == ["RB201"]
    mbox = _bad_speed_up_with_id() + b"\nFrom y Mon Sep 17 00:00:00 2001\n"  # the patch opens with its own From line
    mbox += AUTHOR_REPLY
    items = messages_from_bytes(mbox, "thread.mbox")
    assert len(items) == 2
    answered = check_messages(items, rb201)
    assert answered.findings == () and len(answered.patches) == 1 and answered.replies == 1
    strict = check_messages(items, rb201, strict=True)
    assert [(f.rule_id, f.severity, f.state) for f in strict.findings] == [
        ("RB201", Severity.CHECK, FindingState.ANSWERED)
    ]


def test_review_keeps_states_unless_settled_and_reviews_no_reply() -> None:
    patch = parse_patch(parse_rfc822(_bad_speed_up_with_id(), "p.patch"))
    reply = parse_rfc822(AUTHOR_REPLY, "r.eml")
    as_patch = parse_patch(reply)  # a reply given as Patch is context, never reviewed
    rb201 = [r for r in RULES if r.id == "RB201"]
    run = review([patch, as_patch], rb201)
    (only,) = run
    assert only.patch is patch and only.thread_id == "speedup-1@example.org"
    assert [f.state for f in only.findings] == [FindingState.ANSWERED]
    assert list(review([patch, reply], rb201, settle=True))[0].findings == ()
    ignored = review([patch], rb201, per_path_ignores={"fs/*": ["RB2"]})
    assert [f.path for f in list(ignored)[0].findings] == [None]  # a commit-message finding has no path to ignore


def _intro(author: bytes, body: bytes) -> bytes:
    return (
        b"From: " + author + b"\nDate: Mon, 10 Mar 2025 09:00:00 +0100\n"
        b"Subject: foocache: faster entry creation\nMessage-ID: <intro-1@example.org>\n\n" + body
    )


def _patch_replying_to_intro() -> bytes:
    data = _bad_speed_up_with_id()
    return data.replace(
        b"\nMessage-ID: <speedup-1@example.org>\n",
        b"\nMessage-ID: <speedup-1@example.org>\nIn-Reply-To: <intro-1@example.org>\n"
        b"References: <intro-1@example.org>\n",
    )


NUMBERS = b"This series speeds up foocache.\n\nfio randwrite: 410k -> 520k IOPS (+27%)\n"


def test_a_thread_root_by_the_author_without_0_n_is_the_cover_letter() -> None:
    rb201 = [r for r in RULES if r.id == "RB201"]
    sep = b"\nFrom x Mon Sep 17 00:00:00 2001\n"
    mbox = sep.lstrip() + _intro(b"Ada Example <ada@example.org>", NUMBERS) + sep + _patch_replying_to_intro()
    run = check_messages(messages_from_bytes(mbox, "series.mbox"), rb201, strict=True)
    assert [(f.severity, f.state) for f in run.findings] == [(Severity.CHECK, FindingState.ANSWERED)]
    assert len(run.patches) == 1  # the introduction is not checked itself
    assert run.findings[0].evidence_where == "cover letter"  # what the drafter says: "the numbers are in the ..."

    # the same introduction from somebody else is no cover letter of Ada's patch
    other = sep.lstrip() + _intro(b"Rita Reviewer <rita@example.org>", NUMBERS) + sep + _patch_replying_to_intro()
    run = check_messages(messages_from_bytes(other, "series.mbox"), rb201, strict=True)
    assert [(f.severity, f.state) for f in run.findings] == [(Severity.WARNING, FindingState.OPEN)]


def test_a_patch_sent_in_a_thread_with_a_plain_subject_is_reviewed() -> None:
    """git am and patchwork take a format-patch shaped mail in a thread for a patch, whatever its subject;
    a plain diff in a reply (a suggestion) and a tagged notice with a diffstat are not submissions."""
    from reviewbot.review import is_reviewed

    diff = b"diff --git a/lib/q.c b/lib/q.c\n--- a/lib/q.c\n+++ b/lib/q.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    stat = b"---\n lib/q.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"

    def patch(subject: bytes, body: bytes):
        return parse_patch(
            parse_rfc822(
                b"From: Ada Example <ada@example.org>\nSubject: " + subject + b"\nMessage-ID: <q-2@example.org>\n"
                b"In-Reply-To: <q-1@example.org>\nReferences: <q-1@example.org>\n\n" + body,
                "q.eml",
            )
        )

    assert is_reviewed(
        patch(b"lib/q: use c instead of b", b"Use c.\n\nSigned-off-by: Ada <ada@example.org>\n" + stat + diff)
    )
    assert not is_reviewed(patch(b"lib/q: use c instead of b", b"Maybe like this?\n\n" + diff))
    assert not is_reviewed(patch(b"[tip: core/urgent] lib/q: use c", b"Merged.\n" + stat + diff))


def test_check_says_why_a_diff_in_a_thread_is_not_checked() -> None:
    mail = (
        b"From: Rita Reviewer <rita@example.org>\nSubject: lib/q: use c instead of b\n"
        b"Message-ID: <q-3@example.org>\nIn-Reply-To: <q-1@example.org>\n\nMaybe like this?\n\n"
        b"diff --git a/lib/q.c b/lib/q.c\n--- a/lib/q.c\n+++ b/lib/q.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    )
    run = check_messages(messages_from_bytes(mail, "suggest.eml"), RULES)
    assert run.patches == ()
    assert [n for n in run.notes if "not a patch submission" in n] == [
        "suggest.eml: 'lib/q: use c instead of b' has a diff but is not a patch submission (it answers another "
        "message and has neither a [PATCH]-style subject nor the diffstat git format-patch writes: a diff a "
        "reviewer suggests): not checked"
    ]


def _series_mail(n: int, total: int, body: bytes) -> bytes:
    mid = f"<s-{n}@example.org>".encode()
    thread = b"" if n == 0 else b"In-Reply-To: <s-0@example.org>\nReferences: <s-0@example.org>\n"
    return (
        b"From: Ada Example <ada@example.org>\nDate: Mon, 10 Mar 2025 09:00:00 +0100\n"
        b"Subject: [PATCH " + f"{n}/{total}".encode() + b"] lib/q: step " + str(n).encode() + b"\n"
        b"Message-ID: " + mid + b"\n" + thread + b"\n" + body
    )


def test_review_gives_each_patch_of_a_threaded_series_its_series_and_cover_letter() -> None:
    diff = (
        b"Use c.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        b"diff --git a/lib/q.c b/lib/q.c\n--- a/lib/q.c\n+++ b/lib/q.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    )
    cover = parse_patch(parse_rfc822(_series_mail(0, 2, b"This series makes q use c.\n"), "0.eml"))
    patches = [parse_patch(parse_rfc822(_series_mail(n, 2, diff), f"{n}.eml")) for n in (1, 2)]
    seen = []

    def spy(patch, ctx):
        seen.append((patch.message_id, ctx.series, ctx.cover, ctx.strict))
        return []

    run = review([cover, *patches], [fake_rule("RB904", spy)], strict=True)
    assert [r.patch for r in run] == patches  # the cover letter is context, not reviewed
    assert [mid for mid, *_ in seen] == ["s-1@example.org", "s-2@example.org"]
    series = seen[0][1]
    assert series is not None and series.cover is cover and series.patches == tuple(patches)
    assert all(s is series and c is cover and strict for _mid, s, c, strict in seen)
