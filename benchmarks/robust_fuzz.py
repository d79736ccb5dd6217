"""Issue 13 fuzz run: long repetitive and non-ASCII input through the page parser, the mail reader,
the rules, the thread check and the drafter. Prints, per stage, the slowest 10 KB -> 100 KB growth
(linear is about 10x, quadratic 100x) and every exception that is not a clear reviewbot error.

Usage: python benchmarks/robust_fuzz.py [--sizes 10000 100000]

A benchmark, not a test: the timed bounds live in tests/test_robust_linear.py with generous margins.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
import traceback
from datetime import datetime, timezone
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from reviewbot.engine import check_patch  # noqa: E402
from reviewbot.errors import ReviewbotError  # noqa: E402
from reviewbot.fetch.openwall import PRE_OPEN, parse_message_page  # noqa: E402
from reviewbot.models import Address  # noqa: E402
from reviewbot.parse.mail import parse_message, parse_rfc822  # noqa: E402
from reviewbot.parse.patch import parse_patch  # noqa: E402
from reviewbot.registry import load_rules  # noqa: E402
from reviewbot.respond.draft import applied_in_thread, build_draft, thread_state  # noqa: E402
from reviewbot.respond.render import render_message  # noqa: E402
from reviewbot.rule import RuleContext  # noqa: E402

UNITS = [
    "a",
    " ",
    "\t",
    "x(",
    "order ",
    "with patch ",
    "before ",
    "smp_mb(); ",
    "against ",
    "applied ",
    "[PATCH 1/2] ",
    "Re: ",
    "<a@b> ",
    "=?utf-8?q?=C3=A9?= ",
    "=41",
    "> ",
    "@@ -1 +1 @@ ",
    "+",
    "-",
    "/* ",
    "é",
    "日本語 ",
    "\ufffd",
    "\x1b[31m",
    "\x07",
    "ünïcödé ",
    "\u202e",
    "&amp;",
    "&#0;",
    "<b>",
]
NOW = datetime(2025, 3, 20, 8, 30, tzinfo=timezone.utc)
IDENTITY = Address("Zoë Reviewer", "zoe@example.com")


def mail(unit: str, size: int) -> bytes:
    line = (unit * (size // len(unit) + 1))[:size]
    return (
        f"From: Ada {line[:200]} <ada@example.org>\nMessage-ID: <m@example.org>\n"
        f"Subject: [PATCH] foo: {line[:2000]}\nDate: Wed, 12 Mar 2025 10:00:00 +0100\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
        f"{line}\n\nSigned-off-by: Ada <ada@example.org>\n---\n"
        "diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1,2 +1,4 @@\n int a;\n"
        f"+{line}\n+\tsmp_mb();\n int c;\n"
    ).encode("utf-8", "surrogatepass")


def page(unit: str, size: int) -> bytes:
    line = (unit * (size // len(unit) + 1))[:size]
    text = escape(line) if unit != "<b>" else line
    return (
        f"<html><body>{PRE_OPEN}\nMessage-ID: &lt;m@example.org&gt;\nDate: Wed, 12 Mar 2025 10:00:00 +0100\n"
        f"From: Ada &lt;ada@...mple.org&gt;\nSubject: [PATCH] {text[:500]}\n\n{text}\n</pre>\n"
        "<p>Powered by blists</p></body></html>"
    ).encode("utf-8", "replace")


def stages(rules):
    def parse_page(unit, size):
        raw = parse_message_page(
            page(unit, size), "https://lists.openwall.net/linux-kernel/2025/03/12/1", "linux-kernel"
        )
        parse_message(raw)

    def read_mail(unit, size):
        parse_patch(parse_rfc822(mail(unit, size), "m"))

    def run_rules(unit, size):
        check_patch(parse_patch(parse_rfc822(mail(unit, size), "m")), rules, RuleContext())

    def draft(unit, size):
        patch = parse_patch(parse_rfc822(mail("x ", 200), "m"))
        findings = check_patch(patch, rules, RuleContext()).findings
        body = mail(unit, size).decode("utf-8", "replace")
        other = dataclasses.replace(
            patch.message,
            message_id="r@example.org",
            body=body,
            from_addr=Address("Bob", "bob@example.com"),
            in_reply_to="m@example.org",
            subject=patch.message.subject,
            date=None,
        )
        for f in findings:
            thread_state(f, patch, [other], identity=IDENTITY)
        applied_in_thread(patch, [other], identity=IDENTITY)
        long_subject = dataclasses.replace(patch.message.subject, raw=body[:5000], title=body[:5000])
        patch2 = dataclasses.replace(patch, message=dataclasses.replace(patch.message, subject=long_subject))
        if findings:
            render_message(
                build_draft(
                    patch2,
                    findings,
                    rules,
                    identity=IDENTITY,
                    list_address="linux-kernel@vger.kernel.org",
                    clock=lambda: NOW,
                )
            )

    return {"page parser": parse_page, "mail reader": read_mail, "rules": run_rules, "thread check + drafter": draft}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs=2, default=[10_000, 100_000])
    args = ap.parse_args()
    small, big = args.sizes
    rules = load_rules(entry_points=False)
    crashes = 0
    for name, fn in stages(rules).items():
        worst = (0.0, "", 0.0, 0.0)
        total = 0.0
        for unit in UNITS:
            times = []
            for size in (small, big):
                best = float("inf")
                for _ in range(3):  # best of three: the machine is shared
                    t = time.perf_counter()
                    try:
                        fn(unit, size)
                    except ReviewbotError:
                        pass  # a clear error naming the input is an allowed outcome
                    except Exception:
                        crashes += 1
                        print(f"{name} {unit!r} {size}: TRACEBACK\n{traceback.format_exc()}")
                    best = min(best, time.perf_counter() - t)
                times.append(best)
            total += times[1]
            ratio = times[1] / max(times[0], 2e-3)  # below 2 ms the clock's noise dominates
            if ratio > worst[0]:
                worst = (ratio, unit, times[0], times[1])
        print(
            f"{name:24} {len(UNITS)} inputs: slowest growth {worst[0]:.1f}x ({worst[1]!r}: "
            f"{worst[2] * 1000:.0f} ms at {small // 1000} KB -> {worst[3] * 1000:.0f} ms at {big // 1000} KB); "
            f"all {big // 1000} KB inputs {total:.2f} s"
        )
    print(f"tracebacks: {crashes}")
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
