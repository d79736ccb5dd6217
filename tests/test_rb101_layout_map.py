"""RB101 with type information (issue 25): the finding and its draft say which member moved across which
cache line and quote the lines that change; a reorder that moves no member across a line and only fills
holes is packing (CHECK); without type information configured, or where it lacks the struct, the finding is
word for word what it was."""

from __future__ import annotations

import json
from datetime import datetime
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.checking import read_input
from reviewbot.cli import main
from reviewbot.models import Severity
from reviewbot.parse.mail import parse_message
from reviewbot.parse.patch import parse_patch
from reviewbot.rule import RuleContext
from reviewbot.rules import rb101_struct_reorder as rb101

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to compile the test struct")

PRELUDE = "typedef unsigned long u64;\ntypedef unsigned int u32;\ntypedef struct { u32 raw; } spinlock_t;\n"

BEFORE = """\
struct foo_queue {
	u64			stats[6];
	spinlock_t		lock;
	u32			depth;
	void			*owner;
	u32			flags;
	u64			cold[4];
	void			*ring;
	u32			tail;
};
"""
HOT_MOVE = BEFORE.replace("\tvoid\t\t\t*ring;\n", "").replace(
    "\tu32\t\t\tdepth;\n", "\tu32\t\t\tdepth;\n\tvoid\t\t\t*ring;\n"
)
# tail into the 4-byte hole after flags: every member stays on its line, the struct shrinks from 120 to 112
PACKING = BEFORE.replace("\tu32\t\t\ttail;\n", "").replace(
    "\tu32\t\t\tflags;\n", "\tu32\t\t\tflags;\n\tu32\t\t\ttail;\n"
)

MAIL = """\
From: A Developer <dev@example.org>
To: linux-kernel@vger.kernel.org
Subject: [PATCH] foo: {subject}
Message-ID: <{mid}@example.org>
Date: Mon, 1 Dec 2025 10:00:00 +0000

{changelog}

Signed-off-by: A Developer <dev@example.org>
---
{diff}
"""


def make_patch(tmp: Path, old: str, new: str, subject: str, changelog: str) -> Path:
    for side, text in (("a", old), ("b", new)):
        (tmp / side / "include").mkdir(parents=True, exist_ok=True)
        (tmp / side / "include" / "foo.h").write_text(text)
    diff = subprocess.run(
        ["git", "diff", "--no-index", "--no-prefix", "a/include/foo.h", "b/include/foo.h"],
        cwd=tmp,
        capture_output=True,
        text=True,
    ).stdout
    mail = tmp / "patch.eml"
    mail.write_text(MAIL.format(subject=subject, mid=abs(hash(new)), changelog=changelog, diff=diff))
    return mail


@pytest.fixture
def types(tmp_path) -> Path:
    src, obj = tmp_path / "foo.c", tmp_path / "foo.o"
    src.write_text(PRELUDE + BEFORE + "struct foo_queue q;\n")
    subprocess.run(["gcc", "-g", "-c", src, "-o", obj], check=True)
    return obj


def findings(mail: Path, btf: Path | None):
    patch = parse_patch(parse_message(read_input(str(mail))[0].raw))
    ctx = RuleContext(strict=True, options={"btf": str(btf)} if btf else {})
    return patch, list(rb101.check(patch, ctx))


def test_cache_move_names_the_lines_and_quotes_the_map(tmp_path, types):
    mail = make_patch(
        tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth",
        "The ring pointer is read with depth on every submission; keep them in the same cache line.",
    )  # fmt: skip
    patch, [f] = findings(mail, types)
    _patch, [plain] = findings(mail, None)
    assert f.severity is Severity.WARNING
    # ring sat at 104 (line 1), now at 56 (line 0); owner, pushed from 56 to 64, goes to line 1
    moved = "ring moves from line 1 to line 0, next to depth; not moved by the patch but changing line: owner moves from line 0 to line 1, next to flags"
    assert f.message == f"{plain.message} ({moved})"
    assert f.details["layout_map"] == [
        "  line 0 before: stats .. depth, owner",  # three members that stay at the line's start: first .. last
        "  line 0 after:  stats .. depth, ring",
        "  line 1 before: flags, cold, ring, tail",
        "  line 1 after:  owner, flags, cold, tail",
    ]
    draft = rb101.reply_point([f], patch)
    assert f"From foo.o: {moved}." in draft
    assert "  line 0 after:  stats .. depth, ring" in draft
    assert len(draft.splitlines()) < len(rb101.reply_point([plain], patch).splitlines()) + 8  # a short map


def test_check_shows_the_map_under_the_finding(tmp_path, types):
    mail = make_patch(
        tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth",
        "The ring pointer is read with depth on every submission; keep them in the same cache line.",
    )  # fmt: skip
    with_map = CliRunner().invoke(main, ["check", "--btf", str(types), str(mail)])
    without = CliRunner().invoke(main, ["check", str(mail)])
    assert with_map.exit_code == without.exit_code == 1
    assert "ring moves from line 1 to line 0" in with_map.output
    shown = with_map.output.splitlines()
    at = shown.index("cache lines (foo.o) that change:")
    assert shown[at + 1 : at + 5] == [
        "  line 0 before: stats .. depth, owner",
        "  line 0 after:  stats .. depth, ring",
        "  line 1 before: flags, cold, ring, tail",
        "  line 1 after:  owner, flags, cold, tail",
    ]
    assert "line 0" not in without.output


def test_a_move_that_only_fills_a_hole_is_packing(tmp_path, types):
    mail = make_patch(
        tmp_path, BEFORE, PACKING, "reorder members of foo_queue",
        "Keep the hot members together in the first cache line of the queue.",
    )  # fmt: skip
    _patch, [f] = findings(mail, types)
    _patch, [plain] = findings(mail, None)
    assert plain.severity is Severity.WARNING  # the changelog's words alone say cache
    assert f.severity is Severity.CHECK and f.details["motivation"] == "packing"
    assert f.message.endswith("no member changes cache line, the new order only fills holes")


def test_type_information_without_the_struct_changes_nothing(tmp_path):
    src, obj = tmp_path / "other.c", tmp_path / "other.o"
    src.write_text(PRELUDE + "struct other { u64 a; } o;\n")
    subprocess.run(["gcc", "-g", "-c", src, "-o", obj], check=True)
    mail = make_patch(
        tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth",
        "The ring pointer is read with depth on every submission; keep them in the same cache line.",
    )  # fmt: skip
    _patch, with_types = findings(mail, obj)
    _patch, without = findings(mail, None)
    assert [(f.message, f.severity, f.details) for f in with_types] == [
        (f.message, f.severity, f.details) for f in without
    ]


def test_config_btf_gives_check_the_map(tmp_path, types, monkeypatch):
    mail = make_patch(
        tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth",
        "The ring pointer is read with depth on every submission; keep them in the same cache line.",
    )  # fmt: skip
    config = tmp_path / "config.toml"
    config.write_text(f'btf = "{types}"\n')
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--format", "json", str(mail)])
    [finding] = [f for f in json.loads(result.output)["findings"] if f["rule"] == "RB101"]
    assert finding["details"]["layout_source"] == "foo.o"
    assert "ring moves from line 1 to line 0" in finding["message"]


def test_the_draft_mail_quotes_the_map(tmp_path, types):
    """Stored, drafted as the cron job drafts: the mail carries the sentence and the map lines as they are."""
    import dataclasses

    from helpers import draft_fixed
    from reviewbot.engine import check_patch
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.registry import load_rules
    from reviewbot.store import Store

    mail = make_patch(
        tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth",
        "The ring pointer is read with depth on every submission; keep them in the same cache line.",
    )  # fmt: skip
    msg = dataclasses.replace(parse_rfc822(mail.read_bytes(), str(mail)), list_name="linux-kernel")
    rules = [r for r in load_rules(entry_points=False) if r.meta.id == "RB101"]
    store = Store(tmp_path / "reviewbot.db")
    with store.transaction():
        store.put_message(msg, thread_id=msg.message_id)
    patch = parse_patch(msg)
    store.put_patch(patch)
    report = check_patch(patch, rules, RuleContext(options={"btf": str(types)}))
    store.replace_findings(msg.message_id, report.findings, report.failures, now=datetime(2025, 3, 20, 8, 30))
    summary = draft_fixed(store, rules, tmp_path / "outbox")
    store.close()
    assert summary.drafts == 1
    [draft] = list((tmp_path / "outbox").rglob("*.eml"))
    body = draft.read_text()
    moved = "ring moves from line 1 to line 0, next to depth; not moved by the patch but changing line: owner moves from line 0 to line 1, next to flags."
    assert f"From foo.o: {moved}" in " ".join(body.split())  # a paragraph of prose: wrapped
    assert "\n  line 0 before: stats .. depth, owner\n  line 0 after:  stats .. depth, ring\n" in body


def test_check_refuses_a_missing_btf_file(tmp_path):
    mail = make_patch(tmp_path, BEFORE, HOT_MOVE, "keep ring next to depth", "Hot members in one cache line.")
    result = CliRunner().invoke(main, ["check", "--btf", str(tmp_path / "nope.btf"), str(mail)])
    assert result.exit_code == 2
    assert "nope.btf" in result.output and "no such file" in result.output and "Traceback" not in result.output


# Two pointers and a lock on line 1 of an 80-byte struct; the patch moves the lock into the hole after the
# bit-fields and shrinks a list_head to a counter: 64 bytes, one line (the shape of a real blk-flush patch).
SHRINK_BEFORE = """\
struct foo_flush {
	unsigned int		pending_idx:1;
	unsigned int		running_idx:1;
	unsigned char		status;
	u64			pending_since;
	u64			queue[4];
	u64			in_flight[2];
	void			*rq;
	spinlock_t		lock;
};
"""
SHRINK_AFTER = """\
struct foo_flush {
	spinlock_t		lock;
	unsigned int		pending_idx:1;
	unsigned int		running_idx:1;
	unsigned char		status;
	u64			pending_since;
	u64			queue[4];
	unsigned long		in_flight;
	void			*rq;
};
"""


def test_the_map_says_what_the_patch_moved_what_follows_and_the_size(tmp_path) -> None:
    src, obj = tmp_path / "flush.c", tmp_path / "flush.o"
    src.write_text(PRELUDE + SHRINK_BEFORE + "struct foo_flush f;\n")
    subprocess.run(["gcc", "-g", "-c", src, "-o", obj], check=True)
    mail = make_patch(tmp_path, SHRINK_BEFORE, SHRINK_AFTER, "count in-flight requests", "Count them instead.")
    patch, [f] = findings(mail, obj)
    # the lock is what the patch moved; rq only follows the shrunk in_flight: said apart, then pahole's summary
    assert f.details["layout_moves"] == (
        "lock moves from line 1 to line 0, next to pending_idx; not moved by the patch but changing line: rq moves "
        "from line 1 to line 0, next to in_flight; the struct goes from 80 to 64 bytes, 2 cache lines to 1"
    )
    assert f.details["layout_source"] == "flush.o"
    # line 1 no longer exists after the patch: said so, not "(no member starts here)"
    assert f.details["layout_map"][-2:] == ["  line 1 before: rq, lock", "  line 1 after:  (past the struct's end)"]
