"""RB201 perf-claim-without-evidence: a patch says it is faster but shows no measurement.

What it does
------------
Reads the subject and the changelog as a reviewer does, in three named steps:

1. **A sentence states an effect of this patch** (``_of_this_patch``): the subject (what the patch does), an
   imperative changelog sentence, "this patch", a purpose or result ("so that", "to reduce", "which avoids", "should
   improve"), the problem where another sentence says the fix (a cost, "X can be a slow operation", or a good lost,
   "IOPS decreasing"; then "Implement Y", "This patch adds Y"), a concession ("even though ... not high, it is still
   an improvement"). Not: the existing code or old behaviour ("currently", "now that", "X was cheaper than Y"), a bug
   ("faster than expected"), another commit, a hypothetical or the road not taken ("could", "would", "rather than";
   but "with this rework we could ..."), later work, what a test, tool, person or the hardware does (modes compared),
   a negation ("non-"; not "by not doing X"), a condition ("under high contention"), a name ("fast path", "the NO_DATA
   optimization"), an optimisation that exists ("add back a hook to optimize X", "keep the optimization": ``_kept``).
2. **The effect is run-time speed or cost** (``_speed_effect``): a speed word ("faster", "optimize"), a cost made
   smaller ("reduce overhead/latency/contention/cache misses"), a good made bigger ("improve throughput", "improve its
   speed"; not "low speed" devices), work moved "out of the way of latency sensitive" work, speed as the purpose ("for
   performance"). Not power, memory, size, build, test or human time ("optimize for size", "speed up the build");
   correctness words ("avoid lost wakeups") name no cost; nor the compiler's ("optimization levels", "in LLVM").
3. **A measurement for it** (``_rb201_evidence``): numbers in the changelog or below ``---`` (after a problem stated:
   before it they are the problem's), in the cover letter (its paragraphs about other patches left out) or a later
   reply by the author; a results reference. Not: a bare ratio ("2x faster"), another work's numbers ("an earlier
   iteration ... got 7%").

A patch for a userspace project (``[PATCH xfsprogs]``) or touching no kernel code run at run time (only ``tools/``,
``Documentation/`` but dt bindings, MAINTAINERS, selftests) claims nothing of the kernel's speed; a revert claims only in a
sentence about reverting ("by reverting we fix the performance regression"), the rest quotes the old commit.

Cache lines: hot data, bouncing or a line spanned named with them is a claim; placement alone a CHECK. The finding's
``details``: ``claim`` (quoted by drafts), ``evidence`` (``none``, ``claim-only``: a tool, link or size numbers
without results), ``evidence_source`` (numbers elsewhere: state ``answered``), ``suggest``, ``cache_lines``,
``size_numbers``, ``cover_size_numbers``, and ``not_asked``: why a maintainer would not ask (the gain holds by
construction: an alignment annotation or integer types swapped, code removed, an early check, layout only, cold
functions, the generated code argued, "optimize" said only in the subject of a small change); the finding stays, the
drafter records the skip.

Why it matters
--------------
Maintainers weigh a performance patch's extra complexity against its gain. Without numbers nobody can tell whether
the gain is real, on which machine, or whether it regresses another workload. Reviewers ask for them again and again
("can you add performance numbers here and so justify the change?").

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
English only. Whether numbers *convince* is the reviewer's call (a number with a unit anywhere counts; links are not
followed); a cover-only claim is not this patch's. No draft unless asked (``UNSURE``).

References
----------
* Documentation/process/submitting-patches.rst, "Describe your changes" (quantify optimizations and trade-offs);
  Documentation/process/maintainer-tip.rst (performance claims need numbers)
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import islice
from typing import Iterable, NamedTuple, Sequence

from reviewbot import lazyre
from reviewbot.models import NOT_ASKED_KEY, UNSURE_KEY, Finding, FindingState, Patch
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity, ThreadWords
from reviewbot.rules import _rb201_evidence as ev

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


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Step 2's vocabulary: what run-time speed and cost are called. Multi-word terms are joined by "_" first
# ("cache misses" -> "cache_misses", _JOINED_TERMS_RE). General words of the field, not phrases of one patch.
#: a speed word claims by itself: "faster", "a speed-up", "optimize X"
SPEED_WORDS = _set("faster quicker speedup speedups accelerate accelerates accelerating cheaper")
OPTIMIZE_VERBS = frozenset(f"optimi{z}{end}" for z in "zs" for end in ("e", "es", "ing", "ation", "ations"))
SPEED_VERBS = _set("speed speeds speeding sped")  # with "up" after: "speed up", "speeds things up"
#: run-time costs a patch makes smaller
COST_NOUNS = _set(
    "overhead overheads latency latencies contention contension cycles cpu_time cpu_usage cpu_cycles "
    "cpu_utilization cpu_utilisation cache_misses cache_miss tlb_misses tlb_flushes bouncing false_sharing "
    "round_trips context_switches lock_contention lock_hold jitter cost costs bottleneck bottlenecks "
    "slowdown slowdowns slowness penalty penalties runtime instructions branches atomics spinning time bottle_neck "
    "performance_impact performance_impacts performance_regression performance_regressions bottle_necks"
)
TIME_VERBS = _set("reduce reduces reducing shorten shortens save saves saving cut cuts")  # "saves some time"
COUNT_NOUNS = _set("ops operations rpcs calls lookups requests")  # done at run time: a cost when made fewer
FEWER_VERBS = _set("reduce reduces reducing fewer minimize minimise")  # not "remove the ops": code taken away
#: a lock taken less often: "avoid acquiring the MMU lock", "without taking the lock twice"
LOCK_WORDS = _set("lock locks mutex spinlock semaphore rwsem lock_contention")
TAKE_WORDS = _set("acquiring acquire taking take grabbing grab holding")
GOOD_NOUNS = _set(
    "performance throughput speed scalability efficiency iops bandwidth parallelism concurrency locality placement "
    "cache_usage cache_utilization cache_utilisation cache_efficiency cache_locality cache_hit"
)
LOCALITY_WORDS = _set("locality placement")  # where data sits: speed, even of memory ("memory placement")
LESS_VERBS = _set(
    "reduce reduces reduced reducing lower lowers lowering decrease decreases decreasing minimize minimise "
    "minimizes minimises minimizing avoid avoids avoiding eliminate eliminates eliminating cut cuts cutting save "
    "saves saving shorten shortens remove removes removing drop drops lessen mitigate mitigates alleviate "
    "alleviates relieve relieves fewer less lower smaller"
)
LESS_AFTER = _set("reduced decreased lowered eliminated avoided shortened drops dropped goes")
MORE_VERBS = _set(
    "improve improves improved improving increase increases increasing boost boosts boosting raise raises "
    "maximize maximise maximizes enhance enhances better higher greater"
)
WORSE = _set("decreasing decreases decreased reduced degrades degraded degrading drops dropped dropping")  # a good lost
MORE_AFTER = _set("improves improved increases increased better higher improvement improvements gain gains boost")
#: "avoid the expensive lookup": a costly step taken away
EXPENSIVE_WORDS = _set("expensive costly slow slower inefficient heavy heavyweight")
COPULAS = _set("is are be becomes gets get")  # "X can be a slow operation": the problem a fix takes away
EFFICIENT_WORDS = _set("efficient efficiently scalable")  # after "more": a comparison with the old code
PURPOSE_NOUNS = _set("performance speed throughput scalability efficiency")  # "for (better) performance"
#: the thing made faster or cheaper is not the kernel at run time, or the "performance" is not speed
NOT_SPEED_WORDS = _set(
    "power energy battery thermal memory footprint size sizes space storage rss build builds compile compiles "
    "compilation compiler test tests testing selftest selftests kunit ci bisect review reviewer reviewers "
    "developer developers human maintainer documentation docs radio rf signal antenna audio image layout "
    "packing padding hole holes bytes binary code_size pm development emc emi convention conventions style "
    "readability naming pin pins store stored storing debugging"
)
#: a speed word as an adjective names existing code or a feature: "the fast path", "the accelerated callbacks"
NAME_WORDS = _set("fast hot fastpath hotpath fast_path hot_path fast_paths hot_paths optimized optimised accelerated")
PATH_TERMS = _set("fast_path fast_paths hot_path hot_paths fastpath hotpath")
ADD_WORDS = _set("add adds added adding introduce introduces introducing new implement implements")

# Step 1's vocabulary: what says a sentence is (not) about this patch's effect
#: the existing code, the old behaviour, another commit, a hypothetical, later work
NOT_THIS_PATCH = _set(
    "currently current existing previously originally formerly today old older legacy upstream mainline "
    "could would might alternatively alternative otherwise future later eventually followup todo further "
    "previous earlier soon upcoming subsequent tried attempted"
)
NOT_THIS_PHRASES = tuple("used to|at the moment|right now|as is|follow-up|now that|may want|following patch".split("|"))
PAST_OPENERS = _set("previously originally formerly historically later eventually")  # another time, to its end
OLD_CODE = [["the", a, b] for a in ("current", "existing", "old") for b in ("code", "implementation")]  # to its end
_CONCEDED_RE = lazyre.compile(r"\bat the (?:\w+ )?(?:cost|expense|price) of\b")  # a cost the patch accepts
ALTERNATIVES = ("instead of", "rather than")  # before the effect: the road not taken ("rather than improve ...")
NEGATIONS = _set("no not without never nor neither hardly n't cannot won't isn't doesn't don't didn't aren't")
#: a sentence that speaks of the change ("This patch ...", "With this ...", "so that ...", "we can now ...")
THIS_PATCH = _set("this that patch change commit series now thereby thus hence so we it doing let's optimization new")
DETERMINERS = _set("the a an our its their")  # before the actor: "the hardware", "our tests"
HAVE_WORDS = _set("have has had already")  # "we have an optimization to ...": existing code
RESTORE = tuple("add back|bring back|put back|restore|restores|restoring|reintroduce|reintroduces|reinstate".split("|"))
KEEP_WORDS = _set("keep keeps keeping preserve preserves preserving retain retains retaining move moves moving")
HYPOTHETICAL = _set("could would might maybe perhaps possibly ever")  # "if we are ever to allow ..."
RESULT_WORDS_ = _set("should will helps help makes make making results resulting which leads")
ENABLE_WORDS = _set("allow allows allowing enable enables enabling let lets permit permits")  # "lets X optimize"
DEGREE_WORDS = _set("quite very relatively rather too really extremely fairly pretty most")  # adjectives' degree
#: a cost named as the problem the patch takes away: "unnecessary overhead", "quite expensive", "a bottleneck"
NEEDLESS_WORDS = DEGREE_WORDS | _set(
    "unnecessary needless useless redundant wasted wasting waste excessive extra significant considerable high unjustified"
)
#: an optimisation called pointless, any, or taken away is no claim: "an unnecessary micro optimization", "remove
#: optimizations for single DMA entry", "avoids this optimization" (the compiler's)
POINTLESS_WORDS = _set(
    "unnecessary needless useless pointless premature questionable bogus broken wrong mis any remove removes removing "
    "drop drops dropping revert reverts disable disables undo avoid avoids avoiding prevent prevents preventing inhibit"
)
#: an optimisation weighed for correctness ("this optimization is harmless", "is still correct"): no speed claimed
SAFE_WORDS = _set("harmless safe correct incorrect valid invalid legal illegal benign fine ok okay wrong broken buggy")
#: "optimize the code to support ...": made to work, no speed said
ENABLING_GOALS = _set("support handle work cover accept fix allow cope")
#: an existing knob described ("The nobarrier option disables flushes, improving performance")
KNOB_WORDS = _set("option options feature features mode modes flag flags parameter setting knob")
#: before "for performance": what is exposed ("a sysfs entry for ..."), the compiler's mode ("optimizing for")
INTERFACE_WORDS = KNOB_WORDS | OPTIMIZE_VERBS | _set("entry file attribute register counter node optimized")
EXPECTED = _set("expected intended anticipated needed necessary")  # "increases faster than expected": a symptom
FAIL_WORDS = _set("fail fails failing error errors bail abort give")  # "fail faster": sooner, not quicker
COMPARATIVES = _set("faster quicker cheaper better higher")  # a comparison with what the patch replaces
#: how an imperative changelog sentence starts: what the patch does
CHANGE_VERBS = _set(
    "use make move switch add replace convert introduce cache skip defer batch drop remove call do let allow "
    "change reorder split merge implement precompute store keep pass check take try mark rework rewrite refactor "
    "simplify inline enable disable return place put align group annotate limit prefer only stop start update "
    "reorganize reorganise rearrange regroup reshuffle "
    "avoid reduce optimize optimise speed improve eliminate minimize minimise lower decrease increase save cut "
    "prefetch reuse read write walk allocate free lock unlock flush open-code hoist factor bypass teach get"
)
#: the subject of a sentence that is not the patch: the hardware, a tool, a person
OTHER_ACTORS = _set(
    "hardware hw firmware fw device devices controller chip silicon nic user users userspace tool tools test "
    "tests selftest benchmark benchmarks compiler gcc clang developer developers people reviewer"
)
USERSPACE_TAGS = _set(
    "LIBURING XFSTESTS FSTESTS BLKTESTS LTP IPROUTE2 ETHTOOL MAN-PAGES KVM-UNIT-TESTS KMOD E2FSPROGS XFSPROGS "
    "BTRFS-PROGS MDADM NVME-CLI XFSDUMP F2FS-TOOLS EROFS-UTILS UTIL-LINUX PAHOLE DWARVES IGT I-G-T TRACE-CMD "
    "LIBTRACEFS LIBTRACEEVENT STRACE QEMU LIBNL IW WPA_SUPPLICANT BLUEZ RDMA-CORE NDCTL NFS-UTILS MULTIPATH-TOOLS"
)
#: code that does not run in the kernel: its speed is a tool's, a test's or a document's (who maintains it: none)
NOT_RUNTIME_PATHS = ("tools/", "Documentation/", "scripts/", "samples/", "MAINTAINERS", "CREDITS", ".mailmap")
REVERTS = ('revert "', 'revert ("')  # titles, and git's "This reverts commit <sha>." in the changelog

#: where members sit in the CPU cache: a claim of speed with hot data named, else layout (RB101's question)
CACHE_LINE_TERMS = _set("cache_line cache_lines cacheline cachelines")
HOT_WORDS = _set("hot hotter hottest frequently")
#: a cost or gain named with the cache line: a speed claim, not only placement
CACHE_GAIN_WORDS = _set(
    "benefit benefits friendly stall stalls bouncing bounce extra increases contention false_sharing efficient optimal"
)
CACHE_WORDS = _set("cache caches")
PLACE_WORDS = _set("same one single separate own across")
#: every claim needs one of these words (the cheap first test, before any sentence is read)
CLAIM_NEEDS = SPEED_WORDS | OPTIMIZE_VERBS | SPEED_VERBS | COST_NOUNS | GOOD_NOUNS | EFFICIENT_WORDS | EXPENSIVE_WORDS
CLAIM_NEEDS |= NAME_WORDS | _set("hotter acquiring") | PATH_TERMS | CACHE_LINE_TERMS | COUNT_NOUNS
SPEED_OR_COST_WORDS = SPEED_WORDS | OPTIMIZE_VERBS | COST_NOUNS | GOOD_NOUNS | EXPENSIVE_WORDS | EFFICIENT_WORDS
PACKING_WORDS = _set("hole holes padding packing pahole")  # "to remove a hole and avoid ... split": the size
SPLIT_WORDS = _set("spanning span spans split straddle straddles straddling crossing")
CLAIM_GAINS = SPEED_OR_COST_WORDS | HOT_WORDS | CACHE_GAIN_WORDS | SPLIT_WORDS  # a cache-line claim naming a gain

# "cache misses" -> "cache_misses": the same length, so offsets into the text stay valid
_JOINED_TERMS_RE = lazyre.compile(  # case-blind (?i)
    r"(?i)\b(?:cache|tlb)[ \t\n-](?:miss(?:es)?|flush(?:es)?)\b|\bfalse[ \t\n-]sharing\b|\bcode[ \t\n-]size\b|"
    r"\bcpu[ \t\n-](?:time|usage|cycles|utili[sz]ation)\b|\bround[ \t\n-]trips?\b|\block[ \t\n-](?:contention|hold)\b|"
    r"\bcontext[ \t\n-]switch(?:es)?\b|\b(?:hot|fast)[ \t\n-]paths?\b|\bperformance[ \t\n-](?:impact|regression)s?\b|"
    r"\bcache[ \t\n-](?:usage|utili[sz]ation|efficiency|locality|hit|lines?)\b|\bbottle[ \t\n-]necks?\b"
)
_JOINED_FIRST = _set("cache tlb false code cpu round lock context hot fast performance bottle")
_CLAIM_FIRST = frozenset(w.split("_")[0] for w in CLAIM_NEEDS if "_" in w)


class Claim(NamedTuple):
    """A performance claim: its words as written and where they start in the searched text."""

    text: str
    start: int


def _may_claim(text: str) -> bool:
    """False when ``text`` cannot hold a claim: none of CLAIM_NEEDS among its words (the cheap first test)."""
    words = ev._word_set(text)
    if words is None:
        return True  # beyond ASCII: the sentences decide
    if not CLAIM_NEEDS.isdisjoint(words):
        return True
    return not _CLAIM_FIRST.isdisjoint(words) and _JOINED_TERMS_RE.search(text) is not None


def _joined(text: str) -> str:
    """``text`` with multi-word terms joined ("cache misses" -> "cache_misses"), the same length."""
    words = ev._word_set(text)
    if words is not None and _JOINED_FIRST.isdisjoint(words):
        return text
    return _JOINED_TERMS_RE.sub(lambda m: re.sub(r"[ \t\n-]", "_", m.group(0)), text)


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(lower-case word, start, end) of each word of ``text``, multi-word terms joined; "speed-up" is one word."""
    joined = _joined(text).replace("speed-up", "speedup").replace("Speed-up", "Speedup")
    return [(m.group(0).lower(), m.start(), m.end()) for m in ev._TOKEN_RE.finditer(joined)]


# Step 2: the effect is run-time speed or cost
def _near(words: Sequence[str], lo: int, hi: int, wanted: frozenset[str]) -> int | None:
    """The index of the first word of ``words[lo:hi]`` in ``wanted``, or None."""
    return next((k for k in range(max(0, lo), min(hi, len(words))) if words[k] in wanted), None)


def _not_speed(words: Sequence[str], lo: int, hi: int) -> bool:
    """True when the words around the effect (``lo`` to ``hi``) say what it is about is not run-time speed: power,
    memory, size, the build, a test or a person ("reduce memory overhead", "speed up the selftest"); "memory
    barriers", "memory access" are no memory size."""
    k = _near(words, lo, hi, NOT_SPEED_WORDS)
    while k is not None and words[k + 1 : k + 2] and words[k + 1] in UNLESS_BEFORE.get(words[k], OBJECTS):
        k = _near(words, k + 1, hi, NOT_SPEED_WORDS)  # "memory barriers"; "test the queue length": a verb
    return k is not None


OBJECTS = _set("the a an whether if")
#: what after a word of NOT_SPEED_WORDS makes it no size, test or build ("test the"); "store the X" is storage
MEMORY_SPEED = _set("barrier barriers ordering access accesses bandwidth latency placement locality")
UNLESS_BEFORE = {"memory": MEMORY_SPEED} | dict.fromkeys(("store", "stored", "storing"), frozenset[str]())
SPEED_CLASSES = _set("low high full super higher lower")  # "for low speed", "higher speed applications"
HARDWARE_SPEED = _set("clock link bus baud fan transfer port line")  # "the clock speed", "link speed"
#: the compiler's optimisations, not the patch's run-time speed: the compiler named, or its settings
COMPILER_WORDS = _set("compiler compilers gcc clang llvm mllvm toolchain toolchains kbuild lto pragma cflags")
COMPILER_SETTINGS = _set("level levels pass passes flag flags barrier barriers")


def _compilers(words: Sequence[str], i: int) -> bool:
    """True when the optimisation ``words[i]`` is the compiler's: code "optimized out" or "away" (the size), a setting
    ("optimization levels", "pass", "barrier"), the compiler named near ("the X optimization in LLVM", "-mllvm")."""
    after = words[i + 1 : i + 2]
    setting = "ation" in words[i] and not COMPILER_SETTINGS.isdisjoint(after)  # a noun: not "optimize barriers"
    return after in (["out"], ["away"]) or setting or not COMPILER_WORDS.isdisjoint(words[max(0, i - 6) : i + 6])


def _other_goal(words: Sequence[str], to: int) -> bool:
    """True when "optimize X to <goal>" names a goal that is not speed: made to work ("to support ..."), or a
    thing made smaller that is no cost ("to minimize HW race condition")."""
    goal = words[to + 1] if to + 1 < len(words) else ""
    gains = COST_NOUNS | GOOD_NOUNS | CACHE_LINE_TERMS | TAKE_WORDS
    return goal in ENABLING_GOALS or (goal in LESS_VERBS and gains.isdisjoint(words[to + 2 : to + 7]))


def _speed_effect(words: Sequence[str], i: int) -> tuple[int, int] | None:
    """The span of a speed or cost effect whose key word is ``words[i]``, or None. The forms: a speed word
    ("faster", "speed up", "optimize X"); a cost made smaller ("reduce overhead", "contention is reduced", "avoid
    the expensive lookup"); a good made bigger ("improve throughput", "better scalability", "performance
    improves"); "more efficient"; speed as the purpose ("for performance")."""
    w = words[i]
    if i > 0 and words[i - 1] == "non":
        return None  # "non-performance critical": the prefix negates
    if w in SPEED_WORDS or w in OPTIMIZE_VERBS:
        if _not_speed(words, i - 3, i + (6 if w in OPTIMIZE_VERBS else 5)) or (i > 0 and words[i - 1] in FAIL_WORDS):
            return None  # "optimize for size", "speed up the build", "fail faster"
        past = not _set("was were").isdisjoint(words[max(0, i - 3) : i])  # "X was much cheaper than Y": as it was
        if words[i + 1 : i + 2] == ["than"] and (past or _near(words, i + 2, i + 6, KNOB_WORDS | EXPECTED) is not None):
            return None  # "faster than the default mode 0": settings compared; "faster than expected": the bug
        minor = any(words[k : k + 2] in (["only", "a"], ["just", "a"]) for k in range(max(0, i - 4), i))
        if w in OPTIMIZE_VERBS and (minor or _near(words, i - 3, i, POINTLESS_WORDS) is not None):
            return None  # "an unnecessary micro optimization", "only a micro-optimization": old code, belittled
        if w in OPTIMIZE_VERBS and _compilers(words, i):
            return None  # "optimize out the v1 code paths", "optimization levels", "X optimization in LLVM"
        if w in OPTIMIZE_VERBS and not _set("functions helpers logic details").isdisjoint(words[i + 1 : i + 3]):
            return None  # "optimize functions used only by platform data", "optimize code details": tidied
        if w in OPTIMIZE_VERBS and _near(words, i + 1, i + 6, SAFE_WORDS) is not None:
            return None  # "this optimization is harmless", "turned out to be broken": weighed for correctness
        to = _near(words, i + 1, i + 6, _set("to"))
        if w in OPTIMIZE_VERBS and to is not None and _other_goal(words, to):
            return None  # "optimize the code to support ...", "to minimize HW race condition": another goal named
        if w in OPTIMIZE_VERBS and words[i + 1 : i + 2] == ["for"] and i > 0 and words[i - 1] in ("when", "if"):
            return None  # "when optimizing for performance": the compiler's mode, a build setting
        return i, i
    if w in SPEED_VERBS and (up := _near(words, i + 1, i + 4, _set("up ups"))) is not None:
        return None if _not_speed(words, i + 1, up + 4) else (i, up)  # else "speed" the noun: "improve its speed"
    people = words[i : i + 2] == ["time", "for"] and any(x.endswith(("ers", "ors")) for x in words[i + 2 : i + 4])
    hardware = w in ("cycles", "time") and _near(words, i - 2, i + 5, HARDWARE_SPEED | _set("pulse")) is not None
    if people or (hardware and _near(words, i - 4, i, LESS_VERBS) is None):  # not "cut the bus cycles"
        return None  # "save time for system integrators", "cycles of the clock-high pulse": people's or hardware's
    if words[i + 1 : i + 2] in (["sensitive"], ["critical"]) and (away := _near(words, i - 6, i, _set("way away"))):
        return away - 3 * (words[away - 3 : away - 2] == ["out"]), i + 1  # "out of the way of latency sensitive X"
    if w in COST_NOUNS and not _not_speed(words, i - 2, i + 2 + 2 * (w == "time")):  # "time, mostly for debugging"
        under = not _set("under during").isdisjoint(words[max(0, i - 3) : i])  # "under high contention": when
        degree = i > 0 and words[i - 1] in DEGREE_WORDS  # "most instructions": no adjective judged, no cost
        needless = _near(words, i - 2, i - degree, NEEDLESS_WORDS) if w != "time" and not under else None
        if needless is not None or w.startswith(("bottle", "performance_regression")):
            return i if needless is None else needless, i  # "unnecessary overhead", "extra cache bouncing"
        before = _near(words, i - 4, i, LESS_VERBS if w != "time" else TIME_VERBS)
        if before is not None:
            return before, i
        after = _near(words, i + 1, i + 4, LESS_AFTER)
        if after is not None:
            return i, after
    if w in GOOD_NOUNS and i > 0 and (words[i - 1] in HARDWARE_SPEED or w == "speed" and words[i - 1] in SPEED_CLASSES):
        return None  # "link speed", "improve bus performance": the hardware's own; "for low speed": a device class
    if w in GOOD_NOUNS and (w in LOCALITY_WORDS or not _not_speed(words, i - 1, i + 1)):
        before = _near(words, i - (8 if "and" in words[i - 2 : i] else 4), i, MORE_VERBS)  # "improve X and Y"
        if before is not None:
            return before, i
        after = _near(words, i + 1, i + 4, MORE_AFTER)
        if after is not None or (after := _near(words, i + 1, i + 4, WORSE)) is not None:
            return i, after  # "performance improves"; "IOPS decreasing": the problem, when a fix is said (step 1)
        k = words.index("for", max(0, i - 5)) if "for" in words[max(0, i - 5) : i] else None
        if w in PURPOSE_NOUNS and k is not None and not (k > 0 and words[k - 1] in INTERFACE_WORDS):
            return k, i  # "for (better) performance"; not the compiler's "optimizing for", "a sysfs entry for"
    if w in COUNT_NOUNS and (fewer := _near(words, i - 4, i, FEWER_VERBS)) is not None:
        return fewer, i  # "to reduce rpc ops", "fewer lookups": operations done less often
    if w in TAKE_WORDS and _near(words, i + 1, i + 5, LOCK_WORDS) is not None:
        before = _near(words, i - 3, i, LESS_VERBS)
        if before is not None:
            return before, _near(words, i + 1, i + 5, LOCK_WORDS) or i  # "avoid acquiring the MMU lock"
    if w in EXPENSIVE_WORDS and not (w.startswith("slow") and _not_speed(words, i + 1, i + 2)):  # "slow memory"
        if i > 0 and words[i - 1] in NEEDLESS_WORDS and w in ("expensive", "costly"):
            return i - 1, i  # "can be quite expensive": the cost the patch takes away
        before = _near(words, i - 4, i, LESS_VERBS)
        if before is not None and words[before] not in ("less", "fewer", "lower", "smaller"):
            return before, i  # "avoid the expensive lookup", "skip the costly sync"
        state = _near(words, i - 3, i, COPULAS)
        if state is not None and _set("a an very quite too so rather").issuperset(words[state + 1 : i]):
            return state, min(i + 1, len(words) - 1)  # "X can be a slow operation": the problem, step 1 says whose
    if w in EFFICIENT_WORDS and i > 0 and words[i - 1] in ("more", "better") and not _not_speed(words, i, i + 4):
        design = _set("code design framework api interface driver abstraction implementation usage")
        return None if _near(words, i - 4, i, design) is not None else (i - 1, i)  # "code more scalable": extensible
    if w in CACHE_WORDS and (_near(words, i - 3, i, HOT_WORDS) or _near(words, i + 1, i + 3, HOT_WORDS)):
        return max(0, i - 1), i  # "(to) keep caches hot"
    if w in CACHE_LINE_TERMS:
        hot = _near(words, i - 16, i + 12, HOT_WORDS)
        gain = _near(words, i - 6, i + 6, CACHE_GAIN_WORDS)
        split = _near(words, i - 4, i, SPLIT_WORDS)
        if gain is None and split is not None and PACKING_WORDS.isdisjoint(words):
            gain = _near(words, i - 9, i, LESS_VERBS) or split  # "avoid spanning cachelines": a line more touched
        if hot is not None or gain is not None:
            k = hot if hot is not None else gain or 0
            return min(k, i), max(k, i)  # "the hot members fit in one cache line", "extra cache line bouncing"
        place = _near(words, i - 4, i, PLACE_WORDS | LESS_VERBS)
        if place is None or _not_speed(words, i - 8, i + 8):
            return None  # "goes to fewer cachelines (72 -> 64 bytes)": the size
        return place, i  # "into the same cache line": layout, a CHECK
    if w in NAME_WORDS and i > 0:
        if w.startswith("optimi") and words[i - 1] == "now" or w == "accelerated" and words[i - 1] in COPULAS:
            return i - (w != "accelerated"), i  # "is now optimized", "so it is accelerated": an effect, not a name
        if w in PATH_TERMS and _near(words, i - 3, i, ADD_WORDS | MORE_VERBS | OPTIMIZE_VERBS) is not None:
            return i - 2 if words[i - 1] in ("a", "an") else i - 1, i  # "add a fast path": a new one
    return None


# Step 1: the sentence states an effect of this patch
_CLAUSE_END_RE = lazyre.compile(r"[,;:]|\((?!\))|\s[-–]\s|\b(?:but|and|because|since|while|although|though|whereas)\b")
_OTHER_COMMIT_RE = lazyre.compile(r"\bcommit\s+[0-9a-f]{7,40}\b", re.IGNORECASE)
_FILLER = _set(
    "also additionally further furthermore finally then instead so thus hence and but now here however micro"
)


def _clause_start(sentence: str, pos: int) -> int:
    """Where the clause holding the character at ``pos`` starts (after the last comma, "but", "because" ...)."""
    start = max(0, pos - 400)  # a clause is read back at most this far (a 100 KB "sentence" stays linear)
    for m in _CLAUSE_END_RE.finditer(sentence, start, pos):
        start = m.end()
    return start


def _a_name(tokens: Sequence[tuple[str, int, int]], sentence: str, k: int) -> bool:
    """True when the speed word ``tokens[k]`` is part of a name in Title Case ("Modify QP Optimization"), next to
    a capitalised word with nothing but a blank between ("SUNRPC: Optimize" is no name), or a flag's (NO_DATA)."""
    near = [j for j in (k - 1, k + 1) if 0 <= j < len(tokens) and tokens[j][0] not in ("i", "a")]
    flag = sentence[tokens[k - 1][1] : tokens[k - 1][2]] if k > 0 else ""  # not "the foo_ok() optimization"
    if tokens[k][0].endswith(("ation", "ations")) and "_" in flag and flag.isupper():
        return True  # "the FSCACHE_COOKIE_NO_DATA_TO_READ optimization": a feature named by its flag
    opens = sentence[: tokens[k][1]].rstrip().endswith((":", ".")) or k == 0  # "HV: Optimise TLB": the first word
    capital = not opens and sentence[tokens[k][1]].isupper()
    return capital and any(
        sentence[tokens[j][1]].isupper() and not sentence[tokens[min(j, k)][2] : tokens[max(j, k)][1]].strip()
        for j in near
    )


def _of_this_patch(
    sentence: str, tokens: Sequence[tuple[str, int, int]], words: Sequence[str], span: tuple[int, int], subject: bool
) -> bool:
    """True when the sentence states the effect ``span`` as this patch's (the subject always does, being what
    the patch does): not negated, not the existing code, another commit, a hypothetical or an alternative, not
    something a tool, a test, a person or the hardware does, not a feature's name; in the changelog, said as
    what the patch does (an imperative, "this patch", "so that", "to reduce", "which avoids", "should")."""
    a, b = span
    if _a_name(tokens, sentence, a) or _a_name(tokens, sentence, b):
        return False
    clause_start = _clause_start(sentence, tokens[a][1])
    first = min(a, bisect_left(tokens, clause_start, key=lambda t: t[1]))
    before = list(words[max(first, a - 6) : a])
    end = _CLAUSE_END_RE.search(sentence, tokens[b][2], tokens[b][2] + 200)
    after = [w for w, start, _ in tokens[b + 1 : b + 4] if end is None or start < end.start()]
    conceded = not _set("though although").isdisjoint(words[:a]) and "still" in words[b:]  # "..., it is still"
    after = [] if conceded else after[: after.index("by")] if "by" in after else after  # "by not doing Y": how
    if not NEGATIONS.isdisjoint(before) or any(w.endswith("n't") or w in ("not", "never") for w in before + after):
        return False  # "no performance change", "doesn't reduce contention", "the optimization didn't suffer"
    enabler = _near(words, max(first, a - 8), a, ENABLE_WORDS)
    if enabler is not None and enabler + 1 < a and words[enabler + 1] not in ("us", "to"):
        return False  # "allows filesystems to optimize away ...": another's effect, made possible
    clause = " ".join(sentence[clause_start : tokens[b][2] + 20].lower().split())
    further = words[a - 1 : a] == ["further"] and words[a] in EFFECT_VERBS  # "should further improve": also
    enabled = words[first : first + 1] == ["with"] and words[first + 1][-3:] in ("his", "the", "ing")  # the change
    later = NOT_THIS_PATCH - {"further"} if further else NOT_THIS_PATCH  # not "blocking further optimization"
    later -= HYPOTHETICAL if enabled else frozenset()  # "With this rework we could use X to optimize Y": enabled
    if not later.isdisjoint(words[first : b + 3]) or _OTHER_COMMIT_RE.search(sentence[: tokens[b][2]]):
        return False  # the existing code, another commit, a hypothetical, later work
    hedged = words[:1] in (["this"], ["it"]) and not HYPOTHETICAL.isdisjoint(words[1:4])  # "This could help ..."
    hypothetical = not (hedged or enabled) and not HYPOTHETICAL.isdisjoint(words[max(0, a - 25) : b + 25])
    if hypothetical or words[max(0, a - 2) : a] == ["can", "be"]:
        return False  # "We could X, but that becomes rather expensive", "As an optimization, X could ..."
    if "more importantly" in sentence[tokens[b][2] : tokens[b][2] + 200].lower():
        return False  # "This should slightly improve performance, but more importantly ...": speed is a side note
    if words[:1] == ["the"] and not KNOB_WORDS.isdisjoint(words[1:4]) and "new" not in words[:4]:
        return False  # "The nobarrier option disables flushes, improving performance": an existing knob described
    if words[a].startswith("optimi") and not HAVE_WORDS.isdisjoint(words[max(0, a - 5) : a]):
        return False  # "we have an optimization to ...": existing code
    ahead = clause[: tokens[a][1] - clause_start]
    road = [ahead.split(p)[-1].split()[:1] for p in ALTERNATIVES if p in ahead]  # the alternative's first word
    if any(p in clause for p in NOT_THIS_PHRASES) or any(not w or w[0].endswith("ing") for w in road):
        return False  # "the code used to ...", "rather than improve performance": not what this patch does
    if words[0] in PAST_OPENERS or words[:3] in OLD_CODE or _CONCEDED_RE.search(ahead):
        return False  # "Previously X ... it saves cycles", "The current code will, at times, optimize X": the old code
    actor = [w for w in words[first:a] if w not in DETERMINERS][:2] + [*words[max(0, a - 3) : a]]
    if not OTHER_ACTORS.isdisjoint(actor):
        return False  # "the hardware is faster", "tests run faster"
    if words[a] in COPULAS:
        return True  # a run-time cost as the problem, in a changelog saying elsewhere what it changes (``fixes``)
    if "as" in words[max(0, a - 3) : a] and words[a].startswith("optimi"):
        return True  # "As an optimization, test the length first": what the patch does, and why
    if subject or conceded or words[a] in NEEDLESS_WORDS or words[b].startswith(("bottle", "performance_regression")):
        return True  # what the patch does; a cost named as the problem it takes away
    if a == 0 and words[b].startswith("improvement"):
        return True  # a line like a title: "Performance improvement for reading X"
    purpose = words[a] == "for" and words[b] in PURPOSE_NOUNS and _set("be is are").isdisjoint(words[a - 2 : a])
    if words[b] in COMPARATIVES or words[a] in COMPARATIVES or purpose:
        return True  # "a faster helper": the choice compared; "for performance": the reason (not "is done for ...")
    if a == first and words[a].endswith(("ing", "es", "s")) and words[a] in EFFECT_VERBS:
        return True  # ", reducing the overhead", "It reduces contention": the change's result
    lead = [next((w for w in islice(words, a) if w not in _FILLER and not w.endswith("ly")), words[a])]
    and_verb = sentence[tokens[first][1] - 6 : tokens[first][1]].strip().endswith("and")
    if words[first] != lead[0] and and_verb and lead[0] not in OTHER_ACTORS:  # not "Users can X and get Y"
        lead.append(words[first])  # "Get rid of X and optimize Y": the second verb of the imperative
    if any(_verb_stem(w) in CHANGE_VERBS for w in lead) and sentence[tokens[0][1]].isupper():
        return True  # an imperative: "Avoid taking the lock twice", "Use a per-CPU counter to reduce contention"
    said = [*words[max(0, a - 12) : a], *words[a + 1 : b + 1]]
    if not THIS_PATCH.isdisjoint(said) or not RESULT_WORDS_.isdisjoint(said):
        return True  # "This patch reduces ...", "so that ...", "which avoids ...", "this should improve ..."
    return a > 0 and words[a - 1] in ("to", "for")  # "... to reduce contention", "for better performance"


def _kept(sentence: str, tokens: Sequence[tuple[str, int, int]], words: Sequence[str], span: tuple[int, int]) -> bool:
    """True when the optimisation or fast path ``span`` exists already: restored ("add back a hook to optimize X",
    "restore the fast path") or the object of a keep or move ("keep the optimization"; not "move X to optimize Y")."""
    a, first = span[0], bisect_left(tokens, _clause_start(sentence, tokens[span[0]][1]), key=lambda t: t[1])
    back = any(f" {w} " in f" {' '.join(words[first:a])} " for w in RESTORE)  # "Add back X to optimize Y"
    keep = (k := _near(words, a - 3, a, KEEP_WORDS)) is not None and _set("to for by so").isdisjoint(words[k:a])
    return (words[a] in OPTIMIZE_VERBS or words[span[1]] in PATH_TERMS) and (back or keep)


def _a_problem(words: Sequence[str], a: int, b: int) -> bool:
    """The effect ``words[a:b+1]`` is the problem a fix takes away: "can be a slow operation", "IOPS decreasing"."""
    return words[a] in COPULAS or words[a] in GOOD_NOUNS and words[b] in WORSE


def _verb_stem(word: str) -> str:
    """The verb of a gerund or third person ("using" -> "use", "avoids" -> "avoid"), else ``word``."""
    stems = (word[: -len(cut)] + add for cut, add in (("ing", ""), ("ing", "e"), ("s", "")) if word.endswith(cut))
    return next((stem for stem in stems if stem in CHANGE_VERBS), word)


_THIS_PATCH_RE = lazyre.compile(r"^(?:this|the) (?:patch|change|commit) ", re.I)  # "This patch adds X": "Add X"


def _claims_in(text: str, *, subject: bool = False, about: str = "") -> Iterable[Claim]:
    """The claims of ``text`` (the author's prose), in order: each sentence's first effect of this patch (in a
    sentence naming ``about`` only: a revert quotes the reverted commit's claims, its own says "by reverting")."""
    leads = ((at, _THIS_PATCH_RE.sub("", s.lstrip())) for at, s, _ in ev._sentences(text) if s.lstrip()[:1].isupper())
    fixes = set() if subject else {at for at, s in leads if _verb_stem((s.split() or [""])[0].lower()) in CHANGE_VERBS}
    kept = False  # an optimisation restored or kept: "this optimization" after it is the same one, no new gain
    for s_start, sentence, _ in ev._sentences(text):
        if not _may_claim(sentence) or about not in sentence.lower():
            continue
        tokens = _tokens(sentence)
        words = [w for w, _, _ in tokens]
        claim = layout = None
        for i, w in enumerate(words):
            if w not in CLAIM_WORDS or kept and w in OPTIMIZE_VERBS and words[i - 1 : i] in (["this"], ["that"]):
                continue
            span = _speed_effect(words, i)
            span = None if span is None or not fixes - {s_start} and _a_problem(words, *span) else span  # a fix?
            if span is not None and _kept(sentence, tokens, words, span):
                kept, span = True, None
            if span is not None and _of_this_patch(sentence, tokens, words, span, subject):
                start, end = tokens[span[0]][1], tokens[span[1]][2]
                claim = Claim(" ".join(sentence[start:end].split()), s_start + start)
                if not _layout_only(claim):
                    break  # a speed or cost named: the sentence's claim
                layout, claim = layout or claim, None  # where members sit: kept unless a gain is named
        found = claim or layout
        if found is not None:
            yield found


def find_claim(text: str, *, title: str = "", about: str = "") -> Claim | None:
    """The first claim of this patch in the changelog ``text`` (quotes, code, output and version notes left out);
    a line repeating the subject ``title`` is the subject's, not the changelog's."""
    prose = ev._prose(text)
    if title.strip() and title.strip() in prose:
        at = prose.index(title.strip())
        prose = prose[:at] + " " * len(title.strip()) + prose[at + len(title.strip()) :]
    return next(iter(_claims_in(prose, about=about)), None)


def find_subject_claim(title: str) -> Claim | None:
    """The claim of the subject line (its prefix such as "mm/slub:" kept); a claim word misspelt by one letter
    ("optinise", "contension", "benifits") is read as meant: a subject is short, and read whole."""
    title = _TITLE_WORD_RE.sub(lambda m: _respelt(m.group(0)), title)
    return next(iter(_claims_in(title, subject=True)), None)


_TITLE_WORD_RE = lazyre.compile(r"[A-Za-z]{7,}")


def _respelt(word: str) -> str:
    """The claim word ``word`` stands for when one letter is wrong, missing or extra (``word`` when none)."""
    low = word.lower()
    if low in CLAIM_WORDS:
        return word
    for k in range(len(low)):
        meant = _ONE_OFF.get((k, low[:k] + low[k + 1 :])) or _ONE_OFF.get((-1, low[:k] + low[k + 1 :]))
        if meant:
            return meant  # a letter wrong ("benifits") or one too many ("perfformance")
    return _ONE_OFF.get((-1, low), word)  # a letter missing ("perfomance")


EFFECT_VERBS = LESS_VERBS | MORE_VERBS | SPEED_VERBS
CLAIM_WORDS = CLAIM_NEEDS | EXPENSIVE_WORDS | NAME_WORDS | CACHE_WORDS | TAKE_WORDS
#: the claim words of seven letters or more, by (the place of a letter, the word without it); -1: any place
_SPELLED = OPTIMIZE_VERBS | _set("performance throughput scalability efficiency benefits bottleneck latency overhead")
_ONE_OFF = {(j, w[:k] + w[k + 1 :]): w for w in _SPELLED for k in range(len(w) + 1) for j in (k, -1)}

# Claims kept as findings but not asked about (``details["not_asked"]``): the gain holds by construction.
_ALIGN_RE = lazyre.compile(r"\b_{2,4}cacheline_aligned(?:_in_smp)?\b|\b__aligned\s*\([^()]*\)")
_BARRIER = r"\b(?:smp_|dma_|virt_)?[rw]?mb(?:__(?:before|after)_atomic)?\(\)"
_PORT_TYPE_RE = lazyre.compile(
    r"\b(?:unsigned\s+long\s+long|unsigned\s+long|unsigned\s+int|long\s+long|long|int|ulong|__u64|__u32|u64|u32|"
    r"s64|s32|xlen_t|size_t|ssize_t|uintptr_t|phys_addr_t)\b|" + _BARRIER  # or a barrier for a lighter one
)
_BARRIER_RE = lazyre.compile(_BARRIER)
LAYOUT_WORDS = _set("layout placement locality packing padding hole holes cache_line cache_lines cacheline cachelines")


def _only_swapped(patch: Patch) -> str | None:
    """How the changed C and assembly lines differ, when only by a swap: ``"alignment"`` (an annotation added),
    ``"barriers"`` (a lighter barrier), ``"types"`` (a port to another word size); else None (nor a reorder)."""
    changed: dict[str, list[str]] = {"-": [], "+": []}
    for h in (h for fd in patch.files if fd.path.endswith((".c", ".h", ".S")) for h in fd.hunks):
        for line in h.body:
            text = " ".join(line[1:].split())
            if text and line[:1] in changed and not (line[:1] == "+" and text.startswith("#include")):
                changed[line[:1]].append(text)
    removed, added = changed["-"], changed["+"]

    def norm(line: str, swaps: bool = True) -> str:
        return "".join((_PORT_TYPE_RE.sub("T", _ALIGN_RE.sub(" ", line)) if swaps else line).split())

    moved = sorted(norm(x, False) for x in removed) == sorted(norm(x, False) for x in added)
    if not removed or moved or len(removed) != len(added) or sorted(map(norm, removed)) != sorted(map(norm, added)):
        return None
    kinds = (("alignment", _ALIGN_RE), ("barriers", _BARRIER_RE))
    return next((kind for kind, pattern in kinds if any(pattern.search(x) for x in added)), "types")


#: functions run once or when someone reads a file: sysfs show/store, probe/remove, __init/__exit
_COLD_RE = lazyre.compile(r"\b\w+_(?:show|store|probe|remove)\s*\(|\b__(?:init|exit)\b")
_GENERATED_CODE_RE = lazyre.compile(
    r"\bassembly\b|\bgenerated code\b|\bcode generation\b|\bcompiler can\b|\bobjdump\b|\bdisassembl", re.IGNORECASE
)


def _why_not_asked(patch: Patch, own_body: str, claim: Claim, body_claim: Claim | None) -> str:
    """Why a maintainer would not ask for numbers on this claim (the gain holds by construction), or ""."""
    swapped = _only_swapped(patch)
    if swapped == "alignment":
        return "the patch only adds a cache-line alignment annotation: the lines saved follow from the layout"
    if swapped == "barriers":
        return "the patch only swaps a barrier for a lighter one: what it saves follows from the barriers"
    if swapped == "types":
        return "the patch only swaps integer types (a port to another word size): no new code path to measure"
    added = sum(fd.added_count for fd in patch.files)
    removed = sum(fd.removed_count for fd in patch.files)
    if removed > 2 * added:
        return "a cleanup that removes code (simpler, an indirect call or a layer less): the gain follows from the code"
    sentence = _sentence_at(own_body, body_claim.start) if body_claim is not None else ""
    said = [w for w, _, _ in _tokens(sentence)]
    if added + removed <= 12 and "check" in said and not _set("before early first").isdisjoint(said):
        return "an inline check that skips a call when there is nothing to do: the gain follows from the code"
    hunks = [h for fd in patch.files if fd.path.endswith(".c") for h in fd.hunks]
    if hunks and all(_COLD_RE.search(h.section or "") or any("sysfs_emit" in x for x in h.body) for h in hunks):
        return "the changed code runs on a cold path (a sysfs file read, probe, init): nothing a benchmark would see"
    if all(fd.path.startswith("arch/") for fd in patch.files) and "generic" in sentence.lower():
        return "an architecture's own helper weighed against the generic one: an instruction-count argument"
    if _GENERATED_CODE_RE.search(own_body):
        return "the changelog argues from the generated code (the assembly, what the compiler can do)"
    if claim is body_claim and body_claim is not None and _paragraph_of(own_body, body_claim.start) >= 2:
        return "a remark late in the changelog, not the patch's stated purpose (subject, first two paragraphs)"
    if "how much" in sentence.lower() or "how many" in sentence.lower():
        return "what is read or written is made smaller, which follows from the change"
    words = {w for w, _, _ in _tokens(claim.text)}
    gains = SPEED_OR_COST_WORDS - LOCALITY_WORDS | HOT_WORDS | CACHE_GAIN_WORDS
    if not LAYOUT_WORDS.isdisjoint(words) and gains.isdisjoint(words):
        return "a layout change with no speed named: whether the layout is explained is RB101's question"
    return ""


def _paragraph_of(text: str, at: int) -> int:  # from 0; remarks read on new lists sat late in changelogs
    return sum(1 for block in re.split(r"\n\s*\n", text[:at])[:-1] if block.strip())


#: words of the CPU's own speed: a changelog naming them says what "optimize" means ("help the branch predictor")
CPU_WORDS = _set("predictor mispredict mispredicts prefetch cycles instructions inline inlined cheap atomic atomics")


def _subject_word_only(claim: Claim, patch: Patch, own_body: str) -> bool:
    """True when "optimize" in the subject of a small change is the only speed word: it may mean tidy."""
    if claim.text.lower() not in OPTIMIZE_VERBS or sum(fd.added_count + fd.removed_count for fd in patch.files) > 40:
        return False
    words = {w for w, _, _ in _tokens(ev._prose(own_body) + " " + patch.subject.title)} - OPTIMIZE_VERBS
    return (SPEED_OR_COST_WORDS | NAME_WORDS | CPU_WORDS).isdisjoint(words)


def _layout_only(claim: Claim, gains: frozenset[str] = CLAIM_GAINS) -> bool:
    """True when the claim names cache lines and none of ``gains`` ("into the same cache line", "cache-line friendly")."""
    words = {w for w, _, _ in _tokens(claim.text)}
    return not CACHE_LINE_TERMS.isdisjoint(words) and gains.isdisjoint(words)


def _not_the_kernels_speed(patch: Patch) -> bool:
    """True for a userspace project's patch (its tag or prefix), or one of only tools, docs and selftests."""
    prefix = patch.subject.title.split(":", 1)[0].strip().upper() if ":" in patch.subject.title else ""
    if any(t.upper().removesuffix("-NEXT") in USERSPACE_TAGS for t in (*patch.subject.tags, prefix)):  # iproute2-next
        return True
    paths = [fd.path for fd in patch.files if "/selftests/" not in fd.path]  # a dt binding: hardware used at run time
    return all(path.startswith(NOT_RUNTIME_PATHS) and "/bindings/" not in path for path in paths)


# The finding
#: the author says the code is not hot ("The locations are not on a hot code path"): nothing to measure
_NOT_HOT_RE = lazyre.compile(
    r"\b(?:is|are)\s+not\s+(?:on|in)\s+(?:an?\s+|the\s+|any\s+)?(?:hot|fast|performance[ -]critical)\b[^.;]{0,12}\bpaths?\b",
    re.IGNORECASE,
)


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """One finding per patch whose claim has no measured evidence in the message, cover letter or thread."""
    if not patch.files:
        return []
    # steps 1 and 2: the claim, in the subject, else in the changelog; a revert's only where it speaks of reverting
    revert = "This reverts commit " in patch.commit_message or any(f in patch.subject.title.lower() for f in REVERTS)
    subject_claim = None if revert else find_subject_claim(patch.subject.title)
    if subject_claim is None and not _may_claim(patch.commit_message):
        return []  # the cheap first test: no claim word in the changelog (most patches)
    if _not_the_kernels_speed(patch):
        return []
    own_body = "\n".join(ev._own_lines(patch.commit_message))
    body_claim = find_claim(own_body, title=patch.subject.title, about="revert" if revert else "")
    in_notes = body_claim is None and not revert and (body_claim := find_claim(patch.notes)) is not None  # below ---
    claim = subject_claim if subject_claim is not None else body_claim
    if subject_claim is not None and body_claim is not None and subject_claim.text.lower() in OPTIMIZE_VERBS:
        claim = body_claim  # "smp: optimize X" over "we can use a cheaper copy": the changelog says what is gained
    if claim is not None and body_claim is not None and _layout_only(claim):
        claim = body_claim  # "move X to avoid spanning cachelines" over "... the submit path is faster": the speed
    if claim is None:
        return []
    line = (
        None if claim is subject_claim or in_notes else patch.commit_start_line + own_body.count("\n", 0, claim.start)
    )
    problem = claim is body_claim and not in_notes and _a_problem([w for w, _, _ in _tokens(claim.text)], 0, -1)
    own_text = own_body[claim.start if problem else 0 :] + "\n" + patch.notes  # numbers before the problem: its own
    if ev._numbers_promised(own_text) or _NOT_HOT_RE.search(own_body):
        return []  # "[ Numbers hopefully forthcoming ]": the author already said they come
    severity = None
    if _layout_only(claim):
        severity = Severity.CHECK  # where members sit, no speed named: the labels differ, RB101 asks about it
    # step 3: the evidence: changelog and notes, then the cover letter, then the author's replies
    grade = ev._grade(own_text)
    if grade == "measured" or (_layout_only(claim, SPEED_OR_COST_WORDS | HOT_WORDS) and ev._pahole_compared(own_text)):
        return []  # pahole's before and after count the lines of a claim about how many lines
    not_asked = _why_not_asked(patch, own_body, claim, body_claim)
    if claim is subject_claim and body_claim is None and _subject_word_only(claim, patch, own_body):
        not_asked = not_asked or "only the subject says optimize, over a small change whose changelog names no speed"
        severity = Severity.CHECK  # the word may mean tidy: the labels mostly leave it out
    source = None
    cover_text = ctx.cover.commit_message + "\n\n" + ctx.cover.notes if ctx.cover else ""  # notes: a paragraph apart
    if ctx.cover is not None:
        cover_grade = ev._grade_cover_text(cover_text, patch.subject.index)
        if cover_grade == "measured" or ev._evidence_by_reference(cover_text):
            source = "cover letter"
        grade = ev._best(grade, cover_grade)
    if source is None and ev._evidence_by_reference(patch.commit_message + "\n" + patch.notes):
        source = "linked results"  # "Please refer to [1] and [2] for benchmarks": published, linked
    thread_state = ev._thread_state(patch, ctx) if source is None else None
    if thread_state is FindingState.ANSWERED:
        source = "author's reply"
    state = FindingState.ANSWERED if source else thread_state or FindingState.OPEN
    sub = ev._subsystem(patch)
    where = "the subject" if claim is subject_claim else "the notes" if in_notes else "the commit message"
    message = f'{where} claims a speed-up ("{claim.text}")' + (
        f"; the numbers are only in the {source}" if source else f" but shows no measurement (evidence: {grade})"
    )
    return [
        RULE.finding(
            patch,
            message,
            line=line,
            symbol="perf-claim",
            state=state,
            severity=severity,
            details={
                "claim": claim.text,
                "evidence": grade,
                "evidence_source": source,
                "subsystem": sub[0] if sub else None,
                "suggest": sub[1] if sub else None,
                "cache_lines": ev._mentions_cache_lines(patch.commit_message + patch.subject.title),
                "size_numbers": ev._quotes_size_numbers(ev._prose(own_body)),
                "cover_size_numbers": source is None and ctx.cover is not None and ev._size_numbers_only(cover_text),
                NOT_ASKED_KEY: not_asked or None,
                UNSURE_KEY: UNSURE,
            },
        )
    ]


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask for numbers that fit the claim (the paragraph of :func:`reply_point`)."""
    return reply_point(findings, patch)


#: Why no RB201 point is drafted unless asked (``draft --unsure``): on lists it never saw, readers would have sent
#: 1 of 110 such drafts (a gain by construction, a fix's or the old code's words, numbers elsewhere).
UNSURE = "a speed claim needs numbers only where the gain is not obvious: the reviewer's call, not the rule's"

#: Why this point comes too late after another person's Reviewed-by/Acked-by/Tested-by (the skip ``reviewed``).
QUIET_AFTER_REVIEW = "asking for numbers after the review is late: the reviewers took the change on its merits"

# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
THREAD_WORDS = ThreadWords(
    topic=tuple(
        "numbers,benchmark,measure,performance data,perf data,how much,any data,fio,will-it-scale,hackbench,"
        "flame graph,cycles,quantitative,expensive,costly".split(",")
    ),
    asks=tuple(
        "numbers, please|numbers please|any numbers|some numbers|have numbers|the numbers|benchmark numbers|"
        "benchmark results|performance numbers|performance data|perf numbers|how much faster|how much does|"
        "how much of|can you quantify|any data|measurements|did you measure|have you measured|any benchmark|"
        # asked in other words: "please provide quantitative data", "what is so expensive about X?"
        "quantitative|so expensive about|so costly about".split("|")
    ),
    evidence=(
        r"\b\d+(?:[.,]\d+)?\s*(?:%|percent|ns|us|µs|usec|ms|msec|s\b|sec|MB/s|GB/s|MiB/s|GiB/s|[KM]?IOPS|"
        r"cycles|ops/s|ops/sec|K|M|x)\b"
    ),
    evidence_in_order=((r"\bbefore\b", r"\bafter\b"), (r"\bwith(?:out)?\b", r"\bpatch\b", r"\d")),
)

# cache lines contended between CPUs (false sharing, bouncing, contention named with a cache line): perf c2c
# fits; a field moved into a hot line or an array aligned touches fewer lines, which perf c2c does not show
_LINE = r"cache[ -]?lines?|cachelines?"
_BOUNCE = rf"false[ -]shar|\bc2c\b|bounc|ping[ -]?pong|(?:{_LINE})[\s\S]{{0,200}}?conten(?:d|tion)"
CONTENDED_LINES_RE = lazyre.compile(rf"{_BOUNCE}|conten(?:d|tion)[\s\S]{{0,200}}?(?:{_LINE})", re.I)

# The paragraph for one point, quoting the sentence with the claim and asking for the measurement that
# fits it (the drafter prefers reply_point() to reply()). The kinds, first match wins:
_CYCLES = "cycles per call before and after, or a micro-benchmark of the function"
# the measurement that fits the claim: locks, bursts, cycles, perf c2c, cache misses, latency, throughput
_LOCKS = r"\bq(?:ueued[ -])?spin_?locks?\b|\bticket[ -]?(?:spin_?)?locks?\b|\bmcs[ -]?locks?\b|\b(?:spin_?)?lock implementation"
_LOCK_ASK = "lock benchmarks before and after, contended and uncontended (locktorture, or will-it-scale's lock tests)"
_BURST_ASK = "numbers before and after from a workload that queues the work in bursts, with the burst size"
_INSNS = r"micro[ -]?optimi|\binstructions?\b|\bbranch(?:es)?\b|code size|\blwsync\b|\b(?:smp_)?[rw]?mb\(\)|\bbarriers?\b|\bfences?\b|\binlin"
_C2C_ASK = "perf c2c output before and after, showing the contended cache lines going away"
_MISS_ASK = "cache misses before and after (perf stat -e cache-misses) under a benchmark that loads this path"
_LATENCY_ASK = "a latency distribution before and after (cyclictest or a histogram of this path), not only an average"
_THROUGHPUT = r"throughput|iops|bandwidth|MB/s|scal|contention|packets|requests|transactions|ops/s"
_CHEAPER = (
    r"instruction|branch|inline|fast[ -]?path|hot[ -]?path|cycles|overhead|cheaper|simplif|avoid|unnecessary|redundant|"
    r"fewer|indirect call|function call|compiler"
)
_KIND_WORDS = tuple(
    (kind, lazyre.compile(pattern, re.I) if isinstance(pattern, str) else pattern, ask)
    for kind, pattern, ask in (
        ("lock implementations", _LOCKS, _LOCK_ASK),
        ("bursts", r"\bburst", _BURST_ASK),
        ("instructions", _INSNS, _CYCLES),
        ("contended cache lines", CONTENDED_LINES_RE, _C2C_ASK),
        ("cache lines touched", r"cache[ -]?lines?|cacheline", _MISS_ASK),
        ("latency", r"latenc|jitter|wake[ -]?up|response time|tail\b|stall|preempt", _LATENCY_ASK),
        ("throughput", _THROUGHPUT, "throughput numbers before and after from a benchmark that loads this path"),
        ("instructions", _CHEAPER, _CYCLES),
    )
)

# a claim of smaller code: the size delta is its measurement, and "the added code" is no weight against it
CODE_SIZE_RE = lazyre.compile(r"code[ -]size|text[ -]size|smaller code|binary size|image size|\bbloat", re.I)
CODE_SIZE_ASK = "the text size before and after (size vmlinux, or scripts/bloat-o-meter)"
_SHORTLOG_RE = lazyre.compile(r"^\S.*\(\d+\):\s*$", re.M)  # "Ada Example (3):" opens a cover letter's shortlog


def _series_claim_sentence(text: str, claim: str) -> str:
    """The sentence of a cover letter's ``text`` (its shortlog left out) holding ``claim`` (the claim the series'
    patches make), else the sentence of its first claim, else ""."""
    shortlog = _SHORTLOG_RE.search(text)
    prose = text[: shortlog.start()] if shortlog is not None else text
    pos = " ".join(prose.lower().split()).find(" ".join(claim.lower().split())) if claim.strip() else -1
    if pos >= 0:
        return _sentence_at(" ".join(prose.split()), pos)
    first = find_claim(prose)
    return _sentence_at(prose, first.start) if first is not None else ""


def _cost_sentence(text: str) -> str:
    """The first sentence of the changelog ``text`` that names a speed or a cost without being a claim form
    ("in this case we can use a cheaper cpumask_copy() instead of cpumask_and()"), else "": under a claim said
    only in the subject, the draft quotes the author's reason rather than the subject line."""
    prose = ev._prose(text)
    hints = SPEED_OR_COST_WORDS | NAME_WORDS | LESS_VERBS
    for s_start, sentence, _ in ev._sentences(prose):
        if sentence.rstrip().endswith(":"):
            return ""  # "... using two tricks:" introduces a list: one item is no claim of the whole; the subject
        said = {w for w, _, _ in _tokens(sentence)}
        if not hints.isdisjoint(said) and not _HEADER_LINE_RE.match(sentence.lstrip()):
            return _sentence_at(prose, s_start + len(sentence) - len(sentence.lstrip()))
    return ""


_HEADER_LINE_RE = lazyre.compile(r"(?:Subject|From|Date|To|Cc|Message-ID):\s", re.IGNORECASE)
QUOTE_WORDS, QUOTE_MIN_WORDS = 45, 15  # the longest sentence a draft quotes whole; a cut one keeps this many


def _sentence_at(text: str, pos: int) -> str:
    """The sentence of ``text`` holding the character at ``pos``, at most QUOTE_WORDS words; a list item is a sentence
    of its own (no quote spliced across bullets), its bullet left out."""
    start, end = 0, len(text)
    for m in ev._SENTENCE_SPLIT_RE.finditer(text):
        if m.end() <= pos:
            start = m.end()
        elif m.start() >= pos:
            end = m.start()
            break
    words = ev._BULLET_RE.sub("", " ".join(text[start:end].split()), count=1).split(" ")
    if len(words) <= QUOTE_WORDS:
        return " ".join(words)
    # a long sentence is cut at the last clause end (",", ";") within QUOTE_WORDS, never mid-clause ("the fast..."),
    # and the cut is shown as "[...]"
    claim_k = len(text[start:pos].split())  # the claim's word: the quote keeps it and a few words after
    lead = ""
    if claim_k + 4 > QUOTE_WORDS:
        words, claim_k, lead = words[claim_k - QUOTE_MIN_WORDS :], QUOTE_MIN_WORDS, "[...] "
        if len(words) <= QUOTE_WORDS:
            return lead + " ".join(words)
    first = max(QUOTE_MIN_WORDS, claim_k + 3)
    cut = max((k + 1 for k in range(first, QUOTE_WORDS) if words[k].endswith((",", ";"))), default=QUOTE_WORDS)
    return lead + " ".join(words[:cut]).rstrip(",;") + " [...]"


def reply_point(findings: Sequence[Finding], patch: Patch) -> str:
    """Ask for the numbers that fit the claim, quoting it; no "added complexity" for small changes."""
    if not findings:
        return ""
    f = findings[0]
    series = bool(f.details.get("series_point"))
    where = "The cover letter" if series or patch.subject.index == 0 else "The changelog"
    sentence = ""
    own = "\n".join(ev._own_lines(patch.commit_message))
    if not series:
        # the sentence that holds the changelog's claim (not the start of the finding's line), else the subject
        body_claim = find_claim(own, title=patch.subject.title)
        if body_claim is not None:
            sentence = _sentence_at(own, body_claim.start)
            if _HEADER_LINE_RE.match(sentence):
                sentence = ""  # a "Subject:"/"From:" header line quoted in the body: never quote it, use the subject
            if sentence.endswith(":") and find_subject_claim(patch.subject.title) is not None:
                sentence = ""  # "... using two tricks:" introduces a list: the subject holds the claim
        else:
            sentence = _cost_sentence(own)  # "we can use a cheaper cpumask_copy()": the changelog's why
    else:
        # the cover letter's sentence holding the claim the patches make (the finding's own words), else its
        # first claim: a background sentence before it ("CRC32 ... becomes far faster still with the CRC32
        # instructions") is about the hardware, not what this series claims
        sentence = _series_claim_sentence(patch.commit_message, str(f.details.get("claim") or ""))
    text_for_kind = f"{sentence} {f.details.get('claim', '')}"
    if not sentence:
        where = "The subject" if not series else "The cover letter's subject"
        sentence = " ".join(patch.subject.title.split())
        text_for_kind = f"{sentence} {ev._prose(own) if not series else ''}"  # the changelog says what kind
    if f.details.get("size_numbers"):
        text_for_kind = ev.SIZE_NUMBERS_RE.sub(" ", text_for_kind)  # "14 cachelines" is the size, not contention
    ask = ""
    for kind, words, what in _KIND_WORDS:
        if words.search(text_for_kind):
            ask = what
            if kind == "cache lines touched" and f.details.get("suggest"):
                ask += f" ({f.details['suggest']})"
            if kind == "throughput":
                suggest = f"{f.details['suggest']}, or " if f.details.get("suggest") else ""
                ask += f" ({suggest}the workload that showed the problem)"
            break
    ask = ask or "numbers before and after from a benchmark that exercises this path"
    code_size = CODE_SIZE_RE.search(text_for_kind) is not None
    if code_size and ask.startswith("cycles per call"):
        ask = CODE_SIZE_ASK  # "better code size": the size delta, not one call's cycles
    elif code_size:
        ask += f", and {CODE_SIZE_ASK}"
    big = sum(fd.added_count - fd.removed_count for fd in patch.files) > 20 and not code_size
    weigh = "would help to weigh the gain against the added code" if big else "would help reviewers see the gain"
    if sentence.endswith(".") and not sentence.endswith("..."):
        sentence = sentence[:-1]
    # the changelog quotes sizes ("864 bytes"): say only that (a cover's "size numbers" were false 11 of 11)
    sized = "The changelog gives sizes; do you also have runtime numbers for the speed part?"
    question = sized if f.details.get("size_numbers") else "Do you have numbers for this?"
    text = f'{where} says "{sentence}". {question} For example, {ask}. Numbers with the machine and the method {weigh}.'
    if f.details.get("evidence") == "claim-only" and ev._LINK_RE.search(patch.commit_message + "\n" + patch.notes):
        text += " I may have missed them if they are only behind a link; quoting them in the changelog would help."
    return text
