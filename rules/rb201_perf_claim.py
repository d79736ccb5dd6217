"""RB201 perf-claim-without-evidence: a patch says it is faster but shows no measurement.

What it does
------------
Reads the subject and the commit message as a reviewer does, in three steps:

1. **The claim** (``find_claim``): a sentence that says this patch makes
   something faster or cheaper: "optimize", "speed up", "faster", a cost made
   smaller ("reduce overhead/contention/latency", "fewer cache misses",
   "wasting CPU time"), a good thing made bigger ("improve throughput",
   "performance should be increased"), "for the sake of high performance",
   "quite expensive", "a bottleneck", cache placement ("the same cache line",
   "split between 2 cache lines", "false sharing"), a new fast path.
   Not a claim: negated ("no performance change"), future work ("can be
   optimized later", "on top"), "optimize" meaning memory or size, what the
   compiler optimizes, the name of existing code ("the optimized modify QP
   path", "the has_sleepers optimization"), an existing option described,
   "EMC performance", "fail faster", and words inside a quoted commit title,
   command output, code or the version history ("v1->v2: ..."). Nor an
   optimisation taken away ("removes optimisation of ...", a "Downsides:"
   list, "avoid a mis-optimization"), the compiler's or objdump's
   "optimizations", existing code ("we have an optimization to ..."), code
   compiled out ("when compat is compiled out"), speed as a side note
   ("slightly improve performance, but more importantly ..."), and a claim
   said only in the subject when the changelog gives another reason (a
   deadlock fix, a vmap skipped, an ABI relaxation) or the patch is for a
   userspace project (``[PATCH liburing]``). Numbers promised ("[ Numbers
   hopefully forthcoming ]") mean no finding. A sentence about another
   commit ('Commit 8a8fe42d765b ("...") made an analogous optimization') and
   the compiler's mode ("when optimizing for performance", -O2) claim
   nothing. No finding at all for a userspace project's patch (``[PATCH
   blktests]``, ``[PATCH v2 xfsprogs]``: ``USERSPACE_TAGS``), a changelog
   that says "this patch fixes", or a micro-optimisation the changelog
   already explains ("generates better assembly", "so that the compiler
   can ...": ``MICRO_REASON_PHRASES``), a change only to sysfs show/store
   functions ("save CPU cycles" when printing a cpumask: ``SYSFS_CALLS``), or
   a separate pass merged into an existing loop with more lines removed than
   added ("by merging the checks into existing loops": one walk less).
   "Performance of eFEM modules" is radio performance (``NOT_SPEED_QUALIFIERS``).
   "Optimise packing" is size (``MEMORY_WORDS``); "optimize cacheline to minimize HW race condition"
   names a correctness goal (``GOAL_VERBS``, ``NOT_SPEED_TARGETS``); "the lock protecting them to share the
   same cache line" says where members sit, a claim only with a gain or cost named (``PLACEMENT_GAIN_WORDS``).
   Hot members grouped into one cache line are a claim wherever the cache line word stands ("All the io path
   hot members can fit within the first 64-bytes, which is a common cacheline": ``HOT_WORDS``).
   Not this patch's claim either: an optimisation imagined or offered to others ("As a trivial optimization, X
   could use ...", "can use a nice batch optimization", "any of these optimizations": ``MODAL_WORDS``,
   ``ANY_WORDS``), one argued harmless ("this optimization is likely harmless": ``SAFE_WORDS``), the cost of the
   road not taken ("While the whole struct could be cleared by memset(), ... unnecessary overhead":
   ``CONCESSIVE_WORDS``), work "in the works".
   The author calling the gain small ("this optimization provides limited efficiency improvements", often below
   ``---``: ``LIMITED_WORDS``) means no finding. "optimize X" said only in the subject of a small change
   (``SMALL_CHANGE_LINES``) whose changelog names no speed or cost ("Check badblocks_empty earlier ...":
   ``SPEED_HINT_WORDS``) is a CHECK, not a WARNING: the word may mean tidy as well as faster.
   The word lists at the top of the module are the whole vocabulary: a false
   positive is fixed by adding a word there and an example patch.

2. **The evidence** (``_grade``), in this order: the commit message and the notes
   below ``---``; the series' cover letter (``ctx.cover``; paragraphs that name
   other patches of the series are left out); a later message by the
   patch author in the thread (``ctx.thread``). Evidence means measured numbers:
   percentages, values with units (ns, us, ms, s, cycles, IOPS, Gb/s, MB/s,
   ops/s...), "N times faster", Before:/After: blocks, tables of numbers under
   a comparison, a unit or a tool (fio, netperf, iperf...), dmesg time stamps
   compared, or a measured ratio of a metric in one sentence ("improves small
   write IOPS with a factor four on my test setup", "3x the throughput").
   Not evidence: configuration values ("sleep 100 ms", "a timeout of 5s"),
   git rename similarity and diffstat lines, a share of capacity ("1% of the
   filesystem"), sizes in bytes, numbers about memory footprint ("the used
   memory decreased by 20%", "free -h"), patch numbers ("patches 12 and 13").
   Results behind a reference ("Please
   refer to [1] and [2] for benchmarks" with the [n] links, "the benchmark
   results are in the cover letter") make the finding ``answered``.

3. **The thread**: whether the author answered with numbers or a reviewer
   already asked.

4. **Whether a maintainer would ask** (``_why_not_asked``): some claims the labels count are not worth a
   question, because the gain holds by construction or speed is not what the patch is weighed on. The finding
   stays (a WARNING, as labelled) with ``details["not_asked"]`` saying why, and the drafter records the skip
   ``not-asked`` instead of a draft: a diff that only adds a cache-line alignment annotation
   (``ALIGN_ANNOTATIONS``) or only swaps integer types for a port to another word size (``PORT_TYPE_WORDS``),
   an inline "quick check" before a call in a small change (``QUICK_CHECK_PHRASES``), a cleanup that removes
   code and calls the result simpler or drops an indirect call (``SIMPLER_WORDS``, ``INDIRECT_CALL_PHRASES``),
   a claim made only of layout words ("for better memory placement": ``PLACEMENT_CLAIM_WORDS``, RB101's
   question), "optimizes how much data needs to be read in" (``AMOUNT_PHRASES``). A revert is no claim at all,
   also with the title ``Revert ("...")`` (``REVERT_TITLES``).

The grade is recorded in ``details["evidence"]``:

* ``none``: nothing measured and no method named;
* ``claim-only``: a benchmark or tool is named, or a link or non-performance
  numbers (struct sizes) are given, but no measured result;
* ``measured``: measured results (no finding).

The finding is ``open`` unless someone in the thread already asked for
numbers (``raised``) or the numbers exist outside the patch itself: in the
series' cover letter or in a later reply by the author (``answered``: no
draft asks again; a reviewer may still ask to move them into the changelog).
The cover letter counts as the cover letter only (its paragraphs about other
patches left out), never as the author's reply. When the changelog quotes size
numbers ("864 bytes ... 13 cachelines"), the draft asks for runtime numbers for
the speed part, not "do you have numbers?".

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
evidence. Evidence behind a link is not followed. A claim said only in the
cover letter is not this patch's claim. When unsure the rule stays quiet:
precision over recall.

References
----------
* Documentation/process/submitting-patches.rst, "Describe your changes"
  (quantify optimizations and trade-offs)
* Documentation/process/maintainer-tip.rst (performance claims need numbers)
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator, NamedTuple, Sequence

from reviewbot import lazyre
from reviewbot.models import NOT_ASKED_KEY, Finding, FindingState, Message, Patch
from reviewbot.parse.threads import about_patch
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity
from reviewbot.view import PatchView, patch_view

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

# ---------------------------------------------------------------------------------------
# Word lists: what a claim and a measurement look like. A false positive or a missed claim
# is fixed by adding a word here, with an example patch in rules/examples/RB201/.
# Words are lower case; multi-word terms are joined by "_" first ("cache line" ->
# "cache_line", see _JOINED_TERMS_RE), so every list holds single tokens.
# ---------------------------------------------------------------------------------------

# Claim a gain by themselves: "faster", "speed-up", "optimize X", "a bottleneck"
SPEED_WORDS = frozenset({"faster", "speedup", "speedups"})
SPEED_UP_VERBS = frozenset({"speed", "speeds", "speeding", "sped"})  # followed by UP_WORDS
UP_WORDS = ("up", "ups")
OPTIMIZE_VERBS = frozenset(
    {
        "optimize",
        "optimise",
        "optimizes",
        "optimises",
        "optimizing",
        "optimising",
        "optimization",
        "optimisation",
        "optimizations",
        "optimisations",
    }
)
OPTIMIZED = frozenset({"optimized", "optimised"})  # a claim only after IS_WORDS ("is now optimized")
IS_WORDS = frozenset({"is", "are", "was", "were", "be", "been", "being", "get", "gets", "got", "now"})
BOTTLENECK_WORDS = frozenset({"bottleneck", "bottlenecks"})
# "more efficient", "more scalable": a comparison with the old code
MORE_WORDS = frozenset({"more"})
EFFICIENT_WORDS = frozenset({"efficient", "efficiently", "scalable"})

# A cost made smaller: "reduce overhead", "fewer cache misses", "wasting CPU time"
LESS_VERBS = frozenset(
    {
        "reduce",
        "reduces",
        "reduced",
        "reducing",
        "lower",
        "lowers",
        "lowering",
        "cut",
        "cuts",
        "cutting",
        "avoid",
        "avoids",
        "avoiding",
        "eliminate",
        "eliminates",
        "eliminating",
        "minimize",
        "minimise",
        "minimizes",
        "minimises",
        "minimizing",
        "minimising",
        "save",
        "saves",
        "saving",
        "less",
        "fewer",
        "decrease",
        "decreases",
        "decreasing",
        "remove",
        "removes",
        "removing",
        "waste",
        "wastes",
        "wasting",
        "wasted",
        "shorten",
        "shortens",
        "shortening",
    }
)
COST_NOUNS = frozenset(
    {
        "overhead",
        "overheads",
        "contention",
        "latency",
        "latencies",
        "cache_misses",
        "cache_miss",
        "bouncing",
        "cycles",
        "false_sharing",
        "cpu_time",
        "cpu_usage",
        "cpu_cycles",
        "cpu_utilization",
        "cpu_utilisation",
        "retries",
        "retry",
        "lookups",
        "iterations",
        "wakeups",
        "round_trips",
        "round_trip",
        "syscalls",
        "indirect_calls",
        "context_switches",
        "lock_hold",
        "critical_section",
        "instructions",
        "atomics",
    }
)
# a cost of the old code called needless: "unnecessary overhead", "useless rbtree iterations"
WASTE_WORDS = frozenset(
    {
        "unnecessary",
        "needless",
        "useless",
        "pointless",
        "redundant",
        "excessive",
        "extra",
        "superfluous",
    }
)
# the cost noun said smaller after it: "contention is reduced", "latency drops"
LESS_AFTER = frozenset({"reduced", "decreased", "drops", "dropped", "lowered", "eliminated", "avoided", "shortened"})

# A good thing made bigger: "improve throughput", "better scalability", "performance should be increased"
MORE_VERBS = frozenset(
    {
        "improve",
        "improves",
        "improved",
        "improving",
        "improvement",
        "improvements",
        "increase",
        "increases",
        "increasing",
        "boost",
        "boosts",
        "boosting",
        "better",
        "higher",
        "maximize",
        "maximise",
        "maximizes",
        "maximises",
        "enhance",
        "enhances",
        "enhancing",
    }
)
GOOD_NOUNS = frozenset(
    {
        "performance",
        "perf",
        "throughput",
        "scalability",
        "iops",
        "efficiency",
        "speed",
        "locality",
        "concurrency",
        "parallelism",
        "bandwidth",
        "responsiveness",
        "placement",
    }
)
# the old code's cost said to be large: "takes considerable cycles"
LARGE_WORDS = frozenset({"considerable", "significant", "lots", "many", "much", "substantial", "noticeable"})
LARGE_COSTS = frozenset({"cycles", "cpu_time", "cpu_cycles", "overhead", "contention", "latency"})
MORE_AFTER = frozenset(
    {
        "increased",
        "improved",
        "improves",
        "increases",
        "improvement",
        "improvements",
        "gain",
        "gains",
        "boost",
        "boosts",
        "win",
        "wins",
        "benefit",
        "benefits",
    }
)
# "for the sake of high performance", "for better performance", "for performance reasons"
# (a bare "for speed" often says what existing code is for: "preallocated for speed")
PURPOSE_WORDS = frozenset({"sake", "better", "higher", "high", "improved", "maximum", "max", "best", "optimal"})
PURPOSE_NOUNS = frozenset({"performance", "speed", "efficiency", "scalability", "throughput"})
PURPOSE_AFTER = frozenset({"reasons", "reason"})
PURPOSE_FILLER = PURPOSE_WORDS | {"the", "of", "a", "an"}
# "the size of data used in the hot path matters for performance": speed as the reason
MATTERS_WORDS = frozenset({"matters", "matter", "important", "critical", "crucial", "essential"})
# the old code hurts a good thing: "this actually decreases I/O performance", "limiting scalability"
HARM_VERBS = frozenset(
    {
        "decreases",
        "decrease",
        "decreasing",
        "degrade",
        "degrades",
        "degrading",
        "hurt",
        "hurts",
        "hurting",
        "harm",
        "harms",
        "harming",
        "kills",
        "killing",
        "limit",
        "limits",
        "limiting",
    }
)
# "X is quite expensive" as the reason for a change
EXPENSIVE_WORDS = frozenset({"expensive", "costly", "slow"})
INTENSIFIERS = frozenset(
    {
        "quite",
        "very",
        "too",
        "rather",
        "relatively",
        "extremely",
        "really",
        "pretty",
        "prohibitively",
        "unnecessarily",
        "needlessly",
        "notoriously",
        "so",
    }
)
# a new fast path is a speed claim; the existing one is a name ("in the fast path")
ADD_WORDS = frozenset({"add", "adds", "added", "adding", "introduce", "introduces", "introducing", "new"})
PATH_TERMS = frozenset({"fast_path", "fast_paths", "hot_path", "hot_paths", "fastpath", "hotpath"})

# Cache behaviour: where data sits in cache lines, said as the reason for a change
CACHE_LINE_TERMS = frozenset({"cache_line", "cache_lines", "cacheline", "cachelines"})
# "the same cache line", "a separate cache line", "split between 2 cache lines", "spanning cachelines"
CACHE_PLACE_WORDS = frozenset(
    {
        "same",
        "separate",
        "hot",
        "hotter",
        "hottest",
        "previous",
        "split",
        "straddle",
        "straddles",
        "straddling",
        "span",
        "spans",
        "spanning",
        "spawns",
        "extra",
        "single",
        "usage",
        "locality",
    }
)
# "cacheline bouncing", "cache line benefits", "cacheline optimized"
CACHE_AFTER_WORDS = frozenset(
    {
        "bouncing",
        "ping",
        "pingpong",
        "locality",
        "friendly",
        "friendliness",
        "benefit",
        "benefits",
        "benifit",
        "benifits",
        "optimized",
        "optimised",
        "stall",
        "stalls",
        "aligned",
    }
)
# "cache-friendly", "keeps the cache hot", "improves cache usage"
CACHE_WORDS = frozenset({"cache", "caches", "cpu_cache", "cpu_caches"})
CACHE_HOT_WORDS = frozenset(
    {
        "hot",
        "warm",
        "locality",
        "friendly",
        "friendliness",
        "efficiency",
        "usage",
        "utilization",
        "utilisation",
    }
)
NOT_CPU_CACHE_BEFORE = frozenset({"page", "buffer", "dentry", "inode", "swap", "slab", "folio", "write", "read"})
STANDALONE_CACHE_TERMS = frozenset({"false_sharing"})
# "All the io path hot members can fit within the first 64-bytes, which is a common cacheline": the hot members
# grouped into one cache line, a cache claim even far from the cache line word
HOT_WORDS = frozenset({"hot", "hotter", "hottest"})
HOT_GROUP_NOUNS = frozenset({"members", "fields", "variables"})  # not "hot data": data temperature
# how far (in words) the hot members or a gain word may stand from the cache line word: bounded, so a long
# run-on text costs linear time
NEAR_WORDS = 20
# "the struct also contains the lock protecting them to share the same cache line": where members sit,
# described; a claim only with a gain or a cost named in the same sentence (PLACEMENT_GAIN_WORDS)
SHARE_VERBS = frozenset({"share", "shares", "sharing", "shared"})

# Every claim form hangs on one of these words (a speed word, a cost, a good thing, a cache line): a sentence
# without any of them holds no claim. The other key words claim only with one of them ("reduce overhead",
# "improve throughput", "more efficient"). A new claim form names the words it needs here.
CLAIM_NEEDS = (
    SPEED_WORDS
    | SPEED_UP_VERBS
    | OPTIMIZE_VERBS
    | OPTIMIZED
    | BOTTLENECK_WORDS
    | EFFICIENT_WORDS
    | COST_NOUNS
    | GOOD_NOUNS
    | PURPOSE_NOUNS
    | EXPENSIVE_WORDS
    | PATH_TERMS
    | CACHE_LINE_TERMS
    | CACHE_WORDS
    | STANDALONE_CACHE_TERMS
)
# every word a claim can hang on: words outside this set are skipped at once
CLAIM_KEY_WORDS = (
    SPEED_WORDS
    | SPEED_UP_VERBS
    | OPTIMIZE_VERBS
    | OPTIMIZED
    | BOTTLENECK_WORDS
    | MORE_WORDS
    | LESS_VERBS
    | COST_NOUNS
    | MORE_VERBS
    | GOOD_NOUNS
    | LARGE_COSTS
    | PURPOSE_NOUNS
    | HARM_VERBS
    | EXPENSIVE_WORDS
    | PATH_TERMS
    | CACHE_LINE_TERMS
    | CACHE_WORDS
    | STANDALONE_CACHE_TERMS
)
# a speed or cost word that keeps "optimize X to minimize races and latency" a claim
SPEED_OR_COST_WORDS = COST_NOUNS | GOOD_NOUNS | PURPOSE_NOUNS | SPEED_WORDS | LARGE_COSTS
# a gain or a cost that makes a shared cache line a claim: "... to share the same cache line, which saves a cache
# miss on every ioctl", "share the same cache line and bounce between CPUs"
PLACEMENT_GAIN_WORDS = (
    SPEED_WORDS
    | SPEED_UP_VERBS
    | OPTIMIZE_VERBS
    | BOTTLENECK_WORDS
    | LESS_VERBS
    | COST_NOUNS
    | MORE_VERBS
    | GOOD_NOUNS
    | HARM_VERBS
    | EXPENSIVE_WORDS
    | PATH_TERMS
    | STANDALONE_CACHE_TERMS
    | CACHE_AFTER_WORDS
    | {"hot", "hotter", "hottest", "bounce", "bounces", "thrash", "thrashing", "contended"}
)

# Not a claim of this patch ------------------------------------------------------------
NEGATIONS = frozenset({"no", "not", "without", "never", "nor", "neither", "hardly"})
# speed named as what the patch is not for: "optimized for simplicity rather than performance"
CONTRAST_PHRASES = ("rather than", "instead of")
# the benefit denied after the claim word: "It's an unusual optimization that doesn't help properly written
# code" (said of something the patch drops)
NEGATED_BENEFIT_RE = lazyre.compile(
    r"^[^.;:]{0,40}?\b(?:doesn't|does\s+not|don't|do\s+not|didn't|did\s+not|won't|will\s+not|never)\s+"
    r"(?:really\s+)?(?:help|helps|matter|matters|benefit|improve|gain|pay\s+off)\b",
    re.IGNORECASE,
)
# "optimized for simplicity": a goal other than speed named after "optimized for"
NOT_SPEED_GOALS = frozenset(
    {
        "simplicity",
        "readability",
        "clarity",
        "correctness",
        "maintainability",
        "portability",
        "size",
    }
)
# "Optimize the code to support the range which crosses memory zones": "optimize" meaning make it work,
# when no speed or cost word is in the sentence
ENABLING_GOALS = frozenset({"support", "handle", "work", "cover", "accept", "fix", "allow", "cope"})
# "optimize cacheline to minimize HW race condition": the goal named after "to <verb>" is correctness, not speed
# (no speed or cost word in the sentence); a reviewer asks about the race, not for a benchmark
GOAL_VERBS = frozenset(
    {
        "minimize",
        "minimise",
        "avoid",
        "prevent",
        "reduce",
        "close",
        "narrow",
        "shrink",
        "eliminate",
        "fix",
    }
)
NOT_SPEED_TARGETS = frozenset(
    {
        "race",
        "races",
        "racy",
        "glitch",
        "glitches",
        "deadlock",
        "deadlocks",
        "corruption",
        "spurious",
        "errors",
    }
)
# the changelog says the code is no hot path: "the locations are not on hot code path", "not performance critical"
NOT_HOT_PATH_RE = lazyre.compile(
    r"\bnot\s+(?:(?:on|in)\s+)?(?:(?:an?|the|any)\s+)?(?:hot|fast)[\s-]+(?:code\s+)?paths?\b|"
    r"\bnot\s+performance[\s-]+critical\b",
    re.IGNORECASE,
)
# the cheap test before NOT_HOT_PATH_RE: every match names one of these words
NOT_HOT_WORDS = frozenset({"hot", "fast", "performance"})
# files that are no kernel code to measure: the LKMM formalism (its "optimizations" are the compiler's)
NOT_RUNTIME_PATHS = ("tools/memory-model/",)
# the sentence is about later work or a hypothetical ("can be optimized later", "if we were to")
FUTURE_WORDS = frozenset({"future", "later", "eventually", "followup", "subsequent", "todo"})
FUTURE_PHRASES = (
    ("follow", "up"),
    ("on", "top"),
    ("down", "the", "road"),
    ("next", "step"),
    ("if", "we", "ever"),
    ("if", "we", "are", "ever"),
    ("if", "we", "were"),
    ("can", "be", "optimized"),
    ("could", "be", "optimized"),
    ("can", "be", "optimised"),
    ("could", "be", "optimised"),
    ("could", "be", "improved"),
    ("can", "be", "improved"),
    ("could", "be", "done"),
    ("can", "be", "done"),
    ("may", "be", "optimized"),
    ("might", "be", "optimized"),
    ("in", "the", "works"),
)
# Kind: the sentence names an optimisation that is not this patch's gain (a reviewer reads it as context):
# an optimisation offered or imagined: "As a trivial optimization, mmgrab() could use a relaxed atomic", "the
# fast path can use a nice batch optimization", "allow architectures to override it as an optimization": an
# optimisation with "a"/"an" and a modal or an enabling verb in the same sentence. "This is a small
# optimization that can save ..." stays a claim: the modal comes after the optimisation and no "as a" fronts it.
MODAL_WORDS = frozenset({"could", "would", "might", "may", "can"})
INDEFINITE_WORDS = frozenset({"a", "an"})
ANY_WORDS = frozenset({"any", "whatever", "whichever"})  # "any of these optimizations": one that might be done
ARTICLE_GAP = 3  # adjectives between "a" and "optimization": "a nice batch optimization"
# the optimisation argued harmless: "this optimization is likely harmless because ...": a correctness argument
SAFE_WORDS = frozenset({"harmless", "safe", "correct", "valid", "legal", "benign", "fine", "ok", "okay"})
# the road not taken: "While the whole struct could get cleared by memset(), ... this may cause unnecessary
# overhead": a sentence that opens with a concession about what the patch could have done weighs the
# alternative's cost, not this patch's gain
CONCESSIVE_WORDS = frozenset({"while", "although", "though", "whilst"})
ALTERNATIVE_MODALS = frozenset({"could", "would"})
# why a bug hides: "we could not reproduce it, maybe because waiter and status are in the same cache line":
# a sentence about reproducing a bug explains the race, it does not claim a speed-up
REPRODUCE_WORDS = frozenset(
    {"reproduce", "reproduced", "reproduces", "reproducing", "reproducible", "reproducer", "unreproducible"}
)
# Kind: the author weighs the gain himself: "I know this optimization provides limited efficiency improvements"
# (often below ``---``): a gain word within LIMITED_GAP words after one of these; numbers are the wrong question
LIMITED_WORDS = frozenset({"limited", "marginal", "negligible", "minor", "slight", "tiny", "modest"})
GAIN_NOUNS = frozenset({"improvement", "improvements", "gain", "gains", "benefit", "benefits", "speedup", "win"})
LIMITED_GAP = 3
# Kind: "optimize X" said only in the subject of a small change whose changelog names no speed or cost
# ("badblocks: optimize _badblocks_check()" over "Check badblocks_empty earlier ... Clean up redundant check"):
# "optimize" may mean tidy as well as faster; a CHECK, not a WARNING. Any of these words in the changelog (or the
# rest of the subject) keeps the WARNING: "a cheaper cpumask_copy()", "help the branch predictor", "the fast path"
SPEED_HINT_WORDS = frozenset(
    {
        "cheap",
        "cheaper",
        "cheapest",
        "slow",
        "slower",
        "slowpath",
        "slow_path",
        "expensive",
        "costly",
        "cost",
        "costs",
        "predictor",
        "mispredict",
        "mispredicts",
        "prefetch",
        "hot",
        "fast",
        "efficient",
        "efficiently",
        "bottleneck",
        "scalable",
        "micro",
        "microoptimization",
        "microoptimisation",
    }
)
SMALL_CHANGE_LINES = 40  # lines added plus removed: a change a reviewer reads at a glance
# the sentence describes an existing option or feature ("The nobarrier option ..., improving performance")
EXISTING_WORDS = frozenset({"option"})
EXISTING_PHRASES = (("was", "introduced"), ("were", "introduced"), ("is", "supposed"), ("are", "supposed"))
# "optimize" meaning memory or size: one of these follows within a few words ("optimise struct layout")
MEMORY_WORDS = frozenset(
    {
        "memory",
        "size",
        "sizes",
        "footprint",
        "padding",
        "hole",
        "holes",
        "layout",
        "space",
        "stack",
        "bytes",
        "binary",
        "image",
        # "reorder struct raw_sock's members to optimise packing" (pahole, "save 8 bytes")
        "packing",
    }
)
# "optimize" meaning tidy the source: one of these follows within a few words ("Optimize coding convention",
# "optimize code style"); the generated code is the same, so there is nothing to measure
STYLE_WORDS = frozenset(
    {
        "convention",
        "conventions",
        "style",
        "readability",
        "naming",
        "indentation",
        "formatting",
        "wording",
        "comment",
        "comments",
        "documentation",
        "kerneldoc",
        "spelling",
    }
)
# "memory barriers", "memory ordering": about speed or correctness, not memory size
NOT_SIZE_AFTER_MEMORY = frozenset(
    {
        "barrier",
        "barriers",
        "ordering",
        "access",
        "accesses",
        "bandwidth",
        "latency",
        "model",
        "fence",
        "fences",
    }
)
# "optimize" done by the compiler (code generation, no runtime claim); "objdump -d shows ... optimizations"
COMPILER_WORDS = frozenset({"compiler", "compilers", "compile", "codegen", "gcc", "clang", "objdump", "miscompile"})
# a changelog naming the compiler's mis-optimization: every "optimization" in it is the compiler's
COMPILER_TEXT_PHRASES = (
    "mis optimization",
    "mis optimisation",
    "misoptimization",
    "misoptimisation",
    "miscompilation",
    "miscompiled",
    "gcc commit",
    "llvm commit",
)
# a paragraph about the object code ("objdump -d shows no meaningful object code changes (i.e. only source
# line number induced differences and optimizations)"): its "optimizations" are the compiler's
OBJECT_CODE_PHRASES = ("object code", "objdump", "disassembly", "generated code", "code generation")
# "removes optimisation of ...", "avoid mis-optimization": an optimisation taken away or wrong, not a gain
REMOVED_BEFORE = frozenset(
    {
        "remove",
        "removes",
        "removed",
        "removing",
        "drop",
        "drops",
        "dropped",
        "dropping",
        "lose",
        "loses",
        "losing",
        "lost",
        "disable",
        "disables",
        "disabling",
        "defeat",
        "defeats",
        "break",
        "breaks",
        "undo",
        "undoes",
        "revert",
        "reverts",
        "mis",
        "prevent",
        "prevents",
        "inhibit",
        "inhibits",
        "suppress",
        "suppresses",
        "wrong",
        "incorrect",
        "bogus",
        "broken",
        "unsafe",
        "invalid",
    }
)
# "we have an optimization to ...": existing code described
HAVE_WORDS = frozenset({"have", "has", "had"})
# a claim said at compile time, not at run time: "when compat is compiled out", "compile-time constant"
COMPILE_TIME_PHRASES = ("compiled out", "compiled away", "compile time", "build time", "dead code")
# speed named as a side note, not the reason: "slightly improve performance, but more importantly prepares ..."
SECONDARY_PHRASES = ("more importantly", "more important", "side effect", "side benefit", "as a bonus", "nice side")
# a paragraph listing the patch's costs ("Downsides:\n1. This removes optimisation of ...")
DOWNSIDE_HEADINGS = frozenset(
    {
        "downside",
        "downsides",
        "drawback",
        "drawbacks",
        "cons",
        "disadvantage",
        "disadvantages",
        "caveat",
        "caveats",
    }
)
# numbers promised for later: "[ Numbers hopefully forthcoming after more testing ]" (no finding: they come)
PROMISED_NUMBERS_RE = lazyre.compile(
    r"\b(?:numbers|results|benchmarks?|measurements|performance\s+data)\b[^.\n\]]{0,30}?"
    r"\b(?:forthcoming|to\s+follow|will\s+follow|to\s+come|coming\s+soon)\b|"
    r"\bwill\s+(?:post|send|share|provide|add)\s+(?:the\s+|some\s+)?(?:numbers|results|benchmarks?|measurements)\b",
    re.IGNORECASE,
)
# A claim said only in the subject, while the changelog gives another reason for the patch: not a speed
# claim ("blk-crypto: optimize bio splitting" for a deadlock fix; "optimise single folio regions" that skip
# a vmap; "access_ok() optimization" that is an ABI relaxation; the compiler's mis-optimization).
OTHER_REASON_PHRASES = (
    "deadlock",
    "deadlocks",
    "use after free",
    "crash",
    "crashes",
    "corruption",
    "mis optimization",
    "mis optimisation",
    "vmap",
    "vmalloc",
    "memory footprint",
    "abi change",
    "permissive",
    "relaxation",
    *COMPILE_TIME_PHRASES,
)
# the patch is for a userspace project (its subject tag): a subject's "optimize" there is no kernel speed claim
USERSPACE_TAGS = frozenset(
    {
        "LIBURING",
        "XFSTESTS",
        "FSTESTS",
        "BLKTESTS",
        "LTP",
        "IPROUTE2",
        "ETHTOOL",
        "MAN-PAGES",
        "KVM-UNIT-TESTS",
        "KMOD",
        "E2FSPROGS",
        "XFSPROGS",
        "BTRFS-PROGS",
        "MDADM",
        "NVME-CLI",
        "XFSDUMP",
        "F2FS-TOOLS",
        "EROFS-UTILS",
        "UTIL-LINUX",
        "PAHOLE",
        "DWARVES",
        "IGT",
        "I-G-T",
        "TRACE-CMD",
        "LIBTRACEFS",
        "LIBTRACEEVENT",
        "STRACE",
        "QEMU",
        "LIBNL",
        "IW",
        "WPA_SUPPLICANT",
        "BLUEZ",
    }
)
# Evidence by reference: "Please refer to [1] and [2] for benchmarks", "benchmark results are in the cover
# letter", "Link: <results>": a results word in the same sentence as a link, a "[n]" marker or "cover letter"
RESULT_WORDS = frozenset(
    {
        "benchmark",
        "benchmarks",
        "benchmarking",
        "results",
        "numbers",
        "measurements",
        "measured",
        "data",
        "performance",
        "perf",
    }
)
REFERENCE_WORDS = ("cover letter", "cover-letter", "http://", "https://")
# the compiler's mode, not this patch's gain: "when optimizing for performance", "-O2", "optimize for size"
COMPILER_MODE_RE = lazyre.compile(
    r"\boptimi[sz]ing\s+for\s+(?:size|performance|speed)\b|\boptimi[sz]e\s+for\s+size\b|"
    r"(?<![\w-])-O[0-3s]\b|CC_OPTIMIZE_FOR|OPTIMIZE_FOR_(?:SIZE|PERFORMANCE)",
    re.IGNORECASE,
)
# a sentence about another commit: 'Commit 8a8fe42d765b ("ublk: ...") made an analogous optimization'
OTHER_COMMIT_RE = lazyre.compile(r"\bcommit\s+[0-9a-f]{7,40}\b", re.IGNORECASE)
# correctness is the reason: "This patch fixes ..." (a Fixes: trailer alone is not enough: a speed-up can
# fix a regression)
FIX_REASON_RE = lazyre.compile(r"\bth(?:is|e)\s+(?:patch|change|commit)\s+fix(?:es)?\b", re.IGNORECASE)
FIX_WORDS = frozenset({"fix", "fixes"})  # the cheap test before FIX_REASON_RE: every match ends in one of them
# a small micro-optimisation whose reasoning the changelog already gives (the generated code, the call
# it saves): a reviewer does not ask for a benchmark
MICRO_REASON_PHRASES = (
    # ("better code size and performance" is a claim: no bare "better code")
    "better assembly",
    "better code generation",
    "generates better",
    "the compiler can",
    "so the compiler",
    "compiler can optimize",
    "compiler can optimise",
    "case inline",
    "fewer instructions",
    "saves an instruction",
    "saves instructions",
    "saves a branch",
    "avoids a branch",
    # cold fields moved out of the way: housekeeping, nothing to measure ("rarely used" alone is too wide:
    # "sparse sets are rarely used" is the reason of a real optimisation)
    "almost never used",
)

# the words every promise of numbers names (PROMISED_NUMBERS_RE): "numbers", "results", "performance data" ...
PROMISED_WORDS = frozenset({"numbers", "results", "benchmark", "benchmarks", "measurements", "data"})


def _numbers_promised(text: str) -> bool:
    """True when ``text`` promises numbers for later (PROMISED_NUMBERS_RE); the pattern runs only on a text that
    names one of PROMISED_WORDS (most changelogs name none)."""
    return _may_hold(text, PROMISED_WORDS) and PROMISED_NUMBERS_RE.search(text) is not None


# A separate pass folded into a loop the code already has: "by merging the checks into existing loops". With
# more lines removed than added, one walk less costs nothing to weigh: no finding. ("This is much simpler, and
# it improves performance" alone is still a claim: the labelled sets ask for numbers on library switches.)
LOOP_WORDS = ("loop", "loops", "walk", "walks", "iteration", "iterations", "pass", "passes")
MERGED_INTO_EXISTING_RE = lazyre.compile(
    rf"\binto\s+(?:the\s+|an?\s+)?existing\s+(?:[\w-]+\s+)?(?:{'|'.join(LOOP_WORDS)})\b", re.IGNORECASE
)
# A sysfs attribute's show/store function: run when someone reads the file, no path to measure
# ("save CPU cycles" in a *_show() that prints a cpumask)
SYSFS_SECTION_RE = lazyre.compile(
    r"\bstruct\s+(?:device|kobj|class|driver|bus)_attribute\b|"
    r"\b\w+_(?:show|store)\s*\(\s*struct\s+(?:device|kobject|class|device_driver|bus_type)\b"
)
SYSFS_CALLS = ("sysfs_emit(", "sysfs_emit_at(")
# the author quotes size numbers (pahole, "864 bytes ... 13 cachelines"): the draft asks for runtime numbers only
SIZE_NUMBERS_RE = lazyre.compile(r"(?<![\w.])\d+\s*(?:bytes?|cache[\s-]?lines?)\b", re.IGNORECASE)

# "allow X to optimize": someone else may optimize, later
ENABLE_WORDS = frozenset(
    {"allow", "allows", "allowed", "allowing", "let", "lets", "letting", "enable", "enables", "enabling"}
)
# "the has_sleepers optimization", "current optimization": an existing mechanism named
NAMING_BEFORE = frozenset(
    {
        "future",
        "further",
        "later",
        "upcoming",
        "subsequent",
        "compiler",
        "compiler's",
        "possible",
        "potential",
        "premature",
        "micro",
        "arch",
        "architecture",
        "hand",
        "simd",
        "asm",
        "assembly",
        "existing",
        "current",
        "specific",
        "hardware",
        "platform",
        # "The first optimization was stolen from ...": one of the patch's changes referred to, not a claim
        "first",
        "second",
        "third",
        "latter",
        "former",
        "other",
    }
)
NAMING_AFTER = frozenset(
    {
        "code",
        "version",
        "implementation",
        "implementations",
        "routine",
        "routines",
        "assembly",
        "variant",
        "variants",
        "build",
        "builds",
        "kernel",
        "kernels",
        "flag",
        "flags",
        "level",
        "levels",
        "barrier",
        "barriers",
        "out",
        "away",
    }
)
# "EMC performance", "antenna performance": not speed
NOT_SPEED_QUALIFIERS = frozenset(
    {
        "emc",
        "emi",
        "rf",
        "antenna",
        "radio",
        "signal",
        "audio",
        "thermal",
        "battery",
        "acoustic",
        "power",
        # radio front-end modules: "to improve performance of eFEM modules"
        "fem",
        "efem",
        "ifem",
        "lna",
    }
)
# "performance counters", "performance monitoring": the name of a thing, not a gain
PERF_NAME_FOLLOWERS = frozenset(
    {
        "counter",
        "counters",
        "monitor",
        "monitoring",
        "mode",
        "modes",
        "state",
        "states",
        "domain",
        "domains",
        "level",
        "levels",
        "profile",
        "profiles",
        "governor",
        "data",
        "numbers",
        "results",
        "test",
        "tests",
        "testing",
        "event",
        "events",
        "metrics",
        "stats",
        "statistics",
        "tuning",
        "hint",
        "hints",
        "unit",
        "units",
    }
)
# "faster development", "faster to reproduce", "fail faster": not the kernel's speed
NOT_RUNTIME_AFTER = frozenset(
    {
        "development",
        "iteration",
        "reproduce",
        "reproduction",
        "debug",
        "debugging",
        "review",
        "reviews",
        "bisect",
        "bisection",
        "easier",
    }
)
FAIL_WORDS = frozenset({"fail", "fails", "failing", "failed", "error", "errors"})
# "make the code more scalable": extensible, not faster
NOT_RUNTIME_BEFORE = frozenset({"code", "design", "framework", "api", "interface", "driver", "abstraction"})
# "the same 128-byte DMA cacheline": DMA alignment (correctness), not CPU cache behaviour
NOT_CPU_CACHE_WORDS = frozenset({"dma", "byte"})

# Measurements ----------------------------------------------------------------------------
# units after a number: "1.2s", "25 ms", "3+ hours"; config values are told apart by CONFIG_WORDS
TIME_UNITS = (
    "ns",
    "nsec",
    "nsecs",
    "nanoseconds",
    "us",
    "usec",
    "usecs",
    "µs",
    "microseconds",
    "ms",
    "msec",
    "msecs",
    "milliseconds",
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "h",
    "hr",
    "hrs",
    "hour",
    "hours",
)
# rates and counts, optionally with a K/M/G prefix: "20K IOPS", "9.4 Gb/s", "350 MiB/s", "1.2M cycles"
RATE_UNITS = (
    "iops",
    "ops/s",
    "ops/sec",
    "op/s",
    "ops",
    "reqs/s",
    "req/s",
    "requests/s",
    "tps",
    "qps",
    "pps",
    "bps",
    "b/s",
    "bit/s",
    "bits/s",
    "bits/sec",
    "bit/sec",
    "b/sec",
    "bytes/s",
    "bytes/sec",
    "files/s",
    "files/sec",
    "msgs/s",
    "msg/s",
    "cycles",
    "instructions",
    "insns",
    "cache-misses",
    "cache misses",
    "transactions/s",
    "trans/s",
    "iterations/s",
)
# "sleep 100 ms", "a timeout of 5s", "every 5 seconds": a setting, not a result
CONFIG_WORDS = (
    "sleep",
    "msleep",
    "usleep",
    "timeout",
    "time-out",
    "delay",
    "wait",
    "waits",
    "waiting",
    "interval",
    "period",
    "every",
    "poll",
    "polling",
    "retry",
    "deadline",
    "expire",
    "expires",
    "heartbeat",
    "timer",
    "up to",
    "at least",
    "at most",
    "default",
    "set to",
    "after",
    "within",
    "for",
    "each",
)
# a percentage of these is a share of space, not a measured change
SHARE_OF_WORDS = (
    "capacity",
    "space",
    "memory",
    "disk",
    "storage",
    "ram",
    "size",
    "filesystem",
    "file system",
    "device",
    "blocks",
    "inodes",
)
# numbers about size only (pahole, bloat-o-meter): "152 to 136 bytes"
SIZE_WORDS = ("bytes", "cachelines", "cache lines", "byte")
# benchmark tools: naming one without results is "claim-only"; near a table, the table is a measurement
TOOL_NAMES = (
    "fio",
    "perf stat",
    "perf record",
    "perf report",
    "perf bench",
    "perf c2c",
    "perf top",
    "perf trace",
    "perf",
    "will-it-scale",
    "unixbench",
    "hackbench",
    "schbench",
    "netperf",
    "iperf",
    "iperf3",
    "lmbench",
    "kernbench",
    "mmtests",
    "stress-ng",
    "sysbench",
    "t/io_uring",
    "dbench",
    "tbench",
    "pgbench",
    "specjbb",
    "redis-benchmark",
    "memtier",
    "vm-scalability",
    "fs_mark",
    "fsmark",
    "filebench",
    "ebizzy",
    "lockstat",
    "bpftrace",
    "flame graph",
    "flamegraph",
    "benchmark",
    "benchmarks",
    "microbenchmark",
    "micro-benchmark",
    "tcrypt",
    "ntttcp",
    "iostat",
    "sockperf",
    "uperf",
    "neper",
    "ycsb",
    "iozone",
)
# words that label the two sides of a comparison: "Before:", "Vanilla  Patched", "w/o patch"
COMPARE_WORDS = (
    "before",
    "after",
    "vanilla",
    "patched",
    "unpatched",
    "baseline",
    "original",
    "mainline",
    "w/o",
    "w/",
    "with patch",
    "without patch",
    "with the patch",
    "without the patch",
    "with this patch",
    "without this patch",
    "with the series",
    "without the series",
)
# words that say a table holds measurements (header or the lines above it)
TABLE_WORDS = (
    COMPARE_WORDS
    + TOOL_NAMES
    + ("old", "new", "base")
    + (
        "throughput",
        "latency",
        "bandwidth",
        "time",
        "iops",
        "mb/s",
        "gb/s",
        "kb/s",
        "mib/s",
        "gib/s",
        "mbps",
        "gbps",
        "ns",
        "usec",
        "msec",
        "cycles",
        "ops/s",
        "ops/sec",
        "files/sec",
        "speed",
        "runtime",
    )
)
# metrics a measured ratio can be about: "improves IOPS by a factor four", "~3x speed-up"
METRIC_WORDS = (
    "iops",
    "kiops",
    "throughput",
    "bandwidth",
    "latency",
    "latencies",
    "ops/s",
    "ops per second",
    "operations per second",
    "requests per second",
    "transactions per second",
    "tps",
    "qps",
    "pps",
    "cycles",
    "instructions",
    "cache misses",
    "cache-misses",
    "runtime",
    "run time",
    "run-time",
    "execution time",
    "wall time",
    "wall-clock",
    "boot time",
    "boot-time",
    "cpu time",
    "cpu usage",
    "cpu utilization",
    "performance",
    "speed",
    "speeds up",
    "speed up",
    "speedup",
    "speed-up",
    "faster",
    "slower",
    "bogo ops",
    "benchmark",
)
# someone asking for numbers in the thread
ASK_WORDS = (
    "numbers",
    "measure",
    "measured",
    "measurable",
    "measurement",
    "measurements",
    "benchmark",
    "benchmarks",
    "benchmarked",
    "benchmarking",
    "quantify",
    "quantified",
    "performance data",
    "perf data",
    "any data",
    "some data",
    "results",
    "metrics",
)
# "3x faster", "2 times fewer": a measured ratio
TIMES_WORDS = (
    "faster",
    "slower",
    "better",
    "higher",
    "lower",
    "fewer",
    "less",
    "more",
    "speedup",
    "speed-up",
    "speedups",
    "improvement",
    "throughput",
    "reduction",
    "increase",
    "decrease",
    "slowdown",
    "regression",
    "gain",
)
NUMBER_WORDS = (
    "one and a half",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "fifteen",
    "twenty",
    "thirty",
    "fifty",
    "hundred",
    "thousand",
)

# path prefix -> benchmarks a reviewer would suggest
_SUBSYSTEM_BENCH: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("fs/", "block/", "drivers/block/", "drivers/nvme/", "drivers/md/", "io_uring/"), "fs/block", "fio"),
    (("mm/",), "mm", "will-it-scale or mmtests"),
    (("kernel/sched/",), "sched", "hackbench or schbench"),
    (("net/", "drivers/net/"), "net", "netperf or iperf"),
    (("kernel/locking/",), "locking", "lock contention numbers (lockstat, perf lock)"),
)


# ---------------------------------------------------------------------------------------
# Patterns built from the word lists. None nests a quantifier over user text, so each
# runs in time linear in its input (a 100 KB line of one repeated word stays fast).
# ---------------------------------------------------------------------------------------
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
        self.entry_words = tuple(tuple(e.lower().split()) for e in entries)  # for in_words_of

    def search(self, text: str) -> bool:
        """True when ``text`` holds one of the words or phrases (case-insensitive)."""
        low = text.lower()
        if not any(needle in low for needle in self.needles):
            return False  # cheap: no word or phrase start anywhere, so no token to look up
        return self.in_tokens(_LOOKUP_TOKEN_RE.findall(low))

    def in_words_of(self, text: str) -> bool:
        """True when the words of ``text`` (:func:`_words`, multi-word terms joined) hold one of the words or phrases.

        The whole text is split into words only when all the words of one entry are in it as plain substrings (most
        texts hold none): a word of :func:`_words` is a piece of the lower-case text."""
        low = text.lower()
        if not any(all(word in low for word in entry) for entry in self.entry_words):
            return False  # the cheap test
        return self.in_tokens(_words(text))

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


# "cache line" -> "cache_line": same length, so offsets into the text stay valid
_JOINED_TERMS_RE = lazyre.compile(
    r"\bcache[ \t\n-]lines?\b|\bcache[ \t\n-]miss(?:es)?\b|\bfalse[ \t\n-]sharing\b|"
    r"\bcpu[ \t\n](?:time|usage|cycles|utili[sz]ation|caches?)\b|\bround[ \t\n-]trips?\b|\bindirect[ \t\n]calls\b|"
    r"\bcontext[ \t\n-]switch(?:es)?\b|\b(?:hot|fast)[ \t\n-]paths?\b|\block[ \t\n]hold\b|\bcritical[ \t\n]section\b",
    re.IGNORECASE,
)
# every term of _JOINED_TERMS_RE starts with one of these words
_JOINED_TERMS_FIRST_WORDS = frozenset(
    {"cache", "false", "cpu", "round", "indirect", "context", "hot", "fast", "lock", "critical"}
)
_TOKEN_RE = lazyre.compile(
    r"\w+(?:['’]\w+)*(?:/\w{1,2}(?!\w))?"
)  # "I/O", "don't"; "speed-up", "optimize/simplify": two
_SENTENCE_SPLIT_RE = lazyre.compile(
    r"(?<=[.!?;])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)\s+|\n[ \t]*\n|\n(?=[ \t]*(?:[-*]|\d+[.)])[ \t])"
)
_PARAGRAPH_SPLIT_RE = lazyre.compile(r"\n[ \t]*\n")
# a negation in the same clause, up to 30 characters before the claim ("no performance change", "isn't faster")
_NEGATION_WORDS = "|".join([_alternation(NEGATIONS), *CONTRAST_PHRASES])
_NEGATION_RE = lazyre.compile(rf"(?:\b(?:{_NEGATION_WORDS})\b|n't\b)[^.;:,()]{{0,30}}$", re.IGNORECASE)
_QUOTED_TITLE_RE = lazyre.compile(r'\("[^"]*"\)|"[^"\n]{8,}"|commit\s+[0-9a-f]{7,}\s*\([^)]*\)', re.IGNORECASE)
_TRAILER_RE = lazyre.compile(r"^(?:[A-Z][a-z]+(?:-[A-Za-z]+)+|Fixes|Link|Closes|Cc|Bug|Change-Id):\s")
# the version history under the changelog ("v2->v3: ...", "Changes in v2:", a "--" line)
_VERSION_NOTES_RE = lazyre.compile(
    r"^[ \t]*(?:v\d+[ \t]*(?:->|-|to|\.\.)[ \t]*v?\d+\b|changes[ \t]+(?:in|since|from)[ \t]+v\d+|v\d+[ \t]*:|--[ \t]*$)",
    re.IGNORECASE | re.MULTILINE,
)
# lines that are command output or code, not the author's prose: "$ fio ...", "# comment", "[  1.2] dmesg"
_OUTPUT_LINE_PREFIXES = ("$", "#", "[", "|", "`", "//", "/*", "*/", "+", "<", "{", "}")
_BULLET_RE = lazyre.compile(r"[ \t]*(?:[-*•]|\d+[.)]|\(\w\))[ \t]")

_NUM = r"(?<![\w./])\d+(?:[.,]\d+)?"  # not inside a word, version or path ("powerpc/64s")
# a number and the (up to two) words after it: "25s", "1.2 ms", "20K IOPs", "9.4 Gbits/sec", "-44%"
_NUMBER_UNIT_RE = lazyre.compile(rf"{_NUM}\+?[ \t]?([a-zµ%][a-z/%-]*)?(?:[ \t]([a-z/-]+))?", re.IGNORECASE)
_PREFIXES = ("ki", "mi", "gi", "ti", "k", "m", "g", "t")
_ARROW_RE = lazyre.compile(rf"{_NUM}[ \t]*(?:->|→|=>)[ \t]*\d+(?:[.,]\d+)?[ \t]*([a-z]*)", re.IGNORECASE)
_CONFIG_BEFORE_RE = lazyre.compile(rf"(?:{_alternation(CONFIG_WORDS)})\b[^.;:,]{{0,12}}$", re.IGNORECASE)
_SHARE_AFTER_RE = lazyre.compile(
    rf"^\s*of\s+(?:the\s+|its\s+|all\s+)?(?:{_alternation(SHARE_OF_WORDS)})\b", re.IGNORECASE
)
_SIZE_AFTER_RE = lazyre.compile(rf"^\s*(?:{_alternation(SIZE_WORDS)})\b", re.IGNORECASE)
_DIFFSTAT_RE = lazyre.compile(
    r"[ \t]*(?:\S+[ \t]+\|[ \t]+(?:\d+|Bin)\b|\d+ files? changed|(?:rename|copy|create|delete)[ \t].*\(\d+%\)|"
    r"(?:create|delete) mode \d+)"
)
_DMESG_RE = lazyre.compile(r"[ \t]*\[[ \t]*\d+\.\d+\]")
# a number in a table row: "31210", "1.2", or with a magnitude ("~30M" NOPs/sec, "20K")
MAGNITUDE_SUFFIXES = "KMG"
_DECIMAL_RE = lazyre.compile(rf"(?<![\w.:/-])\d+(?:\.\d+)?[{MAGNITUDE_SUFFIXES}]?(?![\w:/-]|\.\d)")
# a column header that is a rate of anything: "NOPs/sec", "pkts/s", "IOs per second"
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
# The cheap test before _RATIO_RE (slow: it tries every number word at every word): each ratio it finds says one
# of RATIO_WORDS or puts an "x" right after a number ("3x", "1.5 x", _RATIO_MARK_RE); a text with neither holds none.
RATIO_WORDS = ("factor", "times")
_RATIO_MARK_RE = lazyre.compile(r"\d[ \t]?[xX×]")
# "patch 3", "patches 12 and 13", "patches 1-3", "patches 1+2": the first two numbers, read as a range
_PATCH_NUMBER_RE = lazyre.compile(
    r"\bpatch(?:es)?[ \t]+#?(\d+)(?:[ \t]*(?:-|to|and|,|&|\+)[ \t]*#?(\d+))?", re.IGNORECASE
)
_LINK_RE = lazyre.compile(r"https?://\S+|\[\d+\]")
_DIGIT_RE = lazyre.compile(r"\d")
_CACHE_MENTION_RE = lazyre.compile(r"cache[\s-]?lines?|false[\s-]sharing", re.IGNORECASE)


# The cheap first test, before any pattern (_may_claim): a text holds no claim when none of CLAIM_NEEDS is among its
# lower-case words, a term joined by "_" counting when all its parts are there ("cache line" for "cache_line").
# Words are split at everything but ASCII letters, digits and "_"; a text beyond ASCII is searched for CLAIM_STEMS
# as plain substrings instead. Both come from CLAIM_NEEDS, so a word added there is looked for here.


def _terms_by_first_word(words: Iterable[str]) -> dict[str, frozenset[str]]:
    """The joined terms of ``words`` by their first word: "cache" -> {"line", "lines", "miss", "misses"}."""
    terms: dict[str, frozenset[str]] = {}
    for term in sorted(w for w in words if "_" in w):
        first, rest = term.split("_", 1)
        terms[first] = terms.get(first, frozenset()) | {rest}
    return terms


_CLAIM_TERMS = _terms_by_first_word(CLAIM_NEEDS)
_CLAIM_TERM_FIRST_WORDS = frozenset(_CLAIM_TERMS)
_WORD_SEPARATORS = str.maketrans(dict.fromkeys((c for c in map(chr, range(128)) if not (c.isalnum() or c == "_")), " "))


# beyond ASCII: each word's parts as plain substrings ("cache_line" -> ("cache", "line"))
CLAIM_STEMS = tuple(sorted({tuple(word.split("_")) for word in CLAIM_NEEDS}))


# ---------------------------------------------------------------------------------------
# Step 1: find the claim
# ---------------------------------------------------------------------------------------
class Claim(NamedTuple):
    """A performance claim: its words as written and where they start in the searched text."""

    text: str
    start: int


@lru_cache(maxsize=1024)
def _word_set(text: str) -> frozenset[str] | None:
    """The lower-case words of ``text`` for the cheap tests: split at everything but ASCII letters, digits and "_"
    (no pattern). None for text beyond ASCII, where such a split could miss a word that :func:`_words` finds.
    Cached: a sentence is tested for claim words, then for terms to join."""
    low = text.lower()
    if not low.isascii():
        return None
    return frozenset(low.translate(_WORD_SEPARATORS).split())


def _may_hold(text: str, wanted: frozenset[str]) -> bool:
    """False when no word of ``wanted`` (single words, no "_") can be among the words of ``text`` (a cheap test)."""
    words = _word_set(text)
    return words is None or not wanted.isdisjoint(words)


def _may_claim(text: str) -> bool:
    """False when ``text`` cannot hold a claim: none of CLAIM_NEEDS is among its words (the cheap first test)."""
    words = _word_set(text)
    if words is None:
        low = text.lower()
        return any(all(part in low for part in stem) for stem in CLAIM_STEMS)
    if not CLAIM_NEEDS.isdisjoint(words):
        return True
    if _CLAIM_TERM_FIRST_WORDS.isdisjoint(words):
        return False  # no word that starts a joined term ("cache" of "cache_line")
    return any(first in words and not rest.isdisjoint(words) for first, rest in _CLAIM_TERMS.items())


def _own_lines(text: str) -> list[str]:
    """Lines of a mail text that the writer wrote (no ``>`` quotes, no trailers; others blanked)."""
    return list(_each_own_line(text))


def _each_own_line(text: str) -> Iterator[str]:
    """:func:`_own_lines` one at a time (a reader that stops early reads no further)."""
    for line in text.splitlines():
        s = line.lstrip()
        yield "" if s.startswith(">") or (":" in s and _TRAILER_RE.match(s)) else line  # a trailer has a ":"


def _blank_title(q: re.Match[str]) -> str:
    """A quoted commit title blanked; "commit 8a8fe42d765b" itself kept, so its sentence is known as another
    commit's."""
    m = q.group(0)
    keep = m.index("(") if m[:6].lower() == "commit" else 0
    return m[:keep] + re.sub(r"\S", " ", m[keep:])


@lru_cache(maxsize=256)
def _prose(text: str) -> str:
    """``text`` with what is not the author's prose blanked, offsets kept.

    Blanked: the version history at the end ("v2->v3:", "Changes in v2:"),
    quoted commit titles, command lines, code and output (lines starting
    with ``$``, ``#``, ``[``, ``|``...), and indented blocks that a line
    ending in ``:`` introduces (bullets stay prose).
    """
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


def _joined(text: str) -> str:
    """``text`` with multi-word terms joined ("cache line" -> "cache_line"), same length."""
    words = _word_set(text)  # None beyond ASCII: re's IGNORECASE folds a few non-ASCII letters too
    if words is not None and _JOINED_TERMS_FIRST_WORDS.isdisjoint(words):
        return text  # no term can start here
    return _JOINED_TERMS_RE.sub(lambda m: re.sub(r"[ \t\n-]", "_", m.group(0)), text)


@lru_cache(maxsize=1024)
def _words(text: str) -> list[str]:
    """The lower-case words of ``text``, multi-word terms joined.

    Cached (the steps read the same sentence again): callers read the list, never change it.
    """
    return _TOKEN_RE.findall(_joined(text).lower())


def _word_spans(text: str) -> list[tuple[int, int]]:
    """Where each word of :func:`_words` starts and ends in ``text``."""
    return [m.span() for m in _TOKEN_RE.finditer(_joined(text))]


_FUTURE = WordFinder([*FUTURE_WORDS, *(" ".join(p) for p in FUTURE_PHRASES)])
_EXISTING_SENTENCE = WordFinder(EXISTING_WORDS)
_EXISTING_PARAGRAPH = WordFinder(" ".join(p) for p in EXISTING_PHRASES)
_COMPILER = WordFinder(COMPILER_WORDS)


_COMPILE_TIME = WordFinder(COMPILE_TIME_PHRASES)
_SECONDARY = WordFinder(SECONDARY_PHRASES)
_COMPILER_TEXT = WordFinder(COMPILER_TEXT_PHRASES)
_OBJECT_CODE = WordFinder(OBJECT_CODE_PHRASES)
_OTHER_REASON = WordFinder(OTHER_REASON_PHRASES)
_MICRO_REASON = WordFinder(MICRO_REASON_PHRASES)


class _Cues(NamedTuple):
    """What a whole sentence says about its claims, looked up once per sentence."""

    future: bool  # later work or a hypothetical ("can be optimized later", "if we were to")
    existing: bool  # an existing option or feature described ("The nobarrier option ...")
    compiler: bool  # the compiler optimizes, not this patch
    not_runtime: bool = False  # compile time ("when compat is compiled out")


Span = tuple[int, int]  # first and last word of a claim


def _find(words: Sequence[str], lo: int, hi: int, wanted: frozenset[str]) -> int | None:
    """The index of the first word of ``words[lo:hi]`` in ``wanted``, or None."""
    for k in range(max(0, lo), min(hi, len(words))):
        if words[k] in wanted:
            return k
    return None


# Each claim form looks at the key word ``words[i]`` and its neighbours and returns the
# claim's span, or None. They are tried in the order of CLAIM_FORMS.
def _speed_word(words: Sequence[str], i: int) -> Span | None:
    """Speed words: "faster", "speedup", "speed up", "speeds things up", "optimize", "is now optimized", "bottleneck"."""
    w = words[i]
    to = _find(words, i + 1, i + 6, frozenset({"to"})) if w in OPTIMIZE_VERBS else None
    if (
        to is not None
        and words[to + 1 : to + 2]
        and words[to + 1] in ENABLING_GOALS
        and not set(words) & (COST_NOUNS | PURPOSE_NOUNS | SPEED_WORDS | LARGE_COSTS)
    ):
        return None  # "Optimize the code to support the range ...": made to work, no speed said
    if to is not None and _goal_not_speed(words, to):
        return None  # "optimize cacheline to minimize HW race condition": a race closed, no speed said
    if (
        (w in OPTIMIZE_VERBS or w in OPTIMIZED)
        and words[i + 1 : i + 2] == ["for"]
        and words[i + 2 : i + 3]
        and words[i + 2] in NOT_SPEED_GOALS
    ):
        return None  # "optimized for simplicity rather than performance"
    if w in SPEED_WORDS or w in OPTIMIZE_VERBS or w in BOTTLENECK_WORDS or w in STANDALONE_CACHE_TERMS:
        return i, i
    if w in OPTIMIZED and i > 0 and words[i - 1] in IS_WORDS:
        return i, i
    if w in SPEED_UP_VERBS:
        up = _find(words, i + 1, i + 4, frozenset(UP_WORDS))
        return (i, up) if up is not None else None
    return None


def _goal_not_speed(words: Sequence[str], to: int) -> bool:
    """True when "optimize X to <verb> <goal>" names a correctness goal ("to minimize HW race condition", see
    GOAL_VERBS, NOT_SPEED_TARGETS) and nothing near it says speed or cost (SPEED_OR_COST_WORDS, NEAR_WORDS)."""
    if not words[to + 1 : to + 2] or words[to + 1] not in GOAL_VERBS:
        return False
    if _find(words, to + 2, to + 6, NOT_SPEED_TARGETS) is None:
        return False
    return _find(words, to - NEAR_WORDS, to + NEAR_WORDS, SPEED_OR_COST_WORDS) is None


def _more_efficient(words: Sequence[str], i: int) -> Span | None:
    """A comparison: "more efficient", "more scalable" (not "make the code more scalable": extensible)."""
    if words[i] in MORE_WORDS and i + 1 < len(words) and words[i + 1] in EFFICIENT_WORDS:
        if _find(words, i - 2, i, NOT_RUNTIME_BEFORE) is None:
            return i, i + 1
    return None


def _cost_made_smaller(words: Sequence[str], i: int) -> Span | None:
    """A cost made smaller: "reduce overhead", "fewer cache misses", "wasting CPU time", "contention is reduced"."""
    w = words[i]
    if w in LESS_VERBS:
        k = _find(words, i + 1, i + 5, COST_NOUNS)
        if k is not None and words[k - 1] not in MEMORY_WORDS:  # "reduce memory overhead": size
            return i, k
    if w in COST_NOUNS:
        k = _find(words, i + 1, i + 4, LESS_AFTER)
        if k is not None:
            return i, k
    return None


def _needless_cost(words: Sequence[str], i: int) -> Span | None:
    """A cost of the old code called needless or large: "unnecessary overhead", "useless rbtree iterations", "takes considerable cycles"."""
    if words[i] in COST_NOUNS:
        k = _find(words, i - 2, i, WASTE_WORDS)
        if k is not None:
            return k, i
    if words[i] in LARGE_COSTS and i > 0 and words[i - 1] in LARGE_WORDS:
        return i - 1, i
    return None


def _good_made_bigger(words: Sequence[str], i: int) -> Span | None:
    """A good thing made bigger: "improve throughput", "better scalability", "performance should be increased"; the old code
    hurting it ("this actually decreases I/O performance"). Not "EMC performance", not "performance counters"."""
    w = words[i]
    if w in MORE_VERBS or w in HARM_VERBS:
        k = _find(words, i + 1, i + 5 if w in MORE_VERBS else i + 4, GOOD_NOUNS)
        if k is None or words[k - 1] in NOT_SPEED_QUALIFIERS:
            return None
        if k + 1 < len(words) and words[k + 1] in PERF_NAME_FOLLOWERS:
            return None
        if words[k + 1 : k + 2] == ["of"] and words[k + 2 : k + 3] and words[k + 2] in NOT_SPEED_QUALIFIERS:
            return None  # "improve performance of eFEM modules": radio performance, not speed
        return i, k
    if w in GOOD_NOUNS and (i == 0 or words[i - 1] not in NOT_SPEED_QUALIFIERS):
        k = _find(words, i + 1, i + 4, MORE_AFTER)
        if k is not None:
            return i, k
    return None


def _for_performance(words: Sequence[str], i: int) -> Span | None:
    """Speed as the purpose: "for the sake of high performance", "for better performance", "for performance reasons",
    "matters for performance"
    (a bare "for speed" often says what existing code is for)."""
    if words[i] not in PURPOSE_NOUNS or "for" not in words[max(0, i - 6) : i]:
        return None
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if nxt in PERF_NAME_FOLLOWERS:
        return None
    k = i - 1 - words[max(0, i - 6) : i][::-1].index("for")  # the last "for" before the noun
    between = words[k + 1 : i]
    if not between and nxt in PURPOSE_AFTER:
        return k, i + 1
    if not between and k > 0 and words[k - 1] in MATTERS_WORDS:
        return k - 1, i  # "matters for performance"
    if any(b in PURPOSE_WORDS for b in between) and all(b in PURPOSE_FILLER for b in between):
        return k, i
    return None


def _quite_expensive(words: Sequence[str], i: int) -> Span | None:
    """A cost given as the reason for a change: "reading it is quite expensive", "relatively slow"."""
    if words[i] in EXPENSIVE_WORDS and i > 0 and words[i - 1] in INTENSIFIERS:
        return i - 1, i
    return None


def _new_fast_path(words: Sequence[str], i: int) -> Span | None:
    """A new fast path: "add a fast path" (a fast or hot path named in a subject counts by itself, see _find_claim_in)."""
    if words[i] in PATH_TERMS and _find(words, i - 3, i, ADD_WORDS) is not None:
        return i, i
    return None


def _cache_placement(words: Sequence[str], i: int) -> Span | None:
    """Cache placement: "into the same cache line", "split between 2 cache lines", "cacheline bouncing",
    "keeps the cache hot", "improves cache usage" (not a DMA cache line, not the page cache)."""
    w = words[i]
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if w in CACHE_LINE_TERMS and _find(words, i - 4, i, NOT_CPU_CACHE_WORDS) is None:
        if nxt in CACHE_AFTER_WORDS:
            return max(0, i - 3), i + 1
        if _placement_described(words, i):
            return None  # "... the lock protecting them to share the same cache line": no gain named
        hot = _hot_members(words, i)
        if hot is not None:
            return hot, hot + 1  # "the io path hot members can fit within the first 64-bytes, ... a cacheline"
        if _find(words, i - 3, i, CACHE_PLACE_WORDS) is not None:
            return max(0, i - 3), i
    if w in CACHE_WORDS and nxt in CACHE_HOT_WORDS and (i == 0 or words[i - 1] not in NOT_CPU_CACHE_BEFORE):
        return i, i + 1
    return None


def _hot_members(words: Sequence[str], i: int) -> int | None:
    """Where hot members ("hot members", "hot fields": HOT_WORDS, HOT_GROUP_NOUNS) are named near the cache line
    ``words[i]`` (NEAR_WORDS), or None."""
    for k in range(max(0, i - NEAR_WORDS), min(len(words), i + NEAR_WORDS) - 1):
        if words[k] in HOT_WORDS and words[k + 1] in HOT_GROUP_NOUNS:
            return k
    return None


def _placement_described(words: Sequence[str], i: int) -> bool:
    """True when the cache line ``words[i]`` is only said to be shared ("to share the same cache line", SHARE_VERBS)
    and no gain or cost is named near it (PLACEMENT_GAIN_WORDS, NEAR_WORDS): where members sit, no benefit claimed."""
    if _find(words, i - 4, i, SHARE_VERBS) is None:
        return False
    return _find(words, i - NEAR_WORDS, i + NEAR_WORDS, PLACEMENT_GAIN_WORDS) is None


CLAIM_FORMS = (
    _speed_word,
    _more_efficient,
    _cost_made_smaller,
    _needless_cost,
    _good_made_bigger,
    _for_performance,
    _quite_expensive,
    _new_fast_path,
    _cache_placement,
)


def _claim_span(words: Sequence[str], i: int, *, subject: bool) -> Span | None:
    """The span of a claim whose key word is ``words[i]``: the first claim form that matches, or None."""
    if subject and words[i] in PATH_TERMS:
        return i, i  # "io_uring: improve cqe !tracing hot path"
    for form in CLAIM_FORMS:
        span = form(words, i)
        if span is not None:
            return span
    return None


def _about_memory(after: Sequence[str]) -> bool:
    """True when the words after "optimize" name memory or size ("memory usage", "struct layout").

    "memory barriers" and "memory ordering" are not about size.
    """
    for k, word in enumerate(after[:5]):
        if word in MEMORY_WORDS and (k + 1 == len(after) or after[k + 1] not in NOT_SIZE_AFTER_MEMORY):
            return True
    return False


def _not_this_patch(words: Sequence[str], spans: Sequence[tuple[int, int]], i: int, text: str, cues: _Cues) -> bool:
    """True when the claim word ``words[i]`` of sentence ``text`` does not claim a gain of this patch."""
    if cues.future or cues.existing or cues.not_runtime:
        return True
    w = words[i]
    prev = words[i - 1] if i > 0 else ""
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if w in SPEED_WORDS or w in SPEED_UP_VERBS:
        if prev in FAIL_WORDS or any(a in NOT_RUNTIME_AFTER for a in words[i + 1 : i + 4]):
            return True  # "fail faster", "faster development"
    if w in OPTIMIZE_VERBS or w in OPTIMIZED:
        if _about_memory(words[i + 1 : i + 7]):
            return True  # optimize memory, size, layout
        if set(words[i + 1 : i + 5]) & STYLE_WORDS:
            return True  # optimize coding convention, code style
        if cues.compiler:
            return True  # what the compiler optimizes
        if prev == "to" and any(b in ENABLE_WORDS for b in words[max(0, i - 4) : i - 1]):
            return True  # "allow dm-multipath to optimize": someone else, later
        if prev in NAMING_BEFORE or nxt in NAMING_AFTER:
            return True  # "the current optimization", "optimized code", "optimize out"
        before = [b for b in words[max(0, i - 3) : i] if b not in ("the", "a", "an", "this", "that", "any")]
        if before and before[-1] in REMOVED_BEFORE:
            return True  # "removes optimisation of ...", "avoid mis-optimization": taken away, not a gain
        if prev in ("a", "an") and i > 1 and words[i - 2] in HAVE_WORDS:
            return True  # "we have an optimization to ...": existing code described
        if (
            w.endswith("s")
            and any(h in HAVE_WORDS for h in words[max(0, i - 5) : i])
            and any(q in ("bunch", "several", "various", "these", "those") for q in words[max(0, i - 4) : i])
        ):
            return True  # "we have a bunch of optimisations based on ...": existing code described
        (p_start, p_end), (w_start, _) = spans[i - 1] if i > 0 else (0, 0), spans[i]
        if i > 0 and "_" in text[p_start:p_end] and not text[p_end:w_start].strip():
            return True  # "the has_sleepers optimization": an identifier names it
        if _offered_optimization(words, i):
            return True  # "As a trivial optimization, X could use ...": imagined or offered, not this patch's
        if _argued_safe(words, i):
            return True  # "this optimization is likely harmless": a correctness argument
        if "used" in words[max(0, i - 6) : i]:
            k = max(0, i - 6) + words[max(0, i - 6) : i].index("used")
            if k + 1 < i and words[k + 1] in ("for", "by"):
                return True  # "used for ... optimizations": what existing code is for
    return False


def _offered_optimization(words: Sequence[str], i: int) -> bool:
    """True when the noun ``words[i]`` ("optimization") is an optimisation imagined or offered to others: "any of
    these optimizations", or "a"/"an"
    before it and either "as a ..." with a modal or enabling verb anywhere in the sentence ("As a trivial
    optimization, mmgrab() could use ...", "allow architectures to override it as an optimization"), or a modal
    just before the article ("the fast path can use a nice batch optimization")."""
    if not words[i].endswith(("ation", "ations")):
        return False
    if ANY_WORDS & set(words[max(0, i - 3) : i]):
        return True  # "Doing any of these optimizations while ...": whichever might be done, not this patch's
    article = next((k for k in range(i - 1, max(-1, i - 1 - ARTICLE_GAP), -1) if words[k] in INDEFINITE_WORDS), None)
    if article is None:
        return False
    if article > 0 and words[article - 1] == "as":
        return any(w in MODAL_WORDS or w in ENABLE_WORDS for w in words)
    return any(w in MODAL_WORDS for w in words[max(0, article - 3) : article])


def _argued_safe(words: Sequence[str], i: int) -> bool:
    """True when the optimisation ``words[i]`` is said to be harmless or safe ("this optimization is likely
    harmless"): the sentence argues correctness, not speed."""
    after = words[i + 1 : i + 5]
    return bool(IS_WORDS & set(after[:2])) and bool(SAFE_WORDS & set(after))


def _road_not_taken(words: Sequence[str], sentence: str) -> bool:
    """True when the sentence opens with a concession about what could have been done instead ("While the whole
    struct could get cleared by memset() in that case, ... this may cause unnecessary overhead"): its cost words
    are the alternative's."""
    if not words or words[0] not in CONCESSIVE_WORDS or "," not in sentence:
        return False
    return bool(ALTERNATIVE_MODALS & set(_words(sentence[: sentence.index(",")])))


def _find_claim_in(text: str, *, subject: bool = False, compiler: bool = False) -> Claim | None:
    """The first claim in ``text``; the callers ran the cheap first test (:func:`_may_claim`) on it."""
    compiler_text: bool | None = compiler or None  # looked up at the first claim of the text
    for p_start, paragraph in _paragraphs(text):
        if not _may_claim(paragraph):
            continue  # none of the words every claim needs
        heading = _TOKEN_RE.match(paragraph.lstrip().lower())
        if heading is not None and heading.group(0) in DOWNSIDE_HEADINGS:
            continue  # "Downsides: 1. This removes ...": the patch's costs, not its gains
        existing_paragraph: bool | None = None  # looked up at the first claim of the paragraph
        compiler_paragraph: bool | None = None
        for s_start, sentence in _sentences(paragraph):
            if not _may_claim(sentence):
                continue  # none of the words every claim needs in the sentence
            words = _words(sentence)
            if CLAIM_NEEDS.isdisjoint(words):
                continue
            spans: list[tuple[int, int]] = []  # made at the first claim word of the sentence
            cues: _Cues | None = None
            for i, word in enumerate(words):
                if word not in CLAIM_KEY_WORDS:
                    continue
                span = _claim_span(words, i, subject=subject)
                if span is None:
                    continue
                if not spans and _not_this_patchs_sentence(words, sentence):
                    break  # looked at the sentence's first claim word
                spans = spans or _word_spans(sentence)
                a, b = spans[span[0]][0], spans[span[1]][1]
                if _NEGATION_RE.search(sentence[max(0, a - 40) : a]) or NEGATED_BENEFIT_RE.search(sentence[b:]):
                    continue  # "no performance change"; "an optimization that doesn't help"
                if not NEGATIONS.isdisjoint(words[span[0] : span[1] + 1]):
                    continue  # "vdso_time_data is not cacheline aligned at the moment": the old state, stated
                if words[:2] == ["now", "that"] and a < sentence.find(","):
                    continue  # "Now that the library is optimized, ...": a precondition, not this patch
                if existing_paragraph is None:
                    existing_paragraph = _EXISTING_PARAGRAPH.search(paragraph)
                if compiler_text is None:  # "avoid mis-optimization": every optimization is the compiler's
                    compiler_text = _COMPILER_TEXT.in_words_of(text)
                if compiler_paragraph is None:
                    compiler_paragraph = compiler_text or _OBJECT_CODE.in_tokens(_words(paragraph))
                if cues is None:
                    existing = existing_paragraph or _EXISTING_SENTENCE.in_tokens(words)
                    cues = _Cues(
                        _FUTURE.in_tokens(words),
                        existing,
                        compiler_paragraph or _COMPILER.in_tokens(words),
                        _COMPILE_TIME.in_tokens(words),
                    )
                if _not_this_patch(words, spans, i, sentence, cues):
                    continue
                if _SECONDARY.in_tokens(words[span[1] + 1 :]):
                    continue  # "slightly improve performance, but more importantly ...": speed is not the reason
                return Claim(" ".join(sentence[a:b].split()), p_start + s_start + a)
    return None


def _not_this_patchs_sentence(words: Sequence[str], sentence: str) -> bool:
    """True when the whole sentence claims nothing for this patch, whatever its claim words say."""
    if OTHER_COMMIT_RE.search(sentence) or COMPILER_MODE_RE.search(sentence):
        return True  # another commit's optimisation; the compiler's -O2/-Os mode
    if _road_not_taken(words, sentence):
        return True  # "While X could be done, it may cause overhead": the alternative's cost
    # "unable to reproduce it, maybe because ... in the same cache-line": why a bug hides
    return not REPRODUCE_WORDS.isdisjoint(words)


def _paragraphs(text: str) -> Iterable[tuple[int, str]]:
    """(offset, paragraph) pairs of ``text`` (paragraphs end at blank lines)."""
    pos = 0
    for m in _PARAGRAPH_SPLIT_RE.finditer(text):
        if m.start() > pos:
            yield pos, text[pos : m.start()]
        pos = m.end()
    if pos < len(text):
        yield pos, text[pos:]


def _sentences(text: str) -> Iterable[tuple[int, str]]:
    """(offset, sentence) pairs of ``text``."""
    pos = 0
    for m in _SENTENCE_SPLIT_RE.finditer(text):
        if m.start() > pos:
            yield pos, text[pos : m.start()]
        pos = m.end()
    if pos < len(text):
        yield pos, text[pos:]


def find_claim(text: str, *, title: str = "") -> Claim | None:
    """The first performance claim of this patch in ``text`` (a commit message), or None.

    Not a claim: negated ("no performance change"), future work ("can be
    optimized later"), "optimize" meaning memory or size, what the compiler
    optimizes, names of existing code ("the optimized assembly"), an existing
    option described, claim words in quoted commit titles, command output or
    the version history.
    """
    if not _may_claim(text):
        return None
    return _find_claim_in(_prose(text), compiler=bool(title) and _COMPILER_TEXT.in_tokens(_words(title)))


def find_subject_claim(title: str) -> Claim | None:
    """A claim in a subject line: as in the changelog, and "fast path"/"hot path" count by themselves."""
    if not _may_claim(title):
        return None  # the cheap first test, before the quoted titles are blanked
    return _find_claim_in(_QUOTED_TITLE_RE.sub(lambda q: " " * len(q.group(0)), title), subject=True)


# ---------------------------------------------------------------------------------------
# Step 2: grade the evidence
# ---------------------------------------------------------------------------------------
def _measured_value(line: str, following: str = "") -> bool:
    """True when ``line`` (``following`` is the next line) gives a number with a unit that reports a measurement."""
    for m in _NUMBER_UNIT_RE.finditer(line):
        unit = _unit(m.group(1), m.group(2))
        if unit == "time" and not _CONFIG_BEFORE_RE.search(line[max(0, m.start() - 40) : m.start()]):
            return True  # "took 1.2s", not "sleep 100 ms"
        if unit == "rate":
            return True  # "20K IOPS", "9.4 Gbits/sec", "1.2M cycles", "3x faster"
        if unit == "percent" and not _SHARE_AFTER_RE.match((line[m.end(1) :] + " " + following)[:60]):
            return True  # "-44%", not "1% of the filesystem capacity"
    for m in _ARROW_RE.finditer(line):
        if not _SIZE_AFTER_RE.match(line[m.end(1) - len(m.group(1)) : m.end() + 12] if m.group(1) else ""):
            return True  # "2310 -> 1290 cycles", not "152 -> 136 bytes"
    return False


_TIME_UNIT_SET = frozenset(TIME_UNITS)
_RATE_UNIT_SET = frozenset(u for u in RATE_UNITS if " " not in u)
_TIMES_SET = frozenset(TIMES_WORDS)


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
    if a in ("x", "×", "times") and b in _TIMES_SET:
        return "rate"  # "3x faster", "2 times fewer"
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
    if "patch" in line.lower():
        line = _PATCH_NUMBER_RE.sub(" ", line)  # "From patch 5 to 10", "patches 12 and 13": no measurement
    return (
        len(_DECIMAL_RE.findall(line)) >= 2
        or _LABELLED_NUMBER_RE.search(line) is not None
        or _DMESG_RE.match(line) is not None
    )


def _results_block(lines: Sequence[str]) -> bool:
    """True when ``lines`` hold a block of results: rows of numbers labelled as a comparison or measurement.

    "Before:" / "After:" blocks ("AVG cycles: 75"), Vanilla/Patched tables,
    netperf/iperf/fio tables, boot logs with dmesg time stamps before and
    after: numeric rows with a comparison word, a unit or a tool in the rows
    or in the five lines above them. Each line is looked at once.
    """
    numeric = [_numeric_line(line) for line in lines]
    if sum(numeric) == 0:
        return False
    # the labels are looked for only where they count, each line once: on a numeric row and the five lines above
    # it, a table label only above two rows or more
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
    """False when ``text`` cannot hold a ratio of _RATIO_RE: none of RATIO_WORDS, no number with an "x" after it.

    Beyond ASCII the pattern decides (its IGNORECASE folds "ı" and "ſ" to ASCII letters).
    """
    if not text.isascii():
        return True
    low = text.lower()
    return any(word in low for word in RATIO_WORDS) or _RATIO_MARK_RE.search(text) is not None


def _ratio_measured(text: str) -> bool:
    """True when one sentence gives a ratio of a metric ("IOPS with a factor four", "up to ~3x" a speed-up)."""
    if not _may_give_ratio(text) or not _RATIO_RE.search(text):
        return False
    return any(_RATIO_RE.search(s) and _METRICS.search(s) for _, s in _sentences(text))


# numbers about size or memory footprint ("the used memory decreased by 20%", "free -h", "10.8 -> 8.6 MB"):
# they do not answer a speed claim
SIZE_CONTEXT_WORDS = ("memory", "footprint", "size", "sizes", "bytes", "ram", "rss", "mem")
_SIZE_CONTEXT_RE = lazyre.compile(
    rf"\b(?:{'|'.join(SIZE_CONTEXT_WORDS)})\b|free\s+-h|"
    r"\d(?:\.\d+)?\s?(?:[KMGT]i?B|[KMGT]i|kB)\b(?!/)",
    re.IGNORECASE,
)


_SIZE_CONTEXT_WORD_SET = frozenset(SIZE_CONTEXT_WORDS)


def _may_name_size(low: str) -> bool:
    """False when the lower-case ASCII line ``low`` names no size in words: none of SIZE_CONTEXT_WORDS among its
    words (the pattern wants them whole: "ram", not "parameter"; "mem", not "member") and no "free" (of "free -h")."""
    return "free" in low or not _SIZE_CONTEXT_WORD_SET.isdisjoint(low.translate(_WORD_SEPARATORS).split())


def _may_give_size(line: str) -> bool:
    """False when ``line`` cannot match _SIZE_CONTEXT_RE: ASCII, and no size word (_may_name_size) and no unit after
    a number (_UNIT_AFTER_NUMBER_RE) in it (beyond ASCII the pattern decides)."""
    return not line.isascii() or _may_name_size(line.lower()) or _UNIT_AFTER_NUMBER_RE.search(line) is not None


# a size unit right after a number ("8.6 MB", "64KiB", "4 kB") starts so: the last part of _SIZE_CONTEXT_RE needs it
_UNIT_AFTER_NUMBER_RE = lazyre.compile(r"\d\s?[KMGTkmgt]")


# a line that names patches of the series (" - PATCH[2~17] : the riscv changes", "patch 3: the driver part") is a
# map of the series, not a row of results, unless it names a metric ("patch 3: 20% more IOPS")
_SERIES_INDEX_RE = lazyre.compile(
    r"\bpatch(?:es)?[ \t]*(?:\[[ \t]*\d+(?:[ \t]*[~-][ \t]*\d+)?[ \t]*\]|#?\d+(?:/\d+)?\b)", re.IGNORECASE
)


# commands whose output describes the machine or its memory, not a run of the changed code: their rows
# ("processor : 0", "55555000-5560c000 r-xp ...", "Mem: 105.4M 8.2M") are no speed results
SYSTEM_STATE_COMMANDS = (
    "/proc/cpuinfo",
    "/maps",
    "/smaps",
    "/proc/meminfo",
    "/proc/iomem",
    "free -h",
    "free -m",
    "lscpu",
    "uname -a",
)
_SYSTEM_STATE_RE = lazyre.compile("|".join(re.escape(c) + r"\b" for c in SYSTEM_STATE_COMMANDS), re.IGNORECASE)


def _evidence_lines(text: str) -> list[str]:
    """The writer's own lines that may carry numbers: no quotes, diffstat, rename lines, diff, size-only lines,
    lines naming patches of the series (each left out as a blank line)."""
    return list(_each_evidence_line(text))


def _each_evidence_line(text: str) -> Iterator[str]:
    """:func:`_evidence_lines` one at a time: a grade stops reading at the first measured value."""
    state_output = False  # inside the output of a SYSTEM_STATE_COMMANDS command (up to the next blank line)
    # The cheap tests before the slow patterns, as plain lower-case substrings (beyond ASCII the patterns decide:
    # their IGNORECASE folds "ı", "ſ" and the Kelvin sign to ASCII letters): a text naming none of
    # SYSTEM_STATE_COMMANDS holds no such output; a line may give a size only when it holds a word of
    # SIZE_CONTEXT_WORDS (as a whole word: _may_name_size), "free" (of "free -h") or a unit after a number
    # (_UNIT_AFTER_NUMBER_RE), and a map of the series says "patch" (no letter of it has a non-ASCII twin).
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
        series_map = "patch" in low and bool(_SERIES_INDEX_RE.search(line)) and not _METRICS.search(line)
        yield "" if size_only or series_map else line


@lru_cache(maxsize=256)
def _grade(text: str) -> str:
    """``measured``, ``claim-only`` or ``none`` for one block of text.

    Cached: every patch of a series grades the same cover letter.
    """
    if not _DIGIT_RE.search(text):
        lines = _evidence_lines(text)  # no number to measure: only a ratio in words ("a factor four") is looked for
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
    if _ratio_measured("\n".join(lines)):
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


# ---------------------------------------------------------------------------------------
# Step 3: the thread (did the author answer, did a reviewer ask)
# ---------------------------------------------------------------------------------------
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


# A reply to a cover letter is read by every patch of its series: what it says is looked up once per text.
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


def _subject_claim_not_speed(patch: Patch, own_body: str) -> bool:
    """True when a claim said only in the subject is not about speed: the changelog gives another reason
    (a deadlock fix, a vmap skipped, an ABI relaxation, code compiled out), or the patch is for a
    userspace project (liburing: its barrier semantics, no kernel path to measure)."""
    if any(t in USERSPACE_TAGS for t in patch.subject.tags):
        return True
    return _OTHER_REASON.in_words_of(_prose(own_body))


# the link of a version-history entry ("v2:" and the earlier posting's URL on its own line, or "v2: <URL>") points
# to that posting, not to results: "v2: https://lore.../ - Enable X for benchmarking" is no reference to numbers
_VERSION_LINK_RE = lazyre.compile(
    r"^([ \t]*v\d+[ \t]*:)[ \t]*(?:\n[ \t]*)?<?https?://\S+[ \t]*$", re.IGNORECASE | re.MULTILINE
)


@lru_cache(maxsize=256)
def _evidence_by_reference(text: str) -> bool:
    """True when a sentence of ``text`` points to results elsewhere: "Please refer to [1] and [2] for
    benchmarks" (with "[1] https://..." below), "benchmark results are in the cover letter", a Link: to them.
    The link of a version-history entry is left out (``_VERSION_LINK_RE``). Cached: every patch of a series
    reads the same cover letter."""
    if not _may_hold(text, RESULT_WORDS):
        return False  # the cheap test: every reference names results
    text = _VERSION_LINK_RE.sub(r"\1", text)
    has_url = "http://" in text or "https://" in text
    for line in text.splitlines():
        if line.lower().startswith("link:") and has_url and _words(line) and RESULT_WORDS & set(_words(line)):
            return True
    sentences = (s for _, p in _paragraphs(text) for _, s in _sentences(" ".join(p.split("\n"))))
    for sentence in sentences:  # by paragraph: a cover letter without full stops is no one sentence
        words = set(_words(sentence))
        if not words & RESULT_WORDS or not words & {
            "benchmark",
            "benchmarks",
            "benchmarking",
            "results",
            "numbers",
            "measurements",
            "measured",
        }:
            continue
        low = sentence.lower()
        if any(r in low for r in REFERENCE_WORDS) or (has_url and re.search(r"\[\d+\]", sentence)):
            return True
    return False


#: A revert (``Revert "mm: memcg: optimize ..."``, ``mm/memcg: Revert ("mm/memcg: optimize ...")``, git's
#: "This reverts commit <sha>."): the claim it quotes belongs to the commit it takes out, and its changelog
#: usually argues that the gain is not there.
REVERT_TITLES = ('revert "', 'revert ("')
REVERT_BODY = "This reverts commit "


def _not_a_speed_patch(patch: Patch, own_body: str, view: PatchView) -> bool:
    """True when the patch as a whole is no speed claim to ask numbers for: a userspace project (its subject
    tag), a revert, a fix (Fixes: trailer, "This patch fixes"), a micro-optimisation whose changelog already gives
    the reasoning ("generates better assembly", "a quick check before invoking it"), cold fields moved."""
    if any(t in USERSPACE_TAGS for t in patch.subject.tags):
        return True
    title = patch.subject.title.lower()
    if any(form in title for form in REVERT_TITLES) or REVERT_BODY in own_body:
        return True  # a revert: its speed words are the reverted commit's, usually argued against
    if _may_hold(own_body, FIX_WORDS) and FIX_REASON_RE.search(own_body):
        return True
    if _merged_into_existing_loop(patch, own_body) or _only_sysfs_handlers(view):
        return True
    return _MICRO_REASON.search(_prose(own_body))


def _gain_called_limited(text: str) -> bool:
    """True when the author calls the gain small ("this optimization provides limited efficiency improvements"):
    the speed case is not made, there is nothing to ask numbers for."""
    if not _may_hold(text, LIMITED_WORDS):
        return False  # the cheap test: no "limited", "marginal" ...
    words = _words(text)
    for i, w in enumerate(words):
        if w in LIMITED_WORDS and not GAIN_NOUNS.isdisjoint(words[i + 1 : i + 1 + LIMITED_GAP]):
            return True
    return False


# ---------------------------------------------------------------------------------------
# Claims kept as findings but not asked about in a draft (``details["not_asked"]``: the drafter records the
# skip ``not-asked`` with this reason). The labels count these as claims without numbers, but a maintainer
# would not ask for a benchmark: the gain holds by construction, or speed is not what the patch is weighed on.
# Each kind is a named step; a wrong call is fixed by a word here and an example in rules/examples/RB201/.
# ---------------------------------------------------------------------------------------
#: Alignment annotations: a diff that only adds one of these to existing lines aligns a struct, and the
#: changelog's "one cache line less per element" holds by construction.
ALIGN_ANNOTATIONS = (
    "____cacheline_aligned_in_smp",
    "____cacheline_aligned",
    "__cacheline_aligned_in_smp",
    "__cacheline_aligned",
)
_ALIGN_RE = lazyre.compile(r"\b(?:" + "|".join(ALIGN_ANNOTATIONS) + r")\b|\b__aligned\s*\([^()]*\)")
#: Integer types a port to another word size swaps ("unsigned long" -> "u64"/"xlen_t" so an ILP32 ABI takes
#: the 64-bit path LP64 kernels already run): a diff that only swaps these changes no algorithm to measure.
PORT_TYPE_WORDS = (
    "unsigned long long",
    "unsigned long",
    "unsigned int",
    "long long",
    "long",
    "int",
    "ulong",
    "u64",
    "u32",
    "s64",
    "s32",
    "__u64",
    "__u32",
    "xlen_t",
    "size_t",
    "ssize_t",
    "uintptr_t",
    "phys_addr_t",
)
_PORT_TYPE_RE = lazyre.compile(r"\b(?:" + _alternation(PORT_TYPE_WORDS) + r")\b")
_INCLUDE_RE = lazyre.compile(r"\s*#\s*include\b")
SOURCE_SUFFIXES = (".c", ".h", ".S")
#: "a quick check of the condition before invoking it": an inline test that skips a call when there is nothing
#: to do; in a small change (SMALL_CHANGE_LINES) the gain holds by construction.
QUICK_CHECK_PHRASES = ("quick check", "cheap check", "inline check", "quick test", "cheap test")
_QUICK_CHECK = WordFinder(QUICK_CHECK_PHRASES)
#: The claim's sentence also calls the change simpler, or names the indirect call it drops, and the patch removes
#: more lines than it adds: a cleanup (a library call instead of a wrapper API, a NULL test instead of a call into
#: a dummy function), weighed on the code it removes, not on a benchmark.
SIMPLER_WORDS = frozenset({"simpler", "simplifies", "simplify", "simplified", "cleaner"})
INDIRECT_CALL_PHRASES = ("indirect call", "indirect calls", "indirect function call", "indirect branch")
_INDIRECT_CALL = WordFinder(INDIRECT_CALL_PHRASES)
#: A claim made only of layout words ("for better memory placement"): where members sit, RB101's question.
PLACEMENT_CLAIM_WORDS = frozenset({"better", "improved", "memory", "placement", "layout", "data", "struct"})
PLACEMENT_NOUNS = frozenset({"placement", "layout"})
#: "optimizes how much data needs to be read in": the amount of I/O, smaller by construction.
AMOUNT_PHRASES = (("how", "much"), ("how", "many"), ("the", "amount"))


def _changed_source_lines(patch: Patch) -> tuple[list[str], list[str]]:
    """The removed and the added lines of the patch's C and assembly files (blank lines and added #include
    lines left out, whitespace collapsed)."""
    removed: list[str] = []
    added: list[str] = []
    for fd in patch.files:
        if not fd.path.endswith(SOURCE_SUFFIXES):
            continue
        for h in fd.hunks:
            for line in h.body:  # each line behind its +/-/space mark: no DiffLines made for this
                mark = line[:1]
                if mark != "-" and mark != "+":
                    continue
                text = " ".join(line[1:].split())
                if not text:
                    continue
                if mark == "-":
                    removed.append(text)
                elif not _INCLUDE_RE.match(text):
                    added.append(text)
    return removed, added


def _only_swapped(patch: Patch) -> str | None:
    """``"alignment"`` when the source lines the patch changes differ only by an added alignment annotation
    (ALIGN_ANNOTATIONS), ``"types"`` when they differ only by integer types (PORT_TYPE_WORDS), else None."""
    removed, added = _changed_source_lines(patch)
    if len(removed) != len(added):
        return None  # a line swapped for another one changes as many lines as it removes

    def plain(line: str) -> str:
        return "".join(line.split())  # "struct inode *  bd_inode;" moved as "struct inode *bd_inode;"

    if not removed or sorted(map(plain, removed)) == sorted(map(plain, added)):
        return None  # nothing changed in place, or lines only moved (a reorder is no swap)

    def norm(line: str) -> str:
        return "".join(_PORT_TYPE_RE.sub("T", _ALIGN_RE.sub(" ", line)).split())  # "} ____cacheline_aligned;"

    if sorted(map(norm, removed)) != sorted(map(norm, added)):
        return None
    return "alignment" if any(_ALIGN_RE.search(line) for line in added) else "types"


def _claim_words_after(own_body: str, claim: Claim) -> list[str]:
    return _words(own_body[claim.start + len(claim.text) : claim.start + len(claim.text) + 60])


def _why_not_asked(patch: Patch, own_body: str, claim: Claim, body_claim: Claim | None) -> str:
    """Why a maintainer would not ask for numbers on this claim (the kinds above), or "" when one would."""
    swapped = _only_swapped(patch)
    if swapped == "alignment":
        return "the patch only adds a cache-line alignment annotation: the lines saved follow from the layout"
    if swapped == "types":
        return "the patch only swaps integer types (a port to another word size): no new code path to measure"
    changed = sum(fd.added_count + fd.removed_count for fd in patch.files)
    if changed <= SMALL_CHANGE_LINES and _QUICK_CHECK.in_tokens(_words(_prose(own_body))):
        return "an inline check that skips a call when there is nothing to do: the gain follows from the code"
    if body_claim is not None:
        sentence = _whole_sentence_at(own_body, body_claim.start)
        added = sum(fd.added_count for fd in patch.files)
        removed = sum(fd.removed_count for fd in patch.files)
        said = _words(sentence)
        if removed > added and (not SIMPLER_WORDS.isdisjoint(said) or _INDIRECT_CALL.in_tokens(said)):
            return "a cleanup that removes code (simpler, or an indirect call less): the gain follows from the code"
        claim_words = set(_words(body_claim.text))
        if claim_words & PLACEMENT_NOUNS and claim_words <= PLACEMENT_CLAIM_WORDS:
            return "a layout change with no speed named: whether the layout is explained is RB101's question"
        if body_claim.text.lower() in OPTIMIZE_VERBS:
            after = _claim_words_after(own_body, body_claim)
            if any(tuple(after[k : k + 2]) in AMOUNT_PHRASES for k in range(2)):
                return "what is read or written is made smaller, which follows from the change"
    return ""


# Kind: a layout subject ("move qux_client members to avoid spanning cachelines", "move rx_count up a cacheline"):
# a cache-line word next to a verb that moves members, said only in the subject, describes the layout; whether
# the layout is documented is RB101's question. Read as a speed claim by some labellers (corpus), so a CHECK,
# not a WARNING. A speed reason in the changelog ("the submit path is faster") keeps the WARNING.
LAYOUT_VERBS = frozenset(
    {
        "move",
        "moves",
        "moving",
        "reorder",
        "reorders",
        "rearrange",
        "rearranges",
        "reshuffle",
        "regroup",
        "group",
        "groups",
        "realign",
        "pack",
        "place",
        "split",
    }
)


def _layout_subject(claim: Claim, title: str) -> bool:
    """True when the subject's claim names cache lines and the subject moves members ("move X to avoid spanning
    cachelines")."""
    return not CACHE_LINE_TERMS.isdisjoint(_words(claim.text)) and not LAYOUT_VERBS.isdisjoint(_words(title))


# Kinds told apart only roughly, so a CHECK: the claim sentence compares an architecture's own helper with the
# generic fallback ("this should be more efficient than the generic one": an instruction-count argument a
# reviewer takes on trust for arch code), or argues forward progress ("a strong forward progress guarantee could
# prevent needless retries, which would cause cache line bouncing": a correctness argument).
GENERIC_PHRASES = ("than the generic", "over the generic", "instead of the generic", "than the common")
PROGRESS_PHRASES = ("forward progress", "forward-progress", "livelock", "live-lock", "starvation")
_GENERIC_RE = lazyre.compile("|".join(re.escape(p) for p in GENERIC_PHRASES), re.IGNORECASE)
_PROGRESS_RE = lazyre.compile("|".join(re.escape(p) for p in PROGRESS_PHRASES), re.IGNORECASE)


def _argued_not_measured(patch: Patch, sentence: str) -> bool:
    """True when the claim's sentence is an arch helper weighed against the generic one, or a progress argument."""
    arch_only = bool(patch.files) and all(fd.path.startswith("arch/") for fd in patch.files)
    return (arch_only and _GENERIC_RE.search(sentence) is not None) or _PROGRESS_RE.search(sentence) is not None


def _whole_sentence_at(text: str, pos: int) -> str:
    """The whole sentence of ``text`` holding the character at ``pos`` (line breaks as spaces)."""
    for start, sentence in _sentences(text):
        if start <= pos < start + len(sentence):
            return " ".join(sentence.split())
    return ""


def _weak_subject_claim(claim: Claim, body_claim: Claim | None, own_body: str, patch: Patch) -> bool:
    """True when the only claim is the subject's and the changelog names no speed or cost at all ("badblocks:
    optimize _badblocks_check()" over "Check badblocks_empty earlier ..."): the subject word may mean "tidy" as
    well as "faster", and a small change explains itself. Not told apart cleanly: CHECK, not WARNING."""
    if body_claim is not None or claim.text.lower() not in OPTIMIZE_VERBS:
        return False  # "Improve performance", "avoid spanning cachelines", "faster" say speed in so many words
    if sum(fd.added_count + fd.removed_count for fd in patch.files) > SMALL_CHANGE_LINES:
        return False
    words = set(_words(_prose(own_body))) | set(_words(patch.subject.title))
    return not words & (SPEED_OR_COST_WORDS | SPEED_HINT_WORDS | PATH_TERMS | CACHE_LINE_TERMS)


def _merged_into_existing_loop(patch: Patch, own_body: str) -> bool:
    """True when the changelog says a separate pass is merged into a loop the code already has ("by merging the
    checks into existing loops") and the patch removes more lines than it adds: one walk less, nothing to weigh."""
    prose = _prose(own_body)
    if prose.isascii() and "existing" not in prose.lower():
        return False  # the cheap test: every merge the pattern finds says "existing" (beyond ASCII the pattern decides)
    if MERGED_INTO_EXISTING_RE.search(" ".join(prose.split())) is None:
        return False
    added = sum(fd.added_count for fd in patch.files)
    removed = sum(fd.removed_count for fd in patch.files)
    return removed > added


def _only_sysfs_handlers(view: PatchView) -> bool:
    """True when every changed hunk of C code is in a sysfs attribute's show/store function (its hunk header, or
    a ``sysfs_emit()`` in the hunk): run when someone reads a file, nothing a benchmark would see.

    A hunk's lines are searched in its diff text (each line with its ``+``/``-``/`` `` mark), without making its
    DiffLines: a call's name starts with none of the marks and holds no line break, so it is found there exactly
    when one line's text holds it."""
    hunks = [h for fv in view.files if fv.path.endswith(".c") for h in fv.hunks]
    return bool(hunks) and all(
        SYSFS_SECTION_RE.search(h.section or "") is not None or any(c in h.diff_text for c in SYSFS_CALLS)
        for h in hunks
    )


# Kind: the design goal of a new component: "sorts the requests by page, in order to minimize latency" in a patch
# that only adds files says what the new code is for; there is no old code to measure against. Build glue
# (Makefile, Kconfig, MAINTAINERS, documentation) may be modified next to the new files. A comparison with the
# code it replaces ("faster than the loop the driver uses today") is no purpose clause and stays a claim.
BUILD_GLUE_NAMES = ("Makefile", "Kbuild", "Kconfig", "MAINTAINERS")
BUILD_GLUE_SUFFIXES = (".rst", ".txt", ".yaml")
_PURPOSE_LEAD_RE = lazyre.compile(r"\bto[ \t\n]*$", re.IGNORECASE)  # "in order to", "so as to", "designed to"


def _only_new_code(patch: Patch) -> bool:
    """True when every changed source file of ``patch`` is added by it (build glue may be modified)."""
    sources = [
        fd
        for fd in patch.files
        if not fd.path.rsplit("/", 1)[-1].startswith(BUILD_GLUE_NAMES) and not fd.path.endswith(BUILD_GLUE_SUFFIXES)
    ]
    return bool(sources) and all(fd.status == "added" for fd in sources)


def _new_component_goal(patch: Patch, own_body: str, claim: Claim) -> bool:
    """True when the changelog's claim is a purpose clause ("... in order to minimize latency") of new code."""
    return _PURPOSE_LEAD_RE.search(own_body[max(0, claim.start - 20) : claim.start]) is not None and _only_new_code(
        patch
    )


def _size_numbers_only(text: str) -> bool:
    """True when ``text`` gives numbers about size or memory (``_SIZE_CONTEXT_RE``) and no measured speed."""
    sized = any(
        _DIGIT_RE.search(line) and _may_give_size(line) and _SIZE_CONTEXT_RE.search(line) and not _METRICS.search(line)
        for line in _own_lines(text)
    )
    return sized and _grade(text) != "measured"


# The cheap tests before two patterns of the finding's details: each match says "cache", "false" or "byte" (beyond
# ASCII the patterns decide: their IGNORECASE folds "ſ" and "ı" to ASCII letters).


def _mentions_cache_lines(text: str) -> bool:
    """True when ``text`` names cache lines or false sharing (_CACHE_MENTION_RE)."""
    low = text.lower()
    if text.isascii() and "cache" not in low and "false" not in low:
        return False
    return _CACHE_MENTION_RE.search(text) is not None


def _quotes_size_numbers(text: str) -> bool:
    """True when ``text`` quotes size numbers ("864 bytes ... 13 cachelines": SIZE_NUMBERS_RE)."""
    low = text.lower()
    if text.isascii() and "byte" not in low and "cache" not in low:
        return False
    return SIZE_NUMBERS_RE.search(text) is not None


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """One finding per patch whose claim has no measured evidence in the message, cover letter or thread."""
    if not patch.files or all(fd.path.startswith(NOT_RUNTIME_PATHS) for fd in patch.files):
        return []
    if not _may_claim(patch.subject.title) and not _may_claim(patch.commit_message):
        return []  # the cheap first test: no claim word in the subject or the changelog (most patches)
    own_body = "\n".join(_own_lines(patch.commit_message))
    # 1. the claim: in the subject, else in the changelog
    line = None
    subject_claim = find_subject_claim(patch.subject.title)
    body_claim = find_claim(own_body, title=patch.subject.title)
    claim = subject_claim if subject_claim is not None else body_claim
    if claim is None:
        return []
    if _not_a_speed_patch(patch, own_body, patch_view(patch, ctx)):
        return []  # a revert, a fix, a userspace project, a micro-optimisation explained: asked of claims only
    if subject_claim is None:
        if _new_component_goal(patch, own_body, claim):
            return []  # "in order to minimize latency" of code this patch adds: a design goal, nothing to compare
        line = patch.commit_start_line + own_body.count("\n", 0, claim.start)
    elif body_claim is None and _subject_claim_not_speed(patch, own_body):
        return []  # the changelog gives the patch's real reason: a fix, memory, an ABI change
    own_text = own_body + "\n" + patch.notes  # the changelog and the notes below "---", read by the steps below
    if _gain_called_limited(own_text):
        return []  # "this optimization provides limited efficiency improvements": the author weighed it already
    severity = Severity.CHECK if line is None and _weak_subject_claim(claim, body_claim, own_body, patch) else None
    if line is not None and _argued_not_measured(patch, _whole_sentence_at(own_body, claim.start)):
        severity = Severity.CHECK  # "more efficient than the generic one", "forward progress ... bouncing"
    if line is None and body_claim is None and _layout_subject(claim, patch.subject.title):
        severity = Severity.CHECK  # "move X to avoid spanning cachelines": the layout, RB101's business; labels differ
    if _may_hold(own_body, NOT_HOT_WORDS) and NOT_HOT_PATH_RE.search(own_body):
        return []  # "the locations are not on hot code path": the author says there is nothing to measure
    if _numbers_promised(own_text):
        return []  # "[ Numbers hopefully forthcoming ]": the author already said they come
    not_asked = _why_not_asked(patch, own_body, claim, body_claim)
    # 2. the evidence: changelog and notes, then the cover letter, then the author's replies
    grade = _grade(own_text)
    if grade == "measured":
        return []
    source = None
    # the cover letter's text, made once for the steps below (each looks it up in its cache by the text)
    cover_text = ctx.cover.commit_message + "\n" + ctx.cover.notes if ctx.cover is not None else ""
    if ctx.cover is not None:
        cover_grade = _grade_cover_text(cover_text, patch.subject.index)
        if cover_grade == "measured" or _evidence_by_reference(cover_text):
            source = "cover letter"
        grade = _best(grade, cover_grade)
    if source is None and _evidence_by_reference(patch.commit_message + "\n" + patch.notes):
        source = "linked results"  # "Please refer to [1] and [2] for benchmarks": published, linked
    thread_state = _thread_state(patch, ctx) if source is None else None  # numbers found already: no need to look
    if thread_state is FindingState.ANSWERED:
        source = "author's reply"
    # 3. the finding
    state = FindingState.ANSWERED if source else thread_state or FindingState.OPEN
    sub = _subsystem(patch)
    where = "the subject" if line is None else "the commit message"
    if source:
        message = f'{where} claims a speed-up ("{claim.text}"); the numbers are only in the {source}'
    else:
        message = f'{where} claims a speed-up ("{claim.text}") but shows no measurement (evidence: {grade})'
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
                "cache_lines": _mentions_cache_lines(patch.commit_message + patch.subject.title),
                # the author quotes size numbers ("864 bytes ... 13 cachelines"): ask for runtime numbers only
                "size_numbers": _quotes_size_numbers(_prose(own_body)),
                # the cover letter's only numbers are size or memory ("the used memory decreased by 20%"): the
                # draft asks for runtime numbers next to them instead of asking as if there were none
                "cover_size_numbers": source is None and ctx.cover is not None and _size_numbers_only(cover_text),
                # a claim a maintainer would not ask numbers for (the kinds of _why_not_asked): no draft
                NOT_ASKED_KEY: not_asked or None,
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
    if f.details.get("cache_lines") and not f.details.get("size_numbers"):
        contended = CONTENDED_LINES_RE.search(patch.subject.title + "\n" + patch.commit_message) is not None
        ideas.append(
            "perf c2c output showing less cache-line contention"
            if contended
            else "cache misses per call (perf stat -e cache-misses)"
        )
    ideas.append("or a micro measurement (cycles per call, a flame graph) before and after")
    # the draft quotes the changelog's claim when it has one, else the Subject line
    in_body = f.line is not None or find_claim(patch.commit_message) is not None
    said = "The changelog says" if in_body else "The subject says"
    share = (
        "; the size numbers are there, but could you also share runtime numbers for the speed part?"
        if f.details.get("size_numbers")
        else "; the cover letter's numbers are about memory and size, could you also share runtime numbers for "
        "the speed part?"
        if f.details.get("cover_size_numbers")
        else ", which sounds plausible, but could you share any performance numbers?"
    )
    text = (
        f"{said} this makes things faster{share} For example " + ", ".join(ideas) + ". Numbers with the machine "
        "and the method would help to weigh the gain against the added complexity."
    )
    if f.details.get("evidence") == "claim-only" and _LINK_RE.search(patch.commit_message + "\n" + patch.notes):
        text += " I may have missed them if they are only behind a link; quoting them in the changelog would help."
    return text


#: Why this point comes too late once another person gave Reviewed-by/Acked-by/Tested-by for the patch: the
#: drafter then records the finding as ``reviewed`` with this reason instead of drafting it
#: (``reviewbot.respond.runner.quiet_after_review``).
QUIET_AFTER_REVIEW = "asking for numbers after the review is late: the reviewers took the change on its merits"


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=(
        "numbers",
        "benchmark",
        "measure",
        "performance data",
        "perf data",
        "how much",
        "any data",
        "fio",
        "will-it-scale",
        "hackbench",
        "flame graph",
        "cycles",
        "quantitative",
        "expensive",
        "costly",
    ),
    asks=(
        "numbers, please",
        "numbers please",
        "any numbers",
        "some numbers",
        "have numbers",
        "the numbers",
        "benchmark numbers",
        "benchmark results",
        "performance numbers",
        "performance data",
        "perf numbers",
        "how much faster",
        "how much does",
        "how much of",
        "can you quantify",
        "any data",
        "measurements",
        "did you measure",
        "have you measured",
        "any benchmark",
        # asked in other words: "please provide quantitative data", "what is so expensive about X?"
        "quantitative",
        "so expensive about",
        "so costly about",
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
CONTENDED_LINES_RE = lazyre.compile(
    rf"false[ -]shar|\bc2c\b|bounc|ping[ -]?pong|(?:{_LINE})[\s\S]{{0,200}}?conten(?:d|tion)|conten(?:d|tion)[\s\S]{{0,200}}?(?:{_LINE})",
    re.I,
)


# The paragraph for one point, quoting the sentence with the claim and asking for the measurement that
# fits it (the drafter prefers reply_point() to reply()). The kinds, first match wins:
_KIND_WORDS = (
    # a lock implementation's speed is its behaviour contended and uncontended, not one call's cycles ("lock
    # contention on dd->lock" in a driver is its workload's: the throughput kind below)
    (
        "lock implementations",
        lazyre.compile(
            r"\bq(?:ueued[ -])?spin_?locks?\b|\bticket[ -]?(?:spin_?)?locks?\b|\bmcs[ -]?locks?\b|"
            r"\b(?:spin_?)?lock implementation",
            re.I,
        ),
        "lock benchmarks before and after, contended and uncontended (locktorture, or the lock tests of will-it-scale)",
    ),
    # work queued in bursts: a workload that makes the bursts, not one call's cycles
    (
        "bursts",
        lazyre.compile(r"\bburst", re.I),
        "numbers before and after from a workload that queues the work in bursts, with the burst size",
    ),
    (
        "instructions",
        lazyre.compile(
            r"micro[ -]?optimi|\binstructions?\b|\bbranch(?:es)?\b|code size|\blwsync\b|"
            r"\b(?:smp_)?[rw]?mb\(\)|\bbarriers?\b|\bfences?\b|\binlin",
            re.I,
        ),
        "cycles per call before and after, or a micro-benchmark of the function",
    ),
    # false sharing, lines bouncing between CPUs: what perf c2c shows
    (
        "contended cache lines",
        CONTENDED_LINES_RE,
        "perf c2c output before and after, showing the contended cache lines going away",
    ),
    # a field moved into a hot cache line, an array aligned: fewer lines touched, no contention to show
    (
        "cache lines touched",
        lazyre.compile(r"cache[ -]?lines?|cacheline", re.I),
        "cache misses before and after (perf stat -e cache-misses) under a benchmark that loads this path",
    ),
    (
        "latency",
        lazyre.compile(r"latenc|jitter|wake[ -]?up|response time|tail\b|stall|preempt", re.I),
        "a latency distribution before and after (cyclictest, or a histogram of this path's latency), not "
        "only an average",
    ),
    (
        "throughput",
        lazyre.compile(
            r"throughput|iops|bandwidth|MB/s|scal|contention|packets|requests|"
            r"transactions|ops/s",
            re.I,
        ),
        "throughput numbers before and after from a benchmark that loads this path",
    ),
    (
        "instructions",
        lazyre.compile(
            r"instruction|branch|inline|fast[ -]?path|hot[ -]?path|cycles|overhead|"
            r"cheaper|simplif|avoid|unnecessary|redundant|fewer|indirect call|"
            r"function call|compiler",
            re.I,
        ),
        "cycles per call before and after, or a micro-benchmark of the function",
    ),
)


# a claim of smaller code: the size delta is its measurement, and "the added code" is no weight against it
CODE_SIZE_RE = lazyre.compile(r"code[ -]size|text[ -]size|smaller code|binary size|image size|\bbloat", re.I)
CODE_SIZE_ASK = "the text size before and after (size vmlinux, or scripts/bloat-o-meter)"


_SHORTLOG_RE = lazyre.compile(r"^\S.*\(\d+\):\s*$", re.M)  # "Ada Example (3):" opens a cover letter's shortlog


def _claim_sentence(text: str) -> str:
    """The sentence of ``text`` holding its first claim (a cover letter's shortlog left out), else ""."""
    shortlog = _SHORTLOG_RE.search(text)
    if shortlog is not None:
        text = text[: shortlog.start()]
    claim = find_claim(text)
    if claim is None:
        return ""
    claim_end = claim.start + len(claim.text)
    starts = [i + 2 for i in (text.rfind(". ", 0, claim.start), text.rfind("\n\n", 0, claim.start)) if i >= 0]
    start = max(starts, default=0)
    ends = [i for i in (text.find(". ", claim_end), text.find("\n\n", claim_end)) if i >= 0]
    end = min(ends) + 1 if ends else len(text)
    sentence = " ".join(text[start:end].split()).rstrip()
    if len(sentence) > 160:
        words = sentence.split(" ")
        pos = len(" ".join(sentence[: sentence.lower().find(claim.text.lower())].split(" ")[:-1]).split(" "))
        lo = max(0, pos - 10)
        sentence = ("..." if lo else "") + " ".join(words[lo : lo + 24]) + ("..." if lo + 24 < len(words) else "")
    return sentence


def _series_claim_sentence(text: str, claim: str) -> str:
    """The sentence of a cover letter's ``text`` holding ``claim`` (the claim the series' patches make, the
    shortlog left out), else the sentence of its first claim (:func:`_claim_sentence`)."""
    shortlog = _SHORTLOG_RE.search(text)
    prose = text[: shortlog.start()] if shortlog is not None else text
    pos = " ".join(prose.lower().split()).find(" ".join(claim.lower().split())) if claim.strip() else -1
    if pos < 0:
        return _claim_sentence(text)
    flat = " ".join(prose.split())
    return _sentence_at(flat, pos)


def _cost_sentence(text: str) -> str:
    """The first sentence of the changelog ``text`` that names a speed or a cost without being a claim form
    ("in this case we can use a cheaper cpumask_copy() instead of cpumask_and()"), else "": under a claim said
    only in the subject, the draft quotes the author's reason rather than the subject line."""
    prose = _prose(text)
    hints = SPEED_OR_COST_WORDS | SPEED_HINT_WORDS | PATH_TERMS
    for p_start, paragraph in _paragraphs(prose):
        for s_start, sentence in _sentences(paragraph):
            if sentence.rstrip().endswith(":"):
                return ""  # "... using two tricks:" introduces a list: one item is no claim of the whole; the subject
            if not hints.isdisjoint(_words(sentence)) and not _HEADER_LINE_RE.match(sentence.lstrip()):
                return _sentence_at(prose, p_start + s_start + len(sentence) - len(sentence.lstrip()))
    return ""


_HEADER_LINE_RE = lazyre.compile(r"(?:Subject|From|Date|To|Cc|Message-ID):\s", re.IGNORECASE)


QUOTE_WORDS = 45  # the longest sentence a draft quotes whole
QUOTE_MIN_WORDS = 15  # a cut sentence keeps at least this many words


def _sentence_at(text: str, pos: int) -> str:
    """The sentence of ``text`` holding the character at ``pos``, at most QUOTE_WORDS words; a list item is a sentence
    of its own (no quote spliced across bullets), its bullet left out."""
    start, end = 0, len(text)
    for m in _SENTENCE_SPLIT_RE.finditer(text):
        if m.end() <= pos:
            start = m.end()
        elif m.start() >= pos:
            end = m.start()
            break
    words = _BULLET_RE.sub("", " ".join(text[start:end].split()), count=1).split(" ")
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
    own = "\n".join(_own_lines(patch.commit_message))
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
            sentence = _cost_sentence(
                own
            )  # "we can use a cheaper cpumask_copy()": the changelog's why, not the subject
    else:
        # the cover letter's sentence holding the claim the patches make (the finding's own words), else its
        # first claim: a background sentence before it ("CRC32 ... becomes far faster still with the CRC32
        # instructions") is about the hardware, not what this series claims
        sentence = _series_claim_sentence(patch.commit_message, str(f.details.get("claim") or ""))
    text_for_kind = f"{sentence} {f.details.get('claim', '')}"
    if not sentence:
        where = "The subject" if not series else "The cover letter's subject"
        sentence = " ".join(patch.subject.title.split())
        text_for_kind = f"{sentence} {_prose(own) if not series else ''}"  # the changelog says what kind
    if f.details.get("size_numbers"):
        text_for_kind = SIZE_NUMBERS_RE.sub(" ", text_for_kind)  # "14 cachelines" is the size, not contention
    ask = ""
    for kind, words, what in _KIND_WORDS:
        if words.search(text_for_kind):
            ask = what
            if kind == "cache lines touched" and f.details.get("suggest"):
                ask += f" ({f.details['suggest']})"
            if kind == "throughput":
                ask += (
                    f" ({f.details['suggest']}, or the workload that showed the problem)"
                    if f.details.get("suggest")
                    else " (the workload that showed the problem)"
                )
            break
    if not ask:
        ask = "numbers before and after from a benchmark that exercises this path"
    code_size = CODE_SIZE_RE.search(text_for_kind) is not None
    if code_size and ask.startswith("cycles per call"):
        ask = CODE_SIZE_ASK  # "better code size": the size delta, not one call's cycles
    elif code_size:
        ask += f", and {CODE_SIZE_ASK}"
    added = sum(fd.added_count for fd in patch.files)
    removed = sum(fd.removed_count for fd in patch.files)
    weigh = (
        "would help to weigh the gain against the added code"
        if added - removed > 20 and not code_size
        else "would help reviewers see the gain"
    )
    if sentence.endswith(".") and not sentence.endswith("..."):
        sentence = sentence[:-1]
    if f.details.get("cover_size_numbers") and not f.details.get("size_numbers"):
        # the cover letter's numbers are memory or size: ask for the speed part next to them
        text = (
            f'{where} says "{sentence}". The numbers in the cover letter are about memory and size; do you also '
            f"have runtime numbers for the speed part? For example, {ask}. Numbers with the machine and the "
            f"method {weigh}."
        )
    elif f.details.get("size_numbers"):
        # the author gave the size change already: asking "do you have numbers?" after it reads as not reading
        text = (
            f'{where} says "{sentence}". The size numbers show what the new layout saves; do you also '
            f"have runtime numbers for the speed part? For example, {ask}. Numbers with the machine and the "
            f"method {weigh}."
        )
    else:
        text = (
            f'{where} says "{sentence}". That sounds plausible, but do you have numbers? For example, '
            f"{ask}. Numbers with the machine and the method {weigh}."
        )
    if f.details.get("evidence") == "claim-only" and _LINK_RE.search(patch.commit_message + "\n" + patch.notes):
        text += " I may have missed them if they are only behind a link; quoting them in the changelog would help."
    return text
