"""RB102 barrier-without-pairing-comment: a new memory barrier whose comment does not say what it pairs with.

What it does
------------
Looks at every memory barrier *added* by the patch in a ``.c`` or ``.h`` file:
``smp_mb``, ``smp_rmb``, ``smp_wmb``, ``smp_store_mb``, ``smp_store_release``,
``smp_load_acquire``, ``smp_cond_load_*``, ``smp_mb__before_atomic``,
``smp_mb__after_atomic``, ``smp_mb__after_spinlock``,
``smp_acquire__after_ctrl_dep``, ``mb``, ``rmb``, ``wmb``, ``dma_mb``,
``dma_rmb``, ``dma_wmb``, the ``virt_*`` barriers and the ``__smp_*`` barrier
primitives (``__smp_mb()``..., outside the barrier headers; not other
functions named ``__smp_*`` such as ``__smp_text_poke_sync_each_cpu()``).
``check`` reads it in named steps:

1. ``_barrier_uses``: real calls on added lines only (not text inside
   comments or strings, not context or removed lines), outside the headers
   that implement the primitives (``arch/*/include/asm/barrier.h``,
   ``atomic*.h``, ``cmpxchg*.h``...; lock implementations such as
   ``spinlock.h``/``qspinlock.h`` are uses and are checked); a void barrier
   passed as an argument is a test of the primitive. ``smp_cond_load_relaxed()`` (and its ``_timeout`` form)
   orders nothing; files in ``NOT_USE_PATHS`` (KCSAN and lib/ tests, the
   generated atomic headers, userspace copies under tools/io_uring and
   liburing's src/ test/ examples/, whose other side is the kernel) are skipped.
2. ``_is_definition``: a ``#define`` of a barrier primitive, a multi-line macro
   implementing a primitive (``READ_ONCE`` copies under tools/), a macro
   applying a barrier to its own parameter (``store_release_wake_up()``),
   a function named like a barrier, and wrappers whose body only forwards to
   a barrier (``return smp_load_acquire(p);``, or a parameterless
   ``void rust_helper_smp_mb(void) { smp_mb(); }``) define an API, not a use.
   ``_is_primitive_or_lock``: in the bitops headers (``BITOPS_PATHS``), a barrier
   in a function named ``*_acquire``/``*_release``/``*_lock``/``*_unlock``
   (``test_bit_acquire()``) defines that primitive; an acquire in a
   ``*_lock()``/``*_trylock()`` or a release in a ``*_unlock()`` (or its
   ``*_unlock_slowpath()``) on the
   function's own lock parameter is the lock itself (other barriers there, an
   ``smp_mb()`` in a slow path, stay checked). ``_before_mmio_write``: an
   ``smp_wmb()`` followed within two statements by an MMIO write
   (``MMIO_WRITES``: ``writel()``, ``iowrite32()``, a driver's ``rd_writel()``)
   orders against the device: no SMP pairing question, a device-ordering note
   (``writel()`` orders already; ``writel_relaxed()`` wants ``wmb()``) unless a
   comment names a pair (a ``wmb()``
   there is a device barrier and step 7 asks what it orders).
3. ``_Moves``: a barrier the patch only moves (same call removed elsewhere),
   inlines or moves out of a function it removes whole, or edits in place
   (its arguments renamed in the same hunk) is not new. A barrier cut out of
   a function that stays into a new helper is new code, unless its comment
   block or the statement beside it moved with it
   (``blktrace_seq++; smp_mb();`` now in ``blk_trace_start()``: it orders
   the same accesses). A barrier only renamed or changed in type on a line
   of the same hunk (``read_barrier()`` -> ``smp_rmb()``) is not new (a removed
   line the hunk adds back as it was, re-indented, is kept: it is no other
   barrier's old spelling; a compiler ``barrier()`` made a CPU barrier,
   ``barrier();`` -> ``mb();`` in a ``set_pte()`` macro, is a new ordering to
   explain, as a macro that stores a pte and uses a barrier is a use, not a
   wrapper), nor one that copies, with
   the code line above and below it, three unchanged context lines of its
   file in the patch (``_copied_from_context``: the original stays as it is).
4. ``smp_mb__before_atomic()``/``smp_mb__after_atomic()`` next to
   ``atomic_set()``/``atomic_read()``/``WRITE_ONCE()`` (not a read-modify-write
   atomic) orders nothing (Documentation/atomic_t.txt): reported whatever the
   comment says.
5. ``_comment_texts``: the comment on the same line or the block ending on the
   line directly above (C89 or C99 style, also inside a macro with ``\\``
   continuations; for a barrier that is the body of an ``if``/``else``/loop
   line, above that line). A note one statement above that speaks of this
   barrier ("the smp_wmb() below pairs with ..."), or the comment above the
   function's header, counts when it plainly says "pairs with"; a note one
   statement above that names the barrier's object and points to a function
   ("head is RCU protected, see io_poll_remove_entries() comments" above
   ``rcu_read_lock(); head = smp_load_acquire(&poll->head);``) counts too.
6. ``_PatchPairs``: when a comment added elsewhere in the patch names this
   barrier and its function ("Paired with smp_load_acquire() in foo()"), the
   barrier's own comment still has to name its pair (the labels count it),
   but a reviewer would not ask (step 9a). When the patch adds both a
   release and the matching acquire on the same object and this one has no
   comment, the finding names that other side. The draft goes further
   (``_field_pair_in_patch``): a write side (``smp_wmb()``, a release) and a
   read side (``smp_rmb()``, an acquire) in two functions that reach one
   field by its member names (``zd->stats.seq`` and ``s->seq``,
   ``sk->sk_lock.owned`` through two pointers, a ``trigger_ptr`` parameter
   (``POINTER_SUFFIXES``) for ``&ctx->trigger``) "look like a pair", and each
   comment is asked to name the other. An ``smp_wmb()``/``smp_rmb()`` orders
   the members stored/loaded on the ``FIELD_NEIGHBOUR_LINES`` code lines
   around it, and counts only where the hunk shows its function's opening.
   ``_Elsewhere`` reads the pairing comments the patch, and the other patches
   of its series (``RuleContext.series``), add on other barriers: one that
   names this barrier's function ("pairs with cmpxchg in
   set_data_vio_compression_status") documents the pair at the other end (with
   a comment here saying why, the finding is not asked: step 9a); one that names no function but
   sits on a barrier of the same field ("pairs with barriers where state
   field is changed" after ``atomic_read(&vdo->state)`` in 33/39) is named in
   the draft as a question. A release whose statements carry the comment
   above them ("Store buffer group ID and finally mark the list as
   visible ...") says why, as its own comment would.
7. ``_comment_finding``: an SMP barrier (``smp_*``, ``__smp_*``, ``virt_*``)
   needs a comment that says what it pairs with: "pairs with", "paired
   with", "see foo()", "implied by ...", or the other side named: a function
   (``foo()``, or a name the patch shows as a function, without ``()``) or
   another barrier, or a diagram of the two CPUs in columns ("CPU 1  CPU 2"
   over each side's operations); an acquire or read barrier may name instead the store it
   waits for ("wait for the PG_mte_tagged flag to be set", "orders the stores
   to the ops structure": a read side's stores are the writer's), and a release or
   write barrier may say that other CPUs observe a store it names in an order
   ("All CPUs should observe the change of force_aperture after updating
   aperture_start": the readers, in memory-barriers.txt's terms). Naming only the
   barrier itself ("This virt_wmb() ensures ...") or only the function it sits
   in names no pair. A device barrier
   (``mb``/``rmb``/``wmb``, ``dma_*``) needs a comment that says what it
   orders: a thing (``ORDERED_THINGS``: descriptor, doorbell, index...), a
   code name, or "before/after X"; "Make sure that all write ops are in order"
   does not. ``_cpu_ordering``: a plain ``mb()``/``rmb()``/``wmb()`` in SMP
   or CPU hotplug code (``CPU_CODE_PATHS``: ``arch/*/kernel/smp.c``;
   ``CPU_CODE_FUNCTIONS``: ``*_cpu_die()``, ``play_dead()``), or right next to
   an access only another CPU makes (``CPU_ACCESSES``: ``WRITE_ONCE()``, an
   atomic, ``wait_event()``, a lock), with no device
   access (``DEVICE_ACCESSES``: ``readl``, ``iowrite32``, dma, descriptor,
   doorbell) within ``DEVICE_ACCESS_LINES`` lines orders against another CPU:
   the draft asks what it orders against that CPU, with no device example;
   beside such an access its comment is judged as its ``smp_`` form's
   (``_judged_as``: in SMP or hotplug code the function names the other CPU),
   the calls beside it being this side (``_this_side``).
8. Beyond checkpatch: when the comment names the other side ("pairs with
   smp_rmb() in foo()", "implied by ... from foo()", "see foo()") and foo() is
   added whole by this patch, or its hunk loses a barrier, the rule looks at
   that side; if it has no barrier nor an operation documented to imply one
   (value-returning atomics, ``test_and_set_bit``, ``xchg``/``cmpxchg``, lock
   acquire/release, ``wake_up``), it reports that the other side is missing.
9. Would a reviewer ask? The finding stays (the labels count the barrier), and
   ``details["not_asked"]`` says why a draft does not ask it (the drafter's
   skip ``not-asked``): ``_documented_pattern`` (9a): the
   ``clear_bit_unlock()``, ``smp_mb__after_atomic()``, ``wake_up_bit()``
   pattern (``DOCUMENTED_PATTERNS``), whose kernel-doc names the waiter's side;
   ``_other_end_in_view`` (9a): the barrier says why it is there (its own
   comment, or the comment above the statements it closes) and the patch shows
   its other end: a pairing comment elsewhere names it or its function, or the
   matching acquire/release on the same object is added with a comment too;
   ``_ordering_in_view``: a ``dma_wmb()``/``wmb()``
   without a comment between writes to memory (a store to a member or array
   element, a ``memcpy()``) and, within ``HANDOVER_LINES`` code lines, the
   write that hands them over (a store setting a flag bit, ``|= BD_DONE`` or
   ``= x | valid``; an MMIO write; a driver's ``*write*()`` given a register
   constant), as in memory-barriers.txt's ``dma_wmb()`` example, or right
   before the store of a flag constant; ``_points_elsewhere``: a comment
   that sends the reader to another ("See above"); ``_not_cpu_pairing``: an
   SMP barrier working around a CPU erratum named in the comment or the
   changelog, or ordering data before instructions are patched in
   (``INSTRUCTION_WORDS``): no barrier on another CPU to name;
   ``_copy_of_kept_code``: the barrier with the code line beside it copies
   two lines around an unchanged barrier of the same file (a function split
   in two), or sits in a new function that copies an unchanged commented
   barrier line of the file (a new handler made from an old one);
   ``_other_side_in_series``: a commented SMP barrier whose complementary
   side the patch (in another function) or its series adds with a comment
   speaking of the same thing (a word in common beyond
   ``COMMON_COMMENT_WORDS``); ``_same_point_earlier``: the same
   ``smp_mb__after_atomic()`` next to the same plain access in an earlier
   patch of the series (one draft per series). A ``wmb()``/``dma_wmb()``
   right before a ``writel()`` (not relaxed) is asked "is it needed?"
   (``_right_before_ordered_mmio``: ``writel()`` already orders earlier
   writes to memory), and a device barrier's question names what follows it
   (``_what_follows``: "before udma_sync_for_device() and
   k3_ringacc_ring_push()"; for a write barrier, the register write that
   hands over a few lines on, ``regmap_write()``) instead of a stock example.
10. ``_sure_or_not``: only the points a reviewer sends for sure are drafted
   (``SURE_PROBLEMS``: a barrier that orders nothing or orders twice, an SMP
   barrier before an MMIO write, a named other side without a barrier); a
   request for a pairing comment stays a finding (``details["unsure"]``).

Drafts name the other side whenever the patch shows one, as a question: an
acquire or release against a fully ordered RMW atomic on the same object in
another function (``PAIRING_RMWS``: the ``cmpxchg()`` that publishes a
lock-less list's node); the one acquire (or release) the patch adds elsewhere
when there is exactly one; a kernel idiom whose other side is known from the
calls around the barrier (``KNOWN_PAIRINGS``: the task_works check after
clearing ``TIF_NOTIFY_*``, ``__futex_unqueue()`` before releasing
``lock_ptr``, ``add_wait_queue()`` before an ``smp_mb()``). "I could not find
the other side" is said only when none of these, nor a barrier of the other
kind in the hunks, is there.

A barrier on an io_uring ring index shared with userspace
(``USERSPACE_RING_INDEXES``: ``rings->sq.head``, ``rq_ring->tail``,
``br->tail``) pairs with the application, never with kernel code in the
patch: the question says so (and suggests "Pairs with the application's
store-release of the tail") instead of "I could not find the other side".
Such a barrier with a comment saying what it orders ("make sure SQ entry
isn't read before tail") is left alone, as a device barrier would be. A read
barrier or acquire ending a wait for a bit to clear (``BIT_WAITS``:
``!test_bit()``, ``wait_on_bit()``; in ``__wait_on_bit()`` or
``buffer_locked()``) is the read side of a bit wait: when the patch shows no
write side, the question suggests the ``clear_bit_unlock()`` that releases
the bit as its usual other side.

Why it matters
--------------
A barrier orders accesses only against a matching barrier (or implied
barrier) on the other CPU. Without saying where that is, the next person
cannot check that the pairing still holds, and changes that remove "the other
side" go unnoticed. checkpatch.pl's ``MEMORY_BARRIER`` test accepts *any*
comment near the barrier, never reads it, and misses ``dma_*mb()``,
``smp_mb__after_spinlock()`` and the acquire/release family.

Example
-------
::

    +	WRITE_ONCE(req->flags, REQ_DONE);
    +	smp_mb();
    +	if (waitqueue_active(&fc->waitq))

Use instead
-----------
::

    +	/*
    +	 * Order the flag store against the waitqueue check. Pairs with the
    +	 * smp_mb() implied by test_and_set_bit() in queue_interrupt().
    +	 */
    +	smp_mb();

Known limits
------------
The series' other patches are read only when the pipeline gives them (``scan``
and ``check`` of a whole thread; the evaluation set holds one patch and its
cover letter). A barrier copied from existing code whose comment names its
pair, outside ``KNOWN_PAIRINGS``, is asked about like a new one: the patch
does not show the original.
Reads the diff only: a comment outside the hunk's context lines is not seen,
and the "other side" check runs only when the named function is added by the
patch or visibly loses a barrier in it. Whether a named pairing is *correct*
is left to the reviewer. A barrier whose arguments change in the same hunk is
taken for an edit of the old one, even when the patch means a new ordering;
so is a barrier replaced by another in place (``smp_mb__before_atomic()``
made ``smp_mb()``): it is not asked about, although the stronger barrier's
pairing may deserve a word (a compiler ``barrier()`` made a CPU barrier is
asked about: it orders against another CPU or the device for the first time).
A pairing comment at the other end is matched per comment line. A plain
barrier used for CPU-to-CPU ordering with no marked access beside it (``wmb()``
between plain stores of two threads) is judged as a device barrier: a comment
saying what it orders is enough (outside SMP and hotplug code the draft still
gives a device example). Two sides of one field
are matched by member names only: two structs with a member of the same name
can be taken for one field.
Step 9 judges from the hunk's lines and the series' added comments: a device
barrier's handover is recognised by its form (a flag bit set, an MMIO or
register write), not by knowing the device; a pointer comment ("See above") is
not followed; two comments of the series are taken for one pair by a word in
common. A wrong guess there costs a draft, never a finding.
"See" counts as a pointer wherever it stands: the verb ("threads ... see the
value before ...") is taken for "see foo()", and such a comment passes. An
acquire's or read barrier's comment that speaks of "the stores to X" is taken
for naming the writer's stores, even where it means its own later stores.

References
----------
* Documentation/memory-barriers.txt, "SMP barrier pairing"
* Documentation/atomic_t.txt (which atomics imply barriers)
* Documentation/process/submitting-patches.rst and checkpatch.pl MEMORY_BARRIER
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import replace
from typing import Any, Collection, Iterable, Iterator, Mapping, NamedTuple, Sequence

from reviewbot import lazyre
from reviewbot.cutil import (
    LazyScans,
    LineScan,
    comment_above,
    is_comment_only,
    normalise,
    scan_line,
    scan_lines,
    starts_in_comment,
)
from reviewbot.view import FileView, HunkView, PatchView, once, patch_view
from reviewbot.models import NOT_ASKED_KEY, UNSURE_KEY, Finding, FindingState, Hunk, LineKind, Message, Patch
from reviewbot.rule import RuleContext, RuleMeta, Scope, Severity

RULE = RuleMeta(
    id="RB102",
    name="barrier-without-pairing-comment",
    summary="Added memory barrier without a comment saying what it pairs with or orders",
    severity=Severity.WARNING,
    scope=Scope.HUNK,
    references=(
        "Documentation/memory-barriers.txt#smp-barrier-pairing",
        "Documentation/atomic_t.txt",
        "scripts/checkpatch.pl MEMORY_BARRIER",
    ),
)

# ------------------------------------------------------------------ barrier families
# The names a reviewer looks for. A name added here is checked like the others; a false
# positive is fixed by a word in one of the lists below and an example in rules/examples/RB102/.

#: SMP barriers: they order against another CPU, so their comment says what they pair with.
SMP_BARRIERS = (
    "smp_mb__before_atomic",
    "smp_mb__after_atomic",
    "smp_mb__after_spinlock",
    "smp_acquire__after_ctrl_dep",
    "smp_store_mb",
    "smp_store_release",
    "smp_load_acquire",
    r"smp_cond_load_\w+",
    "smp_mb",
    "smp_rmb",
    "smp_wmb",
)
#: The double-underscore primitives behind them (only these: ``__smp_text_poke_sync_each_cpu()`` is no barrier).
RAW_SMP_BARRIERS = (
    "__smp_mb__before_atomic",
    "__smp_mb__after_atomic",
    "__smp_store_mb",
    "__smp_store_release",
    "__smp_load_acquire",
    r"__smp_cond_load_\w+",
    "__smp_mb",
    "__smp_rmb",
    "__smp_wmb",
)
#: Barriers between a guest and its host: paired like SMP barriers.
VIRT_BARRIERS = (
    "virt_mb",
    "virt_rmb",
    "virt_wmb",
    "virt_store_mb",
    "virt_store_release",
    "virt_load_acquire",
    "virt_mb__before_atomic",
    "virt_mb__after_atomic",
)
#: Device (mandatory and DMA) barriers: their comment says what they order.
DEVICE_BARRIERS = ("dma_mb", "dma_rmb", "dma_wmb", "mb", "rmb", "wmb")

#: Spinning loads that give no ordering (``smp_cond_load_relaxed()``): not barriers at all.
NO_ORDERING = (
    "smp_cond_load_relaxed",
    "__smp_cond_load_relaxed",
    "smp_cond_load_relaxed_timeout",
    "smp_cond_load_relaxed_timewait",  # the same spin, bounded in time
)

#: Files whose barriers are not uses that pair with other kernel code: tests of the primitives
#: (a table of barriers under test), headers generated from scripts/atomic/, and userspace copies
#: (tools/io_uring, liburing's own src/ test/ examples/) whose other side is the kernel.
NOT_USE_PATHS = (
    r"kernel/kcsan/kcsan_test\.c",
    r"kernel/kcsan/selftest\.c",  # the KCSAN boot-time selftest: its barriers are what it tests
    r"lib/(?:[\w/-]*/)?[\w-]*test[\w-]*\.[ch]",
    r"include/linux/(?:atomic/)?atomic-[\w-]+\.h",
    r"scripts/atomic/.*",
    r"tools/io_uring/.*",
    r"(?:src|test|examples)/.*",
)
_NOT_USE_PATH_RE = lazyre.compile("^(?:" + "|".join(NOT_USE_PATHS) + ")$")

_SMP = "|".join(SMP_BARRIERS + RAW_SMP_BARRIERS + VIRT_BARRIERS)
_DEVICE = "|".join(DEVICE_BARRIERS)
# a call: not a member (->mb(, .mb(), not part of a longer identifier
# (the leading lookahead names the first letters of every barrier name: a quick skip for re)
BARRIER_RE = lazyre.compile(r"(?=[smvdrw_])(?<![\w.>$])(" + _SMP + "|" + _DEVICE + r")\s*\(")

#: Step 0, the words a barrier call holds: a barrier whose name ends in "mb" (``smp_mb``, ``wmb``,
#: ``dma_rmb``, ``virt_store_mb``...) is called as "mb(" (blanks allowed before the "("); every other
#: barrier of the families above holds one of these words. A patch whose added lines name none of them
#: has nothing for RB102 (tests/test_rb102_barrier_words.py holds every family to this list).
BARRIER_WORDS = (
    "smp_mb__",
    "smp_acquire__",
    "smp_store_release",
    "smp_load_acquire",
    "smp_cond_load_",
    "virt_mb__",
    "virt_store_release",
    "virt_load_acquire",
)
_MB_CALL_RE = lazyre.compile(r"mb\s*\(")
_SMP_NAME_RE = lazyre.compile(r"^(?:" + _SMP + r")$")
# "#define smp_foo(...)" or "static inline void smp_foo(...)": defining a barrier, not using it
_DEFINE_RE = lazyre.compile(r"^\s*#\s*define\s+(\w+)")
_FUNC_DEF_RE = lazyre.compile(r"^\s*(?:static\s+)?(?:inline\s+|__always_inline\s+)*[\w\s\*]*?\b(\w+)\s*\([^;]*$")
_PRIMITIVE_RE = lazyre.compile(r"^(?:__)?(?:smp|dma|virt)_\w*(?:mb|acquire|release|barrier)\w*$")
_BARRIER_HEADER_RE = lazyre.compile(r"(?:^|/)(?:barrier\.h|atomic[\w-]*\.h|cmpxchg[\w-]*\.h)$")
# headers that implement the primitives themselves: their barriers are the implementation (lock
# implementations such as spinlock.h/qspinlock.h are not: their barriers are uses that need a pairing comment)
_PRIMITIVE_HEADER_RE = lazyre.compile(
    r"^(?:arch/[^/]+/include/asm/|include/asm-generic/|tools/(?:arch/[^/]+/)?include/asm/)"
    r"(?:[\w/-]*/)?(?:barrier|atomic[\w-]*|cmpxchg[\w-]*|bitops[\w-]*|"
    r"rwonce|io|mmio[\w-]*|percpu)\.h$"
)
_CONTROL_RE = lazyre.compile(r"^\s*(?:\}\s*)?(?:if\b|else\b|for\b|while\b|do\b|switch\b|case\b|default\b)|^\s*[{}]\s*$")
_VOID_BARRIER_RE = lazyre.compile(
    r"^(?:smp_mb|smp_rmb|smp_wmb|mb|rmb|wmb|dma_mb|dma_rmb|dma_wmb|smp_mb__\w+|virt_[rw]?mb\w*)$"
)

#: Phrases that say what a barrier pairs with ("pairs with", "see foo()", "the reader side").
PAIRING_PHRASES = (
    r"\bpair(?:s|ed|ing)?\b",
    r"\bmatch\w{0,3}\b",  # matches, matched, matching, and misspelt ("D, matchees A")
    r"\bimplie[sd]\b",
    r"\bimplicit\b",
    r"\bsee\s+\S",
    r"\bcounterpart\b",
    r"\bother\s+side\b",
    r"\bpartner\b",
    r"\bagainst\b(?:(?!\bagainst\b).)*\(\)",  # tempered: stops at the next "against" (linear)
    r"\bsynchroni[sz]es?\s+with\b",
    r"\border(?:s|ed|ing)?\b(?:(?!\border(?:s|ed|ing)?\b).)*\bagainst\b",  # tempered likewise
    r"\bvs\.?\s",
    r"\brac(?:e|es|ing)\s+with\b",
    # both halves in memory-barriers.txt's words: "another task publishes it executing a RELEASE barrier; we need
    # smp_load_acquire() here to ACQUIRE it" (the barrier's own name, smp_load_acquire, is no word "acquire")
    r"\bacquire\b(?:(?!\bacquire\b).)*\brelease\b|\brelease\b(?:(?!\brelease\b).)*\bacquire\b",  # tempered (linear)
    r"\b(?:reader|writer|consumer|producer|waker|waiter|read|write|update|updater|vdso|user|userspace|other|"
    r"remote|submission|completion|irq|interrupt|kernel|application|app)[\s-]+sides?\b",
    # a diagram of the two CPUs, their headings side by side in columns ("CPU 1<tabs>CPU 2", "CPU0    CPU1"):
    # the other column names the other side's operations, as memory-barriers.txt draws a pairing
    r"\b(?:CPU|thread|task)\s?[0-9A-Z]\b[^\n.]{0,30}?[ \t]{2,}(?:CPU|thread|task)\s?[0-9A-Z]\b",
)
_PAIRING_RE = lazyre.compile("|".join(PAIRING_PHRASES), re.IGNORECASE)
_FUNC_NAMED_RE = lazyre.compile(r"\b([A-Za-z_]\w*)\s*\(\)")
_BARRIER_NAMED_RE = lazyre.compile(r"(?<![\w.>$])(?:" + _SMP + "|" + _DEVICE + r")\b")
_WORD_RE = lazyre.compile(r"[A-Za-z]{2,}")
_TRIVIAL_RE = lazyre.compile(
    r"^\s*(?:(?:full|memory|write|read|smp|dma|a|the)\s*)*(?:barrier|mb|rmb|wmb)s?\s*[.!]?\s*$", re.I
)

# operations documented to imply a full barrier or acquire/release ordering
_IMPLYING_RE = lazyre.compile(
    r"\b(?:test_and_set_bit|test_and_clear_bit|test_and_change_bit|test_and_set_bit_lock|"
    r"xchg\w*|cmpxchg\w*|try_cmpxchg\w*|atomic\w*_(?:inc|dec|add|sub|and|or|xor|fetch)\w*_return\w*|"
    r"atomic\w*_fetch_\w+|atomic\w*_(?:inc|dec|sub|add)_and_test|atomic\w*_xchg|atomic\w*_cmpxchg|"
    r"refcount_dec_and_test|spin_lock\w*|spin_unlock\w*|raw_spin_lock\w*|raw_spin_unlock\w*|mutex_lock\w*|"
    r"mutex_unlock|up_write|down_write|up_read|down_read|wake_up\w*|set_current_state|llist_add|"
    r"smp_store_release|smp_load_acquire|\w+_acquire|\w+_release|complete|wait_event\w*|try_to_wake_up)\s*\("
)


_DEFINE_BODY_RE = lazyre.compile(r"^\s*#\s*define\s+\w+(?:\(([^()]*)\))?[ \t]*(.*)$")
_ONE_LINE_FUNC_RE = lazyre.compile(r"^[A-Za-z_][\w\s\*]*\b\w+\s*\(([^;{}]*)\)\s*\{(.*)\}\s*$")
_HEADER_PARAMS_RE = lazyre.compile(r"\b\w+\s*\(([^;{}()]*)\)\s*\{?\s*$")


def _param_names(params: str) -> set[str]:
    """Names of a macro's or function's parameters: ``const struct s *p, int n`` -> {p, n}."""
    out = set()
    for part in params.split(","):
        m = re.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*$", part)
        if m and m.group(1) not in ("void", "..."):
            out.add(m.group(1))
    return out


def _forwarded_barrier(expr: str, params: set[str], returned: bool = False) -> bool:
    """True when ``expr`` is one call of a barrier primitive on the wrapper's own parameter.

    ``smp_cond_load_acquire_timewait(v, c, 0ULL, 1ULL, 0)`` with parameter ``v``,
    ``smp_store_release((l), 1)``, ``smp_mb()``; with ``returned``, only the
    form ``return smp_load_acquire(p);``. The text forwards the caller's object
    to the barrier (an API); a call on a fixed object
    (``smp_load_acquire(&inode->i_info)``) is a use of its own and needs a comment.
    """
    text = expr.strip()
    if returned:
        if not (text.startswith("return") and text[6:7] in (" ", "\t", "(")):
            return False
        text = text[6:].strip()
    text = text.rstrip(";").strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    m = BARRIER_RE.match(text)
    if m is None:
        return False
    depth = 0
    args_start = m.end()
    for pos in range(m.end() - 1, len(text)):
        ch = text[pos]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                if text[pos + 1 :].strip():
                    return False
                first = _first_arg(text[args_start:pos])
                return not first or first in params
    return False


def _first_arg(args: str) -> str:
    """The first argument of a call's argument text, without ``&`` and parentheses around it."""
    depth = 0
    end = len(args)
    for pos, ch in enumerate(args):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            end = pos
            break
    first = args[:end].strip()
    while True:
        if first.startswith("(") and first.endswith(")"):
            first = first[1:-1].strip()
        elif first.startswith(("&", "*")):
            first = first[1:].strip()
        else:
            return first


def _is_wrapper(scans, texts: Sequence[str], idx: int) -> bool:
    """Does added line ``idx`` define a wrapper around a barrier primitive rather than use one?

    Two kinds: a macro whose body is only a call of a barrier primitive on
    one of its parameters (``#define res_smp_cond_load_acquire(v, c)
    smp_cond_load_acquire_timewait(v, c, 0ULL, 1ULL, 0)``, also with the body
    on the continuation line), and a function whose body is only
    ``[return] barrier(param...);`` or a parameterless ``barrier();``
    (``void rust_helper_smp_mb(void) { smp_mb(); }``), on one line or as
    ``{`` / the statement / ``}`` at column 0. Such a line defines an API; the comment about pairing
    belongs to its callers.
    """
    code = scans[idx].code.rstrip()
    dm = _DEFINE_BODY_RE.match(code)
    if dm:
        return _forwarded_barrier(dm.group(2), _param_names(dm.group(1) or ""))
    if idx > 0 and not code.endswith("\\"):
        prev = scans[idx - 1].code.rstrip()
        pm = _DEFINE_BODY_RE.match(prev)
        if pm and prev.endswith("\\") and not pm.group(2)[:-1].strip():
            return _forwarded_barrier(code, _param_names(pm.group(1) or ""))
    fm = _ONE_LINE_FUNC_RE.match(code)
    if fm and not _CONTROL_RE.match(code):
        return _forwarded_barrier(_strip_return(fm.group(2)), _param_names(fm.group(1)))

    def neighbour(start: int, step: int) -> int | None:
        j = start + step
        while 0 <= j < len(scans):
            if scans[j].code.strip():
                return j
            j += step
        return None

    before, after = neighbour(idx, -1), neighbour(idx, 1)
    if before is None or after is None or not texts[after].startswith("}"):
        return False
    opening = texts[before]
    if opening.startswith("{"):
        header = neighbour(before, -1)
        opening = texts[header] if header is not None else ""
    elif not (opening[:1].isalpha() and opening.rstrip().endswith("{")):
        return False
    hm = _HEADER_PARAMS_RE.search(opening)
    if hm is None or _CONTROL_RE.match(opening):
        return False
    return _forwarded_barrier(_strip_return(code), _param_names(hm.group(1)))


def _strip_return(text: str) -> str:
    """A statement without a leading ``return``: ``return smp_load_acquire(p);`` -> ``smp_load_acquire(p);``."""
    text = text.strip()
    if text.startswith("return") and text[6:7] in (" ", "\t", "("):
        return text[6:].strip()
    return text


def _is_c(path: str) -> bool:
    return path.endswith((".c", ".h"))


def _new_side(hunk: Hunk | HunkView) -> list:
    added, context = LineKind.ADDED, LineKind.CONTEXT
    return [dl for dl in hunk.lines if dl.kind is context or dl.kind is added]


def _lines_holding(text: str, words: Sequence[str]) -> list[int]:
    """The indices of the lines of ``text`` (lines joined by newlines) that hold one of ``words``, in order."""
    found: set[int] = set()
    for word in words:
        line, seen = 0, 0  # the line of position ``seen``
        pos = text.find(word)
        while pos >= 0:
            line += text.count("\n", seen, pos)
            found.add(line)
            seen = text.find("\n", pos)
            if seen < 0:
                break
            pos = text.find(word, seen)
    return sorted(found)


def _is_smp(name: str) -> bool:
    return bool(_SMP_NAME_RE.match(name))


def _comment_ok(name: str, comment: str, known=frozenset(), here: Collection[str] = ()) -> bool:
    """Does ``comment`` do its job for barrier ``name``?

    An SMP barrier's comment must speak of pairing (``_PAIRING_RE``) or name
    the other side: a function (``foo()``, or a name the patch shows as a
    function in ``known``, without the parentheses, other than those in ``here``:
    this side's, the function holding the barrier and the calls beside it) or another barrier; naming only the barrier
    itself ("This virt_wmb() ensures ...") does not. A device
    barrier's comment must say in a few words what it orders.
    """
    text = comment.strip()
    if not text or _TRIVIAL_RE.match(text):
        return False
    if _is_smp(name):
        if _PAIRING_RE.search(text):
            return True
        if _barrier_side(name) in ("acquire", "read") and _names_awaited_store(text, name):
            return True
        if _barrier_side(name) in ("release", "write") and _names_observed_store(text, name):
            return True
        named = {m.group(1) for m in _FUNC_NAMED_RE.finditer(text)} | {
            m.group(0) for m in _BARRIER_NAMED_RE.finditer(text)
        }
        named |= {w for w in _IDENT_RE.findall(text) if w not in here and w in known}
        return bool(named - {name})
    return _says_what_it_orders(text)


def _says_what_it_orders(text: str) -> bool:
    """Does a comment say in a few words what a barrier orders ("the descriptor writes before the doorbell",
    "make sure SQ entry isn't read before tail", "prevent out-of-order reads of the CQE", "ensure that PTEs
    cleared by the current CPU are visible beforehand")?"""
    return len(_WORD_RE.findall(text)) >= 3 and bool(
        _ORDERED_THING_RE.search(text)
        or _IDENT_RE.search(text)
        or _ORDERED_AGAINST_RE.search(text)
        or _ORDERED_ACCESS_RE.search(text)
    )


#: How a read-side comment names the store it waits for: "wait for the PG_mte_tagged flag to be set",
#: "once ZED_READY is set", "the keys written by zed_publish()", or as a noun, "the barrier for ops_ptr
#: synchronizes the data stores for the ops structure" (a read side orders loads: the stores it speaks
#: of are the writer's). That store (a release, or a write barrier before it) is the other side.
AWAITED_STORE_PHRASES = (
    r"\b(?:stores|writes|updates)\s+(?:to|of|for|into)\b",
    r"\bto\s+be\s+(?:set|cleared|written|published|stored|released|updated)\b",
    r"\b(?:is|are|was|were|has\s+been|have\s+been|gets?|got)\s+(?:set|cleared|written|published|stored|released)\b",
    r"\b(?:set|cleared|written|published|stored|released)\s+by\b",
)
_AWAITED_STORE_RE = lazyre.compile("|".join(AWAITED_STORE_PHRASES), re.IGNORECASE)


def _names_awaited_store(text: str, name: str) -> bool:
    """Does an acquire's (or read barrier's) comment name, in one sentence, the code name (``PG_mte_tagged``,
    ``ZED_SLOT_READY``) of the store it waits for? "wait until it is done" names nothing."""
    for sentence in re.split(r"(?<=[.;:!?])\s+", text):
        if _AWAITED_STORE_RE.search(sentence) and any(w != name for w in _IDENT_RE.findall(sentence)):
            return True
    return False


#: How a write side's comment names its readers and the order they see, in memory-barriers.txt's terms: "All CPUs
#: should observe the change of force_aperture after updating aperture_start" (the other CPUs' loads are the pair).
_OBSERVED_STORE_RE = lazyre.compile(
    r"\b(?:cpus?|readers?|observers?|others)\b[^.;]{0,40}?\b(?:observes?|sees?)\b[^.;]{0,80}?\b(?:after|before)\b",
    re.IGNORECASE,
)


def _names_observed_store(text: str, name: str) -> bool:
    """Does a release's (or write barrier's) comment say, in one sentence, that other CPUs observe a store it
    names by its code name (``force_aperture``) in an order ("after updating ...")? "so that others see it in
    order" names nothing."""
    for sentence in re.split(r"(?<=[.;:!?])\s+", text):
        if _OBSERVED_STORE_RE.search(sentence) and any(w != name for w in _IDENT_RE.findall(sentence)):
            return True
    return False


#: "... before the cpu parks", "after reading the status": the comment names the other access or event.
_ORDERED_AGAINST_RE = lazyre.compile(
    r"\b(?:before|after|prior\s+to|ahead\s+of|against)\s+\w+|\bvisible\s+(?:beforehand|first)\b", re.IGNORECASE
)
#: "reads of the CQE", "writes to the ring", "CPU writes are flushed to BAR1": the comment names the accesses by
#: what they reach ("all write ops" names nothing).
_ORDERED_ACCESS_RE = lazyre.compile(
    r"\b(?:reads?|writes?|loads?|stores?|accesses|updates?)\s+"
    r"(?:(?:are|is|have\s+been|get|got)\s+(?:flushed|posted|pushed|written|committed|visible)\s+)?"
    r"(?:of|to|from|into)\s+(?:the\s+|this\s+|that\s+)?\w+",
    re.IGNORECASE,
)


#: What a device barrier's comment names as the things it orders ("the descriptor writes before the
#: doorbell"); "make sure all write ops are in order" names none of them.
ORDERED_THINGS = (
    "descriptors?",
    "desc",
    "doorbells?",
    "registers?",
    "regs?",
    "rings?",
    "buffers?",
    "bufs?",
    "index",
    "indices",
    "idx",
    "tail",
    "head",
    "pointers?",
    "entry",
    "entries",
    "commands?",
    "cmds?",
    "status",
    "flags?",
    "owner(?:ship)?",
    "payload",
    "data",
    "memory",
    "mailbox",
    "firmware",
    "fw",
    "hardware",
    "hw",
    "device",
    "dev",
    "dma",
    "mmio",
    "i/o",
    "io",
    "queues?",
    "interrupts?",
    "irqs?",
    "producer",
    "consumer",
    "counters?",
    "values?",
    "fields?",
    "header",
    "packets?",
    "frames?",
    "requests?",
    "responses?",
    "messages?",
    "bits?",
    "state",
    "sequence",
    "completion",
    "page",
    "table",
    "pte",
    "tlb",
    "cache",
    "writel",
    "readl",
    "iowrite\\d*",
    "ioread\\d*",
)
_ORDERED_THING_RE = lazyre.compile(r"\b(?:" + "|".join(ORDERED_THINGS) + r")s?\b", re.IGNORECASE)  # PTEs, TLBs


_IDENT_RE = lazyre.compile(r"(?<![.>\w])[A-Za-z_]\w*_\w*\b")  # a code name (has an underscore), not a member


_CALL_ARGS_RE = lazyre.compile(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


def _follows_open_or_comma(code: str, pos: int) -> bool:
    """True when the last non-blank character before ``pos`` is ``(`` or ``,`` (an argument position).

    Looks back over the blanks only (a slice of the line per barrier made a line of n barriers n*n).
    """
    i = pos - 1
    while i >= 0 and code[i].isspace():
        i -= 1
    return i >= 0 and code[i] in "(,"


def _moved_keys(code: str) -> list[str]:
    """Keys that identify the barrier(s) of one line for "moved unchanged" matching.

    A barrier with arguments is identified by its call text (``smp_load_acquire(&b->state)``),
    so rewriting the condition around it does not make it new; one without
    arguments (``smp_mb()``) by the whole normalised line.
    """
    keys = []
    line_key = ""  # made once: a line of n smp_mb() calls must not normalise the line n times
    for m in BARRIER_RE.finditer(code):
        am = _CALL_ARGS_RE.match(code, m.end() - 1)
        args = normalise(am.group(1)) if am else ""
        line_key = line_key or ("" if args else "line:" + normalise(code))
        keys.append(f"{m.group(1)}({args})" if args else line_key)
    return keys


def _removes_lines(diff: FileView | HunkView) -> bool:
    """Does the file (or hunk) remove lines? Not when its hunks start at old line 0 (a new file): then its
    removed text is not worth joining."""
    hunks = diff.hunks if isinstance(diff, FileView) else (diff,)
    return any(h.hunk.old_len for h in hunks)


def _removed_counter(view: PatchView) -> Counter:
    counter: Counter = Counter()
    for fd in view.files:
        if not _removes_lines(fd):
            continue
        for hunk in fd.hunks:
            if not _names_a_barrier(hunk.diff_text):
                continue  # step 0 for the hunk: no line of any kind names a barrier (its lines joined as they are)
            if not _names_a_barrier(hunk.removed_text) or not BARRIER_RE.search(hunk.removed_text):
                continue  # no removed line holds a barrier (one search over the hunk's removed text)
            scans = LazyScans(hunk.removed_texts, in_comment=False)
            for i in _barrier_lines(hunk.removed_text):
                for key in _moved_keys(scans[i].code):
                    counter[key] += 1
    return counter


def _whole_functions(texts: Sequence[str], changed: Sequence[bool]) -> list[tuple[int, int, bool]]:
    """Functions written whole in the changed lines of one side of a hunk: ``(brace, end, closed)``.

    ``texts`` are the side's lines, ``changed`` tells which of them the patch changes (added on the new
    side, removed on the old one). A function counts when its header line at column 0 and its opening
    ``{`` are changed lines; its body runs from ``brace + 1`` up to ``end``, the changed line starting
    with ``}`` (``closed``), or the first unchanged line (not ``closed``).
    """
    spans: list[tuple[int, int, bool]] = []
    i = 0
    n = len(texts)
    while i < n:
        text = texts[i]
        if (
            changed[i]
            and text[:1].isalpha()
            and _FUNC_DEF_RE.match(text)
            and "=" not in text
            and not text.rstrip().endswith(";")
        ):
            j = i
            while j < n and changed[j] and "{" not in texts[j]:
                j += 1
            if j < n and changed[j] and texts[j].rstrip().endswith("{"):
                k = j
                while k < n and changed[k] and not texts[k].startswith("}"):
                    k += 1
                spans.append((j, k, k < n and changed[k]))
                i = k + 1
                continue
        i += 1
    return spans


def _body_key(texts: Sequence[str], brace: int, end: int) -> tuple[str, ...]:
    """A function body's lines modulo whitespace, blank lines left out."""
    return tuple(t for t in (normalise(texts[b]) for b in range(brace + 1, end)) if t)


def _in_new_function(hunk: HunkView, removed_bodies: frozenset = frozenset()) -> list[bool]:
    """For each new-side line of a hunk: is it inside a function the patch adds whole?

    A function counts as added whole when its header line at column 0 and its
    opening ``{`` are added lines; it ends at the added ``}`` at column 0. A
    function whose body (modulo whitespace) is the body of a function the patch
    removes whole (``removed_bodies``, any file) is moved, not new: its lines
    are False. A function moved to another header, renamed or not, keeps its
    barriers' meaning; a helper holding lines cut out of a bigger function, or
    a body that changed, does not.
    """
    new = hunk.new_texts
    flags = [False] * len(new)
    for brace, end, closed in _whole_functions(new, hunk.new_added):
        if closed and _body_key(new, brace, end) in removed_bodies:
            continue
        for b in range(brace, end):
            flags[b] = True
    return flags


def _removed_bodies(view: PatchView) -> frozenset:
    """Bodies (see :func:`_body_key`) of the functions the patch removes whole, in its C files."""
    out = set()
    for fd in view.files:
        if not _is_c(fd.path) or not _removes_lines(fd):
            continue
        for hunk in fd.hunks:
            if "-}" not in hunk.diff_text:
                continue  # no removed line closes a function ("}" at column 0): none removed whole
            removed = hunk.removed_text
            if "(" not in removed or "{" not in removed or "}" not in removed:
                continue  # no removed header "name(", opening "{" and closing "}": no function removed whole
            old = hunk.old_texts
            for brace, end, closed in _whole_functions(old, hunk.old_removed):
                if closed:
                    out.add(_body_key(old, brace, end))
    return frozenset(out)


def _function_bodies(hunk: HunkView) -> dict[str, list[str]]:
    """Functions one hunk adds whole: name -> code lines of the body (new side).

    A function counts when its header (at column 0, possibly over several
    lines) and everything up to the closing ``}`` at column 0 are added lines;
    a function interleaved with context lines is not judged.
    """
    bodies: dict[str, list[str]] = {}
    added = hunk.added_text
    if "(" not in added or "{" not in added or not (added.startswith("}") or "\n}" in added):
        return bodies  # no added header "name(", opening "{" and closing "}" (at column 0): no whole function
    texts, added_at = hunk.new_texts, hunk.new_added
    n = len(texts)
    i = 0
    while i < n:
        text = texts[i]
        m = _FUNC_DEF_RE.match(text) if added_at[i] and text[:1].isalpha() else None
        if m is None or "=" in text or text.rstrip().endswith(";"):
            i += 1
            continue
        j = i
        while j < n and added_at[j] and "{" not in texts[j] and ";" not in texts[j]:
            j += 1
        if not (j < n and added_at[j] and texts[j].rstrip().endswith("{")):
            i = j + 1
            continue
        k = j + 1
        body: list[str] = []
        while k < n and added_at[k] and not texts[k].startswith("}"):
            body.append(texts[k])
            k += 1
        if k < n and added_at[k]:
            bodies[m.group(1)] = body
        i = k + 1
    return bodies


_PAIR_TARGET_RE = lazyre.compile(
    r"(?:\bpair(?:s|ed|ing)?\b|\bpair\s+is\b|\bmatch\w{0,3}\b|\bimplied\s+by\b|\bsee\b|\bcorresponding\b|"
    r"\bcounterpart\b|\bother\s+side\b)([^.;]*)",
    re.IGNORECASE,
)


def _pair_targets(comment: str) -> list[str]:
    """Functions named as the other side: the first non-barrier ``foo()`` after a pairing phrase."""
    out: list[str] = []
    for m in _PAIR_TARGET_RE.finditer(comment):
        for name in _FUNC_NAMED_RE.findall(m.group(1)):
            if BARRIER_RE.match(name + "(") or _IMPLYING_RE.match(name + "("):
                continue
            out.append(name)
            break
    return list(dict.fromkeys(out))


def _hunks_losing_barrier(view: PatchView) -> dict[str, bool]:
    """Function name (from hunk sections) -> True when its hunks remove a barrier and add none."""
    result: dict[str, bool] = {}
    for fd in view.files:
        for hunk in fd.hunks:
            m = re.search(r"\b(\w+)\s*\(", hunk.section or "")
            if not m:
                continue
            removed = (
                _removes_lines(hunk)
                and bool(BARRIER_RE.search(hunk.diff_text))  # no line of any kind calls a barrier: none removed
                and bool(BARRIER_RE.search(hunk.removed_text))
                and any(BARRIER_RE.search(text) for text in hunk.removed_texts)
            )
            # "kept" only matters for a hunk that loses a barrier
            kept = removed and any(BARRIER_RE.search(text) or _IMPLYING_RE.search(text) for text in hunk.new_texts)
            name = m.group(1)
            result[name] = result.get(name, False) or (removed and not kept)
    return result


_NON_RMW_RE = lazyre.compile(r"\b(atomic(?:64|_long)?_(?:set|read)(?:_release|_acquire)?|WRITE_ONCE|READ_ONCE)\s*\(")
_RMW_RE = lazyre.compile(
    r"\b(?:atomic(?:64|_long)?_(?!set\b|read\b)\w+|(?:__)?(?:set|clear|change)_bit|test_and_\w+|refcount_\w+|"
    r"\w*xchg\w*|\w+_inc|\w+_dec)\s*\("
)


def _neighbour_op(scans, idx: int, step: int) -> str | None:
    """The non-RMW access (``atomic_set``, ``atomic_read``, ``WRITE_ONCE``...) on the code line next to ``idx``.

    ``step`` is -1 for the line above (smp_mb__after_atomic), +1 for the one
    below (smp_mb__before_atomic); blank and comment-only lines are skipped.
    None when that line holds an RMW atomic or bitop, or no such access.
    """
    j = idx + step
    while 0 <= j < len(scans):
        code = scans[j].code.strip().rstrip("\\").strip()
        if code and code not in ("{", "}"):
            if _RMW_RE.search(code):
                return None
            m = _NON_RMW_RE.search(code)
            return m.group(1) if m else None
        j += step
    return None


# ------------------------------------------------------------------ the review, step by step


class _Use:
    """One added barrier call, with the new side of its hunk around it.

    A plain class, not a dataclass: nothing compares or prints one, and a dataclass's generated methods
    are compiled at every start of ``reviewbot check``. (No ``__slots__``: :class:`once` keeps ``numbers``
    and ``header`` in the instance's ``__dict__``.)"""

    def __init__(
        self,
        path: str,
        hunk: Hunk,
        scans: Sequence[LineScan],
        idx: int,
        name: str,
        code: str,
        barrier_header: bool,
        view: HunkView,  # the engine's view of ``hunk``: per-hunk answers are kept by it
    ) -> None:
        self.path = path
        self.hunk = hunk
        self.scans = scans
        self.idx = idx
        self.name = name
        self.code = code
        self.barrier_header = barrier_header
        self.view = view

    @property
    def texts(self) -> list[str]:
        """The texts of the new side of the hunk (``new``'s texts, read without its DiffLines)."""
        return self.view.new_texts

    @once
    def numbers(self) -> tuple[int | None, int | None]:
        """The barrier line's (``new_no``, ``input_line``), for a finding: counted by the view, without making
        the hunk's DiffLines."""
        return self.view.new_numbers(self.idx)

    @property
    def new_no(self) -> int | None:
        return self.numbers[0]

    @property
    def input_line(self) -> int | None:
        return self.numbers[1]

    @property
    def symbol(self) -> str:
        return f"{self.name}@{(self.hunk.section or '').strip()[:60]}"

    @once
    def header(self) -> int | None:
        """:func:`_function_header`, looked for once."""
        return _find_function_header(self)


def _names_a_barrier(text: str) -> bool:
    """Step 0: can ``text`` hold a barrier call? An "mb(" call, or one of ``BARRIER_WORDS`` (each of them
    starts with "smp_" or "virt_": a text without those needs no look for the words)."""
    if _MB_CALL_RE.search(text) is not None:
        return True
    return ("smp_" in text or "virt_" in text) and any(word in text for word in BARRIER_WORDS)


def _may_add_barrier(view: PatchView) -> bool:
    """Step 0: a patch whose added lines (in C files) name no barrier has nothing for RB102."""
    return any(_is_c(fd.path) and _names_a_barrier(fd.added_text) for fd in view.files)


def _barrier_lines(text: str) -> list[int]:
    """Step 0 line by line: the indices of the lines of ``text`` (lines joined by newlines) that name a
    barrier (an "mb(" call, or one of ``BARRIER_WORDS``), in order."""
    found = set(_lines_holding(text, BARRIER_WORDS))
    line, seen = 0, 0  # the line of position ``seen``
    for m in _MB_CALL_RE.finditer(text):
        line += text.count("\n", seen, m.start())
        seen = m.start()
        found.add(line)
    return sorted(found)


def _by_hunk(fd: FileView, lines: Sequence[int]) -> Iterator[tuple[HunkView, list[int]]]:
    """The file's added lines ``lines`` (indices of the lines of ``fd.added_text``, in order) hunk by hunk:
    each hunk holding some of them, with their indices among the hunk's own added lines."""
    at = 0
    first = 0  # the file-wide index of the hunk's first added line
    for hv in fd.hunks:
        end = first + hv.hunk.added_count
        mine = []
        while at < len(lines) and lines[at] < end:
            mine.append(lines[at] - first)
            at += 1
        if mine:
            yield hv, mine
        first = end


def _barrier_uses(view: PatchView) -> Iterator[_Use]:
    """Step 1: every barrier call on an added line of a C file, not in a primitive header."""
    for fd in view.files:
        if not _is_c(fd.path) or not _names_a_barrier(fd.added_text):
            continue
        tree_path = _tree_path(fd.path)
        if _PRIMITIVE_HEADER_RE.match(tree_path) or _NOT_USE_PATH_RE.match(tree_path):
            continue
        barrier_header = bool(_BARRIER_HEADER_RE.search(fd.path))
        # step 0 for the line: the added lines naming a barrier, found in the file's added text at once
        for hv, naming in _by_hunk(fd, _barrier_lines(fd.added_text)):
            hunk = hv.hunk
            scans = LazyScans(hv.new_texts)
            for k in naming:
                idx = hv.added_in_new[k]
                code = scans[idx].code
                calls = [
                    m.group(1)
                    for m in BARRIER_RE.finditer(code)
                    if not (_VOID_BARRIER_RE.match(m.group(1)) and _follows_open_or_comma(code, m.start()))
                ]  # a void barrier passed as an argument is a test of the primitive, not a use
                calls = [c for c in calls if not (c.startswith("__smp_") and barrier_header) and c not in NO_ORDERING]
                if calls:
                    yield _Use(fd.path, hunk, scans, idx, calls[0], code, barrier_header, hv)


#: Macros that implement a primitive (a tools/ copy of ``READ_ONCE``, an arch ``__smp_mb``): their
#: barriers are the implementation, not a use.
PRIMITIVE_MACROS = (
    r"(?:__)?(?:READ|WRITE|ACCESS)_ONCE\w*",
    r"(?:__|arch_)?(?:smp|virt|dma)_\w+",
    r"(?:__|arch_)?(?:atomic|atomic64|atomic_long|cmpxchg|try_cmpxchg|xchg)\w*",
    r"(?:__|arch_)?[rw]?mb\w*",
    r"\w*barrier\w*",
)
_PRIMITIVE_MACRO_RE = lazyre.compile("^(?:" + "|".join(PRIMITIVE_MACROS) + ")$")


def _macro_start(scans, idx: int) -> int | None:
    """Index of the ``#define`` line of the macro (continued with ``\\``) that line ``idx`` is in, or None."""
    if _DEFINE_RE.match(scans[idx].code):
        return idx
    j = idx - 1
    while j >= 0 and scans[j].code.rstrip().endswith("\\"):
        if _DEFINE_RE.match(scans[j].code):
            return j
        j -= 1
    return None


def _macro_forwards(scans, start: int) -> bool:
    """Does the macro defined at ``start`` apply a barrier to one of its own parameters?

    ``#define store_release_wake_up(var, val) do { smp_store_release(var, val); smp_mb();
    wake_up_var(var); } while (0)`` is an API: the pairing comment belongs to its callers.
    """
    dm = _DEFINE_BODY_RE.match(scans[start].code)
    params = _param_names(dm.group(1) or "") if dm else set()
    if not params:
        return False
    j = start
    while j < len(scans):
        code = scans[j].code
        for m in BARRIER_RE.finditer(code):
            if _object_of(code, m.end() - 1) in params:
                return True
        if not code.rstrip().endswith("\\"):
            return False
        j += 1
    return False


def _is_definition(use: _Use) -> bool:
    """Step 2: does the line define a barrier primitive or a wrapper (an API, not a use)?

    ``#define`` of a barrier primitive (also a multi-line macro implementing a
    primitive: tools/ copies of ``READ_ONCE``), a macro that applies a barrier
    to its own parameter, a function named like a barrier, and a function
    whose body only forwards to a barrier.
    """
    code, text = use.code, use.texts[use.idx]
    start = _macro_start(use.scans, use.idx)
    if start is not None:
        define = _DEFINE_RE.match(use.scans[start].code)
        macro = define.group(1) if define is not None else ""
        if (
            use.barrier_header
            or BARRIER_RE.match(macro + "(")
            or _PRIMITIVE_RE.match(macro)
            or _PRIMITIVE_MACRO_RE.match(macro)
            or _macro_forwards(use.scans, start)
        ):
            return True
    fm = _FUNC_DEF_RE.match(code)
    if fm and BARRIER_RE.match(fm.group(1) + "(") and not text.startswith((" ", "\t")):
        return True
    return _is_wrapper(use.scans, use.texts, use.idx)


class _Moves:
    """Step 3: barriers the patch only moves or edits in place (not new).

    * the same call (or line) removed elsewhere in the patch: moved; unless it
      lands in a function the patch adds whole while its old function stays
      (cut out into a new helper: new code) without its comment block or the
      statement beside it;
    * the same call removed from a function the patch removes whole: moved or
      inlined unchanged;
    * the same barrier removed in the same hunk (its arguments renamed,
      ``acpi_mp_wake_mailbox->command`` -> ``mailbox->command``): edited in place.
    """

    def __init__(self, patch: Patch, view: PatchView) -> None:
        self.patch = patch
        self.view = view
        self.removed_bodies: frozenset | None = None
        self.whole_keys: Counter | None = None
        self.fresh: dict[HunkView, list[bool]] = {}  # per hunk: is each new-side line in a function the patch adds
        self.in_hunk: dict[HunkView, Counter] = {}  # per hunk: barriers its removed lines call
        self.removed_comments: str | None = None
        self.removed_neighbours: set[tuple[str, str]] | None = None
        self.renames: dict[HunkView, dict[str, set[str]]] = {}  # per hunk: removed lines by their barrier-less form
        self.in_new: dict[HunkView, list[bool]] = {}  # per hunk: _in_new_function() with no moved bodies

    @once
    def removed(self) -> Counter:
        """The barrier keys of the patch's removed lines (:func:`_removed_counter`), counted when a use is first
        asked about (a patch may name a barrier and use none)."""
        return _removed_counter(self.view)

    def unchanged(self, use: _Use) -> bool:
        keys = _moved_keys(use.code)
        moved = bool(keys) and all(self.removed.get(k, 0) > 0 for k in keys)
        edits = self.in_hunk.get(use.view)
        if edits is None:  # step 0 for the removed lines: only those naming a barrier are scanned
            removed = use.view.removed_texts
            edits = self.in_hunk[use.view] = Counter(
                m.group(1)
                for k in _barrier_lines(use.view.removed_text)
                for m in BARRIER_RE.finditer(scan_line(removed[k]).code)
            )
        if not moved and not edits.get(use.name, 0):
            return False  # nothing of the kind removed: new
        if self.removed_bodies is None:
            self.removed_bodies = _removed_bodies(self.view)
            self.whole_keys = _removed_whole_keys(self.view)
        fresh = self.fresh.get(use.view)
        if fresh is None:
            fresh = self.fresh[use.view] = _in_new_function(use.view, self.removed_bodies)
        whole_keys = self.whole_keys if self.whole_keys is not None else Counter()
        if moved and (
            not fresh[use.idx]
            or all(whole_keys.get(k, 0) > 0 for k in keys)
            or self._comment_moved_too(use)
            or self._statement_moved_too(use)
        ):
            for k in keys:
                self.removed[k] -= 1
            return True
        if fresh[use.idx]:
            return False  # in a function the patch adds: new code
        if edits.get(use.name, 0) > 0:
            edits[use.name] -= 1
            return True
        return False

    def _statement_moved_too(self, use: _Use) -> bool:
        """Was the barrier removed elsewhere together with the statement next to it?

        ``blktrace_seq++; smp_mb();`` cut out of a function into a new helper (the old function
        kept), or a function rewritten whole around the same ``smp_rmb(); thread->pending = false;``:
        the barrier still orders the same two accesses. The added line above or below the barrier
        (blank lines skipped; a context line there means the barrier now sits beside existing code)
        and the barrier line must be two consecutive removed lines too, compared modulo whitespace;
        a brace, ``else`` or bare ``return;`` says nothing (``STATEMENTS_THAT_SAY_NOTHING``).
        """
        if self.removed_neighbours is None:
            self.removed_neighbours = set()
            for fd in self.view.files:
                for hunk in fd.hunks:
                    lines = [t for t in (normalise(text) for text in hunk.removed_texts) if t]
                    self.removed_neighbours.update(zip(lines, lines[1:]))
        texts = use.texts
        mine = normalise(texts[use.idx])
        for step in (-1, 1):
            j = use.idx + step
            while 0 <= j < len(texts) and not normalise(texts[j]):
                j += step
            if not 0 <= j < len(texts) or not use.view.new_added[j]:
                continue
            other = normalise(texts[j])
            if other in STATEMENTS_THAT_SAY_NOTHING:
                continue
            if ((other, mine) if step < 0 else (mine, other)) in self.removed_neighbours:
                return True
        return False

    def _comment_moved_too(self, use: _Use) -> bool:
        """Was the barrier's own comment block removed elsewhere too (barrier and comment moved together
        into a new helper, as in "extract bfq_group_set_weight()")?"""
        comment = normalise(comment_above(use.scans, use.idx) or "")
        if len(comment) < 20:
            return False
        if self.removed_comments is None:
            parts: list[str] = []
            for fd in self.view.files:
                for hunk in fd.hunks:
                    texts = hunk.removed_texts
                    if texts:
                        parts.extend(sc.comment for sc in scan_lines(texts, starts_in_comment(texts)))
            self.removed_comments = normalise(" ".join(parts))
        return comment in self.removed_comments


#: Lines too common beside a barrier to show that it moved together with its statement.
STATEMENTS_THAT_SAY_NOTHING = frozenset(
    {"{", "}", "};", "else", "else {", "} else {", "return;", "break;", "continue;", "return 0;"}
)


def _removed_whole_keys(view: PatchView) -> Counter:
    """Barrier keys (see :func:`_moved_keys`) inside the functions the patch removes whole."""
    out: Counter = Counter()
    for fd in view.files:
        if not _is_c(fd.path) or not _removes_lines(fd) or not _names_a_barrier(fd.removed_text):
            continue
        for hunk in fd.hunks:
            if not _names_a_barrier(hunk.removed_text) or not BARRIER_RE.search(hunk.removed_text):
                continue
            old = hunk.old_texts
            functions = _whole_functions(old, hunk.old_removed)
            if not functions:
                continue  # no function removed whole: its lines need no scan
            scans = LazyScans(old, in_comment=False)
            for brace, end, _closed in functions:
                for b in range(brace, end):
                    if _names_a_barrier(old[b]):  # step 0 for the line: only a line naming a barrier is scanned
                        for key in _moved_keys(scans[b].code):
                            out[key] += 1
    return out


#: Barriers whose pairing is the documented pattern of the calls around them (wake_up_bit()'s
#: kernel-doc: ``clear_bit_unlock(); smp_mb__after_atomic(); wake_up_bit();``): no comment needed.
#: (barrier, call on the code line above, call on the code line below)
DOCUMENTED_PATTERNS = (("smp_mb__after_atomic", r"clear_bit(?:_unlock)?", r"wake_up_(?:bit|var)"),)


def _code_line(scans, idx: int, step: int) -> str:
    """The next code line from ``idx`` in direction ``step`` (blank and comment-only lines skipped)."""
    j = idx + step
    while 0 <= j < len(scans):
        code = scans[j].code.strip()
        if code and code not in ("{", "}"):
            return code
        j += step
    return ""


def _documented_pattern(use: _Use) -> str:
    """Step 9a: is the barrier part of a documented pattern (``DOCUMENTED_PATTERNS``) whose documentation says
    what it pairs with? Then a reviewer would not ask, though the barrier's own comment (the labels' test)
    still names no pair. Returns the reason, "" when not so."""
    for barrier, before, after in DOCUMENTED_PATTERNS:
        if use.name != barrier:
            continue
        prev = re.search(rf"\b({before})\s*\(", _code_line(use.scans, use.idx, -1))
        then = re.search(rf"\b({after})\s*\(", _code_line(use.scans, use.idx, 1))
        if prev and then:
            return (
                f"the {barrier}() between {prev.group(1)}() and {then.group(1)}() is the pattern "
                f"{then.group(1)}()'s documentation gives: its other side is the waiter's check"
            )
    return ""


class KnownPairing(NamedTuple):
    """A kernel idiom whose other side a reviewer knows from the calls around the barrier, although the patch
    does not show it: the draft names that side (as a question) instead of asking an open one.

    ``before``/``after``: patterns for the code line above/below the barrier ("" matches any line);
    ``like``: where the idiom lives in the kernel, said as "this looks like ..."; ``other``: the other side;
    ``example``: the comment to suggest."""

    barrier: str
    before: str
    after: str
    like: str
    other: str
    example: str


#: Idioms of the kernel whose other side is known (``KnownPairing``). The finding stays (the comment still
#: does not name the pair); the draft names the usual other side. Add a line (and an example) for another.
KNOWN_PAIRINGS = (
    KnownPairing(
        "smp_mb__after_atomic",
        r"\bclear_(?:thread|tsk)_flag\s*\(.*\bTIF_NOTIFY_\w+|\bclear_notify_signal\s*\(",
        r"\btask_works\b",
        "the clear-flag / smp_mb__after_atomic() / task_works check of tracehook_notify_resume(), whose comment "
        "says what its barrier pairs with",
        "task_work_add(), which queues the work and then sets the flag",
        "Pairs with task_work_add() setting the flag after it queues the work",
    ),
    KnownPairing(
        "smp_store_release",
        r"\b__futex_unqueue\s*\(",
        "",
        "the __futex_unqueue() / smp_store_release(&q->lock_ptr, NULL) of futex_wake_mark(), whose comment says "
        "why (the waiter may free the futex_q as soon as lock_ptr is NULL)",
        "the lock_ptr read in futex_unqueue() on the waiter's side",
        "Pairs with the lock_ptr read in futex_unqueue(), as in futex_wake_mark()",
    ),
    KnownPairing(
        "smp_mb",
        r"\b(?:__)?add_wait_queue\w*\s*\(",
        "",
        "the waiter's half of the pattern the comment above waitqueue_active() in include/linux/wait.h "
        "describes: add to the waitqueue, smp_mb(), then check the condition",
        "the waker's smp_mb() between setting the condition and its waitqueue_active() check",
        "Pairs with the smp_mb() before waitqueue_active() in the wake-up path",
    ),
)


def _known_pairing(use: _Use) -> KnownPairing | None:
    """The idiom of ``KNOWN_PAIRINGS`` the barrier and the code lines around it make, if any."""
    for known in KNOWN_PAIRINGS:
        if use.name != known.barrier:
            continue
        if known.before and not re.search(known.before, _code_line(use.scans, use.idx, -1)):
            continue
        if known.after and not re.search(known.after, _code_line(use.scans, use.idx, 1)):
            continue
        return known
    return None


def _copied_from_context(use: _Use, view: PatchView) -> bool:
    """Is the barrier, with the code line above and below it, a copy of three context lines of its file in
    the patch (``blktrace_seq++; smp_mb(); bt->trace_state = Blktrace_running;`` in a new function beside the
    unchanged original)? The question belongs to the original, which the patch leaves as it is."""
    before, after = _code_line(use.scans, use.idx, -1), _code_line(use.scans, use.idx, 1)
    if not before or not after:
        return False
    want = (" ".join(before.split()), " ".join(use.code.split()), " ".join(after.split()))
    return want in _context_triples(view, use.path, use.name)


_TRIPLES: list[Any] = [None, {}]  # the last patch view asked about, and its context triples by (path, barrier)


def _context_triples(view: PatchView, path: str, name: str) -> set[tuple[str, ...]]:
    """Every three consecutive code lines (blanks and lone braces left out) of the unchanged runs of ``path``'s
    hunks whose context names the barrier ``name``: read once per file and barrier, so a file of thousands of
    hunks, each adding a barrier, is not read again for each one."""
    if _TRIPLES[0] is not view:
        _TRIPLES[:] = [view, {}]
    found: set[tuple[str, ...]] | None = _TRIPLES[1].get((path, name))
    if found is not None:
        return found
    found = set()
    for fd in view.files_at(path):
        for hv in fd.hunks:
            if name not in hv.context_text:
                continue  # a copy of this barrier's lines needs the barrier among the hunk's context lines
            run: list[str] = []
            for dl in hv.hunk.lines + (None,):
                if dl is not None and dl.kind is LineKind.CONTEXT:
                    run.append(dl.text)
                    continue
                if len(run) >= 3:
                    codes = [" ".join(sc.code.split()) for sc in scan_lines(run, starts_in_comment(run))]
                    codes = [c for c in codes if c and c not in ("{", "}")]
                    found.update(tuple(codes[k : k + 3]) for k in range(len(codes) - 2))
                run = []
    _TRIPLES[1][(path, name)] = found
    return found


#: Old barrier spellings a patch may rename to the kernel's (``read_barrier()`` -> ``smp_rmb()`` in a
#: tools/ copy): a removed line that differs only in the barrier's name is the same barrier.
_ANY_BARRIER_CALL_RE = lazyre.compile(r"(?<![\w.>$])(?:" + _SMP + "|" + _DEVICE + r"|\w*barrier\w*)\s*\(")


_COMPILER_BARRIER_RE = lazyre.compile(r"(?<![\w.>$])barrier\s*\(\s*\)")  # orders the compiler only


def _renamed_in_place(use: _Use, moves: _Moves) -> bool:
    """Is the barrier only renamed or changed in type (``rmb()`` -> ``smp_rmb()``, ``smp_mb__before_atomic()``
    -> ``smp_mb()``) on a line of the same hunk, the rest of the line kept? The same call on both lines
    is left to ``_Moves``; a line in a function the patch adds whole is new code (cut out into a helper).
    A removed line that the hunk adds back as it was (only re-indented, as the ``smp_mb();`` lines of a loop
    body wrapped in a new loop) is kept, not renamed: it is no other barrier's old spelling."""
    line = normalise(use.texts[use.idx])
    mine = _ANY_BARRIER_CALL_RE.sub("BARRIER(", line)
    if "BARRIER(" not in mine:
        return False
    olds = moves.renames.get(use.view)
    if olds is None:  # the hunk's removed lines, each under its form with every barrier call renamed BARRIER
        olds = moves.renames[use.view] = {}
        back = Counter(normalise(text) for text in use.view.added_texts)
        for text in use.view.removed_texts:
            old = normalise(text)
            if back[old] > 0:
                back[old] -= 1  # added back as it was: the same line kept
                continue
            olds.setdefault(_ANY_BARRIER_CALL_RE.sub("BARRIER(", old), set()).add(old)
    # a compiler barrier() made a CPU barrier ("barrier();" -> "mb();") is a new ordering, not a new spelling
    if not any(old != line and not _COMPILER_BARRIER_RE.search(old) for old in olds.get(mine, ())):
        return False
    in_new = moves.in_new.get(use.view)
    if in_new is None:
        in_new = moves.in_new[use.view] = _in_new_function(use.view)
    return not in_new[use.idx]


def _non_rmw_finding(patch: Patch, use: _Use) -> Finding | None:
    """Step 4: ``smp_mb__before/after_atomic()`` next to a plain access orders nothing."""
    if use.name not in ("smp_mb__after_atomic", "smp_mb__before_atomic"):
        return None
    step = -1 if use.name == "smp_mb__after_atomic" else 1
    op = _neighbour_op(use.scans, use.idx, step)
    if op is None:
        return None
    where = "follows" if step < 0 else "precedes"
    return RULE.finding(
        patch,
        f"{use.name}() at line {use.new_no} {where} {op}(), which is not a read-modify-write atomic: it orders nothing here",
        path=use.path,
        line=use.new_no,
        input_line=use.input_line,
        hunk=use.hunk,
        symbol=f"{use.symbol}:non-rmw",
        details={
            "barrier": use.name,
            "problem": "not-after-rmw",
            "op": op,
            "smp": True,
            "paired": bool(_PAIRING_RE.search(" ".join(_comment_texts(use)))),
            # the hunk takes out a full barrier: the patch weakens an ordering that held (a bcache patch swapped
            # four smp_mb() for smp_mb__*_atomic() around atomic_set()/atomic_read())
            "replaces": "smp_mb" if "smp_mb();" in _removed_barrier_codes(use.view) else None,
        },
    )


def _function_header(use: _Use) -> int | None:
    """Index (in ``use.texts``) of the header line of the function holding the barrier, if the hunk shows it."""
    return use.header


def _find_function_header(use: _Use) -> int | None:
    for j in range(use.idx - 1, -1, -1):
        text = use.texts[j]
        if text.startswith("}"):
            return None
        if text[:1].isalpha() and _FUNC_DEF_RE.match(text) and "=" not in text and not text.rstrip().endswith(";"):
            return j
    return None


def _function_name(use: _Use) -> str | None:
    """The function holding the barrier: its header in the hunk, else the hunk header's function."""
    h = _function_header(use)
    if h is not None:
        m = _FUNC_DEF_RE.match(use.texts[h])
        return m.group(1) if m else None
    m = re.search(r"\b(\w+)\s*\(", use.hunk.section or "")
    return m.group(1) if m else None


def _comment_texts(use: _Use) -> tuple[str, str]:
    """Step 5: (the barrier's own comment, a pairing note nearby).

    The own comment is on the line or the block ending directly above (for a
    barrier that is the body of an ``if``/loop line: above that line). The
    nearby note is a comment one statement above the barrier, one earlier in the
    function that names this barrier and its pair ("The two smp_load_acquire()'s
    here pair with ..."), or the comment above the function's header; it counts
    only when it speaks of pairing.
    """
    scans, idx = use.scans, use.idx
    above = comment_above(scans, _over_blank(scans, idx))
    if above is None and idx > 0 and _CONTROL_RE.match(scans[idx - 1].code) and not scans[idx - 1].comment:
        above = comment_above(scans, _over_blank(scans, idx - 1))  # comment above "if (cond)": a conditional barrier
    own = " ".join(c for c in (scans[idx].comment, above or "") if c)
    notes = []
    if above is None and idx > 0 and scans[idx - 1].code.rstrip().endswith(";") and not scans[idx - 1].comment:
        # one statement above: only a note that speaks of this barrier ("the smp_wmb() below pairs
        # with ..."); a "pairs with" above an unrelated statement is that statement's (case C14)
        stmt_note = comment_above(scans, idx - 1) or ""
        if f"{use.name}(" in stmt_note or _THIS_BARRIER_RE.search(stmt_note):
            notes.append(stmt_note)
        elif _names_object(stmt_note, use) and _SEE_FUNCTION_RE.search(stmt_note):
            # "head is RCU protected, see io_poll_remove_entries() comments" above the rcu_read_lock()
            # before ``smp_load_acquire(&poll->head)``: the note is about this object and points to the
            # function whose comments describe the other side
            return own, stmt_note
    header = _function_header(use)
    if header is not None and not notes:
        # a comment earlier in the function that names this barrier and its pair: "The two smp_load_acquire()'s
        # here pair with the smp_store_release()'s in foo() and bar()" above an if/else of two returns
        for j in range(idx - 1, header, -1):
            if not is_comment_only(scans[j]) and is_comment_only(scans[j - 1]):  # a comment block ends above j
                block = comment_above(scans, j) or ""
                if use.name in block and _PAIRED_WITH_RE.search(block):
                    notes.append(block)
                    break
    if header is not None:
        j = header
        type_line = scans[j - 1].code.strip() if j > 0 else ""
        if type_line and not type_line.endswith((";", "}", "\\")) and not scans[j - 1].has_comment:
            j -= 1  # the return type on the line above the name ("static int")
        notes.append(comment_above(scans, j) or "")
    note = " ".join(n for n in notes if n and _PAIRED_WITH_RE.search(n))
    return own, note


def _over_blank(scans, i: int) -> int:
    """``i``, or the blank line above it when one stands between it and the lines above: a comment above a blank
    line still heads the barrier below (a new branch put under an existing comment, after a blank line)."""
    blank = i > 1 and not scans[i - 1].code.strip() and not scans[i - 1].has_comment
    return i - 1 if blank and is_comment_only(scans[i - 2]) else i


#: A note away from the barrier counts only when it plainly says what pairs with what.
_PAIRED_WITH_RE = lazyre.compile(
    r"\bpair(?:s|ed|ing)?\s+(?:with|against)\b|\bcounterpart\b|\bimplied\s+by\b|\bmatch(?:es|ing)\s+\w+\(\)",
    re.IGNORECASE,
)


_THIS_BARRIER_RE = lazyre.compile(r"\b(?:barriers?|below|following)\b", re.IGNORECASE)
_SEE_FUNCTION_RE = lazyre.compile(r"\bsee\s+(?:the\s+)?\w+\(\)", re.IGNORECASE)


def _names_object(note: str, use: _Use) -> bool:
    """Does ``note`` name the field the barrier loads or stores (``head`` of ``smp_load_acquire(&poll->head)``)?"""
    m = BARRIER_RE.search(use.code)
    words = re.findall(r"[A-Za-z_]\w*", _object_of(use.code, m.end() - 1)) if m else []
    return bool(words) and len(words[-1]) >= 3 and bool(re.search(rf"\b{re.escape(words[-1])}\b", note))


_ACQUIRE_RE = lazyre.compile(r"\b(\w*acquire\w*)\s*\(")
_RELEASE_RE = lazyre.compile(r"\b(\w*release\w*)\s*\(")


def _object_of(code: str, start: int) -> str:
    """The first argument of the call whose ``(`` is at ``start``, normalised (``&x->f`` -> ``x->f``)."""
    am = _CALL_ARGS_RE.match(code, start)
    return normalise(_first_arg(am.group(1))) if am else ""


def _statements_comment(scans, i: int) -> str:
    """The comment of the statements a barrier closes: on its line, directly above it, or above the run of
    up to ``BLOCK_STATEMENTS_ABOVE`` plain statements right before it ("Store buffer group ID and finally mark
    the list as visible ..." above ``bl->bgid = bgid;`` and ``smp_store_release(&bl->is_ready, 1);``)."""
    if scans[i].comment.strip():
        return scans[i].comment
    j = i
    for _ in range(BLOCK_STATEMENTS_ABOVE + 1):
        above = comment_above(scans, j)
        if above is not None:
            return above
        j -= 1
        if j < 0 or scans[j].comment or not scans[j].code.strip().endswith(";") or _CONTROL_RE.match(scans[j].code):
            return ""
    return ""


class _PatchPairs:
    """Step 6: the other side as the patch itself shows it.

    * A comment added elsewhere in the patch names this barrier and its
      function ("Paired with smp_load_acquire() in qcom_pas_is_available()"):
      the pairing is documented at the other end; a comment here that says
      what it orders is enough.
    * A release and the matching acquire on the same object both added by the
      patch (``smp_store_release(&p->ops)`` and ``smp_load_acquire(&p->ops)``,
      ``cmpxchg_release()``): the finding names that other side instead of
      saying it could not be found.
    """

    def __init__(self, patch: Patch, view: PatchView) -> None:
        self.patch = patch
        self.view = view
        self._calls: tuple[dict[str, str], dict[str, str]] | None = None
        self._comments: dict[str, list[str]] = {}
        self._scans: dict[HunkView, LazyScans] = {}  # per hunk: the scans of its added lines

    def _added_scans(self, wanted: Sequence[str]) -> Iterator:
        """Scans of the added lines of the C hunks that hold one of ``wanted`` (the added lines of a hunk scanned
        as one run; a line without the words has neither code nor comment that holds them)."""
        for fd in self.view.files:
            if not _is_c(fd.path) or not any(w in fd.added_text for w in wanted):
                continue
            for hunk in fd.hunks:
                added = hunk.added_text
                if not any(w in added for w in wanted):
                    continue
                scans = self._scans.get(hunk)
                if scans is None:
                    scans = self._scans[hunk] = LazyScans(hunk.added_texts)
                for i in _lines_holding(added, wanted):
                    yield scans[i]

    def _acquires_releases(self) -> tuple[dict[str, str], dict[str, str]]:
        """Object -> acquire call, object -> release call, over the patch's added code."""
        if self._calls is None:
            acquires: dict[str, str] = {}
            releases: dict[str, str] = {}
            for scan in self._added_scans(("acquire", "release")):
                for m in _ACQUIRE_RE.finditer(scan.code):
                    acquires.setdefault(_object_of(scan.code, m.end() - 1), m.group(1))
                for m in _RELEASE_RE.finditer(scan.code):
                    releases.setdefault(_object_of(scan.code, m.end() - 1), m.group(1))
            self._calls = (acquires, releases)
        return self._calls

    def partner(self, use: _Use) -> tuple[str, str] | None:
        """(call, object) of the matching acquire/release the patch adds on the same object."""
        if "acquire" not in use.name and "release" not in use.name:
            return None
        m = BARRIER_RE.search(use.code)
        obj = _object_of(use.code, m.end() - 1) if m else ""
        if not obj:
            return None
        acquires, releases = self._acquires_releases()
        if "acquire" in use.name and obj in releases:
            return releases[obj], obj
        if "release" in use.name and obj in acquires:
            return acquires[obj], obj
        return None

    def partner_commented(self, use: _Use) -> bool:
        """Does the patch add the matching acquire/release on the same object *with* a comment of its own?

        Then both ends say what they order, on one object the reader sees at once (blk-crypto's
        ``tfms_inited[mode_num]``): no need to ask for "Pairs with" on top."""
        partner = self.partner(use)
        if partner is None:
            return False
        call, obj = partner
        for fd in self.view.files:
            if not _is_c(fd.path) or call not in fd.added_text:
                continue  # no added line of the file names the call
            for hunk in fd.hunks:
                if call not in hunk.added_text:
                    continue
                scans = LazyScans(hunk.new_texts)
                for k in _lines_holding(hunk.added_text, (call,)):
                    i = hunk.added_in_new[k]
                    if call not in scans[i].code:
                        continue
                    for m in re.finditer(rf"\b{re.escape(call)}\s*\(", scans[i].code):
                        if _object_of(scans[i].code, m.end() - 1) == obj and _statements_comment(scans, i).strip():
                            return True
        return False

    def named_elsewhere(self, use: _Use) -> bool:
        """Does a comment added elsewhere name this barrier and the function it is in?"""
        func = _function_name(use)
        if not func:
            return False
        call = f"{use.name}()"
        comments = self._comments.get(call)
        if comments is None:
            comments = self._comments[call] = [
                scan.comment for scan in self._added_scans((call,)) if call in scan.comment
            ]
        return any(re.search(rf"\b{re.escape(func)}\b", c) and _PAIRING_RE.search(c) for c in comments)


class _Told:
    """One barrier added elsewhere (in this patch or another patch of its series) whose comment says what it
    pairs with: the barrier, its function, which patch (``"33/39"``; "" for this one) and that comment."""

    __slots__ = ("barrier", "func", "patch", "comment", "where", "_fields", "_site")

    def __init__(
        self,
        barrier: str,
        func: str,
        patch: str,
        comment: str,
        site: tuple[Hunk, int, str, re.Match[str]],
        where: tuple[str, int | None],
    ) -> None:
        self.barrier = barrier
        self.func = func
        self.patch = patch
        self.comment = comment
        self.where = where
        self._site = site  # (hunk, index, code, match): where :attr:`fields` is read from, when first asked
        self._fields: list[tuple[str, tuple[str, ...]]] | None = None

    @property
    def fields(self) -> list[tuple[str, tuple[str, ...]]]:
        """What the barrier orders (:func:`_fields_ordered`), read only for a barrier that names no function."""
        if self._fields is None:
            self._fields = _fields_ordered(*self._site)
        return self._fields

    def as_details(self, how: str) -> dict[str, str]:
        return {"barrier": self.barrier, "function": self.func, "patch": self.patch, "comment": self.comment, "by": how}


#: A pairing comment "names" a function when it spells its name as a word, with or without ``()``
#: ("pairs with cmpxchg in set_data_vio_compression_status").
_NAMED_FUNCTION_RE = lazyre.compile(r"\b([A-Za-z_]\w*_\w*)\b")


class _Elsewhere:
    """Step 6, over the series too: barriers added elsewhere whose comment says what they pair with.

    A reviewer looking at a barrier without a pairing comment first looks at the other barriers the patch (and
    its series, when the pipeline gives it: ``RuleContext.series``) adds. Two findings come of it:

    * ``naming(use)``: a pairing comment elsewhere names this barrier's function ("pairs with cmpxchg in
      set_data_vio_compression_status" above the ``smp_rmb()`` of its reader): the pair is documented at the
      other end. With a comment here saying why, nothing is asked; without one, the draft names that side.
    * ``same_field(use)``: a pairing comment elsewhere that names no function but sits on a barrier of the
      same field in another function ("pairs with barriers where state field is changed" on the
      ``smp_rmb()`` after ``atomic_read(&vdo->state)`` in 33/39, this barrier after
      ``atomic_cmpxchg(&...->vdo->state, ...)``): the draft names it as a question, "is this one of them?".
    """

    def __init__(self, patch: Patch, ctx: RuleContext) -> None:
        self.patch = patch
        self.ctx = ctx
        self._told: list[_Told] | None = None

    def _patches(self) -> Iterator[tuple[Patch, str]]:
        yield self.patch, ""
        series = self.ctx.series
        if series is None:
            return
        for other in series.patches:
            if other is self.patch or other.message_id == self.patch.message_id:
                continue
            s = other.subject
            yield other, f"{s.index}/{s.total}" if s.index is not None and s.total else "another patch"

    @property
    def told(self) -> list[_Told]:
        if self._told is None:
            self._told = []
            for patch, label in self._patches():
                for fd in patch.files:
                    if not _is_c(fd.path):
                        continue
                    for h in fd.hunks:
                        self._told.extend(_told_in_hunk(h, fd.path, label))
        return self._told

    @staticmethod
    def _told_in(h: Hunk, path: str, label: str) -> Iterator[_Told]:
        """The barriers the hunk adds whose comment speaks of pairing (read through :func:`_told_in_hunk`)."""
        lines = [dl for dl in h.lines if dl.kind is not LineKind.REMOVED]
        texts = [dl.text for dl in lines]
        scans = LazyScans(texts)  # only the barrier lines and the comments above them are read
        for j, dl in enumerate(lines):
            if dl.kind is not LineKind.ADDED or not _ADDED_BARRIER_RE.search(dl.text):
                continue  # a line's code is its text with comments and literals blanked: no barrier there
            m = _ADDED_BARRIER_RE.search(scans[j].code)
            if not m:
                continue
            comment = " ".join(c for c in (scans[j].comment, comment_above(scans, j) or "") if c).strip()
            if not comment or not _PAIRING_RE.search(comment):
                continue
            index = h.lines.index(dl)
            yield _Told(
                m.group(1),
                _function_named(h, index),
                label,
                " ".join(comment.split()),
                (h, index, scans[j].code, m),
                (path, dl.new_no),
            )

    def _others(self, use: _Use) -> Iterator[_Told]:
        func = _function_name(use) or ""
        for t in self.told:
            if t.patch == "" and t.where == (use.path, use.new_no):
                continue
            if func and t.func == func:
                continue  # a barrier of the same function is not the other side
            yield t

    def naming(self, use: _Use) -> _Told | None:
        """A pairing comment elsewhere that names this barrier's function."""
        func = _function_name(use)
        if not func:
            return None
        for t in self._others(use):
            if re.search(rf"\b{re.escape(func)}\b", t.comment):
                return t
        return None

    def same_field(self, use: _Use) -> _Told | None:
        """A pairing comment elsewhere that names no function, on a barrier of the same field."""
        if not any(t.patch or t.where != (use.path, use.new_no) for t in self.told):
            return None
        mine = _use_fields(use)
        if not mine:
            return None
        for t in self._others(use):
            if _NAMED_FUNCTION_RE.search(t.comment) or _FUNC_NAMED_RE.search(t.comment):
                continue  # it names its own other side
            if any(_same_access(a, b) for a, _ in mine for b, _ in t.fields):
                return t
        return None


#: What a hunk of a series' patch tells (``_Elsewhere._told_in``), by the hunk's content: every patch of a
#: series reads its siblings' hunks, so a 39-patch series would otherwise scan each hunk 38 times. Bounded: the
#: siblings of the series being reviewed are what is asked again.
_TOLD_BY_HUNK: dict[tuple[str, str, str, int, int, int], tuple[_Told, ...]] = {}
_TOLD_BY_HUNK_MAX = 4096


def _told_in_hunk(h: Hunk, path: str, label: str) -> tuple[_Told, ...]:
    """``_Elsewhere._told_in`` of one hunk, worked out once per hunk content. A hunk none of whose added lines
    speaks of pairing, or that adds no barrier, tells nothing (read from its body, without its DiffLines)."""
    body = h.body
    key = (path, label, h.section, h.new_start, len(body), hash(body))  # the body's hash: no text kept alive
    told = _TOLD_BY_HUNK.get(key)
    if told is not None:
        return told
    told = ()
    if "pair" in "\n".join(body).lower():  # the whole hunk first (one pass in C), then its added lines
        added = "\n".join(line[1:] for line in body if line[:1] == "+")
        if "pair" in added.lower() and _ADDED_BARRIER_RE.search(added):
            told = tuple(_Elsewhere._told_in(h, path, label))
    if len(_TOLD_BY_HUNK) >= _TOLD_BY_HUNK_MAX:
        _TOLD_BY_HUNK.clear()
    _TOLD_BY_HUNK[key] = told
    return told


def _same_access(a: str, b: str) -> bool:
    """Do two accesses in two functions reach one field, by their last two names with the variable counted
    (``allocator->depot->vdo->state`` and ``vdo->state``; not ``journal->lock_counter.state``)? Stricter than
    :func:`_same_field`: the comment matched on it names no function, so the field alone must tell."""

    def last_two(expr: str) -> tuple[str, ...]:
        expr = re.sub(r"\[[^\]]*\]", "", expr.strip().lstrip("&*( ").rstrip(") "))
        parts = [p for p in re.split(r"\s*(?:->|\.)\s*", expr) if p]
        return tuple(parts[-2:]) if len(parts) >= 2 and all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in parts) else ()

    ta = last_two(a)
    return bool(ta) and ta == last_two(b)


def _use_fields(use: _Use) -> list[tuple[str, tuple[str, ...]]]:
    """The fields a barrier use orders (:func:`_fields_ordered` on its hunk)."""
    new = [i for i, dl in enumerate(use.hunk.lines) if dl.kind is not LineKind.REMOVED]
    if use.idx >= len(new):
        return []
    index = new[use.idx]
    m = _ADDED_BARRIER_RE.search(use.code)
    return _fields_ordered(use.hunk, index, use.code, m) if m else []


#: A comment that asks or doubts ("hmmm? del_rcu followed by add_rcu?", "not sure this is needed") does not
#: explain the barrier.
DOUBT_WORDS = (
    r"\?",
    r"\bhm+\b",
    r"\bhmm+\w*",
    r"\bnot\s+sure\b",
    r"\bunsure\b",
    r"\bno\s+idea\b",
    r"\bmaybe\b",
    r"\bXXX\b",
    r"\bFIXME\b",
)
_DOUBT_RE = lazyre.compile("|".join(DOUBT_WORDS), re.IGNORECASE)


#: io_uring ring indexes shared with userspace: the other side of a barrier on one of these is the application
#: (or liburing), never in a kernel patch. The draft says so instead of "I could not find the other side".
USERSPACE_RING_PATHS = (r"io_uring/[\w/.-]+\.[ch]", r"fs/io_uring\.c", r"include/linux/io_uring[\w/-]*\.h")
USERSPACE_RING_INDEXES = (
    r"(?:^|->|\.)(?:sq|cq)\.(?:head|tail)",  # struct io_rings: rings->sq.head, r->cq.tail
    r"(?:^|->)r\.(?:head|tail)",  # the 2019 io_sq_ring/io_cq_ring: ring->r.head
    r"\brq_ring->(?:head|tail)",  # the zero-copy receive refill ring
    r"\b(?:br|buf_ring)->(?:head|tail)",  # struct io_uring_buf_ring, a provided-buffer ring the application fills
)
_USERSPACE_RING_PATH_RE = lazyre.compile("^(?:" + "|".join(USERSPACE_RING_PATHS) + ")$")
_USERSPACE_RING_INDEX_RE = lazyre.compile("(?:" + "|".join(USERSPACE_RING_INDEXES) + ")$")


def _userspace_ring_index(use: _Use) -> str:
    """The ring index shared with userspace that the barrier loads or stores (``br->tail``), or ""."""
    if not _USERSPACE_RING_PATH_RE.match(_tree_path(use.path)):
        return ""
    m = BARRIER_RE.search(use.code)
    obj = _object_of(use.code, m.end() - 1) if m else ""
    return obj if obj and _USERSPACE_RING_INDEX_RE.search(obj) else ""


#: Waits for a bit to be cleared, whose other side releases the bit (``clear_bit_unlock()`` before
#: ``wake_up_bit()``): a read barrier or acquire right after one (``if (!test_bit(bit, word)) { smp_rmb(); ...``,
#: ``wait_on_bit_io(...); smp_rmb();``) is the read side of a bit wait. A bit tested set (``if (test_bit(DONE))``)
#: is not: its other side is whatever sets it.
BIT_WAITS = (r"!\s*test_bit", r"wait_on_bit\w*", r"out_of_line_wait_on_bit\w*")
_BIT_WAIT_RE = lazyre.compile(r"(?<![\w.>])(?:" + "|".join(BIT_WAITS) + r")\s*\(")
#: Functions that are bit waits or lock-bit tests themselves (``__wait_on_bit()``, ``buffer_locked()``).
_BIT_WAIT_FUNCTION_RE = lazyre.compile(r"wait_on_bit|_locked$")


def _after_bit_test(use: _Use) -> bool:
    """Does the barrier end a wait for a bit to be cleared: in a bit-wait or lock-bit function, or with a
    ``!test_bit()``/``wait_on_bit()`` on its line or the two code lines above?"""
    if _BIT_WAIT_FUNCTION_RE.search(_function_name(use) or ""):
        return True
    near = [use.code, _code_line(use.scans, use.idx, -1)]
    near.append(_code_line(use.scans, use.idx - 1, -1) if near[1] else "")
    return any(_BIT_WAIT_RE.search(c) for c in near if c)


#: CPU code: SMP bring-up and CPU hotplug. A plain ``mb()``/``rmb()``/``wmb()`` there, with no device access
#: near it, orders against another CPU (the one waiting for a dying CPU's state), not against a device.
CPU_CODE_PATHS = (
    r"arch/[^/]+/(?:[\w-]+/)*smp[\w-]*\.c",  # arch/*/kernel/smp.c, arch/loongarch/loongson64/smp.c
    r"arch/[^/]+/(?:[\w-]+/)*(?:cpu_?)?hotplug[\w-]*\.c",
    r"kernel/(?:cpu|smp)\.c",
)
#: Functions of CPU bring-up and hotplug, wherever they live.
CPU_CODE_FUNCTIONS = (
    r"\w*cpu_die\w*",
    r"\w*play_dead\w*",
    r"\w*cpu_disable\w*",
    r"\w*cpu_kill\w*",
    r"\w*cpu_(?:up|down)\w*",
    r"\w*secondary\w*",
    r"\w*hotplug\w*",
)
#: Device accesses: near one of these, a mandatory barrier orders against the device after all.
DEVICE_ACCESSES = (
    r"(?:__raw_)?(?:read|write)[bwlq](?:_relaxed|_be)?",
    r"io(?:read|write)\d+\w*",
    r"\w*iocsr\w*",
    r"\w*mmio\w*",
    r"\w*dma\w*",
    r"\w*desc\w*",
    r"\w*doorbell\w*",
    r"\w*mailbox\w*",
    r"__iomem",
    r"ioremap\w*",
)
#: Lines before and after the barrier looked at for a device access.
DEVICE_ACCESS_LINES = 8
_CPU_CODE_PATH_RE = lazyre.compile("^(?:" + "|".join(CPU_CODE_PATHS) + ")$")
_CPU_CODE_FUNCTION_RE = lazyre.compile("^(?:" + "|".join(CPU_CODE_FUNCTIONS) + ")$")
_DEVICE_ACCESS_RE = lazyre.compile(r"(?<![\w.>])(?:" + "|".join(DEVICE_ACCESSES) + r")\b", re.IGNORECASE)
_PLAIN_MANDATORY = ("mb", "rmb", "wmb")
_HOTPLUG_RE = lazyre.compile(r"die|dead|disable|kill|down|hotplug|offline")  # the example the draft gives


#: Accesses only another CPU makes: a marked access (``WRITE_ONCE()``/``READ_ONCE()``), an atomic, a wait or
#: wake-up on a waitqueue, a lock. On the code line next to a plain barrier, they say whom it orders against.
CPU_ACCESSES = (r"WRITE_ONCE", r"READ_ONCE", r"atomic\w*", r"wait_event\w*", r"wake_up\w*", r"\w*spin_(?:un)?lock\w*")
_CPU_ACCESS_RE = lazyre.compile(r"(?<![\w.>])(?:" + "|".join(CPU_ACCESSES) + r")\s*\(")


def _this_side(use: _Use) -> set[str]:
    """The names on this side of the barrier: the function holding it and the calls on the two code lines before
    and after it (``rmb(); /* for list_empty to work */ wait_event(wq, list_empty(...))``: ``list_empty()`` is
    what this side does, not the other side a comment must name)."""
    names = {_function_name(use) or ""}
    for step in (-1, 1):
        names.update(_CALLED_RE.findall(" ".join(_code_lines(use, step, 2))))
    return names


def _judged_as(use: _Use) -> str:
    """The barrier whose comment rules judge ``use``'s comment: a plain barrier right next to an access only
    another CPU makes names that CPU's side, as its ``smp_`` form must (in SMP or hotplug code the other side is
    the CPU going up or down, which the function names: what it orders is enough); any other is itself."""
    return "smp_" + use.name if _cpu_ordering(use, beside_only=True) else use.name


def _cpu_ordering(use: _Use, beside_only: bool = False) -> bool:
    """Is a plain ``mb()``/``rmb()``/``wmb()`` a CPU ordering barrier: in SMP or CPU hotplug code (by path or
    function; not with ``beside_only``), or right next to an access only another CPU makes (``CPU_ACCESSES``:
    ``wmb(); WRITE_ONCE(t->n, n);``, ``rmb(); wait_event(...)``), with no device access within
    DEVICE_ACCESS_LINES lines of it?"""
    if use.name not in _PLAIN_MANDATORY:
        return False
    cpu_code = not beside_only and (
        _CPU_CODE_PATH_RE.match(_tree_path(use.path)) or _CPU_CODE_FUNCTION_RE.match(_function_name(use) or "")
    )
    if not (cpu_code or any(_CPU_ACCESS_RE.search(_code_line(use.scans, use.idx, step)) for step in (-1, 1))):
        return False
    near = use.scans[max(0, use.idx - DEVICE_ACCESS_LINES) : use.idx + DEVICE_ACCESS_LINES + 1]
    return not any(_DEVICE_ACCESS_RE.search(s.code) for s in near)


_STORE_AFTER_WMB_RE = lazyre.compile(r"^\s*(?:WRITE_ONCE\s*\(\s*)?[\w.\->\[\]]*?(\w+)\s*(?:=(?!=)|,)")


def _unread_store(view: PatchView, use: _Use) -> str:
    """The field or variable a write barrier or release stores, when the patch itself declares it (a new
    member or a new static variable: nothing outside the patch can read it) and no other line of the patch
    names it, so nothing reads it; else "" (the usual question)."""
    store_idx: int | None
    if _barrier_side(use.name) == "release":
        m = BARRIER_RE.search(use.code)
        arg = use.code[m.end() :].lstrip() if m else ""
        # only a named field or variable (``&x->f``); through a plain pointer the patch cannot show the readers
        words = re.findall(r"\w+", _object_of(use.code, m.end() - 1)) if m and arg.startswith("&") else []
        name, store_idx = (words[-1] if words else ""), use.idx
    else:  # smp_wmb(): the store of the next statement
        nxt = next((j for j in range(use.idx + 1, len(use.scans)) if use.scans[j].code.strip()), None)
        m = _STORE_AFTER_WMB_RE.match(use.scans[nxt].code) if nxt is not None else None
        name, store_idx = (m.group(1) if m else ""), nxt
    if len(name) < 3:
        return ""
    declared = lazyre.compile(  # a member, or a static variable: not a local, whose stores nobody else sees
        rf"^\s*(?:static\s+[A-Za-z_][\w\s\*]*\b{re.escape(name)}\s*(?:\[[^\]]*\])?\s*[;=]"
        rf"|[A-Za-z_][\w\s\*]*\b{re.escape(name)}\s*(?:\[[^\]]*\])?\s*;)"
    )
    named = lazyre.compile(rf"\b{re.escape(name)}\b")
    # the store's own line, by its index in its hunk's body (the lines of ``diff_text``)
    store_line = use.view.new_in_body[store_idx] if store_idx is not None else None
    declarations = 0
    # only the hunks naming it (the patch's index of words, made once per check: a patch of 20,000 files each
    # adding a barrier must not go over every hunk for each barrier)
    naming = view.hunks_naming(name) if name.isidentifier() else [h for f in view.files for h in f.hunks]
    for hv in naming:
        if name not in hv.diff_text:  # the hunk's text, joined once per check for all the barriers asked about
            continue  # no line of the hunk names it
        body = hv.hunk.body
        for k in _lines_holding(hv.diff_text, (name,)):  # only the lines holding the name, read from the body
            kind, text = body[k][0], body[k][1:]
            if kind == "-" or not named.search(text) or (hv is use.view and k == store_line):
                continue
            if kind == "+" and declared.match(scan_line(text).code):
                declarations += 1
                continue
            return ""  # named elsewhere in the patch: maybe read there
    return name if declarations == 1 else ""


#: How many statements may stand between a block's opening line (``if (...) {``) and the barrier in it for
#: the comment above that line to be read as the barrier's too.
BLOCK_STATEMENTS_ABOVE = 3


def _block_comment(use: _Use) -> str:
    """The comment above the opening line of the block holding the barrier (``/* set it so foo() would wake us
    up */`` above ``if (...) {``, the barrier a few statements into it), else ""."""
    scans, idx = use.scans, use.idx
    for j in range(idx - 1, max(-1, idx - 2 - BLOCK_STATEMENTS_ABOVE), -1):
        code = scans[j].code.strip()
        if _CONTROL_RE.match(code) and code.endswith("{"):
            return comment_above(scans, j) or ""
        if not code.endswith(";") or scans[j].comment:
            return ""
    return ""


#: MMIO writes ordered after earlier writes to memory (Documentation/memory-barriers.txt, "Kernel I/O barrier
#: effects"): a write barrier right before one orders nothing more. Not the relaxed or raw forms, and not a
#: driver's own wrapper, which may be either.
_ORDERED_MMIO_WRITE_RE = lazyre.compile(r"^(?:write[bwlq]|iowrite(?:8|16|32|64)(?:be)?)\s*\(")


def _right_before_ordered_mmio(use: _Use) -> str:
    """Step 7b: a ``wmb()``/``dma_wmb()`` whose next statement is a ``writel()`` (not relaxed): ``writel()``
    already orders the earlier writes to memory before the device sees its write, so a reviewer asks whether
    the barrier is needed. Returns the MMIO write's name, "" when not so."""
    if use.name not in ("wmb", "dma_wmb"):
        return ""
    after = _code_lines(use, 1, 1)
    m = _ORDERED_MMIO_WRITE_RE.match(after[0]) if after else None
    return m.group(0).rstrip("( \t") if m else ""


#: Step 7c, accesses that order by themselves (Documentation/memory-barriers.txt "Kernel I/O barrier effects",
#: Documentation/atomic_t.txt): a ``readl()`` (not relaxed, not a driver's wrapper) completes before later reads of
#: memory, so a read barrier right after it orders nothing more; a value-returning atomic read-modify-write (and
#: ``xchg()``, ``test_and_set_bit()``) is fully ordered, so a full barrier right before or after it adds nothing. Not
#: the ``_relaxed``/``_acquire``/``_release`` forms, and not ``cmpxchg()`` or ``*_unless()``/``*_not_zero()``: they
#: order nothing when they fail.
_ORDERED_MMIO_READ_RE = lazyre.compile(r"\b(?:read[bwlq]|ioread(?:8|16|32|64)(?:be)?)\s*\(")
_FULLY_ORDERED_RMW_RE = lazyre.compile(
    r"\b(?:atomic(?:64|_long)?_(?:(?:add|sub|inc|dec)_return|fetch_(?:add|sub|inc|dec|and|or|xor|andnot)|xchg"
    r"|(?:inc|dec|sub)_and_test|add_negative)|xchg|test_and_(?:set|clear|change)_bit)\s*\("
)
_FULL_BARRIERS = ("smp_mb", "smp_mb__before_atomic", "smp_mb__after_atomic", "mb")


def _already_ordered(use: _Use) -> dict[str, str] | None:
    """Step 7c: the access next to the barrier orders already. ``{"op", "side", "kind"}``: the call, whether the
    barrier is "after" or "before" it, and ``mmio-read`` or ``rmw``; None when not so."""
    if use.name in ("rmb", "dma_rmb"):
        before = _code_lines(use, -1, 1)
        m = _ORDERED_MMIO_READ_RE.search(before[0]) if before else None
        return {"op": m.group(0).rstrip("( \t"), "side": "after", "kind": "mmio-read"} if m else None
    if use.name not in _FULL_BARRIERS:
        return None
    for step, side in ((-1, "after"), (1, "before")):
        if use.name == f"smp_mb__{'before' if step < 0 else 'after'}_atomic":
            continue  # smp_mb__before_atomic() looks forward, smp_mb__after_atomic() back
        near = _code_lines(use, step, 1)
        m = _FULLY_ORDERED_RMW_RE.search(near[0]) if near else None
        if m:
            return {"op": m.group(0).rstrip("( \t"), "side": side, "kind": "rmw"}
    return None


#: Calls too plain to name as what a barrier orders against.
PLAIN_CALLS = frozenset({"spin_lock", "spin_unlock", "spin_lock_irqsave", "spin_unlock_irqrestore"})
_STATEMENT_CALL_RE = lazyre.compile(r"^(?:[\w.\->\[\]]+\s*=\s*)?([A-Za-z_]\w*)\s*\(")
_STATEMENT_STORE_RE = lazyre.compile(r"^([\w.\->\[\]]*(?:->|\.|\])[\w\[\]]*)\s*(?:[|&+\-^]?=)(?!=)")


#: How many code lines after a device write barrier its draft looks for the register write that hands over.
NAMING_LINES = 10


def _what_follows(use: _Use) -> list[str]:
    """What the two code lines after a device barrier do, as a draft names it: the function each calls
    (``udma_sync_for_device()``, ``k3_ringacc_ring_push()``), or the store to memory that comes first ("the
    store to d->flags"), where the walk stops. What the barrier's writes must precede, instead of a stock
    example. A write barrier's handover to the device further on (a register or MMIO write within
    ``NAMING_LINES`` code lines, past lock calls and the stores of a descriptor being filled) is named instead:
    that is what its writes must precede."""
    if use.name in ("wmb", "dma_wmb"):
        hand = next((h for h in map(_handover, _code_lines(use, 1, NAMING_LINES)) if h), "")
        if hand.endswith("()"):  # a flag bit stored first is the handover: named below, as the store it is
            return [hand]
    out: list[str] = []
    for code in _code_lines(use, 1, 2):
        store = _STATEMENT_STORE_RE.match(code)
        if store:
            out.append(f"the store to {store.group(1)}")
            break
        call = _STATEMENT_CALL_RE.match(code)
        if call is None or call.group(1) in _NOT_FUNCS or BARRIER_RE.match(code[call.start(1) :]):
            break
        if call.group(1) not in PLAIN_CALLS:
            out.append(f"{call.group(1)}()")
    return list(dict.fromkeys(out))


def _comment_finding(
    patch: Patch,
    view: PatchView,
    use: _Use,
    text: str,
    known,
    partner: tuple[str, str] | None,
    told: dict[str, str] | None = None,
) -> Finding | None:
    """Step 7: no comment, or one that does not say what the barrier pairs with (or orders)."""
    smp = _is_smp(use.name)
    details: dict = {"barrier": use.name, "smp": smp}
    if told and smp:
        details["told"] = told  # a pairing comment elsewhere points here: the draft names it
    known_pairing = _known_pairing(use) if smp and not told and partner is None else None
    if known_pairing is not None:
        details["known"] = known_pairing._asdict()  # a kernel idiom: the draft names its usual other side
    if partner is not None:
        details.update(partner=partner[0], object=partner[1])
    if _barrier_side(use.name) in ("read", "acquire") and _after_bit_test(use):
        details["bit_test"] = True
    judged = _judged_as(use)
    cpu = judged != use.name  # a plain barrier beside a CPU-only access: judged as its smp_ form
    if not smp and _cpu_ordering(use):
        details["cpu_ordering"] = "hotplug" if _HOTPLUG_RE.search(_function_name(use) or "") else "smp"
    redundant = _right_before_ordered_mmio(use) if not smp else ""
    if redundant:
        details["redundant_before"] = redundant  # the draft asks "is it needed?", not what it orders
    else:
        ordered = _already_ordered(use)
        if ordered is not None:
            details["redundant"] = ordered  # the same question: an ordered MMIO read, a fully ordered atomic
    if not smp:
        then = _what_follows(use)
        if then:
            details["then"] = then  # the draft names what comes after it, not a stock example
    ring = _userspace_ring_index(use) if smp and partner is None else ""
    if ring:
        if text.strip() and _says_what_it_orders(text):
            return None  # the other side is the application, as for every index of the ring: what it orders is enough
        details["ring_index"] = ring
    if not text.strip() and smp:
        block = _block_comment(use)
        if block and (
            _PAIRING_RE.search(block) or {m.group(0) for m in _BARRIER_NAMED_RE.finditer(block)} - {use.name}
        ):
            return None  # the comment above the block holding the barrier says what it pairs with
        partners = [
            f
            for f in _FUNC_NAMED_RE.findall(block)
            if f != use.name and f != _function_name(use) and not _ADDED_BARRIER_RE.match(f + "(")
        ]
        if partners:
            details["named_function"] = partners[0]  # the draft asks which ordering there it pairs with
    unread = _unread_store(view, use) if smp and _barrier_side(use.name) in ("write", "release") else ""
    if unread:
        details["unread"] = unread  # the draft says plainly that nothing reads it, instead of asking
    if not text.strip() and (redundant or details.get("redundant")):
        # what the draft asks, said where the author reads first (check): is it needed at all?
        where, _doc, why = _ordered_already(details)
        message = f"{use.name}() at line {use.new_no} added {where}, which {why}: is it needed?"
        details["problem"] = "no-comment"
    elif not text.strip():
        message = f"{use.name}() at line {use.new_no} added without a comment saying what it " + (
            "pairs with" if smp else "orders"
        )
        if partner is not None:
            message += f" (the patch adds {partner[0]}() on {partner[1]} too)"
        details["problem"] = "no-comment"
    elif _comment_ok(judged, text, known, here=_this_side(use)):
        return None  # a plain barrier ordering against another CPU names that CPU's side, as an SMP barrier does
    else:
        want = "what it pairs with" if smp or cpu else "what it orders"
        message = f"{use.name}() at line {use.new_no} has a comment, but it does not say {want}"
        details.update(problem="comment-without-pairing", comment=text[:200], doubt=bool(_DOUBT_RE.search(text)))
    return RULE.finding(
        patch,
        message,
        path=use.path,
        line=use.new_no,
        input_line=use.input_line,
        hunk=use.hunk,
        symbol=use.symbol,
        details=details,
    )


class _OtherSides:
    """Step 8's reading of the patch, made once and only when a comment names another function: the functions
    it adds whole (:func:`_function_bodies`, read hunk by hunk as names come), and those whose hunks lose a barrier (:func:`_hunks_losing_barrier`)."""

    def __init__(self, view: PatchView) -> None:
        self.view = view
        self._bodies: dict[HunkView, dict[str, list[str]]] = {}  # per hunk: the functions it adds whole

    def body(self, name: str) -> list[str] | None:
        """The body of the function ``name`` if the patch adds it whole (the last one, if it adds several);
        only a hunk whose added lines name it can."""
        found = None
        if name.isidentifier():  # only the hunks naming it, from the patch's index of words (made once)
            hunks = [h for h in self.view.hunks_naming(name) if _is_c(h.path)]
        else:
            hunks = [h for fd in self.view.files if _is_c(fd.path) and name in fd.added_text for h in fd.hunks]
        for hunk in hunks:
            if name in hunk.added_text:
                bodies = self._bodies.get(hunk)
                if bodies is None:
                    bodies = self._bodies[hunk] = _function_bodies(hunk)
                found = bodies.get(name, found)
        return found

    @once
    def losing(self) -> dict[str, bool]:
        return _hunks_losing_barrier(self.view)


def _other_side_finding(patch: Patch, use: _Use, text: str, sides: _OtherSides) -> Finding | None:
    """Step 8 (beyond checkpatch): the named other side, when the patch shows it, has no barrier."""
    for other in _pair_targets(text):
        body = sides.body(other)
        if body is not None:
            missing = not _orders(body) and not any(_orders(sides.body(f) or []) for f in _callees(body) - {other})
        else:
            missing = bool(sides.losing.get(other))
        if missing:
            return RULE.finding(
                patch,
                f"{use.name}() says it pairs with {other}(), but {other}() in this patch has no "
                "barrier or implied barrier",
                path=use.path,
                line=use.new_no,
                input_line=use.input_line,
                hunk=use.hunk,
                symbol=f"{use.symbol}->{other}",
                details={
                    "barrier": use.name,
                    "problem": "other-side-missing",
                    "other": other,
                    "comment": text[:200],
                    "smp": True,
                },
            )
    return None


def _orders(body: list[str]) -> bool:
    """Whether the lines ``body`` hold a barrier or an operation that implies one."""
    return any(BARRIER_RE.search(s.code) or _IMPLYING_RE.search(s.code) for s in scan_lines(body))


def _callees(body: list[str]) -> set[str]:
    """The functions ``body`` calls: the named side may order through a helper the patch adds beside it
    ("Pairs with ... in super_wait()", whose wait_var_event() condition calls wait_born(), the acquire)."""
    return {m.group(1) for s in scan_lines(body) for m in _CALLED_RE.finditer(s.code)} - _NOT_FUNCS


_CALLED_RE = lazyre.compile(r"(?<![.>\w])([A-Za-z_]\w*)\s*\(")  # not a member call (ops->fn(), s.fn())
_NOT_FUNCS = frozenset("if for while switch return sizeof typeof defined __attribute__".split())


class _PatchFunctions:
    """Names the patch shows as functions (called or defined in the code of a C file's lines).

    Asked name by name (``name in functions``): only the code names a comment
    holds are looked up, in the lines that contain them.
    """

    def __init__(self, view: PatchView) -> None:
        self.view = view
        self.cache: dict[str, bool] = {}

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or name in _NOT_FUNCS:
            return False
        hit = self.cache.get(name)
        if hit is None:
            hit = self.cache[name] = self._lookup(name)
        return hit

    def _lookup(self, name: str) -> bool:
        call = re.compile(rf"(?<![.>\w]){re.escape(name)}\s*\(")
        for fd in self.view.files:
            if not _is_c(fd.path):
                continue
            for hunk in fd.hunks:
                if call.search(hunk.section or ""):
                    return True
                if name not in hunk.diff_text:
                    continue  # no line of the hunk names it: none of its sides needs a scan
                for kind in (LineKind.ADDED, LineKind.CONTEXT, LineKind.REMOVED):
                    texts = hunk.texts(kind)  # read from the hunk's body: no DiffLines made
                    if not any(name in text for text in texts):
                        continue
                    # only the lines naming it are scanned (a line's code is cut from its text)
                    scans = LazyScans(texts, starts_in_comment(texts))
                    if any(
                        name in scans[i].code and call.search(scans[i].code) for i, t in enumerate(texts) if name in t
                    ):
                        return True
        return False


#: A quilt or tarball prefix before the kernel tree (``linux-2.6/arch/...``): paths are matched without it.
_TREE_PREFIX_RE = lazyre.compile(r"^linux[\w.-]*/(?=(?:arch|include|kernel|drivers|mm|fs|lib|net|tools)/)")


def _tree_path(path: str) -> str:
    """``linux-2.6/arch/s390/include/asm/bitops.h`` -> ``arch/s390/include/asm/bitops.h``."""
    return _TREE_PREFIX_RE.sub("", path)


#: Where the bit operations and their acquire/release variants are defined (``test_bit_acquire()``,
#: ``clear_bit_unlock()``): a barrier in a function named for that ordering there is the primitive.
BITOPS_PATHS = (
    r"include/asm-generic/bitops/[\w/-]+\.h",
    r"include/linux/bitops\.h",
    r"(?:tools/)?arch/[^/]+/include/asm/bitops[\w/-]*\.h",
)
_BITOPS_PATH_RE = lazyre.compile("^(?:" + "|".join(BITOPS_PATHS) + ")$")
#: The ordering a primitive's name promises: ``test_bit_acquire``, ``clear_bit_unlock``, ``__clear_bit_unlock``.
_ORDERING_NAME_RE = lazyre.compile(r"_(?:acquire|release|lock|unlock)$")

#: Lock implementations: the acquire in ``*_lock()``/``*_trylock()`` and the release in ``*_unlock()`` on
#: the lock word are the lock's own acquire/release (the pair is the lock). Other barriers there (an
#: ``smp_mb()`` in a slow path) are uses like any other.
#: An unlock's slow path (``__pv_queued_spin_unlock_slowpath()``: ``LOCK_PATH_SUFFIXES``) releases the same lock
#: word. (A lock's slow path is left checked: its waits are often on a queue node, not the lock.)
LOCK_PATH_SUFFIXES = ("_slowpath", "_slow")
LOCK_FUNCTION = r"\w*_(?:try)?lock"
UNLOCK_FUNCTION = r"\w*_unlock(?:" + "|".join(LOCK_PATH_SUFFIXES) + ")?"
_LOCK_FUNC_RE = lazyre.compile("^" + LOCK_FUNCTION + "$")
_UNLOCK_FUNC_RE = lazyre.compile("^" + UNLOCK_FUNCTION + "$")


def _function_params(use: _Use) -> set[str]:
    """Parameter names of the function holding the barrier: from its header in the hunk (up to its ``{``),
    else from the hunk's ``@@`` text."""
    h = _function_header(use)
    if h is None:
        text = use.hunk.section or ""
    else:
        parts = []
        for text in use.texts[h : h + 4]:
            parts.append(text)
            if "{" in text or ")" in text:
                break
        text = " ".join(parts)
    m = re.search(r"\w+\s*\(([^()]*)\)", text)
    return _param_names(m.group(1)) if m else set()


def _is_primitive_or_lock(use: _Use) -> bool:
    """Step 2b: an ordering primitive defined in the bitops headers, or a lock's own acquire/release.

    * in ``BITOPS_PATHS``, a barrier in a function named ``*_acquire``/``*_release``/``*_lock``/``*_unlock``
      (``arch_test_bit_acquire()``) defines that primitive; its callers document the pairing;
    * an acquire (``smp_load_acquire()``, ``smp_cond_load_acquire()``) in ``*_lock()``/``*_trylock()``, or a
      release (``smp_store_release()``) in ``*_unlock()``, on the function's own lock parameter
      (``&lock->tickets.owner``), or on a local set from it (``u16 *ptr = (u16 *)lock + ...``), is the lock
      itself.
    """
    func = _function_name(use) or ""
    if _BITOPS_PATH_RE.match(_tree_path(use.path)) and _ORDERING_NAME_RE.search(func):
        return True
    side = _barrier_side(use.name)
    if not ((side == "acquire" and _LOCK_FUNC_RE.match(func)) or (side == "release" and _UNLOCK_FUNC_RE.match(func))):
        return False
    # the first argument's leading name (``&lock->tickets.owner,`` -> ``lock``), also when the call goes on
    # over the next line
    args = use.code[use.code.index("(", use.code.index(use.name)) + 1 :]
    root = re.match(r"[\s(&*]*(\w+)", args)
    if root is None:
        return False
    params = _function_params(use)
    return root.group(1) in params or _derived_from_param(use, root.group(1), params)


def _derived_from_param(use: _Use, name: str, params: set[str]) -> bool:
    """Is the local ``name`` set, earlier in the function, from one of its parameters? A ticket unlock releases
    the owner half of the lock word through ``u16 *ptr = (u16 *)lock + ...;`` (the lock itself, still)."""
    h = _function_header(use)
    if h is None or not params:
        return False
    assigned = re.compile(rf"\b{re.escape(name)}\s*=([^=;][^;]*)")
    for text in use.texts[h + 1 : use.idx]:
        m = assigned.search(text)
        if m and any(re.search(rf"\b{re.escape(p)}\b", m.group(1)) for p in params):
            return True
    return False


#: MMIO writes (and driver wrappers named after them: ``rd_writel()``): a write barrier right before one
#: orders memory against the device, not against another CPU.
MMIO_WRITES = (
    r"(?:__raw_)?write[bwlq](?:_relaxed|_be|_rep)?",
    r"iowrite\d+(?:be|_rep)?",
    r"writes[bwlq]",
    r"lo_hi_writeq\w*",
    r"hi_lo_writeq\w*",
)
_MMIO_WRITE_RE = lazyre.compile(r"(?<![\w.>])(?:\w+_)?(?:" + "|".join(MMIO_WRITES) + r")\s*\(")
#: Only the SMP write barrier: a ``wmb()`` there is a device barrier, still asked what it orders (a comment like
#: "make sure all write ops are in order" names nothing).
_WRITE_BARRIERS = ("smp_wmb",)


def _before_mmio_write(use: _Use) -> str:
    """Step 2c: an ``smp_wmb()`` whose next statement (of the next two) is an MMIO write.

    Asking what such a barrier pairs with on another CPU is the wrong question: it orders memory writes
    against the device's view (``writel()`` already does), so the rule stays quiet.
    """
    if use.name not in _WRITE_BARRIERS:
        return ""
    rest = use.code[use.code.index(use.name) :]
    m = _MMIO_WRITE_RE.search(rest[rest.index(";") :]) if ";" in rest else None
    if m:
        return m.group(0).rstrip("( \t")
    seen = 0
    for j in range(use.idx + 1, len(use.scans)):
        code = use.scans[j].code.strip()
        if not code or code in ("{", "}"):
            continue
        m = _MMIO_WRITE_RE.search(code)
        if m:
            return m.group(0).rstrip("( \t")
        if code.endswith((";", "}")):
            seen += 1
        if seen >= 2 or _CONTROL_RE.match(code):
            return ""
    return ""


def _mmio_finding(patch: Patch, use: _Use, mmio: str) -> Finding | None:
    """Step 2c's note: an uncommented (or unexplained) ``smp_wmb()`` right before an MMIO write is the wrong
    question to ask about pairing: ``smp_wmb()`` orders only against other CPUs (a compiler barrier on !SMP),
    ``writel()`` already orders earlier memory writes before the device sees its write, and
    ``writel_relaxed()`` does not (that wants ``wmb()``/``dma_wmb()``). A comment naming a pair is left alone."""
    own, note = _comment_texts(use)
    text = " ".join(t for t in (own, note) if t)
    if text.strip() and _comment_ok(use.name, text):
        return None
    return RULE.finding(
        patch,
        f"{use.name}() at line {use.new_no} comes right before {mmio}(), an MMIO write: it orders only against "
        "other CPUs, not the device",
        path=use.path,
        line=use.new_no,
        input_line=use.input_line,
        hunk=use.hunk,
        symbol=f"{use.symbol}:mmio",
        details={
            "barrier": use.name,
            "problem": "before-mmio-write",
            "mmio": mmio,
            "smp": True,
            "relaxed": "relaxed" in mmio or mmio.startswith("__raw_"),
        },
    )


# ---------------------------------------------------------------- step 9: would a reviewer ask it?
#
# The finding stays (the labels count the barrier), but a draft asks only what a careful reviewer would ask:
# ``details["not_asked"]`` says why not, and the drafter records the skip ``not-asked`` with that reason.


def _code_lines(use: _Use, step: int, count: int) -> list[str]:
    """Up to ``count`` code lines of the barrier's function from the barrier in direction ``step`` (blank
    and comment-only lines and lone braces skipped; the function's closing brace or header ends the walk)."""
    out: list[str] = []
    j = use.idx + step
    while 0 <= j < len(use.scans) and len(out) < count:
        text = use.texts[j]
        if text.startswith("}") or (step < 0 and j == use.header):
            break
        code = " ".join(use.scans[j].code.split())
        if code and code not in ("{", "}", "};"):
            out.append(code)
        j += step
    return out


_CONSTANT_RE = lazyre.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*\b")  # BD_DONE, QBMAN_CINH_SWP_EQCR_PI
#: A store: the left-hand side (up to the first assignment operator), the operator and the value.
_ASSIGNMENT_RE = lazyre.compile(r"^((?:->|[^=;!<>])+?)\s*(\|=|[&+\-^]?=)(?!=)\s*(.*?);?$")
_TO_MEMORY_RE = lazyre.compile(r"->|\.|\]|^\s*\*")
_BIT_OR_RE = lazyre.compile(r"(?<![|])\|(?![|=])")


def _flag_store(code: str) -> bool:
    """A store that sets a bit in memory (``bd->mode.status |= BD_DONE``, ``p[0] = cl[0] | vb``), or stores a
    constant (``desc->status = cpu_to_le32(DESC_OWN)``): what hands a descriptor over to its owner."""
    m = _ASSIGNMENT_RE.match(code)
    if m is None or not _TO_MEMORY_RE.search(m.group(1)):
        return False
    op, value = m.group(2), m.group(3)
    if op == "|=":
        return True
    return op == "=" and bool(
        _BIT_OR_RE.search(value) or re.fullmatch(r"(?:\w+\()?\s*[A-Z][A-Z0-9]*_[A-Z0-9_]*\s*\)?", value)
    )


_COPY_CALL_RE = lazyre.compile(r"(?<![\w.>])(?:mem(?:cpy|set|move)\w*|copy_\w+)\s*\(")


def _memory_store(code: str) -> bool:
    """A store to memory: to a member, an array element or through a pointer, or a copy into a buffer."""
    m = _ASSIGNMENT_RE.match(code)
    return bool(m and _TO_MEMORY_RE.search(m.group(1))) or _COPY_CALL_RE.search(code) is not None


_WRITE_CALL_RE = lazyre.compile(r"(?<![\w.>])(\w*write\w*)\s*\(")
#: How many code lines after a device write barrier its handover may be (a loop setting each entry's valid bit).
HANDOVER_LINES = 5
#: How many code lines before it the writes it orders may be.
ORDERED_WRITE_LINES = 8


def _handover(code: str) -> str:
    """The write that hands memory over to a device: an MMIO write, a driver's register write (a call named
    ``*write*`` given a register constant, ``qbman_write_register(s, QBMAN_CINH_SWP_EQCR_PI, ...)``), or a store
    setting a flag bit; "" for anything else."""
    m = _MMIO_WRITE_RE.search(code)
    if m:
        return m.group(0).rstrip("( \t") + "()"
    m = _WRITE_CALL_RE.search(code)
    if m and _CONSTANT_RE.search(code[m.end() :]):
        return m.group(1) + "()"
    if _flag_store(code):
        return "the store " + code.rstrip(";").strip()
    return ""


def _ordering_in_view(use: _Use) -> str:
    """A device write barrier between writes to memory and the write that hands them to the device, all in the
    hunk (``memcpy()`` into the ring entry, ``dma_wmb()``, the entry's valid bit; or ``dma_wmb()`` right
    before ``bd->status |= BD_DONE``): the barrier says what it orders by where it stands, as in
    Documentation/memory-barriers.txt's ``dma_wmb()`` example. Returns the reason, "" when not so."""
    if use.name in ("dma_rmb", "rmb"):
        return _read_ordering_in_view(use)
    if use.name not in ("dma_wmb", "wmb"):
        return ""
    after = _code_lines(use, 1, HANDOVER_LINES)
    hand = next((h for h in map(_handover, after) if h), "")
    if not hand:
        return ""
    before = [c for c in _code_lines(use, -1, ORDERED_WRITE_LINES) if _memory_store(c)]
    flag_next = bool(after) and _flag_store(after[0]) and _CONSTANT_RE.search(after[0]) is not None
    if not before and not flag_next:
        return ""
    return f"the {use.name}() stands between the writes it orders and {hand}, which hands them over: in plain view"


#: A condition that reads a field of an object through a pointer: ``while ((desc->die_dt & DT_MASK) != DT_FEMPTY)``.
_CHECKED_FIELD_RE = lazyre.compile(r"^(?:\}\s*)?(?:if|while)\s*\(.*?\b(\w+)->\w+")


def _read_ordering_in_view(use: _Use) -> str:
    """The read side of the same pattern: ``dma_rmb()`` between the check of a descriptor's ownership or status
    field and the reads of its other fields (``while (desc->die_dt ...) { dma_rmb(); len = desc->info_ds; }``),
    the read example of memory-barriers.txt: the barrier says what it orders by where it stands."""
    above, below = _code_lines(use, -1, 1), _code_lines(use, 1, 2)
    m = _CHECKED_FIELD_RE.match(above[0]) if above else None
    if m is None or not any(re.search(rf"=.*\b{re.escape(m.group(1))}->\w+", c) for c in below):
        return ""
    return f"the {use.name}() stands between the check of {m.group(1)}'s status and the reads of its other fields"


#: A comment that sends the reader to another comment ("See above", "as above", "NOTE: see below").
_POINTER_COMMENT_RE = lazyre.compile(
    r"^\W*(?:note:?\s*)?(?:see|as|same\s+as)\s+(?:the\s+comment\s+)?(?:above|below|earlier)\W*$", re.IGNORECASE
)


def _points_elsewhere(own: str) -> str:
    """Step 9b: the barrier's comment is a pointer to another comment ("See above"): saying it does not say what
    it orders would be false, and the comment it points to is not checked here."""
    text = own.strip()
    if _POINTER_COMMENT_RE.match(text):
        return f'its comment ("{text}") points to another comment for what it orders'
    return ""


#: Words that show a barrier orders against instruction fetch (code patching, I-cache maintenance): there is
#: no reader-side barrier on another CPU to name.
INSTRUCTION_WORDS = (
    r"instructions?",
    r"insns?",
    r"i-?cache",
    r"\w*_icache\w*",
    r"\w*insn\w*",
    r"text_poke\w*",
    # the ISA's own I-cache and context synchronisation: powerpc icbi/isync, arm64 "ic ivau", riscv fence.i
    r"icbi",
    r"isync",
    r"ic\s+ivau",
    r"fence\.i",
)
_INSTRUCTION_RE = lazyre.compile(
    r"\b(?:" + "|".join(INSTRUCTION_WORDS) + r")\b|\bpatch(?:ing|ed)?\s+in\b", re.IGNORECASE
)
_ERRATUM_RE = lazyre.compile(r"\berrat(?:um|a)\b", re.IGNORECASE)


def _not_cpu_pairing(patch: Patch, use: _Use, own: str) -> str:
    """Step 9c: a barrier that orders against something other than a barrier on another CPU: a CPU erratum
    workaround (the comment or the changelog names the erratum), or data written before instructions are
    patched in or fetched (the comment, or the code right before or after it, speaks of instructions, the
    I-cache or the ISA's I-cache synchronisation: ``mb(); icbi(addr); mb(); isync();``). Mandatory barriers
    (``mb()``) around I-cache maintenance count as much as SMP ones."""
    if _ERRATUM_RE.search(own) or (_is_smp(use.name) and _ERRATUM_RE.search(patch.commit_message or "")):
        return f"the {use.name}() works around a CPU erratum the patch names: it pairs with no barrier"
    near = _code_lines(use, 1, 2) + _code_lines(use, -1, 1)
    if _INSTRUCTION_RE.search(own) or any(_INSTRUCTION_RE.search(c) for c in near):
        return f"the {use.name}() orders writes before instructions are patched in or fetched: no barrier pairs with it"
    return ""


def _moved_in_hunk(use: _Use) -> str:
    """Step 9e: the same barrier call removed in the same hunk: the patch moves an existing barrier (into both
    branches of a new ``if``, or below a new early return), it adds no new ordering to explain."""
    if " ".join(use.code.split()) in _removed_barrier_codes(use.view):
        return f"the {use.name}() moves the one the same hunk removes: not a new barrier"
    return ""


@functools.lru_cache(maxsize=64)
def _removed_barrier_codes(hv: HunkView) -> frozenset[str]:
    """The code of the hunk's removed barrier lines, whitespace-normalised: read once per hunk of a check (the
    view lives for one check), not once per added barrier."""
    return frozenset(
        " ".join(scan_line(dl.text).code.split())
        for dl in hv.hunk.lines
        if dl.kind is LineKind.REMOVED and BARRIER_RE.search(dl.text)
    )


#: A sequence count's read side: ``seq = s->seq;`` / ``mmu_seq = kvm->mmu_notifier_seq;`` then ``smp_rmb()``.
_SEQ_LOAD_RE = lazyre.compile(r"^\w*seq\w*\s*=\s*(?:READ_ONCE\()?[\w.>-]*seq\w*\)?\s*;$", re.IGNORECASE)


def _seqcount_read_side(use: _Use) -> str:
    """Step 9f: an ``smp_rmb()`` right after loading a sequence count is the read side of the sequence-count
    protocol (the reader re-checks the count after reading the data; the writer's increment is the other side,
    as in ``read_seqcount_begin()``): a reviewer reads it as the idiom it is."""
    if use.name != "smp_rmb":
        return ""
    above = _code_lines(use, -1, 1)
    if above and _SEQ_LOAD_RE.match(above[0]):
        return "the smp_rmb() after loading a sequence count is the read side of the sequence-count idiom"
    return ""


@functools.lru_cache(maxsize=8)
def _kept_barrier_pairs(view: PatchView, path: str) -> frozenset[tuple[str, str]]:
    """Two consecutive code lines of the file's new side, one of them an unchanged (context) barrier line.

    Worked out once per file of a check (cached on the view, which lives for one check): every barrier of the
    file asks it, so reading the file's hunks each time made a file of thousands of hunks quadratic."""
    out: set[tuple[str, str]] = set()
    for fd in view.files_at(path):
        for hv in fd.hunks:
            if not BARRIER_RE.search(hv.context_text):
                continue
            lines = [dl for dl in hv.hunk.lines if dl.kind is not LineKind.REMOVED]
            scans = scan_lines([dl.text for dl in lines], False)
            codes = [(" ".join(sc.code.split()), dl.kind) for sc, dl in zip(scans, lines)]
            codes = [(c, k) for c, k in codes if c and c not in ("{", "}")]
            for (a, ka), (b, kb) in zip(codes, codes[1:]):
                if (ka is LineKind.CONTEXT and BARRIER_RE.search(a)) or (
                    kb is LineKind.CONTEXT and BARRIER_RE.search(b)
                ):
                    out.add((a, b))
    return frozenset(out)


@functools.lru_cache(maxsize=8)
def _commented_context_barriers(view: PatchView, path: str) -> frozenset[str]:
    """The unchanged barrier lines of the file in the patch that carry a comment, whitespace-normalised (once
    per file of a check, as :func:`_kept_barrier_pairs`)."""
    out: set[str] = set()
    for fd in view.files_at(path):
        for hv in fd.hunks:
            for dl in hv.hunk.lines:
                if dl.kind is LineKind.CONTEXT and BARRIER_RE.search(dl.text) and scan_line(dl.text).comment.strip():
                    out.add(" ".join(dl.text.split()))
    return frozenset(out)


def _copy_of_kept_code(use: _Use, view: PatchView) -> str:
    """Step 9d: a barrier that copies existing code the patch keeps: with the code line above or below it, two
    lines beside an unchanged barrier of the same file (a function split in two, each half keeping the
    barrier); or in a new function that copies, comment and all, an unchanged barrier line of the file (a new
    handler made from an old one). The question belongs to the original."""
    code = " ".join(use.code.split())
    above, below = _code_lines(use, -1, 1), _code_lines(use, 1, 1)
    pairs = _kept_barrier_pairs(view, use.path)
    if (above and (above[0], code) in pairs) or (below and (code, below[0]) in pairs):
        return f"the {use.name}() and the line beside it copy an unchanged barrier of the same file"
    header = use.header
    if header is None or not all(use.view.new_added[header : use.idx + 1]):
        return ""  # not in a function the patch adds
    kept = _commented_context_barriers(view, use.path)
    if not kept:
        return ""
    j = header
    while j < len(use.texts) and use.view.new_added[j] and not use.texts[j].startswith("}"):
        if j != use.idx and " ".join(use.texts[j].split()) in kept:
            return f"the new function copies an unchanged barrier of the file, comment and all ({use.texts[j].strip()})"
        j += 1
    return ""


class _SeriesBarrier(NamedTuple):
    """A barrier added with a comment in the patch or its series: what a reviewer reads as the other side."""

    barrier: str
    func: str
    patch: str  # "01/12"; "" for this patch
    comment: str
    where: tuple[str, int | None]


#: Words too common in barrier comments to tie two of them together.
COMMON_COMMENT_WORDS = frozenset(
    "ensure ensures make makes sure that this with from before after barrier barriers order ordering ordered "
    "memory here there them they will when then also".split()
)


def _content_words(text: str) -> set[str]:
    return {w.lower().rstrip("s") for w in _WORD_RE.findall(text) if len(w) >= 4} - COMMON_COMMENT_WORDS


def _series_barriers(patch: Patch, ctx: RuleContext) -> list[_SeriesBarrier]:
    """Every SMP barrier added with a comment by the patch and the other patches of its series."""
    out: list[_SeriesBarrier] = []
    patches: list[tuple[Patch, str]] = [(patch, "")]
    if ctx.series is not None:
        for other in ctx.series.patches:
            if other is not patch and other.message_id != patch.message_id:
                s = other.subject
                patches.append(
                    (other, f"{s.index:02d}/{s.total}" if s.index is not None and s.total else "another patch")
                )
    for p, label in patches:
        for fd in p.files:
            if not _is_c(fd.path):
                continue
            for h in fd.hunks:
                if not any(line[:1] == "+" and _ADDED_BARRIER_RE.search(line) for line in h.body):
                    continue
                lines = [dl for dl in h.lines if dl.kind is not LineKind.REMOVED]
                scans = LazyScans([dl.text for dl in lines])
                for j, dl in enumerate(lines):
                    if dl.kind is not LineKind.ADDED or not _ADDED_BARRIER_RE.search(dl.text):
                        continue
                    m = _ADDED_BARRIER_RE.search(scans[j].code)
                    if not m or not _is_smp(m.group(1)):
                        continue
                    comment = " ".join(c for c in (scans[j].comment, comment_above(scans, j) or "") if c).strip()
                    if len(_WORD_RE.findall(comment)) >= 4:
                        index = h.lines.index(dl)
                        out.append(
                            _SeriesBarrier(
                                m.group(1),
                                _function_named(h, index),
                                label,
                                " ".join(comment.split()),
                                (fd.path, dl.new_no),
                            )
                        )
    return out


def _other_side_in_series(use: _Use, own: str, barriers: Sequence[_SeriesBarrier]) -> str:
    """Step 9e: a commented SMP barrier whose other side the series adds with a comment too: a read barrier in
    one patch ("ensure any stopping CPU's memory accesses are visible") and write barriers in the others
    ("ensure the saved regs are visible before going offline"), in other functions. A reviewer reads the pair
    from the two comments; the draft would only ask for the words "pairs with". Only when it is plain which:
    the commented barriers of the other kind all speak of what this comment speaks of (a word in common), or
    there is one of them and it does."""
    side = _barrier_side(use.name)
    if side in ("full", "device") or len(_WORD_RE.findall(own)) < 4:
        return ""
    wanted = _COMPLEMENT[side]
    func = _function_name(use) or ""
    mine = _content_words(own)
    others = [
        b
        for b in barriers
        if _barrier_side(b.barrier) in wanted and b.func != func and b.where != (use.path, use.new_no)
    ]
    alike = [b for b in others if mine & _content_words(b.comment)]
    if not alike or len(alike) < len(others):
        return ""
    b = alike[0]
    there = f"the {b.barrier}()" + (f" in {b.func}()" if b.func else "") + (f" of {b.patch}" if b.patch else "")
    return f'the other side is {there}, with a comment ("{b.comment[:80]}")'


def _same_point_earlier(use: _Use, op: str, ctx: RuleContext, patch: Patch) -> str:
    """Step 9f: the same ``smp_mb__*_atomic()`` next to the same plain access is added by an earlier patch of
    the series: one draft (on that patch) makes the point for the series."""
    series = ctx.series
    mine = patch.subject.index
    if series is None or mine is None:
        return ""
    step = -1 if use.name == "smp_mb__after_atomic" else 1
    for other in series.patches:
        index = other.subject.index
        if index is None or index >= mine:
            continue
        for fd in other.files:
            if not _is_c(fd.path):
                continue
            for h in fd.hunks:
                new = [dl for dl in h.lines if dl.kind is not LineKind.REMOVED]
                for j, dl in enumerate(new):
                    if dl.kind is not LineKind.ADDED or f"{use.name}(" not in dl.text:
                        continue
                    k = j + step
                    while 0 <= k < len(new) and not scan_line(new[k].text).code.strip():
                        k += step
                    if 0 <= k < len(new) and re.search(rf"\b{re.escape(op)}\s*\(", new[k].text):
                        s = other.subject
                        return (
                            f"the same point ({use.name}() next to {op}()) is on {s.index:02d}/{s.total} of this series"
                        )
    return ""


def _other_end_in_view(use: _Use, own: str, pairs: _PatchPairs, naming: _Told | None) -> str:
    """Step 9a: the barrier's comment says why it is there but not what it pairs with, and the patch shows the
    other end: a comment added elsewhere names this barrier (or its function) as its pair, or the matching
    acquire/release on the same object is added with a comment of its own (for a barrier without a comment:
    the comment above the statements it closes says why). The finding stays (its own comment still names no
    pair, and a later change to one end cannot find the other), but a reviewer reading the patch sees the pair
    and would not ask. Returns the reason, "" when not so."""
    if not own.strip() and not _statements_comment(use.scans, use.idx).strip():
        return ""  # nothing here says why: asked, and the draft names the other end it sees
    func = _function_name(use) or "its function"
    if own.strip() and naming is not None:
        where = f" (patch {naming.patch})" if naming.patch else ""
        return (
            f"the {naming.barrier}() in {naming.func or 'another function'}{where} says it pairs with {func}, "
            f"and this {use.name}() says why it is there: the pair is in plain view"
        )
    if own.strip() and pairs.named_elsewhere(use):
        return f"a comment the patch adds names this {use.name}() in {func} as its pair: the pair is in plain view"
    partner = pairs.partner(use)
    if partner is not None and pairs.partner_commented(use):
        return (
            f"the patch adds the matching {partner[0]}() on {partner[1]} with a comment too, and this "
            f"{use.name}() says why it is there: the pair is in plain view"
        )
    return ""


def _not_asked(finding: Finding, reason: str) -> Finding:
    """The finding kept, saying why no draft asks it (the drafter's skip ``not-asked``) when there is a reason."""
    return replace(finding, details={**finding.details, NOT_ASKED_KEY: reason}) if reason else finding


def _why_not_asked(
    patch: Patch, view: PatchView, use: _Use, own: str, series: Sequence[_SeriesBarrier], finding: Finding
) -> str:
    """Step 9 for a barrier without a (good) comment, in order: the ordering in plain view; a comment that
    points to another; no barrier on another CPU to pair with; a copy of code the patch keeps; the other side
    commented in the series. "" when a reviewer would ask."""
    if not own.strip() and not _redundant(finding):  # a redundant barrier is asked about
        reason = _ordering_in_view(use)
        if reason:
            return reason
    return (
        _points_elsewhere(own)
        or _not_cpu_pairing(patch, use, own)
        or _moved_in_hunk(use)
        or _seqcount_read_side(use)
        or _copy_of_kept_code(use, view)
        or (_other_side_in_series(use, own, series) if series else "")
    )


def check(patch: Patch, ctx: RuleContext) -> Iterable[Finding]:
    """Report added barriers without a (good) comment, and named other sides lacking a barrier."""
    if not patch.files:
        return []
    view = patch_view(patch, ctx)
    if not _may_add_barrier(view):
        return []
    moves = _Moves(patch, view)
    findings: list[Finding] = []
    pairs: _PatchPairs | None = None
    known: _PatchFunctions | None = None
    elsewhere: _Elsewhere | None = None
    series_barriers: list[_SeriesBarrier] | None = None
    sides = _OtherSides(view)
    for use in _barrier_uses(view):
        if _is_definition(use) or _is_primitive_or_lock(use):
            continue
        mmio = _before_mmio_write(use)
        if mmio:
            if not moves.unchanged(use):
                finding = _mmio_finding(patch, use, mmio)
                if finding is not None:
                    findings.append(finding)
            continue
        if moves.unchanged(use):
            continue
        if _copied_from_context(use, view):
            continue  # a copy of the unchanged code beside it: asked about there, if anywhere
        finding = _non_rmw_finding(patch, use)  # also for a barrier changed in type: the change may be the bug
        if finding is not None:
            findings.append(_not_asked(finding, _same_point_earlier(use, str(finding.details["op"]), ctx, patch)))
            continue
        if _renamed_in_place(use, moves):
            continue
        own, note = _comment_texts(use)
        text = " ".join(t for t in (own, note) if t)
        documented = _documented_pattern(use)
        judged = _judged_as(use)
        if documented and text.strip() and _comment_ok(judged, text):
            continue  # the pattern says where its other side is, and so does the comment
        if not (text.strip() and _comment_ok(judged, text)):  # else: good without looking further
            if known is None or pairs is None:
                known = _PatchFunctions(view)
                pairs = _PatchPairs(patch, view)
            if elsewhere is None:
                elsewhere = _Elsewhere(patch, ctx)
            naming = elsewhere.naming(use) if _is_smp(use.name) else None
            told = naming.as_details("function") if naming is not None else None
            if told is None and _is_smp(use.name):
                field = elsewhere.same_field(use)
                told = field.as_details("field") if field is not None else None
            finding = _comment_finding(patch, view, use, text, known, pairs.partner(use), told)
            if finding is not None:
                # step 9a: a documented pattern, or the other end in plain view; else the reasons a barrier alone gives
                reason = documented or _other_end_in_view(use, own, pairs, naming)
                if not reason:
                    if series_barriers is None:
                        series_barriers = _series_barriers(patch, ctx) if _is_smp(use.name) and own.strip() else None
                    reason = _why_not_asked(patch, view, use, own, series_barriers or (), finding)
                findings.append(_not_asked(finding, reason))
                continue
        if documented or not _is_smp(use.name):
            continue
        finding = _other_side_finding(patch, use, text, sides)
        if finding is not None:
            findings.append(finding)
    return [_sure_or_not(_with_function(f)) for f in findings]


def _with_function(finding: Finding) -> Finding:
    """``details["function"]``: the function the barrier sits in, as a reviewer names it (:func:`_function_named`:
    a function the hunk adds whole, not the one its ``@@`` line names), for report lines and drafts."""
    hunk = finding.hunk
    if hunk is None or finding.line is None or finding.details.get("function"):
        return finding
    index = next(
        (i for i, dl in enumerate(hunk.lines) if dl.kind is not LineKind.REMOVED and dl.new_no == finding.line), None
    )
    name = _function_named(hunk, index) if index is not None else ""
    return replace(finding, details={**finding.details, "function": name}) if name else finding


#: Step 10, the points a careful reviewer sends for sure: a barrier that orders nothing (``smp_mb__after_atomic()``
#: after ``atomic_set()``) or orders again what is ordered already (a ``wmb()`` before ``writel()``), an SMP barrier
#: asked to order a device, a named other side with no barrier. A request for a pairing comment is not one of them:
#: read next to their threads on lists the rule never saw, 0 of 56 such drafts would have been sent as written (the
#: other side was in plain view, in the series, or a known idiom), so it stays a finding (``draft --unsure`` drafts it).
SURE_PROBLEMS = frozenset({"not-after-rmw", "before-mmio-write", "other-side-missing"})  # and _redundant()
UNSURE_PAIRING = "a request for a pairing comment: whether the other side is plain enough is the reviewer's call"


def _sure_or_not(finding: Finding) -> Finding:
    """Step 10: mark a point the drafter writes only when asked (``details["unsure"]``)."""
    if finding.details.get("problem") in SURE_PROBLEMS or _redundant(finding):
        return finding
    return replace(finding, details={**finding.details, UNSURE_KEY: UNSURE_PAIRING})


def _then_named(fs: Sequence[Finding]) -> str:
    """The calls after one device barrier (``details["then"]``) as a draft names them ("udma_sync_for_device()
    and k3_ringacc_ring_push()"); "" for several barriers or none known."""
    if len(fs) != 1 or not fs[0].details.get("then"):
        return ""
    items = [str(c) for c in fs[0].details["then"]]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def _redundant(f: Finding) -> bool:
    """A barrier next to an access that orders already (steps 7b and 7c): the draft asks whether it is needed."""
    return bool(f.details.get("redundant_before") or f.details.get("redundant"))


def _ordered_already(details: Mapping[str, Any]) -> tuple[str, str, str]:
    """Where a barrier sits next to an access that orders already, the document that says so, and what the access
    orders: ``("right before writel()", "Documentation/memory-barriers.txt", "already orders earlier writes to
    memory before the device sees its write")``. One wording for check's message and the draft's question."""
    if details.get("redundant_before"):
        mmio = details["redundant_before"]
        return (
            f"right before {mmio}()",
            "Documentation/memory-barriers.txt",
            "already orders earlier writes to memory before the device sees its write",
        )
    r = details["redundant"]
    if r.get("kind") == "mmio-read":
        return (
            f"right after {r['op']}()",
            "Documentation/memory-barriers.txt",
            "completes before any later read of memory starts",
        )
    return (
        f"right {r['side']} {r['op']}()",
        "Documentation/atomic_t.txt",
        "returns a value and is fully ordered already",
    )


def _redundant_paragraph(f: Finding) -> str:
    """The question for a barrier next to an access that orders already: a ``wmb()`` right before a ``writel()``
    (``details["redundant_before"]``), an ``rmb()`` right after a ``readl()``, a full barrier next to a fully
    ordered atomic (``details["redundant"]``)."""
    barrier = f.details.get("barrier", "wmb")
    where, doc, why = _ordered_already(f.details)
    op = where.split(" ")[-1]
    ask = f"Is the {barrier}() needed here? If it is, could a comment say what it orders"
    rmw = not f.details.get("redundant_before") and f.details["redundant"].get("kind") != "mmio-read"
    return f"The {barrier}() {where} looks redundant to me: as far as I understand {doc}, {op} {why}. " + (
        f"{ask} that {op} does not?" if rmw else f"{ask}?"
    )


def _weak_paragraph(weak: Sequence[Finding], names: str, hint: str = "") -> str:
    """The paragraph for barriers whose comment does not say what they pair with: a comment that is a question
    or a doubt ("hmmm? del_rcu followed by add_rcu?") is worded as a barrier without an explanation."""
    if all(f.details.get("cpu_ordering") for f in weak):  # mb() in CPU hotplug code: ordering against a CPU
        return (
            f"The comment at {names} does not say what it orders. Could it name the accesses, and what they are "
            "ordered against on the other CPU (e.g. the per-CPU state this CPU reads before going on, and the "
            "CPU that writes it)?"
        )
    if not any(f.details.get("smp") for f in weak):  # device barriers: what they order, not what they pair with
        then = _then_named(weak)
        if then:  # what follows the barrier, named: no stock example
            return (
                f"The comment at {names} does not say what it orders. Could it name the writes that must be "
                f"visible before {then} below it?"
            )
        return (
            f"The comment at {names} does not say what it orders. Could it name the accesses, e.g. the "
            "descriptor or ring writes that must be visible before the doorbell or register write?"
        )
    usually = f" ({hint})" if hint else ""  # only a hint that fits the barrier: none for a full barrier
    doubts = [f for f in weak if f.details.get("doubt")]
    if doubts:
        quoted = str(doubts[0].details.get("comment", "")).strip()
        return (
            f'The comment at {names} ("{quoted}") reads as an open question rather than an explanation. '
            "Is the barrier needed? If it is, could the comment say what it orders and which barrier or "
            f"operation on the other side it pairs with{usually}, and in which function?"
        )
    if ", " in names:  # several barriers: "The comments at smp_mb() and smp_wmb() say ..."
        both = " and ".join(names.rsplit(", ", 1))
        return (
            f"The comments at {both} say why a barrier is wanted, but not what they pair with. Would you "
            f"mind naming the matching barrier or the operation that implies it{usually}, and the function "
            "where it lives, in each of them?"
        )
    return (
        f"The comment at {names} says why a barrier is wanted, but not what it pairs with. Would you mind "
        f"naming the matching barrier or the operation that implies it{usually}, and the function where it lives?"
    )


#: What the application does on the other side of a ring index, by the side of the kernel's barrier.
_APP_SIDE = {
    "acquire": "store-release of {i} (liburing's io_uring_smp_store_release())",
    "release": "load-acquire of {i} (liburing's io_uring_smp_load_acquire())",
    "read": "write barrier before it updates {i}",
    "write": "read barrier after it reads {i}",
    "full": "barrier around its access to {i}",
}


def _ring_paragraph(fs: Sequence[Finding]) -> str:
    """The question for barriers on io_uring ring indexes shared with userspace: the other side is the
    application, so the comment only needs to say so."""
    items = list(dict.fromkeys((str(f.details.get("barrier", "")), str(f.details.get("ring_index", ""))) for f in fs))
    what = " and ".join(f"the {b}() on {i}" for b, i in items)
    examples = []
    for b, i in items:
        field = i.rsplit("->", 1)[-1].rsplit(".", 1)[-1]
        side = _APP_SIDE.get(_barrier_side(b), _APP_SIDE["full"]).format(i=f"the {field}")
        examples.append(f'"Pairs with the application\'s {side}"' + (f" for the {b}()" if len(items) > 1 else ""))
    many = len(items) > 1
    return (
        f"If I read it right, {what} {'pair' if many else 'pairs'} with the application on the other side "
        f"of the ring (liburing or the program itself), which shares {'these indexes' if many else 'that index'}"
        f" with the kernel. Could a short comment say so, e.g. {'; '.join(examples)}? Then the next reader "
        "does not go looking for the other side in the kernel."
    )


def _cpu_paragraph(fs: Sequence[Finding]) -> str:
    """The question for a plain mb()/rmb()/wmb() in CPU bring-up or hotplug code that touches no device: it
    orders against another CPU, so the comment says what it orders against that CPU (no device example)."""
    names = sorted({f"{f.details.get('barrier', 'mb')}()" for f in fs})
    each = "each" if len(fs) > 1 and len(names) == 1 else "the"
    example = (
        "the CPU state read in the wait loop before the dying CPU is powered off"
        if any(f.details.get("cpu_ordering") == "hotplug" for f in fs)
        else "the boot data written here before the secondary CPU is released to read it"
    )
    return (
        f"Could you add a short comment to {each} {', '.join(names)} saying what it orders against the other "
        "CPU: which accesses here must be done or visible before which, and which code on the other CPU "
        f"relies on it (e.g. {example})? It is not obvious to me from the patch alone."
    )


def _mmio_paragraph(f: Finding) -> str:
    """The device-ordering note for an smp_wmb() right before an MMIO write (no SMP pairing question)."""
    mmio = f.details.get("mmio", "writel")
    if f.details.get("relaxed"):
        return (
            f"The {f.details.get('barrier')}() right before {mmio}() comes before a relaxed MMIO write. As far as "
            "I understand Documentation/memory-barriers.txt, smp_wmb() orders only against other CPUs (it is a "
            "compiler barrier on !SMP), and a relaxed MMIO write is not ordered after earlier memory writes. "
            "If the device must see those writes first, should this be wmb() (or dma_wmb())?"
        )
    return (
        f"The {f.details.get('barrier')}() right before {mmio}() comes before an MMIO write. As far as I "
        "understand Documentation/memory-barriers.txt, writel() already orders earlier memory writes before "
        "the device sees its write, and smp_wmb() orders only against other CPUs. Is it needed here? If it "
        "orders these writes for another CPU, a comment saying which barrier there it pairs with would help."
    )


def reply(findings: Sequence[Finding], patch: Patch) -> str:
    """A reviewer's question under the quoted barrier(s)."""
    partnered = [f for f in findings if f.details.get("problem") == "no-comment" and f.details.get("partner")]
    ring = [f for f in findings if f.details.get("problem") == "no-comment" and f.details.get("ring_index")]
    no_comment = [
        f
        for f in findings
        if f.details.get("problem") == "no-comment" and not f.details.get("partner") and not f.details.get("ring_index")
    ]
    weak = [f for f in findings if f.details.get("problem") == "comment-without-pairing"]
    other = [f for f in findings if f.details.get("problem") == "other-side-missing"]
    non_rmw = [f for f in findings if f.details.get("problem") == "not-after-rmw"]
    parts: list[str] = [_mmio_paragraph(f) for f in findings if f.details.get("problem") == "before-mmio-write"]
    # one paragraph for all of them: "smp_mb__after_atomic() and smp_mb__before_atomic() only order ..."
    barriers = list(dict.fromkeys(f"{f.details.get('barrier')}()" for f in non_rmw))
    ops = list(dict.fromkeys(str(f.details.get("op", "")) for f in non_rmw))
    if non_rmw:
        kinds = ["load" if "read" in op.lower() else "store" for op in ops]
        several = len(non_rmw) > 1
        plain = (
            f"{ops[0]}() is a plain {kinds[0]}"
            if len(ops) == 1
            else " and ".join(f"{op}()" for op in ops)
            + " are plain "
            + (f"{kinds[0]}s" if len(set(kinds)) == 1 else "accesses")
        )
        this = "these" if several else "this"
        if all(f.details.get("replaces") for f in non_rmw):  # an ordering that held is lost: say so first
            parts.append(
                f"As far as I understand Documentation/atomic_t.txt, {' and '.join(barriers)} only "
                f"order{'' if len(barriers) > 1 else 's'} against a read-modify-write atomic, and {plain}. The "
                f"smp_mb() {this} replace{'' if several else 's'} did order {'them' if several else 'it'}, so "
                "this weakens the ordering rather than optimizing it. Should it stay smp_mb(), or become a "
                "release/acquire pair (smp_store_release() / smp_load_acquire())?"
            )
            non_rmw = []
    if non_rmw:
        parts.append(
            f"As far as I understand Documentation/atomic_t.txt, {' and '.join(barriers)} only "
            f"order{'' if len(barriers) > 1 else 's'} against a read-modify-write atomic, and {plain}. "
            + (
                f"Should {this} be smp_mb() (or an RMW atomic / a release-acquire pair)?"
                if all(f.details.get("paired") for f in non_rmw)
                # no pairing named: whether any barrier is needed is the question, not which one
                else f"So {this} order{'' if several else 's'} nothing here: is a barrier needed at all? If "
                f"another CPU reads what is stored here, which barrier on that side {'do they' if several else 'does it'} "
                "pair with?"
            )
        )

    def names(fs: Sequence[Finding]) -> str:
        items = sorted({f"{f.details.get('barrier', 'barrier')}()" for f in fs})
        return ", ".join(items)

    if no_comment:
        smp = any(f.details.get("smp") for f in no_comment)
        if smp and _other_side_in_hunks(no_comment, patch):
            parts.append(
                f"Could you add a comment to {'the ' + names(no_comment) + ' here' if len(no_comment) == 1 else 'each of the new barriers here (' + names(no_comment) + ')'} "
                "saying which barrier or operation on the other side it pairs with, and in which function, and "
                "what ordering it provides? That would help the next person who touches this code."
            )
        elif smp:
            if len(no_comment) == 1:
                ask = (
                    f"Could you add a comment to the {names(no_comment)} here saying which barrier it "
                    "pairs with, and what ordering it provides? I could not find the other side from "
                    "the patch, and I might be missing it,"
                )
            else:
                ask = (
                    f"Could you add a comment to each of the new barriers here ({names(no_comment)}) "
                    "saying which barrier it pairs with, and what ordering it provides? I could not "
                    "find the other sides from the patch, and I might be missing them,"
                )
            parts.append(
                ask + " but a comment naming the other side and its function would help the next person "
                "who touches this code."
            )
        elif all(f.details.get("cpu_ordering") for f in no_comment):
            parts.append(_cpu_paragraph(no_comment))
        else:
            parts.append(
                f"Could you add a short comment to the {names(no_comment)} saying which accesses it "
                "orders (e.g. the descriptor writes against the doorbell write)? It is not obvious to "
                "me from the patch alone."
            )
    if ring:
        parts.append(_ring_paragraph(ring))
    for f in partnered:
        parts.append(
            f"I think this {f.details.get('barrier')}() pairs with the {f.details.get('partner')}() on "
            f"{f.details.get('object')} that this patch adds as well; could you say so in a comment here, "
            "so the next reader does not have to find the other side?"
        )
    if weak:
        parts.append(_weak_paragraph(weak, names(weak)))
    for f in other:
        target = f.details.get("other", "the other side")
        parts.append(
            f"The comment says this pairs with {target}(), but I do not see a barrier, or an operation "
            f"that implies one, in {target}() as changed by this patch. Am I missing something, or is "
            "the other half still to be added?"
        )
    return "\n\n".join(dict.fromkeys(parts))  # one paragraph for the same point at several places


# How reviewers make this point in a thread (reviewbot.rule.point_in_thread): a draft never repeats them.
from reviewbot.rule import ThreadWords  # noqa: E402

THREAD_WORDS = ThreadWords(
    topic=("pairs with", "pair with", "paired", "pairing", "barrier", "smp_", "acquire", "release", "ordering"),
    asks=(
        "what does this barrier pair with",
        "what does it pair with",
        "what is this barrier pairing with",
        "which barrier does this pair",
        "what is the pairing",
        "where is the pairing",
        "matching barrier",
        "please add a comment",
        "needs a comment",
        "barrier needs a comment",
        "comment the barrier",
        "what is this barrier for",
        "what does this barrier order",
        "why is this barrier needed",
        "in a comment",
        "a comment explaining",
        "a good comment",
        "comment on what",
        "comment that explain",
        "explain this barrier",
        "explains this barrier",
        "document the barrier",
        "document this barrier",
        "document the ordering",
        "what it pairs",
        "against what",
    ),
)


# Which part of a reply is about which barrier. A patch often adds many barriers; a reviewer who asks "what
# does this pair with?" under one of them has raised the point for that one only. So a reply counts for a
# barrier (reviewbot.rule.point_in_thread on the reply cut down to these parts) when:
#   1. a paragraph sits under a quoted block showing that barrier's line in its own place (the quoted lines
#      next to it are the patch's lines next to it: the same smp_rmb() text in another function is not it);
#   2. a paragraph names the function the barrier is in, or the file (``isolation.c``);
#   3. the reply quotes no code at all: it speaks of the whole patch.
_QUOTE_MARK_RE = lazyre.compile(r"^\s*>")
_QUOTE_PREFIX_RE = lazyre.compile(r"^\s*(?:> ?)+")
_FUNCTION_NAMED_RE = lazyre.compile(r"\b([A-Za-z_]\w*)\(\)")
#: How many quoted lines on each side of the barrier must be the patch's own neighbours of it.
NEIGHBOURS_TO_MATCH = 2


def _flat(text: str) -> str:
    return " ".join(text.split())


def _quoted_code(line: str) -> str | None:
    """The code of a quoted added or context line (``> +\tsmp_rmb();`` -> ``smp_rmb();``), else None."""
    if not _QUOTE_MARK_RE.match(line):
        return None
    q = _QUOTE_PREFIX_RE.sub("", line, count=1)  # ">  \tfoo" -> " \tfoo": one space after each ">"
    if q[:1] == "+":
        return _flat(q[1:])
    if q[:1] == "-":
        return None  # a removed line is no neighbour of the barrier in the new code
    if q[:1] in (" ", "\t"):  # a context line (its leading space may be lost in the quoting)
        return _flat(q)
    return None


def _neighbours(codes: Sequence[str], at: int) -> tuple[list[str], list[str]]:
    """The nearest non-blank lines before and after ``codes[at]`` (at most NEIGHBOURS_TO_MATCH each)."""
    before = [c for c in codes[:at] if c][-NEIGHBOURS_TO_MATCH:]
    after = [c for c in codes[at + 1 :] if c][:NEIGHBOURS_TO_MATCH]
    return before, after


def _block_shows_barrier(block: Sequence[str], finding: Finding) -> bool:
    """Step 1: the quoted ``block`` (code texts) holds the finding's barrier line with the patch's own
    neighbours of that line around it (a block of the barrier line alone counts)."""
    hunk = finding.hunk
    if hunk is None or finding.line is None:
        return False
    shown = [dl for dl in hunk.lines if dl.kind is not LineKind.REMOVED]
    at = next((i for i, dl in enumerate(shown) if dl.new_no == finding.line), None)
    if at is None:
        return False
    patch_codes = [_flat(dl.text) for dl in shown]
    want = patch_codes[at]
    p_before, p_after = _neighbours(patch_codes, at)
    for i, code in enumerate(block):
        if code != want:
            continue
        q_before, q_after = _neighbours(block, i)
        if q_before == p_before[len(p_before) - len(q_before) :] and q_after == p_after[: len(q_after)]:
            return True
    return False


def _places_of(finding: Finding) -> list[str]:
    """Step 2: the names that place the barrier: its function (when the hunk shows it) and its file."""
    places = [finding.path.rsplit("/", 1)[-1]] if finding.path else []
    hunk = finding.hunk
    if hunk is not None and finding.line is not None:
        at = next((i for i, dl in enumerate(hunk.lines) if dl.new_no == finding.line), None)
        if at is not None:
            places.append(_function_around(hunk, at))  # never the @@ text: it names where the hunk starts
    return [p for p in places if len(p) > 2]


def _about_barrier(body: str, finding: Finding, elsewhere: frozenset[str] = frozenset()) -> str:
    """The parts of a reply's ``body`` about the finding's barrier (steps 1-3 above), quotes kept.
    ``elsewhere``: the functions holding the patch's other barriers; a paragraph naming one of them is about
    that barrier, even under this one's quote."""
    lines = body.split("\n")
    if not any(
        _QUOTE_PREFIX_RE.sub("", line, count=1)[:1] in ("+", "-") for line in lines if _QUOTE_MARK_RE.match(line)
    ):
        return body  # step 3: no quoted diff line
    places = _places_of(finding)
    kept: list[str] = []
    block: list[str] = []  # the quoted code right above the current paragraph
    block_lines: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if not para:
            return
        text = "\n".join(para)
        named = [n for n in _FUNCTION_NAMED_RE.findall(text) if n in elsewhere]
        if any(re.search(rf"\b{re.escape(p)}\b", text) for p in places) or (
            _block_shows_barrier(block, finding) and not named  # a paragraph naming another function is about it
        ):
            kept.extend(block_lines + para + [""])
        para.clear()

    in_quote = False
    for line in lines:
        if _QUOTE_MARK_RE.match(line):
            if not in_quote:
                flush()
                block, block_lines = [], []
                in_quote = True
            code = _quoted_code(line)
            block.append(code if code is not None else "")
            block_lines.append(line)
            continue
        in_quote = False
        if line.strip():
            para.append(line)
        else:
            flush()
    flush()
    return "\n".join(kept)


def thread_state(
    finding: Finding, patch: Patch, thread: Sequence[Message], *, identity: object = None
) -> tuple[FindingState, str]:
    """Whether the thread already holds this barrier's point: the shared check on replies cut down to their
    parts about this barrier (:func:`_about_barrier`); the author's messages are read whole."""
    from dataclasses import replace

    from reviewbot.rule import point_in_thread, same_person

    author = patch.message.from_addr
    own = set(_places_of(finding))
    elsewhere = frozenset(fn for _, fn, _, _ in _added_barriers(patch) if fn and fn not in own)
    cut = [
        msg
        if same_person(msg.from_addr, author) or msg.message_id == patch.message_id
        else replace(msg, body=_about_barrier(msg.body, finding, elsewhere))
        for msg in thread
    ]
    state, reason = point_in_thread(finding, patch, cut, THREAD_WORDS, identity=identity)
    if state is not FindingState.OPEN:
        return state, reason
    # Step 2: a pairing question asked about another barrier of this patch ("Any new code using smp_rmb should
    # always include a comment", said under the first of four): the author's answer is likely to cover this one
    # too, and asking again would repeat the reviewer. Quiet, and the reason says it was another barrier.
    state, reason = point_in_thread(finding, patch, thread, THREAD_WORDS, identity=identity)
    if state is FindingState.RAISED:
        return state, f"{reason} (about another barrier of this patch; the answer is likely to cover this one)"
    return FindingState.OPEN, ""


# The paragraph for one point (all of this rule's findings on one patch), in words that fit each barrier:
# the drafter prefers reply_point() to reply(). A write-side barrier pairs with a read-side one, acquire
# with release, a full barrier with a full barrier (or one implied by an atomic); a device barrier says
# what it orders.
_ADDED_BARRIER_RE = lazyre.compile(
    r"\b(smp_[a-z_]*mb|smp_mb__[a-z_]+|smp_store_mb|smp_store_release|smp_load_acquire|"
    r"smp_cond_load_[a-z_]+|\w+_acquire|\w+_release)\s*\("
)
_PAIR_FOR = {  # in words: a draft never carries a template to fill in
    "write": "an smp_rmb() or smp_load_acquire() on the reader side",
    "release": "an smp_load_acquire() on the reader side",
    "read": "an smp_wmb() or smp_store_release() on the writer side",
    "acquire": "an smp_store_release() on the writer side",
    "full": "an smp_mb() or a full barrier implied by an atomic on the other side",
}
#: Kinds of barrier whose draft names no usual other side: a full barrier pairs with anything from another
#: smp_mb() to the barrier implied by a value-returning atomic or a lock, so a hint adds nothing.
HINTLESS_SIDES = ("full",)
#: The other side of a read barrier or acquire that follows a bit test (``wait_on_bit()``, ``buffer_locked()``).
_PAIR_FOR_BIT = "the clear_bit_unlock() that releases the bit, e.g. in the unlock path before wake_up_bit()"
_COMPLEMENT = {
    "write": ("read", "acquire"),
    "release": ("acquire", "read"),
    "read": ("write", "release"),
    "acquire": ("release", "write"),
    "full": ("full",),
}


def _barrier_side(name: str) -> str:
    n = name.lower()
    if n == "smp_wmb":
        return "write"
    if n.endswith("_release"):
        return "release"
    if n == "smp_rmb":
        return "read"
    if n.endswith("_acquire") or n.startswith("smp_cond_load"):
        return "acquire"
    if n.startswith("smp_mb") or n == "smp_store_mb":
        return "full"
    return "device"


_DEFINITION_RE = lazyre.compile(r"^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;]*$")


def _function_around(hunk: Hunk, index: int) -> str:
    """The function a hunk line is in, only when the hunk shows that function's opening line (the
    nearest definition above it, with no closing ``}`` at column 0 between). The hunk's ``@@`` text names
    the function where the hunk *starts*, often an earlier one: it is never used; "" means "here"."""
    for dl in reversed(hunk.lines[: index + 1]):
        if dl.kind is LineKind.REMOVED:
            continue
        if dl.text.startswith("}"):
            return ""
        m = _DEFINITION_RE.match(dl.text)
        if m and m.group(1) not in ("if", "for", "while", "switch", "return"):
            return m.group(1)
    return ""


#: A definition whose return type is on the line above (``static void`` / ``enqueue_work(struct q *q)``).
_SPLIT_DEFINITION_RE = lazyre.compile(r"^([A-Za-z_]\w*)\s*\([^;]*$")


def _function_named(hunk: Hunk, index: int) -> str:
    """The function to name a barrier by in a reply, as a reviewer does ("the smp_mb() in
    bcache_reboot()"): the definition above it in the hunk (also one split after its return type), else,
    when no function ends between the hunk's start and the line, the function the ``@@`` line names (the
    hunk starts inside it); "" when neither is known (the reply then gives the line)."""
    name = _function_around(hunk, index)
    if name:
        return name
    for dl in reversed(hunk.lines[: index + 1]):
        if dl.kind is LineKind.REMOVED:
            continue
        if dl.text.startswith("}"):
            return ""
        m = _SPLIT_DEFINITION_RE.match(dl.text) or _DEFINITION_RE.match(dl.text)
        if m and m.group(1) not in ("if", "for", "while", "switch", "return"):
            return m.group(1)
    m = _DEFINITION_RE.match(hunk.section or "") or _SPLIT_DEFINITION_RE.match(hunk.section or "")
    return m.group(1) if m and m.group(1) not in ("if", "for", "while", "switch", "return") else ""


def _added_barriers(patch: Patch, named: bool = False) -> list[tuple[str, str, tuple[str, int | None], str]]:
    """(barrier, function or "", (path, new line number), object) of every barrier call on an added line of a C
    file; the object is the first argument's text (``&ring->head`` -> ``ring->head``), "" for none. The
    function is the one whose opening the hunk shows (:func:`_function_around`), or with ``named`` the one to
    name it by in a draft (:func:`_function_named`: also the function the hunk starts in)."""
    where_in = _function_named if named else _function_around
    added: list[tuple[str, str, tuple[str, int | None], str]] = []
    for fd in patch.files:
        if not _is_c(fd.path):
            continue
        for h in fd.hunks:
            for i, dl in enumerate(h.lines):
                if dl.kind is not LineKind.ADDED:
                    continue
                code = scan_line(dl.text).code
                for m in _ADDED_BARRIER_RE.finditer(code):
                    item = (m.group(1), where_in(h, i), (fd.path, dl.new_no), _object_of(code, m.end() - 1))
                    if item not in added:
                        added.append(item)
    return added


def _pair_in_patch(findings: Sequence[Finding], patch: Patch) -> tuple[str, str, str, str, str] | None:
    """(barrier, function, other barrier, other function, object) when the patch plainly adds both sides of one
    pair: a release and an acquire on the same object (the same expression text), in two places.

    Nothing else is called a pair: an smp_wmb() and an smp_rmb() (or two smp_mb()) carry no object to
    match, and an acquire and a release on different rings or fields each pair with something else
    (often userspace)."""
    added = _added_barriers(patch, named=True)
    for f in findings:
        name = str(f.details.get("barrier", ""))
        side = _barrier_side(name)
        if side not in ("acquire", "release"):
            continue
        at = {(f.path, n) for n in (f.lines or (f.line,))}
        mine = [(fn, obj) for b, fn, where, obj in added if b == name and where in at]
        if not mine or not mine[0][1]:
            continue
        func, obj = mine[0]
        for other, other_func, line, other_obj in added:
            if _barrier_side(other) != ("release" if side == "acquire" else "acquire"):
                continue
            if line in at or other_obj != obj:
                continue
            if func and other_func and func == other_func:
                continue  # both in one function: not two sides
            return name, func, other, other_func, obj
    return None


#: Fully ordered read-modify-write atomics that are the other side of an acquire or a release on the same
#: object when the patch shows no barrier there (a lock-less list's ``cmpxchg(&head->first, ...)`` publishing
#: a node against ``smp_load_acquire(&head->first)`` in its reader); the ``_relaxed`` forms order nothing.
#: Conditional stores come first: they publish a new value, an exchange more often takes the whole object.
PAIRING_RMWS = (
    r"(?:atomic(?:64|_long)?_)?(?:try_)?cmpxchg(?:64|128)?",
    r"(?:atomic(?:64|_long)?_)?xchg",
)
_PAIRING_RMW_RE = lazyre.compile(r"(?<![\w.>])(" + "|".join(PAIRING_RMWS) + r")\s*\(")


def _rmw_partner(f: Finding, patch: Patch) -> tuple[str, str, str, str] | None:
    """(RMW call, its function, the object, this barrier's function) when the patch adds a fully ordered RMW
    atomic (``PAIRING_RMWS``) on the object of this acquire or release, in another function."""
    name = str(f.details.get("barrier", ""))
    if _barrier_side(name) not in ("acquire", "release"):
        return None
    at = {(f.path, n) for n in (f.lines or (f.line,))}
    mine = [(fn, obj) for b, fn, where, obj in _added_barriers(patch) if b == name and where in at]
    if not mine or not mine[0][1]:
        return None
    func, obj = mine[0]
    found: list[tuple[int, int, str, str]] = []
    for fd in patch.files:
        if not _is_c(fd.path):
            continue
        for h in fd.hunks:
            for i, dl in enumerate(h.lines):
                if dl.kind is not LineKind.ADDED or "xchg" not in dl.text:
                    continue
                code = scan_line(dl.text).code
                for m in _PAIRING_RMW_RE.finditer(code):
                    other_func = _function_named(h, i)
                    if _object_of(code, m.end() - 1) != obj or not other_func or other_func == func:
                        continue
                    rank = next(k for k, w in enumerate(PAIRING_RMWS) if re.fullmatch(w, m.group(1)))
                    found.append((rank, len(found), m.group(1), other_func))
    if not found:
        return None
    _, _, call, other_func = min(found)
    return call, other_func, obj, func


def _sole_counterpart(f: Finding, patch: Patch) -> tuple[str, str, str] | None:
    """(barrier, its function, this barrier's function) when the patch adds exactly one barrier of the
    other side (an acquire for a release, a release for an acquire) in another function: the one candidate a
    reviewer would ask about. None for other barriers, or with none or several candidates, or when both sides
    reach named members and none is one field."""
    name = str(f.details.get("barrier", ""))
    side = _barrier_side(name)
    if side not in ("release", "acquire"):
        return None  # an smp_wmb()/smp_rmb() carries no object: two of them are not asked about as a pair
    at = {(f.path, n) for n in (f.lines or (f.line,))}
    added = _added_barriers(patch, named=True)
    mine = [fn for b, fn, where, _ in added if b == name and where in at]
    func = mine[0] if mine else ""
    wanted = ("release",) if side == "acquire" else ("acquire",)
    others = {
        (b, fn) for b, fn, where, _ in added if where not in at and _barrier_side(b) in wanted and fn and fn != func
    }
    if len(others) != 1 or any(not fn for b, fn, where, _ in added if _barrier_side(b) in wanted and where not in at):
        return None  # several candidates, or one whose function the hunk does not show
    b, fn = next(iter(others))
    # both sides reach named members, and none of them is one field: two fields, no pair (owner.busy, owner.idle)
    fields: dict[tuple[str | None, int | None], list[tuple[str, ...]]] = {
        site.where: [p for _, p in site.fields if p and p[0] != ""] for site in _field_sites(patch)
    }
    mine_fields = [p for w in at for p in fields.get(w, [])]
    theirs = [p for bb, ff, where, _ in added if (bb, ff) == (b, fn) for p in fields.get(where, [])]
    if mine_fields and theirs and not any(_same_field(x, y) for x in mine_fields for y in theirs):
        return None
    return b, fn, func


_STORED_RE = lazyre.compile(
    r"(?:^|[;{]\s*)\*?([A-Za-z_][\w.>-]*?)\s*=[^=]|\b(?:WRITE_ONCE|atomic_set)\s*\(\s*&?([\w.>-]+)\s*,"
)

# ------------------------------------------------------------------ both sides of one field in the patch
# A write side (smp_wmb(), a release) and a read side (smp_rmb(), an acquire) that the patch adds on the same
# field look like a pair, however each side spells the field: ``vd->seq`` and ``vd[CS_RAW].seq``,
# ``sk->sk_lock.owned`` and ``c->sk_lock.owned``, ``&ctx->psi.trigger`` and a ``void **trigger_ptr`` parameter.
# The field is matched by its member names from the last one back, never by the variable that reaches it.

#: Suffixes of a pointer parameter named after the field it points to (``trigger_ptr`` for ``&ctx->trigger``).
POINTER_SUFFIXES = ("_ptr", "_pp", "_p")
#: Code lines looked at before and after an smp_wmb()/smp_rmb() for the field it orders (within its function).
FIELD_NEIGHBOUR_LINES = 2

# a member access: a variable, then at least one ``->f``/``.f`` (subscripts allowed): ``vd[CS_RAW].seq``
_MEMBER_ACCESS_RE = lazyre.compile(
    r"(?<![\w.>\]])([A-Za-z_]\w*(?:\s*\[[^\]]*\])*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*(?:\s*\[[^\]]*\])*)+)"
)
# a member stored: ``x->f = v``, ``x->f += v``, ``x->f++``, ``WRITE_ONCE(x->f, v)``, ``atomic_set(&x->f, v)``
_MEMBER_STORE_RE = lazyre.compile(
    r"(?:^|[;{(]\s*|\*\s*)([A-Za-z_][\w\[\]\s.>-]*?)\s*(?:[-+|&^]?=(?!=)|\+\+|--)"
    r"|\b(?:WRITE_ONCE|atomic\w*_set|smp_store_\w+)\s*\(\s*&?\s*([^,()]+?)\s*,"
)
_FIELD_FENCE_RE = lazyre.compile(r"^(?:smp_wmb|smp_rmb)$")


def _field_path(expr: str) -> tuple[str, ...]:
    """The member names of an access, the variable dropped (``zd->stats.seq`` -> ``('stats', 'seq')``); a plain
    variable gives ``(name,)`` marked by a leading "" (``('', 'trigger_ptr')``)."""
    expr = re.sub(r"\[[^\]]*\]", "", expr.strip().lstrip("&*( ").rstrip(") "))
    parts = [p for p in re.split(r"\s*(?:->|\.)\s*", expr) if p]
    if not parts or not all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in parts):
        return ()
    return tuple(parts[1:]) if len(parts) > 1 else ("", parts[0])


def _same_field(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Do two accesses reach one field? The last member names agree (the one before too when both have one); a
    pointer parameter named after the field (``trigger_ptr``) stands for it; two plain variables must be one."""
    if not a or not b:
        return False
    if a[0] == "" and b[0] == "":
        return a == b
    if a[0] == "" or b[0] == "":
        plain, member = (a, b) if a[0] == "" else (b, a)
        return any(plain[1] == member[-1] + s for s in POINTER_SUFFIXES)
    if a[-1] != b[-1]:
        return False
    return len(a) < 2 or len(b) < 2 or a[-2] == b[-2]


def _neighbour_code(hunk: Hunk, index: int, step: int) -> list[str]:
    """The code of up to FIELD_NEIGHBOUR_LINES new-side lines before (-1) or after (+1) a line, nearest first,
    stopping at the function's edge (a line opening or closing at column 0)."""
    lines = [dl for dl in hunk.lines if dl.kind is not LineKind.REMOVED]
    texts = [dl.text for dl in lines]
    scans = LazyScans(texts)  # a few lines are read, not the whole hunk
    j = lines.index(hunk.lines[index]) + step
    out: list[str] = []
    while 0 <= j < len(lines) and len(out) < FIELD_NEIGHBOUR_LINES:
        if texts[j][:1] in ("}", "{") or _DEFINITION_RE.match(texts[j]):
            break
        code = scans[j].code.strip()
        if code:
            out.append(code)
        j += step
    return out


def _fields_ordered(hunk: Hunk, index: int, code: str, m: re.Match) -> list[tuple[str, tuple[str, ...]]]:
    """(text, field path) of what a barrier orders: the object of an acquire/release; for an smp_wmb() the members
    stored on the lines around it, for an smp_rmb() the members loaded there (nearest first, the lines before
    first)."""
    if m.group(1).startswith("smp_mb__") and m.group(1).endswith("_atomic"):
        # smp_mb__after_atomic() after ``atomic_cmpxchg(&vdo->state, ...)``: the field of that atomic
        step = -1 if "after" in m.group(1) else 1
        near = _neighbour_code(hunk, index, step)[:1]
        rmw = _RMW_RE.search(near[0]) if near else None
        obj = _object_of(near[0], rmw.end() - 1) if rmw else ""
        path = _field_path(obj)
        return [(obj, path)] if path else []
    if not _FIELD_FENCE_RE.match(m.group(1)):
        obj = _object_of(code, m.end() - 1)
        path = _field_path(obj)
        return [(obj, path)] if path else []
    write = m.group(1) == "smp_wmb"
    out: list[tuple[str, tuple[str, ...]]] = []
    for line in _neighbour_code(hunk, index, -1) + _neighbour_code(hunk, index, 1):
        stored = [normalise(x.group(1) or x.group(2)) for x in _MEMBER_STORE_RE.finditer(line)]
        if write:
            found = stored
        else:
            found = [normalise(x.group(1)) for x in _MEMBER_ACCESS_RE.finditer(line)]
            found = [x for x in found if x not in stored]
        for text in found:
            path = _field_path(text)
            if path and path[0] != "" and (text, path) not in out:
                out.append((text, path))
    return out


class _Site:
    """One added write-side or read-side barrier and the fields it orders.

    A plain class, not a dataclass: nothing compares or prints one, and a dataclass's generated methods
    are compiled at every start of ``reviewbot check``."""

    __slots__ = ("barrier", "func", "where", "hunk", "fields", "shown")

    def __init__(
        self,
        barrier: str,
        func: str,
        where: tuple[str, int | None],
        hunk: int,
        fields: list[tuple[str, tuple[str, ...]]],
    ) -> None:
        self.barrier = barrier
        self.func = func
        self.where = where
        self.hunk = hunk
        self.fields = fields
        self.shown = func  # the function a draft names it by (also the one its hunk starts in)

    @property
    def writer(self) -> bool:
        return _barrier_side(self.barrier) in ("write", "release")


def _field_sites(patch: Patch) -> list[_Site]:
    """Every write-side or read-side barrier the patch adds, with the fields it orders."""
    sites: list[_Site] = []
    nth = 0
    for fd in patch.files:
        if not _is_c(fd.path):
            continue
        for h in fd.hunks:
            nth += 1
            for i, dl in enumerate(h.lines):
                if dl.kind is not LineKind.ADDED:
                    continue
                code = scan_line(dl.text).code
                for m in _ADDED_BARRIER_RE.finditer(code):
                    if _barrier_side(m.group(1)) not in ("write", "release", "read", "acquire"):
                        continue
                    func = _function_around(h, i)
                    fields = _fields_ordered(h, i, code, m)
                    if fields:
                        site = _Site(m.group(1), func, (fd.path, dl.new_no), nth, fields)
                        if not func and not _FIELD_FENCE_RE.match(m.group(1)):
                            site.shown = _function_named(h, i)  # an acquire/release names its object itself
                        sites.append(site)
    return sites


def _apart(a: _Site, b: _Site) -> bool:
    """Two places that can be the two sides: different functions, or different hunks when a function is unknown.
    An smp_wmb()/smp_rmb() counts only where the hunk shows its function's opening: its field is read off the
    lines around it, and two barriers of one function are no pair."""
    if a.func and b.func:
        return a.func != b.func
    if _FIELD_FENCE_RE.match(a.barrier) or _FIELD_FENCE_RE.match(b.barrier):
        return False
    return a.hunk != b.hunk


def _field_pair_in_patch(
    findings: Sequence[Finding], patch: Patch
) -> tuple[list[_Site], list[_Site], str, set[tuple[str, int | None]]] | None:
    """(write sides, read sides, the field as written, their (path, line)s) when the patch adds both sides of one
    field and one of them is a finding: the sides are complementary (a write barrier or release against a read
    barrier or acquire) and sit apart, and they reach the same field by its member names."""
    wanted = {(f.path, n) for f in findings for n in (f.lines or (f.line,))}
    if not wanted:
        return None
    sites = _field_sites(patch)
    for mine in (s for s in sites if s.where in wanted):
        for text, path in mine.fields:
            group = [s for s in sites if any(_same_field(path, p) for _, p in s.fields)]
            others = [s for s in group if s.writer != mine.writer and _apart(s, mine)]
            if not others:
                continue
            writers = [s for s in group if s.writer]
            readers = [s for s in group if not s.writer]
            names = [t for s in group for t, p in s.fields if _same_field(path, p) and p[0] != ""]
            shown = min(names or [text], key=lambda t: (len(t), t))
            return writers, readers, shown, {s.where for s in group}
    return None


def _sides_text(sites: Sequence[_Site]) -> str:
    """``the smp_wmb() in foo() and bar()``; ``the smp_store_release() and the smp_wmb() in baz()``."""
    by: dict[str, list[str]] = {}
    for s in sites:
        by.setdefault(s.barrier, [])
        if s.shown and f"{s.shown}()" not in by[s.barrier]:
            by[s.barrier].append(f"{s.shown}()")
    return " and ".join(f"the {b}()" + (f" in {' and '.join(fs)}" if fs else "") for b, fs in by.items())


def _field_pair_paragraph(writers: Sequence[_Site], readers: Sequence[_Site], field: str) -> str:
    """Both sides of one field are in the patch: say they look like a pair and ask each comment to name the other."""
    a, b = _sides_text(writers), _sides_text(readers)
    if len(writers) == 1 and len(readers) == 1:
        example = f', e.g. "Pairs with {b}",' if readers[0].shown else ""  # no "Pairs with the smp_rmb()" alone
        return (
            f"{a[0].upper()}{a[1:]} and {b} on {field} look like a pair. Could each of them get a comment naming "
            f"the other{example} and saying what ordering they provide? That helps the next person who touches "
            "either side."
        )
    return (
        f"{a[0].upper()}{a[1:]} and {b} on {field} look like the write and read sides of one pairing. Could "
        "each of them get a comment naming the barrier on the other side it pairs with, and saying what "
        "ordering it provides? That helps the next person who touches either side."
    )


def _code_around(hunk: Hunk, index: int, step: int, count: int = 3) -> list[str]:
    """The code (comments cut) of up to ``count`` non-blank new-side lines before (step -1) or after (+1) a line."""
    lines = [dl for dl in hunk.lines if dl.kind is not LineKind.REMOVED]
    texts = [dl.text for dl in lines]
    scans = scan_lines(texts, starts_in_comment(texts))  # a block comment's middle lines are no code
    here = lines.index(hunk.lines[index])
    out: list[str] = []
    j = here + step
    while 0 <= j < len(lines) and len(out) < count:
        code = scans[j].code.strip()
        if code:
            out.append(code)
        j += step
    return out


def _full_pair_in_patch(
    findings: Sequence[Finding], patch: Patch
) -> tuple[str, str, str, set[tuple[str, int | None]]] | None:
    """(where one smp_mb() is, where the other is, the variable, their (path, line)s) when the patch adds two smp_mb() that order the
    two sides of one flag: the same variable stored just before one and loaded just after the other (bcache's
    ``bcache_is_reboot = true; smp_mb();`` and ``smp_mb(); if (bcache_is_reboot)``). Only then is it called a pair."""
    wanted = {(f.path, n) for f in findings if f.details.get("barrier") == "smp_mb" for n in (f.lines or (f.line,))}
    if not wanted:
        return None
    sites: list[tuple[tuple[str, int | None], str, set[str], str]] = []
    for fd in patch.files:
        if not _is_c(fd.path):
            continue
        for h in fd.hunks:
            for i, dl in enumerate(h.lines):
                if dl.kind is not LineKind.ADDED or not re.search(r"(?<![\w.>])smp_mb\s*\(", scan_line(dl.text).code):
                    continue
                stored = set()
                for code in _code_around(h, i, -1):
                    for m in _STORED_RE.finditer(code):
                        stored.add((m.group(1) or m.group(2)).strip())
                after = " ".join(_code_around(h, i, 1))
                func = _function_named(h, i)
                sites.append(((fd.path, dl.new_no), after, stored, f"in {func}()" if func else f"at line {dl.new_no}"))
    for where_a, _, stored, at_a in sites:
        for where_b, after, _, at_b in sites:
            if where_a == where_b or not ({where_a, where_b} & wanted):
                continue
            for var in sorted(stored):
                if var and re.search(rf"(?<![\w.>]){re.escape(var)}\b(?!\s*=[^=])", after):
                    if at_a == at_b:  # two in one function: only their lines tell them apart
                        at_a, at_b = f"at line {where_a[1]}", f"at line {where_b[1]}"
                    return at_a, at_b, var, {where_a, where_b}
    return None


#: Operations documented to imply a full barrier (Documentation/atomic_t.txt, the wait/wake kernel-doc): one
#: of these in the hunks may be the other side of an smp_mb(). Lock operations are left out: nearly every
#: hunk has one, and they give acquire/release only.
IMPLIED_FULL_BARRIERS = (
    r"atomic\w*_(?:inc|dec|add|sub)_return",
    r"atomic\w*_(?:inc|dec|sub|add)_and_test",
    r"atomic\w*_fetch_\w+",
    r"atomic\w*_xchg",
    r"atomic\w*_cmpxchg",
    r"xchg",
    r"cmpxchg",
    r"test_and_(?:set|clear|change)_bit",
    r"refcount_dec_and_test",
    r"wake_up\w*",
    r"try_to_wake_up",
    r"set_current_state",
    r"prepare_to_wait\w*",
    r"waitqueue_active",
    r"wq_has_sleeper",
)
_IMPLIES_FULL_RE = lazyre.compile(r"(?<![\w.>])(?:" + "|".join(IMPLIED_FULL_BARRIERS) + r")\s*\(")


def _other_side_in_hunks(findings: Sequence[Finding], patch: Patch) -> bool:
    """Could the other side be in the patch's hunks? True when, for one of the findings, a new-side line
    (added or context) other than its own holds a barrier of the complementary side (an smp_rmb() for an
    smp_wmb(), another full barrier for an smp_mb()): then "I could not find the other side" would be
    wrong, or at best a guess."""
    seen: list[tuple[tuple[str, int | None], str]] = []
    for fd in patch.files:
        if not _is_c(fd.path):
            continue
        for h in fd.hunks:
            for dl in _new_side(h):
                code = scan_line(dl.text).code
                for m in _ADDED_BARRIER_RE.finditer(code):
                    seen.append(((fd.path, dl.new_no), _barrier_side(m.group(1))))
                if _IMPLIES_FULL_RE.search(code):
                    seen.append(((fd.path, dl.new_no), "full"))
    for f in findings:
        own = {(f.path, n) for n in (f.lines or (f.line,))}
        wanted = _COMPLEMENT.get(_barrier_side(str(f.details.get("barrier", ""))), ())
        if any(where not in own and side in wanted for where, side in seen):
            return True
    return False


def _known_paragraph(f: Finding) -> str:
    """The question for a barrier in a kernel idiom whose other side is known (``KNOWN_PAIRINGS``)."""
    k = f.details["known"]
    barrier = f.details.get("barrier", "barrier")
    return (
        f"The {barrier}() here looks like {k['like']}. That barrier pairs with {k['other']}; could the comment "
        f'here say so too, e.g. "{k["example"]}"?'
    )


#: How long a quoted comment of the other side may be in a draft (longer ones are cut at a word).
TOLD_QUOTE_CHARS = 120


def _told_paragraphs(fs: Sequence[Finding]) -> list[str]:
    """One paragraph per barrier elsewhere whose pairing comment points at these findings (``_Elsewhere``):
    it names that barrier, its function and patch, and quotes its comment; a comment naming this function is
    taken as said, one naming only the field is asked about ("is this one of them?")."""
    groups: dict[tuple, list[Finding]] = {}
    for f in fs:
        t = f.details["told"]
        groups.setdefault(
            (t.get("barrier"), t.get("function"), t.get("patch"), t.get("comment"), t.get("by")), []
        ).append(f)
    out = []
    for (barrier, func, where, comment, by), group in groups.items():
        mine = sorted({f"{f.details.get('barrier', 'barrier')}()" for f in group})
        these = " and ".join(mine)
        several = len(group) > 1
        there = f"the {barrier}()" + (f" in {func}()" if func else "") + (f" (patch {where})" if where else "")
        quoted = str(comment)
        if len(quoted) > TOLD_QUOTE_CHARS:
            quoted = quoted[:TOLD_QUOTE_CHARS].rsplit(" ", 1)[0] + " ..."
        example = f'"Pairs with the {barrier}() in {func}()"' if func else f'"Pairs with the {barrier}()"'
        if by == "function":
            out.append(
                f'{there[0].upper()}{there[1:]} says "{quoted}", so I take it the {these} here '
                f"{'are' if several else 'is'} its other side. Could the comment{'s' if several else ''} here "
                f"say so too, e.g. {example}, so the pair can be found from either end?"
            )
        else:
            out.append(
                f'{there[0].upper()}{there[1:]} says "{quoted}". Is the {these} here '
                f"{'among them' if several else 'one of them'}? If so, could "
                f"{'their comments' if several else 'its comment'} say so, e.g. {example}?"
            )
    return out


def reply_point(findings: Sequence[Finding], patch: Patch) -> str:
    """One paragraph per kind of problem, the suggested comment fitting each barrier."""
    parts: list[str] = []
    by = {
        p: [f for f in findings if f.details.get("problem") == p]
        for p in ("not-after-rmw", "no-comment", "comment-without-pairing", "other-side-missing", "before-mmio-write")
    }
    if by["not-after-rmw"]:
        parts.append(reply(by["not-after-rmw"], patch))
    parts.extend(dict.fromkeys(_mmio_paragraph(f) for f in by["before-mmio-write"]))
    # a pairing comment elsewhere (this patch or its series) points here: name that side, ask nothing open
    told = [f for f in by["no-comment"] + by["comment-without-pairing"] if f.details.get("told")]
    parts.extend(_told_paragraphs(told))
    # a kernel idiom whose other side is known (KNOWN_PAIRINGS): say which, as a question
    known = [f for f in by["no-comment"] + by["comment-without-pairing"] if f.details.get("known") and f not in told]
    parts.extend(dict.fromkeys(_known_paragraph(f) for f in known))
    by["no-comment"] = [f for f in by["no-comment"] if f not in told and f not in known]
    by["comment-without-pairing"] = [f for f in by["comment-without-pairing"] if f not in told and f not in known]

    def names(fs: Sequence[Finding]) -> str:
        return ", ".join(sorted({f"{f.details.get('barrier', 'barrier')}()" for f in fs}))

    def pair_for(fs: Sequence[Finding], side: str) -> str:
        of_side = [f for f in fs if _barrier_side(str(f.details.get("barrier", ""))) == side]
        if (
            side in ("read", "acquire")
            and of_side
            and all(f.details.get("bit_test") for f in of_side)
            and not _other_side_in_hunks(of_side, patch)
        ):
            return _PAIR_FOR_BIT  # the read side of a bit wait whose other side the patch does not show
        return _PAIR_FOR[side]

    def suggestion(fs: Sequence[Finding]) -> str:
        """The other side that fits each barrier's kind; nothing for a full barrier (HINTLESS_SIDES): "an
        smp_mb() or an atomic" tells a locking maintainer nothing, and is wrong when it publishes a value."""
        sides = [
            s
            for s in dict.fromkeys(_barrier_side(str(f.details.get("barrier", ""))) for f in fs)
            if s not in HINTLESS_SIDES
        ]
        if len({pair_for(fs, s) for s in sides if s in _PAIR_FOR}) == 1:
            sides = sides[:1]  # one suggestion fits them all (an acquire and a read barrier of one bit wait)
        return "; ".join(
            f"for the {names([f for f in fs if _barrier_side(str(f.details.get('barrier', ''))) == s])}"
            f" {pair_for(fs, s)}"
            if len(sides) > 1
            else pair_for(fs, s)
            for s in sides
            if s in _PAIR_FOR
        )

    pair = _pair_in_patch(
        [f for f in findings if f.details.get("problem") in ("no-comment", "comment-without-pairing")], patch
    )
    redundant = [f for f in by["no-comment"] + by["comment-without-pairing"] if _redundant(f)]
    parts.extend(dict.fromkeys(_redundant_paragraph(f) for f in redundant))
    by["no-comment"] = [f for f in by["no-comment"] if f not in redundant]
    by["comment-without-pairing"] = [f for f in by["comment-without-pairing"] if f not in redundant]
    ring = [f for f in by["no-comment"] if f.details.get("ring_index")]
    smp = [f for f in by["no-comment"] if f.details.get("smp") and not f.details.get("ring_index")]
    device = [f for f in by["no-comment"] if not f.details.get("smp") and not f.details.get("cpu_ordering")]
    cpu = [f for f in by["no-comment"] if not f.details.get("smp") and f.details.get("cpu_ordering")]
    if ring:
        parts.append(_ring_paragraph(ring))
    weak = by["comment-without-pairing"]
    full_pair = _full_pair_in_patch(smp + weak, patch) if pair is None else None
    if full_pair is not None:
        a_at, b_at, var, both = full_pair
        parts.append(
            f"The smp_mb() {a_at} and the smp_mb() {b_at} look like a pair: {var} is stored before the first and "
            "read after the second. Could each of them get a comment naming the other, and saying what ordering "
            "they provide? That helps the next person who touches either side."
        )
        smp = [f for f in smp if (f.path, f.line) not in both]  # the rest is asked about as usual
        weak = [f for f in weak if (f.path, f.line) not in both]
    field_pair = _field_pair_in_patch(smp + weak, patch) if pair is None and full_pair is None else None
    if field_pair is not None:
        writers, readers, field, both = field_pair
        parts.append(_field_pair_paragraph(writers, readers, field))
        smp = [f for f in smp if (f.path, f.line) not in both]  # the rest is asked about as usual
        weak = [f for f in weak if (f.path, f.line) not in both]
    if pair is None:  # an acquire or release whose other side is a fully ordered RMW on the same object
        for f in list(smp + weak):
            rmw = _rmw_partner(f, patch)
            if rmw is None:
                continue
            call, other_func, obj, func = rmw
            here = f" in {func}()" if func else " here"
            parts.append(
                f"I think the {f.details.get('barrier')}(){here} pairs with the {call}() on {obj} in "
                f"{other_func}(), which this patch adds too (a fully ordered atomic). Could its comment say so, "
                f'e.g. "Pairs with the {call}() in {other_func}()", and what ordering it provides?'
            )
            smp = [g for g in smp if g is not f]
            weak = [g for g in weak if g is not f]
    if pair is not None and (smp or weak):
        a, fa, b, fb, obj = pair
        where_a = f" in {fa}()" if fa and fa != fb else ""
        where_b = f" in {fb}()" if fb else ""
        parts.append(
            f"The {a}(){where_a} and the {b}(){where_b} on {obj} look like a pair. Could each of them get a comment "
            f'naming the other, e.g. "Pairs with the {b}(){where_b}", and saying what ordering they provide? '
            "That helps the next person who touches either side."
        )
    else:
        for f in [f for f in smp + weak if f.details.get("unread")]:  # nothing in the patch reads the store
            var, barrier = f.details["unread"], f.details.get("barrier", "barrier")
            parts.append(
                f"Nothing in this patch reads {var}, which the patch adds, so the {barrier}() before the store "
                "to it orders nothing another CPU can see. Could it be dropped, or is the reader (and its "
                "barrier) still to come?"
            )
        smp = [f for f in smp if not f.details.get("unread")]
        weak = [f for f in weak if not f.details.get("unread")]
        named = [f for f in smp if f.details.get("named_function")]
        for f in named:  # the comment above the block names the other function: ask only what there
            fn = f.details["named_function"]
            parts.append(
                f"The comment above the {f.details.get('barrier', 'barrier')}() here names {fn}(). Could it also say "
                f"which barrier or ordering in {fn}() this one pairs with, and what it orders?"
            )
        smp = [f for f in smp if not f.details.get("named_function")]
        for f in list(smp):  # the patch adds one barrier that can be the other side: ask about that one
            sole = _sole_counterpart(f, patch)
            if sole is None:
                continue
            other, other_func, func = sole
            here = f" in {func}()" if func else " here"
            too = " too" if any(f"the {other}()" in p for p in parts) else ""  # named in a pair above
            kind = "acquire" if _barrier_side(other) == "acquire" else "release"
            parts.append(
                f"Does the {f.details.get('barrier')}(){here} pair with the {other}() in {other_func}(){too}? "
                f"That is the only {kind} this patch adds. If so, could its comment say so, e.g. "
                f'"Pairs with the {other}() in {other_func}()", and what ordering it provides?'
            )
            smp = [g for g in smp if g is not f]
        if smp:
            which = (
                f"the {names(smp)} here"
                if len(smp) == 1 and "," not in names(smp)
                else f"each {names(smp)} here"
                if "," not in names(smp)  # two smp_store_release()
                else f"each of the new barriers here ({names(smp)})"
            )
            hint = suggestion(smp)
            usually = f" ({hint})" if hint else ""  # only a hint that fits the barrier: none for a full barrier
            # "I could not find the other side" only when no hunk shows a barrier that could be it
            lead = (
                ""
                if _other_side_in_hunks(smp, patch)
                else "I could not find the other side in the patch, and I might be missing it. "
            )
            parts.append(
                f"Could you add a comment to {which} saying which barrier or operation on the other side it pairs "
                f"with{usually}, in which function, and what ordering it provides? {lead}That would help "
                "the next person who touches this code."
            )
        if weak:
            parts.append(_weak_paragraph(weak, names(weak), suggestion(weak)))
    if device:
        kinds = {str(f.details.get("barrier", "")) for f in device}
        what = []
        if any("wmb" in k for k in kinds):
            what.append(
                "for a write barrier, which writes must be visible before which (e.g. the descriptor "
                "writes before the doorbell write)"
            )
        if any("rmb" in k for k in kinds):
            what.append(
                "for a read barrier, which read must come first (e.g. the ownership or status read "
                "before the reads of the rest of the descriptor)"
            )
        if not what:
            what.append(
                "which accesses must not be reordered against which (e.g. the descriptor writes against "
                "the doorbell write)"
            )
        each = "each" if len(device) > 1 and "," not in names(device) else "the"
        then = _then_named(device)
        if then and all("wmb" in k for k in kinds):  # what follows the barrier, named: no stock example
            what = [f"which writes must be visible before {then} below it"]
        parts.append(
            f"Could you add a short comment to {each} {names(device)} saying what it orders: "
            + "; ".join(what)
            + "? It is not obvious to me from the patch alone."
        )
    if cpu:
        parts.append(_cpu_paragraph(cpu))
    if by["other-side-missing"]:
        parts.append(reply(by["other-side-missing"], patch))
    return "\n\n".join(p for p in parts if p)
