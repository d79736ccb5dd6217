"""RB202 measurement-code-in-patch: a timing harness left in a patch meant for merging.

What it does
------------
Looks at the lines a patch adds to ``.c``/``.h`` files for code that measures
instead of doing the work:

* a time or cycle stamp (``get_cycles()``, ``rdtsc*()``, ``ktime_get*()``,
  ``sched_clock()``, ``local_clock()``, ``cpu_clock()``) stored in a variable
  and a delta of such stamps printed with ``printk``/``pr_*``/``dev_*``/
  ``trace_printk`` in the same hunk (also when the print's arguments continue
  on the next lines);
* a ``static`` sample counter or sum averaged and printed in the same hunk;
* interrupts disabled around a call only to time it (``local_irq_save`` or
  ``local_irq_disable`` with a stamp taken inside);
* printed, not kept (``_printed_kept_time``): a delta of stamps kept in a
  structure's member is statistics (exported through sysfs or debugfs, or read
  by the code itself); a log line on every run (``printk``, ``pr_info``,
  ``pr_notice``, ``trace_printk``; not a debug print, not a warning) that
  prints it, or a time computed from it (an average:
  ``stats.gc_cost / stats.nodes``), anywhere in the file's added lines, is
  measuring output.

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
Only looks inside one hunk (a stamp taken in one hunk and printed in another
is not seen), except for a time kept in a member, which is the file's state. Code that measures on purpose is left alone: ``tools/`` (kselftests,
perf), ``samples/``, test modules (``lib/test_*.c``, ``*_test.c``), in-kernel self-tests (``kernel/kallsyms_selftest.c``), KUnit tests
(``*_kunit.c``, ``<kunit/test.h>``), ``tests/`` folders and benchmarks
(``*bench*``, ``*torture*``, ``crypto/tcrypt.c``), and a file whose unchanged
lines already time something and print it (new code beside an existing
microbenchmark, copying it). Only a print of a *difference*
of stamps (or an average) counts: printing a plain time stamp, a state or an
error next to timing code is not a harness, and neither is a delta kept in a
structure's member (``df->busy_time += ktime_sub(now, last)``: statistics the
code keeps and reports, as a devfreq driver's busy and idle time, shown by a
``dev_dbg()``), unless a log line prints it.

Sure or not
-----------
A harness in a file the patch adds whole (a new driver's own diagnostics), in a
debug print (``dev_dbg``, ``pr_debug``: off unless enabled), in a print the
patch moves (its removed lines hold it) or in prints the changelog says it adds
("Add some calibration printks") stays a finding that ``draft`` does not write
(``details["unsure"]``; ``draft --unsure`` writes it).

References
----------
* Documentation/process/submitting-patches.rst (the changelog carries the numbers)
* Documentation/trace/tracepoints.rst
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Sequence

from reviewbot import lazyre
from reviewbot.cutil import LazyScans
from reviewbot.view import FileView, patch_view
from reviewbot.models import UNSURE_KEY, FileDiff, Finding, LineKind, Patch
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
# Every clock name of _CLOCK holds one of these (case matters): a text without them cannot match _CLOCK_RE
CLOCK_WORDS = ("get_cycles", "rdtsc", "ktime_get", "sched_clock", "local_clock", "cpu_clock")
# calls that compute the difference of two stamps
DELTA_CALLS = ("ktime_sub", "ktime_us_delta", "ktime_ms_delta", "ktime_to_ns(ktime_sub", "time_delta")
PRINT_WORDS = ("print", "pr_", "dev_")
# names of the sample counters a harness averages ("static u64 total_ns, nr_calls;")
COUNTER_WORDS = r"(?:total|sum|count|samples|nr_calls|calls|iters)"
# Files that measure on purpose: self-tests, KUnit tests, test modules, benchmarks and tools
MEASURING_PATH_RE = lazyre.compile(
    r"^(?:tools|samples|scripts)/"  # tools/testing/selftests, perf, samples
    r"|(?:^|/)tests?/"  # fs/btrfs/tests/, drivers/.../test/
    r"|(?:^|/)test_\w+\.c$|[_-]tests?\.c$|[_-]kunit\.c$|kunit"  # lib/test_bitmap.c, foo_test.c, foo_kunit.c
    r"|selftest"  # an in-kernel self-test facility: kernel/kallsyms_selftest.c, lib/*selftest*
    r"|bench|torture|(?:^|/)tcrypt\.c$"  # lib/*benchmark*, locktorture, crypto/tcrypt.c
)
# added code that makes a file a test: KUnit suites, a test module's init
TEST_MARKERS = ("<kunit/test.h>", "KUNIT_CASE", "kunit_test_suite", "KSTM_MODULE", "<linux/kselftest")

_STAMP_RE = lazyre.compile(r"\b([A-Za-z_]\w*)\s*=\s*" + _CLOCK + r"\s*\(")
_CLOCK_RE = lazyre.compile(r"\b" + _CLOCK + r"\s*\(")
_ASSIGN_RE = lazyre.compile(r"\b([A-Za-z_]\w*)\s*[+-]?=(?!=)\s*(.*)")  # "d = t1 - t0", "sum += ...", not "=="
_PRINT_RE = lazyre.compile(r"\b(?:printk|pr_\w+|trace_printk|dev_(?:info|warn|err|dbg|notice))\s*\(")
_STATIC_COUNTER_RE = lazyre.compile(r"^\s*static\s+(?:[\w\s]+?)\b(\w*" + COUNTER_WORDS + r"\w*)\b")
_IRQ_OFF_RE = lazyre.compile(r"\blocal_irq_(?:save|disable)\s*\(")
_STATIC_PREFILTER_RE = lazyre.compile(r"^\s*static\s+[\w\s]+?\b\w*" + COUNTER_WORDS + r"\w*\b", re.M)
_WORDS_RE = lazyre.compile(r"\w+")
#: a division's operands: "total_ns / nr_calls", "div_u64(total, (u64)count)" (a cast before the divisor skipped)
_DIVISION_RE = lazyre.compile(
    r"(\w+)\s*/\s*(?:\(\s*\w+(?:\s+\w+)*\s*\)\s*)?(\w+)|\bdiv\w*\(\s*(\w+)\s*,\s*(?:\([\w\s]+\)\s*)?(\w+)"
)
_DEBUG_PRINT_RE = lazyre.compile(r"\b(?:pr_debug|pr_devel|dev_dbg|netdev_dbg|dev_vdbg)\s*\(")
_MINUS_RE = lazyre.compile(r"-(?![->=])")  # a subtraction, not "->", "--" or "-="


def _may_harness(text: str) -> bool:
    """Whether ``text`` may hold a harness: a clock call, or a static sample counter, and a print.

    Substring tests first: the patterns only run when their words are there.
    """
    if not any(word in text for word in PRINT_WORDS):
        return False  # nothing printed: no harness
    if any(word in text for word in CLOCK_WORDS) and _CLOCK_RE.search(text):
        return True
    return _declares_static_counter(text)


def _declares_static_counter(text: str) -> bool:
    """Does ``text`` declare a static sample counter (``_STATIC_PREFILTER_RE``)? Such a declaration starts a
    line with ``static``: the pattern is tried at the start of those lines only, not at every line."""
    pos = text.find("static")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        if not text[start:pos].strip() and _STATIC_PREFILTER_RE.match(text, start):
            return True
        pos = text.find("static", pos + 6)
    return False


def _lines_naming(words: Sequence[str], lines: Sequence[str], text: str | None = None) -> set[int]:
    """The indices of ``lines`` that hold one of ``words`` (plain substrings, none with a line end); ``text``:
    the lines joined by newlines, when the caller has joined them.

    Each word is looked for in the joined lines, jumping from one line that holds it to the next, instead of
    testing every word on every line: a new file's hunk has thousands of lines and a few print calls. A line's
    index is the count of line ends before it, counted on from the last line found.
    """
    if text is None:
        text = "\n".join(lines)
    found: set[int] = set()
    for word in words:
        k = 0  # the index of the line holding text[counted]
        counted = 0
        at = text.find(word)
        while at >= 0:
            k += text.count("\n", counted, at)
            found.add(k)
            counted = text.find("\n", at)  # the end of line k
            if counted < 0:
                break
            at = text.find(word, counted + 1)
    return found


def _measures_on_purpose(path: str, added: str) -> bool:
    """Self-tests, KUnit tests, test modules, benchmarks and tools measure on purpose."""
    return MEASURING_PATH_RE.search(path) is not None or any(marker in added for marker in TEST_MARKERS)


#: How many lines a print call's arguments may continue over ("dev_dbg(dev, \"... %lld us\",\n\t\tpfx, time_us);")
PRINT_CONTINUATION_LINES = 6


def _prints_delta(texts: Sequence[str]) -> bool:
    """True when ``texts`` (lines of C) print a difference of time stamps they take."""
    harness = _Harness(texts)
    if not (harness.stamps or harness.deltas):
        return False
    return any(kind == "time delta" for _at, kind in harness.prints())


def _file_measures_already(fv: FileView) -> bool:
    """True when the unchanged lines the hunks show already time something and print it (a microbenchmark the
    new code sits next to and copies, as a debugfs 'test=' command beside 'microbench='): the file measures
    on purpose. The context lines of all hunks are read as one run of lines, as the view gives their texts."""
    context = [text for hv in fv.hunks for text in hv.context_texts]
    text = "\n".join(context)
    if not any(word in text for word in CLOCK_WORDS) or not _may_harness(text):
        return False
    return _prints_delta(context)


class _Harness:
    """What some lines of C (the added lines of one hunk) measure: stamp, delta and counter variables, irqs
    disabled, and the prints of a measurement.

    Each step reads the code of a line (comments and literal contents cut: ``LazyScans``) only where the line's
    text names the word the step looks for: a word of a line's code is a word of its text, and a new file's
    hunk has thousands of lines and a few clock calls and prints.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = texts
        self.scans = LazyScans(texts, in_comment=False)  # the scan_lines(texts) of each line, made when read
        self.stamps: set[str] = set()
        self.deltas: set[str] = set()
        self.counters: set[str] = set()
        self.kept: set[str] = set()  # members holding a delta of stamps
        joined = self.joined = "\n".join(texts)
        clocked = _lines_naming(CLOCK_WORDS, texts, joined)
        timed = bool(clocked)  # else no stamp is taken and no delta computed
        for k in clocked:
            self.stamps.update(m.group(1) for m in _STAMP_RE.finditer(self.code(k)))
        for k in _lines_naming(("static",), texts, joined):
            m = _STATIC_COUNTER_RE.match(self.code(k))
            if m:
                self.counters.add(m.group(1))
        self.irq_off = any(_IRQ_OFF_RE.search(self.code(k)) for k in _lines_naming(("local_irq_",), texts, joined))
        # A second pass: a delta may use a stamp taken on a later line (a loop). A delta's expression names a stamp
        # or calls a clock: only the lines naming one of those can assign a delta.
        for k in clocked | _lines_naming(tuple(self.stamps), texts, joined) if timed else ():
            code = self.statement(k)  # "x = a > b\n\t? now - t0 : 0;": the expression read to its end
            m = _ASSIGN_RE.search(code)
            # a delta kept in a structure's member ("df->busy_time += ktime_sub(now, last)"): statistics the code
            # keeps (a devfreq governor's busy/idle time), the feature itself, not a measurement to print; unless
            # a log line prints it (``_printed_kept_time``)
            if m and self.is_delta(m.group(2)):
                (self.kept if code[m.start(1) - 1 : m.start(1)] in (".", ">") else self.deltas).add(m.group(1))

    def code(self, k: int) -> str:
        """The code of line ``k`` (its text without comments and literal contents)."""
        return self.scans[k].code

    def statement(self, k: int) -> str:
        """The code of line ``k`` and of the lines its statement continues on (up to a ";", "{" or "}")."""
        code = self.code(k)
        for j in range(k + 1, min(k + 1 + PRINT_CONTINUATION_LINES, len(self.texts))):
            if code.rstrip().endswith((";", "{", "}")) or not code.strip():
                break
            code += " " + self.code(j)
        return code

    def print_args(self, at: int, start: int) -> str:
        """The arguments of the print call opened at ``code(at)[start:]``, with the lines they continue on."""
        args = self.code(at)[start:]
        depth = 1 + args.count("(") - args.count(")")
        for k in range(at + 1, min(at + 1 + PRINT_CONTINUATION_LINES, len(self.texts))):
            if depth <= 0:
                break
            code = self.code(k)
            args += " " + code
            depth += code.count("(") - code.count(")")
        return args

    def prints(self) -> Iterator[tuple[int, str]]:
        """(line, kind) of each print call, in line order, whose arguments show a measurement (``printed``).

        Only the lines whose text names a print (``PRINT_WORDS``) are read; a line's first print call counts."""
        for at in sorted(_lines_naming(PRINT_WORDS, self.texts, self.joined)):
            printed = _PRINT_RE.search(self.code(at))
            if printed is None:
                continue
            kind = self.printed(self.print_args(at, printed.end()))
            if kind is not None:
                yield at, kind

    def is_delta(self, expr: str) -> bool:
        """True when ``expr`` is a difference of stamps: ``t1 - t0``, ``get_cycles() - t0``, ``ktime_sub(...)``."""
        names = set(_WORDS_RE.findall(expr))
        timed = bool(names & self.stamps) or _CLOCK_RE.search(expr) is not None
        return timed and (_MINUS_RE.search(expr) is not None or any(call in expr for call in DELTA_CALLS))

    def printed(self, args: str) -> str | None:
        """The kind of measurement a print call's arguments (strings blanked) show, or None."""
        names = set(_WORDS_RE.findall(args))
        if names & self.deltas or self.is_delta(args):
            return "time delta"
        if self.counters and any(not self.counters.isdisjoint(m.groups()) for m in _DIVISION_RE.finditer(args)):
            return "average of static counters"  # "total_ns / nr_calls"; not "size / SZ_1M", a unit
        return None


#: A log line every run writes (not a debug print, off unless enabled): printk, pr_info, pr_notice, trace_printk.
#: Warnings and errors (pr_warn, pr_err) report a failure, such as a timeout, with its time.
_LOG_PRINT_RE = lazyre.compile(r"\b(?:printk|pr_info|pr_notice|trace_printk)\s*\(")


def _printed_kept_time(fv: FileView) -> int | None:
    """Step "printed, not kept": the index among the file's added lines of a log line (``_LOG_PRINT_RE``) that
    prints a time the code keeps in a member, or one computed from it (an average: ``stats.gc_cost /
    stats.nodes``), in any hunk of the file; else None. A kept time is statistics (read through sysfs or debugfs,
    or by the code itself, as a GC's sleep computed from its cost); printed on every run it is measuring output."""
    texts = fv.added_text.split("\n")
    harness = _Harness(texts)
    timed = set(harness.kept)
    while timed:  # what is computed from a kept time is a time: a difference of two, an average
        more = {
            m.group(1)
            for k in _lines_naming(tuple(timed), texts, harness.joined)
            if (m := _ASSIGN_RE.search(harness.statement(k))) and not timed.isdisjoint(_WORDS_RE.findall(m.group(2)))
        }
        if more <= timed:
            break
        timed |= more
    for k in sorted(_lines_naming(("print", "pr_"), texts, harness.joined)) if timed else ():
        printed = _LOG_PRINT_RE.search(harness.code(k))
        if printed and not timed.isdisjoint(_WORDS_RE.findall(harness.print_args(k, printed.end()))):
            return k
    return None


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """Report the print line of a timing harness (one finding per hunk)."""
    findings: list[Finding] = []
    for fv in patch_view(patch, ctx).files:
        fd = fv.diff
        if not fd.path.endswith((".c", ".h")):
            continue
        text = fv.added_text
        if not _may_harness(text):
            continue  # a file whose added lines print no clock reading and no static counter has no harness
        if _measures_on_purpose(fd.path, text) or _file_measures_already(fv):
            continue
        for hv in fv.hunks:
            if not _may_harness(hv.added_text):
                continue  # stamps and their print do not cross hunks
            hunk = hv.hunk
            harness = _Harness(hv.added_texts)
            if not (harness.stamps or harness.deltas or harness.counters):
                continue
            # the first print of a measurement; a print of something else (a state, an error, a plain time stamp)
            # is passed over
            for at, kind in harness.prints():
                dl = hv.added[at]  # the hunk's DiffLines, made only for a finding
                findings.append(
                    RULE.finding(
                        patch,
                        f"added code prints a {kind} ({'interrupts disabled around it, ' if harness.irq_off else ''}"
                        "looks like a measuring harness, not meant for merging)",
                        path=fd.path,
                        line=dl.new_no,
                        input_line=dl.input_line,
                        hunk=hunk,
                        symbol=f"harness@{(hunk.section or '').strip()[:60]}",
                        details={"kind": kind, "stamps": sorted(harness.stamps), "irq_off": harness.irq_off}
                        | _unsure(fd, patch, dl.text),
                    )
                )
                break
        found = -1 if any(f.path == fd.path for f in findings) else _printed_kept_time(fv)
        kept = -1 if found is None else found
        for hv in fv.hunks if kept >= 0 else ():
            if kept >= len(hv.added_texts):
                kept -= len(hv.added_texts)  # the file's added lines are the hunks' in order
                continue
            dl = hv.added[kept]
            findings.append(
                RULE.finding(
                    patch,
                    "added code prints a time it keeps (a delta of stamps in a member, or an average of it) on "
                    "every run: measuring output, not the statistic kept",
                    path=fd.path,
                    line=dl.new_no,
                    input_line=dl.input_line,
                    hunk=hv.hunk,
                    symbol=f"harness@{(hv.hunk.section or '').strip()[:60]}",
                    details={"kind": "kept time printed", "stamps": [], "irq_off": False} | _unsure(fd, patch, dl.text),
                )
            )
            break
    return findings


#: Step "sure": a timing print a reviewer would not call a harness left in for sure (``draft --unsure`` drafts it).
#: Readers of drafts on lists the rule never saw said NO to 4 of 4 such points: a new driver's own debug dump
#: and its dev_dbg() of how long the chip took to answer were called "the timing code used to get the numbers".
UNSURE_NEW_FILE = "a new file's prints are its own diagnostics, written on purpose, not a harness left over"
UNSURE_DEBUG = "a debug print is off unless enabled: how a driver traces itself on demand, not a log on every run"
UNSURE_MOVED = "the print is moved, not added: the patch takes it from its removed lines"
UNSURE_ANNOUNCED = "the changelog says the patch adds these prints: they are its purpose, not a harness left over"
#: a changelog sentence announcing the prints the patch adds ("Add some calibration printks to allow setting ...")
_ANNOUNCED_RE = lazyre.compile(
    r"(?i)\b(?:add|adds|added|adding|introduce|introduces)\b[^.]{0,40}?\b(?:printks?|prints|pr_info|messages?)\b"
)


def _unsure(fd: FileDiff, patch: Patch, line: str) -> dict[str, str]:
    """Step "sure": ``{UNSURE_KEY: why}`` when the print ``line`` of a harness found in ``fd`` is in a file the
    patch adds whole, is a debug print, is one of the patch's removed lines moved, or the changelog announces the
    prints (a fresh reader said NO to asking whether "calibration printks" the changelog adds were meant to stay)."""
    if fd.status == "added":
        return {UNSURE_KEY: UNSURE_NEW_FILE}
    if _ANNOUNCED_RE.search(patch.commit_message):
        return {UNSURE_KEY: UNSURE_ANNOUNCED}
    if _DEBUG_PRINT_RE.search(line):
        return {UNSURE_KEY: UNSURE_DEBUG}
    removed = (dl.text.strip() for f in patch.files for h in f.hunks for dl in h.lines if dl.kind is LineKind.REMOVED)
    return {UNSURE_KEY: UNSURE_MOVED} if line.strip() in set(removed) else {}


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask whether the timing code was meant to stay (not saying what it measured: the patch may give no numbers)."""
    if not findings:
        return ""
    return (
        "This looks like code for timing the change rather than part of it; was it meant to stay in the "
        "patch? If the timings are useful, could they go into the changelog instead (and a tracepoint, if "
        "this should be observable in production)?"
    )


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=("timing", "debug", "measurement code", "get_cycles", "ktime", "rdtsc", "leftover", "left over"),
    asks=(
        "timing code",
        "debug code",
        "measurement code",
        "left over from",
        "leftover from",
        "meant to be part of the patch",
        "remove the timing",
        "drop the timing",
    ),
)
