"""RB201 perf-claim-without-evidence: a patch says it is faster but shows no measurement.

What it does
------------
Looks for a performance claim in the subject or the commit message:
"optimize", "speed up", "faster", "reduce overhead/contention/latency/cache
misses", "improve throughput/scalability/performance", "avoid false sharing",
"fast path"... A negated claim ("no performance change", "not an
optimization") and text inside quotes (an old commit's title) do not count.

Then it looks for evidence, in this order: the commit message and the notes
below ``---``; the series' cover letter (``ctx.cover``); a later message by the
patch author in the thread (``ctx.thread``). Evidence means measured numbers:
percentages, values with units (ns, us, ms, cycles, IOPS, MB/s, ops/s...),
"N times faster", before/after or with/without tables, or perf/fio style
output, or a measured ratio of a metric in one sentence ("improves small
write IOPS with a factor four on my test setup", "3x the throughput"). The
grade is recorded in ``details["evidence"]``:

* ``none``: nothing measured and no method named;
* ``claim-only``: a benchmark or tool is named, or a link or non-performance
  numbers (struct sizes) are given, but no measured result;
* ``measured``: measured results (no finding).

The finding is ``open`` unless someone in the thread already asked for
numbers (``raised``) or the numbers exist outside the patch itself: in the
series' cover letter or in a later reply by the author (``answered``: no
draft asks again; a reviewer may still ask to move them into the changelog).

Why it matters
--------------
Maintainers weigh a performance patch's extra complexity against its gain.
Without numbers nobody can tell whether the gain is real, on which machine,
or whether it regresses another workload. Reviewers ask for them again and
again ("can you add performance numbers here and so justify the change?").

Example
-------
::

    Subject: [PATCH] mbcache: Speed up cache entry creation

    Avoid taking the hash bucket lock twice when creating an entry.

Use instead
-----------
::

    Subject: [PATCH] mbcache: Speed up cache entry creation

    Avoid taking the hash bucket lock twice when creating an entry.
    Measured with a micro benchmark creating 10M entries on 8 CPUs:

                  cycles/entry
      before      1840
      after        960   (-48%)

Known limits
------------
Recognises English phrasing only. Whether the numbers are *convincing* is left
to the reviewer; a number with a unit in an unrelated sentence counts as
evidence. Evidence behind a link is not followed.

References
----------
* Documentation/process/submitting-patches.rst, "Describe your changes"
  (quantify optimizations and trade-offs)
* Documentation/process/maintainer-tip.rst (performance claims need numbers)
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

from reviewbot.models import Finding, FindingState, Message, Patch
from reviewbot.parse.threads import about_patch
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity

RULE = RuleMeta(
    id="RB201",
    name="perf-claim-without-evidence",
    summary="Performance claim in the subject or commit message without measurements",
    severity=Severity.WARNING,
    scope=Scope.PATCH,
    references=(
        "Documentation/process/submitting-patches.rst#describe-your-changes",
        "Documentation/process/maintainer-tip.rst",
    ),
)

# The lookahead after the first \b names the first letter of every alternative: re then
# skips most positions before trying the alternation (same matches, about twice as fast)
_CLAIM_RE = re.compile(
    r"\b(?=[abcdefhiklmnoprs])(?:optimi[sz](?:e|es|ed|ing|ation|ations)|opti[mn]ise|speed(?:s|ing)?[\s-]?up|speedups?|faster|"
    r"(?:reduc(?:e|es|ed|ing)|lower(?:s|ed|ing)?|cut(?:s|ting)?|avoid(?:s|ed|ing)?|eliminat(?:e|es|ed|ing)|"
    r"minimi[sz](?:e|es|ed|ing)|sav(?:e|es|ed|ing)|less|fewer|decreas(?:e|es|ed|ing))"
    r"\s+(?:[\w/-]+\s+){0,3}?(?:overhead|contention|latency|latencies|cache[\s-]?misses|cache[\s-]?line"
    r"\s+bouncing|bouncing|cycles|false[\s-]sharing|cpu\s+(?:time|usage|cycles))|"
    r"improv(?:e|es|ed|ing|ement|ements)\s+(?:[\w/-]+\s+){0,3}?(?:throughput|scalability|performance|"
    r"cache|latency|iops|efficiency|speed|locality)|"
    r"(?:better|higher|improved)\s+(?:performance|throughput|scalability|cache\s+(?:usage|locality)|"
    r"memory\s+placement)|"
    r"performance\s+(?:improvement|gain|boost|win)s?|"
    r"(?:add|adds|added|introduce|introduces|new)\s+(?:a\s+|an\s+)?(?:[\w-]+\s+){0,2}?fast[\s-]?path|"
    r"cache[\s-]?(?:line\s+)?(?:benefits?|benifits?|optimi[sz]ed|friendly)|"
    r"single[\s-]cache[\s-]?line|fits?\s+in(?:to)?\s+(?:a\s+|one\s+|the\s+)?(?:single\s+)?cache[\s-]?line|"
    r"keeps?\s+(?:the\s+)?(?:caches?|cache\s+lines|them|it)\s+hot|"
    r"fewer\s+(?:operations|instructions|atomics|atomic\s+operations|cache\s+misses|branches|cycles)|"
    r"(?:considerable|significant|lots\s+of|many)\s+(?:amount\s+of\s+)?(?:cycles|cpus?\b|cpu\s+time|overhead)|"
    r"more\s+efficient(?:ly)?|improv(?:e|es|ed|ing)\s+(?:[\w/-]+\s+){0,3}?layout)\b",
    re.IGNORECASE,
)
# Every alternative of _CLAIM_RE contains one of these words, so a text without any of
# them holds no claim: a few substring tests instead of the big pattern.
_CLAIM_HINTS = (
    "opti", "speed", "fast", "overhead", "contention", "latenc", "cache", "bouncing", "cycles", "sharing",
    "cpu", "throughput", "scalab", "performance", "efficien", "locality", "iops", "memory", "hot", "fewer",
    "layout",
)
_CLAIM_HINT_RE = re.compile("|".join(_CLAIM_HINTS), re.IGNORECASE)


def _may_claim(text: str) -> bool:
    """False when ``text`` cannot hold a claim (none of the hint words, in any case)."""
    if not text.isascii():  # re's case folding maps a few non-ASCII letters to ASCII ones
        return _CLAIM_HINT_RE.search(text) is not None
    low = text.lower()
    return any(word in low for word in _CLAIM_HINTS)
_SUBJECT_CLAIM_RE = re.compile(r"\bfast[\s-]?path\b|\bhot[\s-]?path\b|\bcachelines?\b|\bcache\s+lines?\b", re.I)
# "future optimizations", "the optimized assembly", "the has_sleepers optimization" (an
# existing mechanism named by its identifier): naming optimisation, not claiming one
_NOT_A_CLAIM_BEFORE_RE = re.compile(
    r"(?:future|further|later|upcoming|follow-?up|subsequent|compiler(?:'s)?|possible|potential|premature|"
    r"micro|arch|architecture|hand|simd|avx\w*|asm|assembly|existing|current|\b\w+_\w*|\bused\s+(?:for|by)(?:\s+[\w/-]+){0,4}|-)\s*-?$",
    re.IGNORECASE,
)
_NOT_A_CLAIM_AFTER_RE = re.compile(
    r"^\w*\s+(?:code|version|implementation|implementations|routines?|assembly|variants?|builds?|kernels?|"
    r"flags?|levels?|barriers?|out)\b",
    re.IGNORECASE,
)
_NEGATION_RE = re.compile(r"(?:\bno\b|\bnot\b|\bwithout\b|\bnever\b|n't\b|\bnor\b)[^.;:]{0,30}$", re.IGNORECASE)
_QUOTED_TITLE_RE = re.compile(r'\("[^"]*"\)|"[^"\n]{8,}"|commit\s+[0-9a-f]{7,}\s*\([^)]*\)', re.IGNORECASE)
_TRAILER_RE = re.compile(r"^(?:[A-Z][a-z]+(?:-[A-Za-z]+)+|Fixes|Link|Closes|Cc|Bug|Change-Id):\s")

_PERF_NUMBER_RE = re.compile(
    r"\d+(?:[.,]\d+)?\s*%|"
    r"\b\d+(?:[.,]\d+)*\s*(?:[kKmMgG]?\s?(?:iops|IOPS)|ns|nsecs?|us|usecs?|µs|ms|msecs?|seconds|secs?|cycles|"
    r"[kKMGT]i?B/s|[kKMG]?bps|[kKmM]?ops/s(?:ec)?|[kKmM]?ops|[kKmM]?reqs?/s|tps|qps|[kKmM]?pps|"
    r"instructions|insns|cache[\s-]misses|msgs?/s|mb/s|gb/s)\b|"
    r"\b\d+(?:\.\d+)?[xX]\s*(?:-\s*\d+(?:\.\d+)?[xX]\s*)?(?:faster|slower|speed-?ups?|improvement|better|higher|lower|"
    r"more|less|fewer|throughput|reduction|increase|decrease|slowdown|regression|gain)\b|\b\d+(?:\.\d+)?\s*times\s+(?:faster|slower|better|higher|lower|fewer|less|more)|"
    r"\b\d+(?:\.\d+)?\s*(?:->|→|=>)\s*\d+(?:\.\d+)?\s*(?!bytes|cachelines|cache\s+lines)\w*"
)
_NUM_WORD = (
    r"(?:\d+(?:[.,]\d+)?|one(?:\s+and\s+a)?\s+half|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|fifty|hundred|thousand)"
)
# A measured ratio: "with a factor four", "by a factor of 2.5", "2x", "4 times", "3.5×"
_RATIO_RE = re.compile(
    rf"\bfactor\s+(?:of\s+)?(?:about\s+|roughly\s+|around\s+|~\s*)?{_NUM_WORD}\b|"
    r"(?<![\w.])\d+(?:\.\d+)?\s*[xX×](?![\w(])|"
    rf"\b{_NUM_WORD}\s+times\b",
    re.IGNORECASE,
)
# What the ratio measures: a ratio of one of these is a measurement, not a wish
_METRIC_RE = re.compile(
    r"\b(?:k?iops|throughput|bandwidth|latenc(?:y|ies)|tail\s+latency|ops/s(?:ec)?|ops\s+per\s+second|"
    r"operations\s+per\s+second|requests\s+per\s+second|transactions\s+per\s+second|[kKmM]?(?:tps|qps|pps)|"
    r"cycles|instructions|cache[\s-]misses|run[\s-]?time|execution\s+time|wall[\s-]?(?:clock\s+)?time|"
    r"boot[\s-]?time|cpu\s+(?:time|usage|utili[sz]ation)|performance|speed|bogo[\s-]?ops)\b",
    re.IGNORECASE,
)
def _starting_with(pattern: re.Pattern, first: str) -> re.Pattern:
    """``pattern`` behind a lookahead on ``first``, a class of the characters every match starts with.

    Same matches; re then skips most positions of a text without trying the
    alternation (the sets were read from the parsed patterns).
    """
    return re.compile(rf"(?={first})(?:{pattern.pattern})", pattern.flags)


_PERF_NUMBER_RE = _starting_with(_PERF_NUMBER_RE, r"\d")
_RATIO_RE = _starting_with(_RATIO_RE, r"[\defhnost]")

_SENTENCE_END_RE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(\"'])|\n\s*\n")


def _may_ratio(text: str) -> bool:
    """False when ``text`` cannot match ``_RATIO_RE``: each branch needs "factor", "times" or an x after a digit.

    Substring tests on lower-cased ASCII text; other text goes to the pattern
    (re's case folding maps a few non-ASCII letters to ASCII ones).
    """
    if not text.isascii():
        return True
    low = text.lower()
    return "factor" in low or "times" in low or ("x" in low and _DIGIT_RE.search(text) is not None)


def _ratio_measured(text: str) -> bool:
    """True when one sentence of ``text`` (quotes left out) gives a ratio of a metric.

    "This patch improves small write IOPS with a factor four on my test setup",
    "latency drops 3x", "4 times the throughput": the author reports a measured
    ratio, which is evidence even without a before/after table.
    """
    if not _may_ratio(text) or not _RATIO_RE.search(text):
        return False
    own = "\n".join("" if line.lstrip().startswith(">") else line for line in text.splitlines())
    for sentence in _SENTENCE_END_RE.split(own):
        if _RATIO_RE.search(sentence) and _METRIC_RE.search(sentence):
            return True
    return False


_DIGIT_RE = re.compile(r"\d")
_SIZE_ONLY_RE = re.compile(r"\d+\s*(?:->|→|=>|to)\s*\d+\s*(?:bytes|cachelines|cache\s+lines)|\bbytes\b", re.I)
_TABLE_RE = re.compile(r"\b(?:before|after|baseline|vanilla|patched|unpatched|with(?:out)?\s+(?:the\s+)?patch|base|new)\b", re.I)
_TOOL_RE = re.compile(
    r"\b(?:fio|perf\s+(?:stat|record|report|bench|c2c|top|trace)|perf|will-it-scale|unixbench|hackbench|schbench|"
    r"netperf|iperf3?|lmbench|kernbench|mmtests|stress-ng|sysbench|t/io_uring|dbench|tbench|pgbench|"
    r"specjbb|redis-benchmark|memtier|vm-scalability|fs_mark|filebench|ebizzy|lockstat|bpftrace|"
    r"flame\s*graph|benchmark\w*|micro-?benchmark\w*)\b",
    re.IGNORECASE,
)
_TOOL_RE = _starting_with(_TOOL_RE, "[bdefhiklmnprstuvw]")
_SIZE_ONLY_RE = _starting_with(_SIZE_ONLY_RE, r"[\db]")
_LINK_RE = re.compile(r"https?://\S+|\[\d+\]")
_ASK_RE = re.compile(
    r"(?:performance|perf|benchmark|any|some|the|share|show|provide|post|add)\s+(?:\w+\s+)?"
    r"(?:numbers|data|results|metrics|measurements)|\bmeasur(?:e|ed|able|ements?)\b|\bbenchmark(?:s|ed|ing)?\b|"
    r"\bquantif\w+|\bnumbers\b",
    re.IGNORECASE,
)

# path prefix -> benchmarks a reviewer would suggest
_SUBSYSTEM_BENCH: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("fs/", "block/", "drivers/block/", "drivers/nvme/", "drivers/md/", "io_uring/"), "fs/block", "fio"),
    (("mm/",), "mm", "will-it-scale or mmtests"),
    (("kernel/sched/",), "sched", "hackbench or schbench"),
    (("net/", "drivers/net/"), "net", "netperf or iperf"),
    (("kernel/locking/",), "locking", "lock contention numbers (lockstat, perf lock)"),
)


def _own_lines(text: str) -> list[str]:
    """Lines of a mail text that the writer wrote (no ``>`` quotes, no trailers)."""
    out = []
    for line in text.splitlines():
        s = line.lstrip()
        if s.startswith(">") or _TRAILER_RE.match(s):
            out.append("")
            continue
        out.append(line)
    return out


def find_claim(text: str) -> re.Match | None:
    """The first performance claim in ``text`` that is not negated or inside a quoted title, or None."""
    if not _may_claim(text):
        return None  # none of the words every claim phrase needs
    cleaned = _QUOTED_TITLE_RE.sub(lambda m: " " * len(m.group(0)), text)
    for m in _CLAIM_RE.finditer(cleaned):
        before = cleaned[max(0, m.start() - 40) : m.start()]
        if _NEGATION_RE.search(before):
            continue
        if m.group(0).lower().startswith("optim") and (
            _NOT_A_CLAIM_BEFORE_RE.search(before) or _NOT_A_CLAIM_AFTER_RE.match(cleaned[m.start() : m.end() + 30])
        ):
            continue
        return m
    return None


@lru_cache(maxsize=256)
def _grade(text: str) -> str:
    """``measured``, ``claim-only`` or ``none`` for one block of text.

    Cached: every patch of a series grades the same cover letter.
    """
    for line in text.splitlines() if _DIGIT_RE.search(text) else ():  # no digit: no line has one
        if line.lstrip().startswith(">") or not _DIGIT_RE.search(line):
            continue  # a quote, or no digit: every _PERF_NUMBER_RE branch starts with one
        for m in _PERF_NUMBER_RE.finditer(line):
            if _SIZE_ONLY_RE.search(line[m.start() : m.end() + 20]):
                continue
            return "measured"
    if _ratio_measured(text):
        return "measured"
    if _TOOL_RE.search(text) or _LINK_RE.search(text) or _SIZE_ONLY_RE.search(text):
        return "claim-only"
    return "none"


_RANK = {"none": 0, "claim-only": 1, "measured": 2}


def _best(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


def _same_person(a: Message, patch: Patch) -> bool:
    x, y = a.from_addr, patch.message.from_addr
    if x is None or y is None:
        return False
    if x.email and y.email and not x.partial and not y.partial and x.email.lower() == y.email.lower():
        return True
    return bool(x.name) and x.name.strip().lower() == (y.name or "").strip().lower()


def _subsystem(patch: Patch) -> tuple[str, str] | None:
    counts: dict[tuple[str, str], int] = {}
    for fd in patch.files:
        for prefixes, area, bench in _SUBSYSTEM_BENCH:
            if fd.path.startswith(prefixes):
                counts[(area, bench)] = counts.get((area, bench), 0) + 1
    return max(counts, key=counts.get) if counts else None


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """One finding per patch whose claim has no measured evidence in the message, cover letter or thread."""
    if not patch.files:
        return []
    title = patch.subject.title
    claim_text = None
    line = None
    own_body: str | None = None  # the commit message without quotes and trailers, made once
    m = find_claim(title) or _SUBJECT_CLAIM_RE.search(title)
    if m:
        claim_text = " ".join(m.group(0).split())
    else:
        body = own_body = "\n".join(_own_lines(patch.commit_message))
        m = find_claim(body)
        if m:
            claim_text = " ".join(m.group(0).split())
            line = patch.commit_start_line + body.count("\n", 0, m.start())
    if claim_text is None:
        return []
    if own_body is None:
        own_body = "\n".join(_own_lines(patch.commit_message))
    own = own_body + "\n" + patch.notes
    grade = _grade(own)
    source = "commit message"
    if grade == "measured":
        return []
    answered = raised = False
    if ctx.cover is not None:
        cover_grade = _grade(ctx.cover.commit_message + "\n" + ctx.cover.notes)
        if cover_grade == "measured":
            answered = True
            source = "cover letter"
        grade = _best(grade, cover_grade)
    state = FindingState.OPEN
    for msg in ctx.thread:
        if msg.message_id == patch.message_id:
            continue
        if not about_patch(msg, patch):
            continue  # another branch of the thread (another patch of the series)
        text = "\n".join(_own_lines(msg.body))
        if _same_person(msg, patch):
            if _grade(text) == "measured" and not answered:
                answered = True
                source = "author's reply"
        elif _ASK_RE.search(text):
            raised = True
    if answered:
        state = FindingState.ANSWERED
    elif raised:
        state = FindingState.RAISED
    sub = _subsystem(patch)
    cache = bool(re.search(r"cache[\s-]?lines?|false[\s-]sharing|cacheline", patch.commit_message + title, re.I))
    where = "the subject" if line is None else "the commit message"
    message = f'{where} claims a speed-up ("{claim_text.strip()}") but shows no measurement (evidence: {grade})'
    if answered:
        message = f'{where} claims a speed-up ("{claim_text.strip()}"); the numbers are only in the {source}'
    return [
        RULE.finding(
            patch,
            message,
            line=line,
            symbol="perf-claim",
            state=state,
            details={
                "claim": claim_text.strip(),
                "evidence": grade,
                "evidence_source": source if answered else None,
                "subsystem": sub[0] if sub else None,
                "suggest": sub[1] if sub else None,
                "cache_lines": cache,
            },
        )
    ]


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask for numbers, humbly, suggesting benchmarks that fit the touched code."""
    if not findings:
        return ""
    f = findings[0]
    suggest = f.details.get("suggest")
    ideas = []
    if suggest:
        ideas.append(f"a macro benchmark such as {suggest}")
    else:
        ideas.append("a macro benchmark of a workload that hits this path")
    if f.details.get("cache_lines"):
        ideas.append("perf c2c output showing less cache-line contention")
    ideas.append("or a micro measurement (cycles per call, a flame graph) before and after")
    # the draft quotes the changelog's claim when it has one, else the Subject line
    in_body = f.line is not None or find_claim(patch.commit_message) is not None
    said = "The changelog says" if in_body else "The subject says"
    text = (
        f"{said} this makes things faster, which sounds plausible, but could you share "
        "any performance numbers? For example " + ", ".join(ideas) + ". Numbers with the machine "
        "and the method would help to weigh the gain against the added complexity."
    )
    if f.details.get("evidence") == "claim-only":
        text += " I may have missed them if they are only behind a link; quoting them in the changelog would help."
    return text


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=("numbers", "benchmark", "measure", "performance data", "perf data", "how much", "any data",
           "fio", "will-it-scale", "hackbench", "flame graph", "cycles"),
    asks=("numbers, please", "numbers please", "any numbers", "some numbers", "have numbers", "the numbers",
          "benchmark numbers", "benchmark results", "performance numbers", "performance data", "perf numbers",
          "how much faster", "how much does", "how much of", "can you quantify", "any data", "measurements",
          "did you measure", "have you measured", "any benchmark"),
    evidence=(r"\b\d+(?:[.,]\d+)?\s*(?:%|percent|ns|us|µs|usec|ms|msec|s\b|sec|MB/s|GB/s|MiB/s|GiB/s|[KM]?IOPS|"
              r"cycles|ops/s|ops/sec|K|M|x)\b|\bbefore\b.*\bafter\b|\bwith(?:out)?\b.*\bpatch\b.*\d"),
)


# The paragraph for one point, quoting the sentence with the claim and asking for the measurement that
# fits it (the drafter prefers reply_point() to reply()). The kinds, first match wins:
_KIND_WORDS = (
    ("cache", re.compile(r"cache[ -]?lines?|false[ -]shar|cacheline|\bc2c\b", re.I),
     "perf c2c output before and after, showing the contended cache lines going away"),
    ("latency", re.compile(r"latenc|jitter|wake[ -]?up|response time|tail\b|stall|preempt", re.I),
     "a latency distribution before and after (cyclictest, or a histogram of this path's latency), not "
     "only an average"),
    ("throughput", re.compile(r"throughput|iops|bandwidth|MB/s|scal|contention|packets|requests|"
                              r"transactions|ops/s", re.I),
     "throughput numbers before and after from a benchmark that loads this path (fio, netperf, or the "
     "workload that showed the problem)"),
    ("instructions", re.compile(r"instruction|branch|inline|fast[ -]?path|hot[ -]?path|cycles|overhead|"
                                r"cheaper|simplif|avoid|unnecessary|redundant|fewer|indirect call|"
                                r"function call|compiler", re.I),
     "cycles per call before and after, or a micro-benchmark of the function"),
)


_SHORTLOG_RE = re.compile(r"^\S.*\(\d+\):\s*$", re.M)  # "Ada Example (3):" opens a cover letter's shortlog


def _claim_sentence(text: str) -> str:
    """The sentence of ``text`` holding its first claim (a cover letter's shortlog left out), else ""."""
    shortlog = _SHORTLOG_RE.search(text)
    if shortlog is not None:
        text = text[: shortlog.start()]
    m = find_claim(text)
    if m is None:
        return ""
    starts = [i + 2 for i in (text.rfind(". ", 0, m.start()), text.rfind("\n\n", 0, m.start())) if i >= 0]
    start = max(starts, default=0)
    ends = [i for i in (text.find(". ", m.end()), text.find("\n\n", m.end())) if i >= 0]
    end = min(ends) + 1 if ends else len(text)
    sentence = " ".join(text[start:end].split()).rstrip()
    if len(sentence) > 160:
        words = sentence.split(" ")
        pos = len(" ".join(sentence[: sentence.lower().find(m.group(0).lower())].split(" ")[:-1]).split(" "))
        lo = max(0, pos - 10)
        sentence = ("..." if lo else "") + " ".join(words[lo:lo + 24]) + ("..." if lo + 24 < len(words) else "")
    return sentence


def _line_sentence(text: str, index: int) -> str:
    """The sentence of ``text`` around its line ``index`` (0-based), shortened like a claim's."""
    return _sentence_at(text, sum(len(line) + 1 for line in text.split("\n")[:index]))


def _sentence_at(text: str, pos: int) -> str:
    """The sentence of ``text`` holding the character at ``pos``, at most 24 words."""
    starts = [i + 2 for i in (text.rfind(". ", 0, pos), text.rfind("\n\n", 0, pos)) if i >= 0]
    start = max(starts, default=0)
    ends = [i for i in (text.find(". ", pos), text.find("\n\n", pos)) if i >= 0]
    end = min(ends) + 1 if ends else len(text)
    words = " ".join(text[start:end].split()).split(" ")
    return " ".join(words[:30]) + ("..." if len(words) > 30 else "")


def reply_point(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask for the numbers that fit the claim, quoting it; no "added complexity" for small changes."""
    if not findings:
        return ""
    f = findings[0]
    series = bool(f.details.get("series_point"))
    where = "The cover letter" if series or patch.subject.index == 0 else "The changelog"
    target = (f.input_line or f.line or 0) - patch.commit_start_line
    lines = patch.commit_message.split("\n")
    sentence = ""
    if not series and (f.input_line or f.line) and 0 <= target < len(lines) and lines[target].strip():
        sentence = _line_sentence(patch.commit_message, target)  # the line the finding (and the quote) is on
    claim = str(f.details.get("claim") or "").lower()
    if not sentence and claim and not series:  # where the quote above finds it: the claim word's first use
        hit = patch.commit_message.lower().find(claim)
        if hit >= 0:
            sentence = _sentence_at(patch.commit_message, hit)
    if not sentence:
        sentence = _claim_sentence(patch.commit_message)
    if not sentence:
        where = "The subject" if not series else "The cover letter's subject"
        sentence = " ".join(patch.subject.title.split())
    text_for_kind = f"{sentence} {f.details.get('claim', '')}"
    ask = ""
    for kind, words, what in _KIND_WORDS:
        if (kind == "cache" and f.details.get("cache_lines")) or words.search(text_for_kind):
            ask = what
            break
    if not ask:
        ask = "numbers before and after from a benchmark that exercises this path"
        if f.details.get("suggest"):
            ask += f", such as {f.details['suggest']}"
    added = sum(fd.added_count for fd in patch.files)
    removed = sum(fd.removed_count for fd in patch.files)
    weigh = ("would help to weigh the gain against the added code" if added - removed > 20
             else "would help reviewers see the gain")
    if sentence.endswith(".") and not sentence.endswith("..."):
        sentence = sentence[:-1]
    text = (f"{where} says \"{sentence}\". That sounds plausible, but do you have numbers? For example, "
            f"{ask}. Numbers with the machine and the method {weigh}.")
    if f.details.get("evidence") == "claim-only":
        text += " I may have missed them if they are only behind a link; quoting them in the changelog would help."
    return text
