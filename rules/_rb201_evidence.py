"""RB201's third step, the evidence: is the claim measured in the changelog, the series or the author's replies?

Also the reading both steps share: a mail's own lines and prose, sentences, paragraphs (not a rule: the ``_``).
Measured numbers: times and rates with units, percentages that are no share of space, before/after rows,
tables under a comparison, a unit or a tool, a ratio of a metric with the way it was measured. Not: a bare
ratio ("2x faster"), settings ("sleep 100 ms"), diffstat, sizes, memory footprints, patch numbers."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator, Sequence

from reviewbot import lazyre
from reviewbot.models import FindingState, Message, Patch
from reviewbot.parse.threads import about_patch
from reviewbot.rule import RuleContext

TIME_UNITS = tuple(
    "ns nsec nsecs nanoseconds us usec usecs µs microseconds ms msec msecs milliseconds s sec secs second "
    "seconds min mins minute minutes h hr hrs hour hours".split()
)
RATE_UNITS = tuple(
    "iops,ops/s,ops/sec,op/s,ops,reqs/s,req/s,requests/s,tps,qps,pps,bps,b/s,bit/s,bits/s,bits/sec,bit/sec,"
    "b/sec,bytes/s,bytes/sec,files/s,files/sec,msgs/s,msg/s,cycles,instructions,insns,cache-misses,"
    "cache misses,transactions/s,trans/s,iterations/s,gbit,gbits,mbit,mbits".split(",")
)
CONFIG_WORDS = tuple(
    "sleep,msleep,usleep,timeout,time-out,delay,wait,waits,waiting,interval,period,every,poll,polling,retry,"
    "deadline,expire,expires,heartbeat,timer,up to,at least,at most,default,set to,after,within,for,each".split(",")
)
SHARE_OF_WORDS = tuple(
    ("capacity,space,memory,disk,storage,ram,size,filesystem,file system,device,blocks,inodes").split(",")
)
SIZE_WORDS = ("bytes", "cachelines", "cache lines", "byte")
TOOL_NAMES = tuple(
    "fio,perf stat,perf record,perf report,perf bench,perf c2c,perf top,perf trace,perf,will-it-scale,"
    "unixbench,hackbench,schbench,netperf,iperf,iperf3,lmbench,kernbench,mmtests,stress-ng,sysbench,"
    "t/io_uring,dbench,tbench,pgbench,specjbb,redis-benchmark,memtier,vm-scalability,fs_mark,fsmark,"
    "filebench,ebizzy,lockstat,bpftrace,flame graph,flamegraph,benchmark,benchmarks,microbenchmark,"
    "micro-benchmark,tcrypt,ntttcp,iostat,sockperf,uperf,neper,ycsb,iozone".split(",")
)
COMPARE_WORDS = tuple(
    "before,after,vanilla,patched,unpatched,baseline,original,mainline,w/o,w/,with patch,without patch,"
    "with the patch,without the patch,with this patch,without this patch,with the series,without the series".split(",")
)
TABLE_WORDS = (
    COMPARE_WORDS
    + TOOL_NAMES
    + tuple(
        "old new base throughput latency bandwidth time iops mb/s gb/s kb/s mib/s gib/s mbps gbps ns usec msec "
        "cycles ops/s ops/sec files/sec speed runtime".split()
    )
)
METRIC_WORDS = tuple(
    "iops,kiops,throughput,bandwidth,latency,latencies,ops/s,ops per second,operations per second,"
    "requests per second,transactions per second,tps,qps,pps,cycles,instructions,cache misses,cache-misses,"
    "runtime,run time,run-time,execution time,wall time,wall-clock,boot time,boot-time,cpu time,cpu usage,"
    "cpu utilization,performance,speed,speeds up,speed up,speedup,speed-up,faster,slower,bogo ops,benchmark".split(",")
)
ASK_WORDS = tuple(
    "numbers,measure,measured,measurable,measurement,measurements,benchmark,benchmarks,benchmarked,"
    "benchmarking,quantify,quantified,performance data,perf data,any data,some data,results,metrics".split(",")
)
NUMBER_WORDS = tuple(
    "one and a half,two,three,four,five,six,seven,eight,nine,ten,eleven,twelve,fifteen,twenty,thirty,fifty,"
    "hundred,thousand".split(",")
)
_SUBSYSTEM_BENCH: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("fs/", "block/", "drivers/block/", "drivers/nvme/", "drivers/md/", "io_uring/"), "fs/block", "fio"),
    (("mm/",), "mm", "will-it-scale or mmtests"),
    (("kernel/sched/",), "sched", "hackbench or schbench"),
    (("net/", "drivers/net/"), "net", "netperf or iperf"),
    (("kernel/locking/",), "locking", "lock contention numbers (lockstat, perf lock)"),
)
RESULT_WORDS = frozenset(
    ("benchmark benchmarks benchmarking results numbers measurements measured data performance perf").split()
)
REFERENCE_WORDS = ("cover letter", "cover-letter", "http://", "https://")
PROMISED_NUMBERS_RE = lazyre.compile(
    r"\b(?:numbers|results|benchmarks?|measurements|performance\s+data)\b[^.\n\]]{0,30}?"
    r"\b(?:forthcoming|to\s+follow|will\s+follow|to\s+come|coming\s+soon)\b|"
    r"\bwill\s+(?:post|send|share|provide|add)\s+(?:the\s+|some\s+)?(?:numbers|results|benchmarks?|measurements)\b",
    re.IGNORECASE,
)
PROMISED_WORDS = frozenset({"numbers", "results", "benchmark", "benchmarks", "measurements", "data"})
SIZE_NUMBERS_RE = lazyre.compile(r"(?<![\w.])\d+\s*(?:bytes?|cache[\s-]?lines?)\b", re.IGNORECASE)
_SIZE_CHANGE_RE = lazyre.compile(r"(?i)\b(?:sav|shr[iu]nk|reduc|cut|grow|from|down|up|by)\w*\b|->|→")  # changed


def _alternation(words: Iterable[str]) -> str:
    """``a|b|c`` of escaped words, longest first (so "ops/sec" wins over "ops"); spaces match any blank run."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(set(words), key=len, reverse=True))


_LOOKUP_TOKEN_RE = lazyre.compile(r"[\w/µ%]+(?:[-'][\w/µ%]+)*")  # "mb/s", "w/o", "will-it-scale", "t/io_uring"


class WordFinder:
    """Finds any word or phrase of a list in a text by looking its tokens up in a set (one pass, any length)."""

    def __init__(self, entries: Iterable[str]) -> None:
        entries = list(entries)
        self.words = frozenset(e.lower() for e in entries if " " not in e)
        self.phrases: dict[str, list[tuple[str, ...]]] = {}
        for e in entries:
            if " " in e:
                parts = tuple(e.lower().split())
                self.phrases.setdefault(parts[0], []).append(parts)
        # a word is in the text before it is one of its tokens: looked for first, as plain substrings; of a phrase,
        # its longest word ("compiler" of "the compiler can": "the" is in every text)
        longest = {max(parts, key=len) for group in self.phrases.values() for parts in group}
        self.needles = tuple(self.words | longest)

    def search(self, text: str) -> bool:
        """True when ``text`` holds one of the words or phrases (case-insensitive)."""
        low = text.lower()
        if not any(needle in low for needle in self.needles):
            return False  # cheap: no word or phrase start anywhere, so no token to look up
        return self.in_tokens(_LOOKUP_TOKEN_RE.findall(low))

    def in_tokens(self, tokens: Sequence[str]) -> bool:
        """True when the lower-case word list ``tokens`` holds one of the words or phrases."""
        if not self.words.isdisjoint(tokens):
            return True
        if self.phrases.keys().isdisjoint(tokens):
            return False  # no token starts a phrase
        for i, token in enumerate(tokens):
            if token in self.words:
                return True
            for phrase in self.phrases.get(token, ()):
                if tuple(tokens[i : i + len(phrase)]) == phrase:
                    return True
        return False


_TOKEN_RE = lazyre.compile(r"\w+(?:['’]\w+)*(?:/\w{1,2}(?!\w))?")  # "I/O", "don't"; "speed-up": two words

_SENTENCE_SPLIT_RE = lazyre.compile(
    r"(?<=[.!?;])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)\s+|\n[ \t]*\n|\n(?=[ \t]*(?:[-*]|\d+[.)])[ \t])"
)
_PARAGRAPH_SPLIT_RE = lazyre.compile(r"\n[ \t]*\n")
_QUOTED_TITLE_RE = lazyre.compile(r'\("[^"]*"\)|"[^"\n]{8,}"|commit\s+[0-9a-f]{7,}\s*\([^)]*\)', re.IGNORECASE)
_TRAILER_RE = lazyre.compile(r"^(?:[A-Z][a-z]+(?:-[A-Za-z]+)+|Fixes|Link|Closes|Cc|Bug|Change-Id):\s")
_VERSION_NOTES_RE = lazyre.compile(
    r"^[ \t]*(?:v\d+[ \t]*(?:->|-|to|\.\.)[ \t]*v?\d+\b|changes[ \t]+(?:in|since|from)[ \t]+v\d+|v\d+[ \t]*:|--[ \t]*$)",
    re.IGNORECASE | re.MULTILINE,
)
_OUTPUT_LINE_PREFIXES = ("$", "#", "[", "|", "`", "//", "/*", "*/", "+", "<", "{", "}")
_BULLET_RE = lazyre.compile(r"[ \t]*(?:[-*•]|\d+[.)]|\(\w\))[ \t]")
_NUM = r"(?<![\w./])\d+(?:[.,]\d+)?"  # not inside a word, version or path ("powerpc/64s")
_NUMBER_UNIT_RE = lazyre.compile(rf"{_NUM}\+?[ \t]?([a-zµ%][a-z/%-]*)?(?:[ \t]([a-z/-]+))?", re.IGNORECASE)
_PREFIXES = ("ki", "mi", "gi", "ti", "k", "m", "g", "t")
_ARROW_RE = lazyre.compile(rf"{_NUM}[ \t]*(?:->|→|=>)[ \t]*\d+(?:[.,]\d+)?[ \t]*([a-z]*)", re.IGNORECASE)
_CONFIG_BEFORE_RE = lazyre.compile(rf"(?:{_alternation(CONFIG_WORDS)})\b[^.;:,]{{0,12}}$", re.IGNORECASE)
_SHARE_AFTER_RE = lazyre.compile(
    rf"^\s*of\s+(?:the\s+|its\s+|all\s+)?(?:{_alternation(SHARE_OF_WORDS)})\b", re.IGNORECASE
)
_SIZE_AFTER_RE = lazyre.compile(rf"^\s*(?:{_alternation(SIZE_WORDS)})\b", re.IGNORECASE)
_DIFFSTAT_RE = lazyre.compile(
    r"[ \t]*(?:\S+[ \t]+\|[ \t]+(?:\d+[ \t]*[-+]*[ \t]*$|Bin\b)|\d+ files? changed|(?:rename|copy|create|delete)[ \t].*\(\d+%\)|"
    r"(?:create|delete) mode \d+)"
)
_DMESG_RE = lazyre.compile(r"[ \t]*\[[ \t]*\d+\.\d+\]")
MAGNITUDE_SUFFIXES = "KMG"
_DECIMAL_RE = lazyre.compile(rf"(?<![\w.:/-])\d+(?:\.\d+)?[{MAGNITUDE_SUFFIXES}]?(?![\w:/-]|\.\d)")
_RATE_HEADER_RE = lazyre.compile(r"\w/s(?:ec)?\b|\bper\s+sec(?:ond)?\b", re.IGNORECASE)
_LABELLED_NUMBER_RE = lazyre.compile(r"[a-z)][ \t]*[:=][ \t]*\d+(?:\.\d+)?(?![\w.])", re.IGNORECASE)
_TOOLS = WordFinder(TOOL_NAMES)
_COMPARISON = WordFinder(COMPARE_WORDS)
_TABLE_LABELS = WordFinder(TABLE_WORDS)
_METRICS = WordFinder(METRIC_WORDS)
_ASKS = WordFinder(ASK_WORDS)
_RATIO_RE = lazyre.compile(
    rf"\bfactor\s+(?:of\s+)?(?:about\s+|roughly\s+|around\s+|~\s*)?(?:\d+(?:\.\d+)?|{_alternation(NUMBER_WORDS)})\b|"
    r"(?<![\w.])~?\d+(?:\.\d+)?[ \t]?[xX×](?![\w(])|"
    rf"\b(?:\d+(?:\.\d+)?|{_alternation(NUMBER_WORDS)})\s+times\b",
    re.IGNORECASE,
)
RATIO_WORDS = ("factor", "times")
_RATIO_MARK_RE = lazyre.compile(r"\d[ \t]?[xX×]")
_PATCH_NUMBER_RE = lazyre.compile(
    r"\bpatch(?:es)?[ \t]+#?(\d+)(?:[ \t]*(?:-|to|and|,|&|\+)[ \t]*#?(\d+))?", re.IGNORECASE
)
_COUNTED_RE = lazyre.compile(r"\b\d+[ \t]+patch(?:es)?\b|\bversion[ \t-]*\d+\b", re.IGNORECASE)
_LINK_RE = lazyre.compile(r"https?://\S+|\[\d+\]")
_DIGIT_RE = lazyre.compile(r"\d")
#: "an earlier iteration of this idea ... got a 7% boost": the numbers of another work, not this one's
_OTHER_WORK_RE = lazyre.compile(r"[^.]{,300}\ban?\s(?:earlier|previous)\s(?:iteration|attempt|prototype)s?\b[^.]{,300}")
_CACHE_MENTION_RE = lazyre.compile(r"cache[\s-]?lines?|false[\s-]sharing", re.IGNORECASE)
_WORD_SEPARATORS = str.maketrans(dict.fromkeys((c for c in map(chr, range(128)) if not (c.isalnum() or c == "_")), " "))


@lru_cache(maxsize=1024)
def _word_set(text: str) -> frozenset[str] | None:
    """The lower-case ASCII words of ``text`` for the cheap tests (None beyond ASCII); cached."""
    low = text.lower()
    return frozenset(low.translate(_WORD_SEPARATORS).split()) if low.isascii() else None


def _may_hold(text: str, wanted: frozenset[str]) -> bool:
    """False when no word of ``wanted`` (single words, no "_") can be among the words of ``text`` (a cheap test)."""
    words = _word_set(text)
    return words is None or not wanted.isdisjoint(words)


def _own_lines(text: str) -> list[str]:
    """Lines of a mail text that the writer wrote (no ``>`` quotes, no trailers; others blanked)."""
    return list(_each_own_line(text))


def _each_own_line(text: str) -> Iterator[str]:
    """:func:`_own_lines` one at a time (a reader that stops early reads no further)."""
    for line in text.splitlines():
        s = line.lstrip()
        yield "" if s.startswith(">") or (":" in s and _TRAILER_RE.match(s)) else line  # a trailer has a ":"


def _blank_title(q: re.Match[str]) -> str:
    """A quoted commit title blanked ("commit 8a8fe42d765b" kept: its sentence is another commit's)."""
    m = q.group(0)
    keep = m.index("(") if m[:6].lower() == "commit" else 0
    return m[:keep] + re.sub(r"\S", " ", m[keep:])


@lru_cache(maxsize=256)
def _prose(text: str) -> str:
    """``text`` with what is not the author's prose blanked, offsets kept: version notes, quoted commit titles,
    command lines, code and output, indented blocks a line ending in ":" introduces (bullets stay prose)."""
    m = _VERSION_NOTES_RE.search(text)
    if m:
        text = text[: m.start()] + " " * (len(text) - m.start())
    text = _QUOTED_TITLE_RE.sub(_blank_title, text)
    lines = text.split("\n")
    in_block = False
    intro = False  # the previous prose line ended with ":"
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            in_block = in_block and intro  # a blank line between "...:" and its block
            continue
        indented = line[:1] in (" ", "\t")
        if indented and (in_block or intro) and _BULLET_RE.match(line) is None:
            in_block = True
        elif not indented:
            in_block = False
        if in_block or stripped.startswith(_OUTPUT_LINE_PREFIXES):
            lines[i] = " " * len(line)
            continue
        intro = stripped.endswith(":")
    return "\n".join(lines)


def _split(text: str, at: lazyre.LazyPattern[str]) -> Iterable[tuple[int, str]]:
    """(offset, piece) pairs of ``text`` split where ``at`` matches, empty pieces left out."""
    pos = 0
    for m in at.finditer(text):
        if m.start() > pos:
            yield pos, text[pos : m.start()]
        pos = m.end()
    if pos < len(text):
        yield pos, text[pos:]


def _sentences(text: str) -> Iterator[tuple[int, str, str]]:
    """(offset, sentence, its paragraph) for each sentence of ``text``, paragraph by paragraph (blank lines)."""
    for p_start, p in _split(text, _PARAGRAPH_SPLIT_RE):
        yield from ((p_start + s_start, s, p) for s_start, s in _split(p, _SENTENCE_SPLIT_RE))


def _numbers_promised(text: str) -> bool:
    """True when ``text`` promises numbers for later (PROMISED_NUMBERS_RE); the pattern runs only on a text that
    names one of PROMISED_WORDS (most changelogs name none)."""
    return _may_hold(text, PROMISED_WORDS) and PROMISED_NUMBERS_RE.search(text) is not None


def _time_or_rate(line: str) -> bool:
    """True when ``line`` gives a time or a rate measured ("took 25s", "20K IOPS", "1.2M cycles", "3x faster"), not a
    setting ("sleep 100 ms")."""
    for m in _NUMBER_UNIT_RE.finditer(line):
        unit = _unit(m.group(1), m.group(2))
        if unit == "rate" or unit == "time" and not _CONFIG_BEFORE_RE.search(line[max(0, m.start() - 40) : m.start()]):
            return True
    return False


def _measured_value(line: str, following: str = "") -> bool:
    """True when ``line`` (``following`` is the next line) gives a number with a unit that reports a measurement."""
    if _time_or_rate(line):
        return True  # "took 1.2s", "9.4 Gbits/sec", not "sleep 100 ms"
    for m in _NUMBER_UNIT_RE.finditer(line):
        if _unit(m.group(1), m.group(2)) == "percent" and not _SHARE_AFTER_RE.match(
            (line[m.end(1) :] + " " + following)[:60]
        ):
            return True  # "-44%", not "1% of the filesystem capacity"
    for m in _ARROW_RE.finditer(line):
        if not _SIZE_AFTER_RE.match(line[m.end(1) - len(m.group(1)) : m.end() + 12] if m.group(1) else ""):
            return True  # "2310 -> 1290 cycles", not "152 -> 136 bytes"
    return False


_TIME_UNIT_SET = frozenset(TIME_UNITS)
_RATE_UNIT_SET = frozenset(u for u in RATE_UNITS if " " not in u)


def _unit(first: str | None, second: str | None) -> str | None:
    """What the words after a number measure: ``time``, ``rate`` (rates, counts, ratios), ``percent`` or None."""
    if not first:
        return None
    a, b = first.lower().rstrip("-"), (second or "").lower()
    if a in ("%", "percent"):
        return "percent"
    if a in _TIME_UNIT_SET:
        return "time"
    if a in _RATE_UNIT_SET or (a, b) == ("cache", "misses"):
        return "rate"
    for prefix in _PREFIXES:  # "Mb/s", "KIOPS", "Gbits/sec", or "20K IOPs"
        if a.startswith(prefix) and (a[len(prefix) :] in _RATE_UNIT_SET or (a == prefix and b in _RATE_UNIT_SET)):
            return "rate"
    return None


def _numeric_line(line: str) -> bool:
    """A row of a results table or block: two numbers, "label: 75", or a dmesg time stamp."""
    if not _DIGIT_RE.search(line):
        return False  # each of the three needs a digit (most lines of a mail have none)
    if "/*" in line or "*/" in line:
        return False  # pahole layout output
    if "patch" in line.lower() or "version" in line.lower():  # "patch 5", "2 patches", "version 3": no measurement
        line = _COUNTED_RE.sub(" ", _PATCH_NUMBER_RE.sub(" ", line))
    return len(_DECIMAL_RE.findall(line)) >= 2 or bool(_LABELLED_NUMBER_RE.search(line) or _DMESG_RE.match(line))


def _results_block(lines: Sequence[str]) -> bool:
    """True when ``lines`` hold a block of results: numeric rows with a comparison word ("Before:", "Patched"), a
    unit or a tool in them or the five lines above (netperf, fio tables, dmesg time stamps). Each line read once."""
    lines = [ln.replace("_", " ") if "|" in ln else ln for ln in lines]  # "orig_s | new_s": a header's column words
    numeric = [_numeric_line(line) for line in lines]
    if sum(numeric) == 0:
        return False
    # labels are read where they count, each line once: a numeric row and 5 lines above (a table label: above 2+ rows)
    compare: dict[int, bool] = {}
    labelled: dict[int, bool] = {}

    def compares(k: int) -> bool:
        if k not in compare:
            compare[k] = bool(lines[k]) and _COMPARISON.search(lines[k])
        return compare[k]

    def labels(k: int) -> bool:
        if k not in labelled:
            line = lines[k]
            labelled[k] = compares(k) or (
                bool(line) and (_TABLE_LABELS.search(line) or _RATE_HEADER_RE.search(line) is not None)
            )
        return labelled[k]

    for i, is_row in enumerate(numeric):
        if not is_row:
            continue
        rows = sum(numeric[i : i + 6])
        above = range(max(0, i - 5), i + 1)
        strong = compares(i) or rows >= 2 or len(_DECIMAL_RE.findall(lines[i])) >= 3
        if strong and any(compares(k) for k in above):
            return True  # "Before:" / "After:" blocks, Vanilla/Patched tables
        if rows >= 2 and any(labels(k) for k in above):
            return True  # a table under a unit or a tool ("the unit is Mb/s:", "iperf3 -c ...")
    return False


def _may_give_ratio(text: str) -> bool:
    """False when ``text`` cannot hold a ratio of _RATIO_RE: none of RATIO_WORDS, no number with an "x" after it
    (beyond ASCII the pattern decides: its IGNORECASE folds "ı" and "ſ" to ASCII letters)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(word in low for word in RATIO_WORDS) or _RATIO_MARK_RE.search(text) is not None


def _ratio_measured(text: str) -> bool:
    """True when one sentence gives a ratio of a metric and says how it was measured ("improves IOPS by a factor
    of four on my test setup", "fio shows 3x the throughput"). A bare ratio ("2x faster") is a claim: a maintainer
    still asks on what benchmark."""
    return bool(_may_give_ratio(text) and _RATIO_RE.search(text)) and any(
        _RATIO_RE.search(s) and _METRICS.search(s) and (_TOOLS.search(p) or _METHOD.search(p))
        for _, s, p in _sentences(text)
    )


def _events_counted(text: str) -> bool:
    """True when a sentence counts events the change saves ("8000+ TDP page faults saved during each boot") in a
    paragraph that says how they were counted ("tests on my environment with 8 vCPUs")."""
    return bool(_DIGIT_RE.search(text) and _EVENTS.search(text)) and any(
        _DECIMAL_RE.search(s) and _EVENTS.search(s) and (_TOOLS.search(p) or _METHOD.search(p))
        for _, s, p in _sentences(text)
    )


_EVENTS = WordFinder(
    "faults exits vmexits interrupts irqs ipis misses wakeups syscalls allocations context-switches".split()
)


#: how a ratio was measured: "on my test setup", "measured with", "in a micro-benchmark", "when running X"
_METHOD = WordFinder(
    "measured measure measuring measurement measurements test tests testing tested setup machine workload running "
    "ran run runs benchmark benchmarks box laptop server desktop host board".split()
)
SIZE_CONTEXT_WORDS = ("memory", "footprint", "size", "sizes", "bytes", "ram", "rss", "mem")
_SIZE_CONTEXT_RE = lazyre.compile(
    rf"(?i)\b(?:{'|'.join(SIZE_CONTEXT_WORDS)})\b|free\s+-h|"
    r"\d(?:\.\d+)?\s?(?:[KMGT]i?B|[KMGT]i|kB)\b(?!/)"
)
_SIZE_CONTEXT_WORD_SET = frozenset(SIZE_CONTEXT_WORDS)


def _may_name_size(low: str) -> bool:
    """False when the lower-case ASCII line ``low`` names no size in words: none of SIZE_CONTEXT_WORDS among its
    words (the pattern wants them whole: "ram", not "parameter"; "mem", not "member") and no "free" (of "free -h")."""
    return "free" in low or not _SIZE_CONTEXT_WORD_SET.isdisjoint(low.translate(_WORD_SEPARATORS).split())


_UNIT_AFTER_NUMBER_RE = lazyre.compile(r"\d\s?[KMGTkmgt]")
_SERIES_INDEX_RE = lazyre.compile(
    r"\bpatch(?:es)?[ \t]*(?:\[[ \t]*\d+(?:[ \t]*[~-][ \t]*\d+)?[ \t]*\]|#?\d+(?:/\d+)?\b)", re.IGNORECASE
)
SYSTEM_STATE_COMMANDS = tuple(
    ("/proc/cpuinfo,/maps,/smaps,/proc/meminfo,/proc/iomem,free -h,free -m,lscpu,uname -a").split(",")
)
_SYSTEM_STATE_RE = lazyre.compile("|".join(re.escape(c) + r"\b" for c in SYSTEM_STATE_COMMANDS), re.IGNORECASE)


def _each_evidence_line(text: str) -> Iterator[str]:
    """The writer's own lines that may carry numbers (quotes, diffstat, rename and size-only lines, a map of the
    series blanked), one at a time: a grade stops reading at the first measured value."""
    state_output = False  # inside the output of a SYSTEM_STATE_COMMANDS command (up to the next blank line)
    # cheap substring tests before the patterns (beyond ASCII the patterns decide: IGNORECASE folds "ı", "ſ")
    ascii_text = text.isascii()
    text_low = text.lower()
    names_state_command = not ascii_text or any(c.lower() in text_low for c in SYSTEM_STATE_COMMANDS)
    size_words = [w for w in (*SIZE_CONTEXT_WORDS, "free") if w in text_low]  # those the text holds at all
    for line in _each_own_line(text):
        if not line.strip():
            state_output = False
            yield ""  # a blank or blanked (quoted) line
            continue
        if state_output or (names_state_command and _SYSTEM_STATE_RE.search(line)):
            state_output = True
            yield ""
            continue
        if line.startswith("diff --git "):
            return  # a diff inside the mail: hunk headers and code are no measurements
        if _DIFFSTAT_RE.match(line) or line.startswith("@@ "):
            yield ""  # a diffstat or rename line, a hunk header
            continue
        low = line.lower()
        may_give_size = (
            not ascii_text
            or (any(w in low for w in size_words) and _may_name_size(low))
            or _UNIT_AFTER_NUMBER_RE.search(line)
        )
        size_only = may_give_size and bool(_SIZE_CONTEXT_RE.search(line)) and not _METRICS.search(line)
        size_only = size_only and not _time_or_rate(line)  # "a 20 TB filesystem took 25s": a time measured
        series_map = "patch" in low and bool(_SERIES_INDEX_RE.search(line)) and not _METRICS.search(line)
        yield "" if size_only or series_map else line


@lru_cache(maxsize=256)
def _grade(text: str) -> str:
    """``measured``, ``claim-only`` or ``none`` for one block of text, its sentences about another work left out
    (``_OTHER_WORK_RE``). Cached: every patch of a series grades the same cover letter."""
    text = _OTHER_WORK_RE.sub(" ", text) if "iteration" in text or "attempt" in text or "prototype" in text else text
    if not _DIGIT_RE.search(text):
        lines = list(_each_evidence_line(text))  # no number to measure: only a ratio in words ("a factor four")
    else:
        # each line is judged with the line after it as the lines come: a text is read up to its first measured
        # value only (a cover letter's shortlog and diffstat below its numbers are never read)
        lines = []
        for line in _each_evidence_line(text):
            if lines and _DIGIT_RE.search(lines[-1]) and _measured_value(lines[-1], line):
                return "measured"
            lines.append(line)
        if lines and _DIGIT_RE.search(lines[-1]) and _measured_value(lines[-1], ""):
            return "measured"
        if _results_block(lines):
            return "measured"
    if _ratio_measured("\n".join(lines)) or _events_counted(text):
        return "measured"
    if _TOOLS.search(text) or _LINK_RE.search(text) or re.search(r"\bbytes\b", text, re.IGNORECASE):
        return "claim-only"
    return "none"


def _patches_named(paragraph: str) -> frozenset[int]:
    """The numbers of the patches a cover-letter paragraph names ("patch 3", "patches 1-3"), if any."""
    named: set[int] = set()
    for m in _PATCH_NUMBER_RE.finditer(paragraph):
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        named.update(range(lo, min(hi, lo + 100) + 1))
    return frozenset(named)


def _about_other_patches(paragraph: str, index: int | None) -> bool:
    """True when a cover-letter paragraph names patches of the series and not this one ("patch 3 ...")."""
    named = _patches_named(paragraph)
    return bool(named) and index not in named


@lru_cache(maxsize=64)
def _cover_paragraphs(text: str) -> tuple[tuple[str, frozenset[int]], ...]:
    """The paragraphs of a cover letter's text, each with the patches it names: read once per cover letter, not
    once for every patch of its series."""
    return tuple((p, _patches_named(p)) for p in re.split(r"\n[ \t]*\n", text))


@lru_cache(maxsize=256)
def _grade_cover_text(text: str, index: int | None) -> str:
    """The grade of a cover letter's text (its message and notes) for patch ``index``: paragraphs about other
    patches are left out. Cached: every patch of a series grades the same cover."""
    # a paragraph about other patches is left out (as _about_other_patches, from the patches each paragraph names)
    paragraphs = _cover_paragraphs(text)
    return _grade("\n\n".join(p for p, named in paragraphs if not named or index in named))


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


def _thread_state(patch: Patch, ctx: RuleContext) -> FindingState | None:
    """In this patch's branch of the thread: ANSWERED when the author posted numbers in a reply, else RAISED when
    a reviewer asked for numbers, else None."""
    raised = False
    cover_id = ctx.cover.message_id if ctx.cover is not None else None
    for msg in ctx.thread:
        if msg.message_id in (patch.message_id, cover_id) or not about_patch(msg, patch):
            continue  # the patch itself, its cover letter (graded on its own), or another patch of the series
        if _same_person(msg, patch):
            if _reply_has_numbers(msg.body):
                return FindingState.ANSWERED
        elif not raised:
            raised = _reply_asks_for_numbers(msg.body)
    return FindingState.RAISED if raised else None


@lru_cache(maxsize=256)
def _reply_has_numbers(body: str) -> bool:
    """True when the writer's own lines of a reply (no quotes, no trailers) give measured numbers."""
    return _grade("\n".join(_own_lines(body))) == "measured"


@lru_cache(maxsize=256)
def _reply_asks_for_numbers(body: str) -> bool:
    """True when the writer's own lines of a reply ask for numbers (ASK_WORDS)."""
    return _ASKS.search("\n".join(_own_lines(body)))


def _subsystem(patch: Patch) -> tuple[str, str] | None:
    counts: dict[tuple[str, str], int] = {}
    for fd in patch.files:
        for prefixes, area, bench in _SUBSYSTEM_BENCH:
            if fd.path.startswith(prefixes):
                counts[(area, bench)] = counts.get((area, bench), 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else None


_VERSION_LINK_RE = lazyre.compile(
    r"^([ \t]*v\d+[ \t]*:)[ \t]*(?:\n[ \t]*)?<?https?://\S+[ \t]*$", re.IGNORECASE | re.MULTILINE
)
_RESULTS_NAMED = frozenset("benchmark benchmarks benchmarking results numbers measurements measured".split())


@lru_cache(maxsize=256)
def _evidence_by_reference(text: str) -> bool:
    """True when ``text`` points to results elsewhere ("refer to [1] for benchmarks", "results are in the cover
    letter", a Link: to them); a version note's link is no reference. Cached: a series reads one cover letter."""
    if not _may_hold(text, RESULT_WORDS):
        return False  # the cheap test: every reference names results
    text = _VERSION_LINK_RE.sub(r"\1", text)
    has_url = "http://" in text or "https://" in text
    for line in text.splitlines():
        if line.lower().startswith("link:") and has_url and _words(line) and RESULT_WORDS & set(_words(line)):
            return True
    paragraphs = (" ".join(p.split("\n")) for _, p in _split(text, _PARAGRAPH_SPLIT_RE))  # by paragraph: a cover
    for sentence in (s for p in paragraphs for _, s in _split(p, _SENTENCE_SPLIT_RE)):  # letter without stops
        words = set(_words(sentence))
        if not words & RESULT_WORDS or not words & _RESULTS_NAMED:
            continue
        low = sentence.lower()
        if any(r in low for r in REFERENCE_WORDS) or (has_url and re.search(r"\[\d+\]", sentence)):
            return True
    return False


def _size_numbers_only(text: str) -> bool:
    """True when ``text`` gives numbers about size or memory (``_SIZE_CONTEXT_RE``) and no measured speed."""
    sized = any(_DIGIT_RE.search(x) and _SIZE_CONTEXT_RE.search(x) and not _METRICS.search(x) for x in _own_lines(text))
    return sized and _grade(text) != "measured"


def _mentions_cache_lines(text: str) -> bool:
    """True when ``text`` names cache lines or false sharing (_CACHE_MENTION_RE)."""
    low = text.lower()
    if text.isascii() and "cache" not in low and "false" not in low:
        return False
    return _CACHE_MENTION_RE.search(text) is not None


_PAHOLE_RE = lazyre.compile(r"\bcachelines:[ \t]*(\d+)(?:[ \t]*(?:->|→)[ \t]*(\d+))?")


def _pahole_compared(text: str) -> bool:
    """True when pahole's counts of cache lines differ before and after ("/* size: 68, cachelines: 2 */", "1")."""
    return "cachelines:" in text and len({n for m in _PAHOLE_RE.findall(text) for n in m if n}) >= 2


def _quotes_size_numbers(text: str) -> bool:
    """Does ``text`` give sizes as a result: two ("864 bytes ... 13 cachelines") or one changed ("saves 56 bytes")?"""
    low = text.lower()  # "an 8 byte counter" is what a thing is, not what the patch gave
    sized = "byte" in low or "cache" in low or not text.isascii()
    found = [m.start() for m in SIZE_NUMBERS_RE.finditer(text)] if sized else []
    return len(found) > 1 or any(_SIZE_CHANGE_RE.search(text, max(0, at - 40), at) for at in found)


@lru_cache(maxsize=1024)
def _words(text: str) -> list[str]:
    """The lower-case words of ``text`` (cached: the steps read a sentence more than once; never changed)."""
    return _TOKEN_RE.findall(text.lower())
