"""RB202 measurement-code-in-patch: a timing harness left in a patch meant for merging.

What it does
------------
Looks at the lines a patch adds to ``.c``/``.h`` files for code that measures
instead of doing the work:

* a time or cycle stamp (``get_cycles()``, ``rdtsc*()``, ``ktime_get*()``,
  ``sched_clock()``, ``local_clock()``, ``cpu_clock()``) stored in a variable
  and a delta of such stamps printed with ``printk``/``pr_*``/``trace_printk``
  in the same hunk;
* a ``static`` sample counter or sum averaged and printed in the same hunk;
* interrupts disabled around a call only to time it (``local_irq_save`` or
  ``local_irq_disable`` with a stamp taken inside).

Why it matters
--------------
Such code is how a developer gets the numbers for the changelog; merged, it
floods the log, costs cycles on every call, and is not how the kernel exposes
measurements (tracepoints, perf events and statistics are).

Example
-------
::

    +	u64 t0 = get_cycles();
    +	foo_create_entry(cache, key);
    +	pr_info("create took %llu cycles\\n", get_cycles() - t0);

Use instead
-----------
Keep the harness out of the patch and put its results in the changelog, or
add a tracepoint if the timing is useful in production.

Known limits
------------
Only looks inside one hunk; a stamp taken in one hunk and printed in another
is not seen. Code under ``tools/`` and ``samples/`` (where measuring is the
point) is ignored.

References
----------
* Documentation/process/submitting-patches.rst (the changelog carries the numbers)
* Documentation/trace/tracepoints.rst
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from reviewbot.cutil import joined_text, scan_lines
from reviewbot.models import Finding, LineKind, Patch
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity

RULE = RuleMeta(
    id="RB202",
    name="measurement-code-in-patch",
    summary="Timing or sampling code meant for measuring left in the patch",
    severity=Severity.WARNING,
    scope=Scope.HUNK,
    references=("Documentation/process/submitting-patches.rst", "Documentation/trace/tracepoints.rst"),
)

_CLOCK = r"(?:get_cycles(?:64)?|rdtsc\w*|ktime_get\w*|sched_clock|local_clock|cpu_clock|rdtscll)"
_STAMP_RE = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*" + _CLOCK + r"\s*\(")
_CLOCK_RE = re.compile(r"\b" + _CLOCK + r"\s*\(")
_PRINT_RE = re.compile(r"\b(?:printk|pr_\w+|trace_printk|dev_(?:info|warn|err|dbg|notice))\s*\(")
_STATIC_COUNTER_RE = re.compile(r"^\s*static\s+(?:[\w\s]+?)\b(\w*(?:total|sum|count|samples|nr_calls|calls|iters)\w*)\b")
_IRQ_OFF_RE = re.compile(r"\blocal_irq_(?:save|disable)\s*\(")
_PREFILTER_RE = re.compile(
    r"\b" + _CLOCK + r"\s*\(|^\s*static\s+[\w\s]+?\b\w*(?:total|sum|count|samples|nr_calls|calls|iters)\w*\b", re.M
)
_QUICK_WORDS = ("cycles", "rdtsc", "ktime_get", "sched_clock", "local_clock", "cpu_clock", "static")
# Every clock name of _CLOCK holds one of these (case matters): a text without them cannot match _CLOCK_RE
_CLOCK_WORDS = ("get_cycles", "rdtsc", "ktime_get", "sched_clock", "local_clock", "cpu_clock")
_STATIC_PREFILTER_RE = re.compile(
    r"^\s*static\s+[\w\s]+?\b\w*(?:total|sum|count|samples|nr_calls|calls|iters)\w*\b", re.M
)


def _may_harness(text: str) -> bool:
    """Whether ``_PREFILTER_RE`` finds a match in ``text``, its two branches behind substring tests.

    The clock branch is the costly part of the pattern (tried at every
    position); it only runs when a clock name is in the text.
    """
    if any(word in text for word in _CLOCK_WORDS) and _CLOCK_RE.search(text):
        return True
    return "static" in text and _STATIC_PREFILTER_RE.search(text) is not None
_WORDS_RE = re.compile(r"\w+")
_EXCLUDED_PATH_RE = re.compile(r"^(?:tools|samples|scripts)/")


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """Report the print line of a timing harness (one finding per hunk)."""
    findings: list[Finding] = []
    for fd in patch.files:
        if not fd.path.endswith((".c", ".h")) or _EXCLUDED_PATH_RE.match(fd.path):
            continue
        text = joined_text(fd, LineKind.ADDED)
        if not ("print" in text or "pr_" in text or "dev_" in text):
            continue  # nothing printed: no harness
        if not any(word in text for word in _QUICK_WORDS) or not _may_harness(text):
            continue
        for hunk in fd.hunks:
            hunk_text = joined_text(hunk, LineKind.ADDED)
            if not ("print" in hunk_text or "pr_" in hunk_text or "dev_" in hunk_text):
                continue  # findings are on print lines (_PRINT_RE), and stamps do not cross hunks
            if not _may_harness(hunk_text):
                continue
            added = [d for d in hunk.lines if d.kind is LineKind.ADDED]
            if not added:
                continue
            scans = scan_lines([d.text for d in added])
            codes = [s.code for s in scans]
            if not any(_CLOCK_RE.search(c) or _STATIC_COUNTER_RE.match(c) for c in codes):
                continue
            stamps = set()
            counters = set()
            irq_off = False
            # substring tests first: each pattern needs its word (a clock name, "static",
            # "local_irq_", a print call name) in the line
            for code in codes:
                if "cycles" in code or "rdtsc" in code or "ktime_get" in code or "clock" in code:
                    for m in _STAMP_RE.finditer(code):
                        stamps.add(m.group(1))
                if "static" in code:
                    m = _STATIC_COUNTER_RE.match(code)
                    if m:
                        counters.add(m.group(1))
                if "local_irq_" in code and _IRQ_OFF_RE.search(code):
                    irq_off = True
            for dl, code, raw in zip(added, codes, (d.text for d in added)):
                if not ("print" in code or "pr_" in code or "dev_" in code) or not _PRINT_RE.search(code):
                    continue
                args = raw[raw.find("(") :]
                words = set(_WORDS_RE.findall(args))
                uses_stamp = bool(_CLOCK_RE.search(args)) or bool(words & stamps)
                delta = "-" in args or "ktime_sub" in args or "ktime_us_delta" in args or "ktime_ms_delta" in args
                averaged = bool(words & counters) and "/" in args
                if (uses_stamp and (delta or stamps)) or averaged:
                    kind = "average of static counters" if averaged and not uses_stamp else "time delta"
                    findings.append(
                        RULE.finding(
                            patch,
                            f"added code prints a {kind} ({'interrupts disabled around it, ' if irq_off else ''}"
                            "looks like a measuring harness, not meant for merging)",
                            path=fd.path,
                            line=dl.new_no,
                            input_line=dl.input_line,
                            hunk=hunk,
                            symbol=f"harness@{(hunk.section or '').strip()[:60]}",
                            details={"kind": kind, "stamps": sorted(stamps), "irq_off": irq_off},
                        )
                    )
                    break
    return findings


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask whether the timing code was meant to stay."""
    if not findings:
        return ""
    return (
        "This looks like the timing code used to get the numbers; was it meant to be part of the "
        "patch? If the measurements are useful, could they go into the changelog instead (and a "
        "tracepoint, if this should be observable in production)?"
    )


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=("timing", "debug", "measurement code", "get_cycles", "ktime", "rdtsc", "leftover", "left over"),
    asks=("timing code", "debug code", "measurement code", "left over from", "leftover from",
          "meant to be part of the patch", "remove the timing", "drop the timing"),
)
