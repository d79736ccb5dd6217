"""Issue 11 (right words): a barrier draft names the place as a reviewer does, by the function the barrier
is in ("the smp_mb() in bcache_reboot()"), not by a line number of the new file.

The patch is rules/examples/RB102/bad-two-full-barriers-one-flag.patch (after "bcache: avoid a deadlock in
bcache_reboot()", linux-kernel 2019/06/28), its ``@@`` lines given the function each hunk starts in, as git
writes them; and a version where the second function opens inside the hunk with its return type on the line
above ("static void" / "foo_reboot(...)", as dm-vdo's enqueue_work_queue_completion() is written).
"""

from __future__ import annotations

import sys

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
MODULE = sys.modules[RULE.module_name]
PATH = RULE.examples_dir / "bad-two-full-barriers-one-flag.patch"


def _reply(raw: bytes) -> str:
    patch = parse_patch(parse_rfc822(raw, str(PATH)))
    findings = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    assert findings
    return " ".join(MODULE.reply_point(findings, patch).split())


def test_a_pair_is_named_by_the_functions_the_hunks_start_in() -> None:
    raw = PATH.read_bytes()
    raw = raw.replace(
        b"@@ -300,4 +300,9 @@\n", b"@@ -300,4 +300,9 @@ static ssize_t foo_register(const char *buffer)\n"
    )
    raw = raw.replace(
        b"@@ -400,3 +405,11 @@\n", b"@@ -400,3 +405,11 @@ static int foo_reboot(struct notifier_block *n)\n"
    )
    text = _reply(raw)
    assert "The smp_mb() in foo_reboot() and the smp_mb() in foo_register() look like a pair" in text
    assert "at line" not in text


def test_a_definition_split_after_its_return_type_names_the_function() -> None:
    raw = PATH.read_bytes().replace(
        b"@@ -400,3 +405,11 @@\n \t\tmutex_lock(&foo_register_lock);\n",
        b"@@ -395,8 +400,16 @@\n }\n \n static void\n foo_reboot(struct notifier_block *n)\n {\n"
        b" \t\tmutex_lock(&foo_register_lock);\n",
    )
    text = _reply(raw)
    # the first hunk names no function: its barrier keeps its line
    assert "The smp_mb() in foo_reboot() and the smp_mb() at line 304 look like a pair" in text
