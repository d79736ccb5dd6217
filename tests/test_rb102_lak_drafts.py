"""RB102 drafts a fresh reader of linux-arm-kernel (Jul-Dec 2019) would not send, fixed by kind.

16 RB102 drafts were read: 0 SEND, 2 EDIT, 14 NO. The kinds, each with a small patch of our own in the style of
the real one. Findings stay (the labels count an uncommented barrier), but a draft asks only what a reviewer
would: ``details["not_asked"]`` says why not, and the drafter records the skip ``not-asked``.

1. the ordering in plain view: ring entries written, ``dma_wmb()``, the valid bit, ``dma_wmb()``, the doorbell
   register; or ``dma_wmb()`` right before the store of an OWN/DONE flag;
2. a comment that says what it orders ("PTEs ... visible beforehand") is not called silent, and one that points
   to another ("See above") is not asked about;
3. a barrier copied with the line beside it from a function the patch keeps (a function split in two);
4. no barrier on another CPU to name: a CPU erratum workaround, data written before instructions are patched;
5. the other side added, with a comment, by another patch of the series;
6. a new function copying an existing one's barriers, comment and all;
7. the same ``smp_mb__after_atomic()`` after ``atomic_set()`` in two patches of a series: one draft;
8. the stock "descriptor writes before the doorbell" example replaced by what follows the barrier;
9. ``wmb()`` right before ``writel()``: asked "is it needed?", not what it orders.
"""

from __future__ import annotations

from pathlib import Path

from reviewbot.engine import check_patch
from reviewbot.models import Series
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.runner import SKIP_NOT_ASKED
from reviewbot.rule import RuleContext
from reviewbot.rules import rb102_barrier_pairing as rb102
from reviewbot.store import Store
from helpers import draft_fixed, load_thread

_RULES = load_rules(entry_points=False, select=["RB102"])


def _mail(subject: str, body: str, path: str, section: str, lines: list[str], n: int = 1) -> str:
    """A patch mail with one hunk of ``lines`` (each starting with " ", "+" or "-") in ``path``."""
    old = sum(1 for t in lines if t[:1] in " -")
    new = sum(1 for t in lines if t[:1] in " +")
    hunk = "\n".join(lines)
    return (
        f"From: Ada Example <ada@example.org>\nTo: linux-arm-kernel@lists.infradead.org\n"
        f"Date: Mon, 10 Mar 2025 10:0{n}:00 +0100\nMessage-ID: <qux-{n}@example.org>\n"
        f"Subject: {subject}\n\n{body.strip()}\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -10,{old} +10,{new} @@ {section}\n{hunk}\n-- \n2.43.0\n"
    )


def _check(raw: str, ctx: RuleContext | None = None):
    patch = parse_patch(parse_rfc822(raw.encode(), "test mail"))
    return patch, list(check_patch(patch, _RULES, ctx or RuleContext()).findings)


def _reply(patch, findings) -> str:
    return " ".join(rb102.reply_point(findings, patch).split())


# -- 1. the ordering in plain view ---------------------------------------------------------------------

RING = [
    " static int qux_enqueue(struct qux_ring *r, const struct qux_entry *e, int n)",
    " {",
    " \tint i;",
    " ",
    "+\tfor (i = 0; i < n; i++)",
    "+\t\tmemcpy(&r->slot[(r->pi + i) & r->mask].body, &e[i].body, sizeof(e[i].body));",
    "+\tdma_wmb();",
    "+\tfor (i = 0; i < n; i++)",
    "+\t\tr->slot[(r->pi + i) & r->mask].verb = e[i].verb | r->valid;",
    "+\tr->pi += n;",
    "+\tdma_wmb();",
    "+\tqux_write_reg(r, QUX_REG_RING_PI, r->pi);",
    " \treturn n;",
    " }",
]


def test_ring_bodies_valid_bits_and_doorbell_in_one_hunk_are_kept_but_not_asked() -> None:
    _, findings = _check(
        _mail("[PATCH] qux: enqueue several entries at once", "Fill many entries.", "drivers/soc/qux/ring.c", "", RING)
    )
    assert [(f.line, f.details["problem"]) for f in findings] == [(16, "no-comment"), (20, "no-comment")]
    assert findings[0].not_asked == (
        "the dma_wmb() stands between the writes it orders and the store "
        "r->slot[(r->pi + i) & r->mask].verb = e[i].verb | r->valid, which hands them over: in plain view"
    )
    assert "qux_write_reg()" in findings[1].not_asked


def test_own_flag_store_right_after_the_barrier_is_in_plain_view() -> None:
    lines = [
        " static void qux_bd_done(struct qux_chan *c, struct qux_bd *bd)",
        " {",
        " \tqux_callback(c);",
        "+\tdma_wmb();",
        "+\tbd->mode.status |= QUX_BD_DONE;",
        " }",
    ]
    _, [f] = _check(
        _mail("[PATCH] qux: give the bd back only when done", "Fix ownership.", "drivers/dma/qux.c", "", lines)
    )
    assert f.not_asked.endswith("bd->mode.status |= QUX_BD_DONE, which hands them over: in plain view")


def test_a_barrier_before_a_plain_call_is_still_asked_naming_the_call() -> None:
    lines = [
        " static void qux_kick(struct qux_chan *c)",
        " {",
        " \tqux_prepare(c);",
        "+\twmb();",
        "+\tqux_sync_for_device(c);",
        "+\tqux_ring_push(c->ring, c->desc);",
        " }",
    ]
    patch, [f] = _check(_mail("[PATCH] qux: push the descriptor", "Push it.", "drivers/dma/qux.c", "", lines))
    assert f.not_asked == ""
    assert _reply(patch, [f]) == (
        "Could you add a short comment to the wmb() saying what it orders: which writes must be visible before "
        "qux_sync_for_device() and qux_ring_push() below it? It is not obvious to me from the patch alone."
    )


# -- 2. a comment that says what it orders, or points to one ---------------------------------------------


def test_a_comment_naming_ptes_visible_beforehand_says_what_it_orders() -> None:
    lines = [
        " static void qux_tlb_inv(struct qux_domain *d)",
        " {",
        "+\t/* The TLBI write may be relaxed: make the PTEs cleared by this CPU visible beforehand. */",
        "+\twmb();",
        "+\tqux_tlbi_write_relaxed(d);",
        " }",
    ]
    _, findings = _check(_mail("[PATCH] qux: relax the TLBI write", "Relax it.", "drivers/iommu/qux.c", "", lines))
    assert findings == []


def test_a_comment_pointing_to_another_is_not_asked() -> None:
    lines = [
        " static void qux_tlb_inv_s2(struct qux_domain *d)",
        " {",
        "+\t/* See above */",
        "+\twmb();",
        "+\tqux_tlbi_write_relaxed(d);",
        " }",
    ]
    _, [f] = _check(_mail("[PATCH] qux: relax the TLBI write", "Relax it.", "drivers/iommu/qux.c", "", lines))
    assert f.details["problem"] == "comment-without-pairing"
    assert f.not_asked == 'its comment ("See above") points to another comment for what it orders'


# -- 3. copied with the line beside it from a function the patch keeps -------------------------------------


def test_a_function_split_in_two_keeps_its_barrier_in_both() -> None:
    lines = [
        "-static void qux_inv_range(struct qux_domain *d, bool s1)",
        "+static void qux_inv_range_s1(struct qux_domain *d)",
        " {",
        "-\tif (d->qux->features & QUX_FEAT_COHERENT)",
        "+\tif (d->features & QUX_FEAT_COHERENT)",
        " \t\twmb();",
        "-\tif (s1)",
        "-\t\tqux_inv_s1(d);",
        "-\telse",
        "-\t\tqux_inv_s2(d);",
        "+\tqux_inv_s1(d);",
        "+}",
        "+",
        "+static void qux_inv_range_s2(struct qux_domain *d)",
        "+{",
        "+\tif (d->features & QUX_FEAT_COHERENT)",
        "+\t\twmb();",
        "+\tqux_inv_s2(d);",
        " }",
    ]
    _, [f] = _check(
        _mail("[PATCH] qux: split qux_inv_range()", "Split it per stage.", "drivers/iommu/qux.c", "", lines)
    )
    assert f.not_asked == "the wmb() and the line beside it copy an unchanged barrier of the same file"


# -- 4. no barrier on another CPU to name -------------------------------------------------------------------


def test_an_erratum_workaround_and_instruction_patching_pair_with_no_barrier() -> None:
    erratum = [
        " static inline void qux_wait_on_buffer(struct qux_buf *b)",
        " {",
        "+\t/* Work around the read-after-read hazard of the Qux-9 core (erratum 123456). */",
        "+\tsmp_rmb();",
        " \tif (qux_buffer_locked(b))",
        " \t\tqux_wait(b);",
        " }",
    ]
    _, [f] = _check(
        _mail("[PATCH] qux: work around a CPU bug", "Reads may be reordered.", "include/linux/qux.h", "", erratum)
    )
    assert f.not_asked == "the smp_rmb() works around a CPU erratum the patch names: it pairs with no barrier"
    patching = [
        " static int qux_install_trampoline(struct qux_mod *m, unsigned long *addr)",
        " {",
        "+\tm->trampoline = qux_plt_entry(*addr);",
        "+\t/* update the trampoline before patching in the branch */",
        "+\tsmp_wmb();",
        " \treturn 0;",
        " }",
    ]
    _, [g] = _check(_mail("[PATCH] qux: ftrace trampolines", "Add them.", "arch/qux/kernel/ftrace.c", "", patching))
    assert g.not_asked.startswith("the smp_wmb() orders writes before instructions are patched in")


def test_a_plain_smp_barrier_comment_is_still_asked() -> None:
    lines = [
        " static void qux_publish(struct qux *q, int v)",
        " {",
        "+\tq->val = v;",
        "+\t/* make the value visible first */",
        "+\tsmp_wmb();",
        "+\tq->ready = 1;",
        " }",
    ]
    _, [f] = _check(_mail("[PATCH] qux: publish", "Publish.", "kernel/qux.c", "", lines))
    assert f.details["problem"] == "comment-without-pairing" and f.not_asked == ""


# -- 5. and 7. the series ---------------------------------------------------------------------------------

READER = [
    " void qux_stop_others(void)",
    " {",
    " \tqux_send_stop_ipi();",
    "+\t/* make sure the memory accesses of the stopping CPUs are visible */",
    "+\tsmp_rmb();",
    "+\tatomic_set(&qux_stop_wait, 1);",
    "+\tsmp_mb__after_atomic();",
    " }",
]
WRITER = [
    " static void qux_cpu_stop(void *unused)",
    " {",
    " \tqux_save_regs();",
    "+\t/* make the saved registers visible before this CPU is seen offline by the stopping CPUs */",
    "+\tsmp_wmb();",
    "+\tatomic_set(&qux_stop_done, 1);",
    "+\tsmp_mb__after_atomic();",
    " \tqux_cpu_offline();",
    " }",
]


def _series() -> tuple[Series, list]:
    one = parse_patch(
        parse_rfc822(_mail("[PATCH 1/2] qux: common stop code", "Add it.", "kernel/qux.c", "", READER, 1).encode(), "1")
    )
    two = parse_patch(
        parse_rfc822(
            _mail("[PATCH 2/2] quxarch: use the common stop code", "Use it.", "arch/qux/smp.c", "", WRITER, 2).encode(),
            "2",
        )
    )
    return Series(version=1, total=2, cover=None, patches=(one, two)), [one, two]


def test_the_other_side_commented_in_the_series_is_not_asked_on_either_patch() -> None:
    series, (one, two) = _series()
    ctx = RuleContext(series=series)
    first = list(check_patch(one, _RULES, ctx).findings)
    second = list(check_patch(two, _RULES, ctx).findings)
    rmb = next(f for f in first if f.details["barrier"] == "smp_rmb")
    wmb = next(f for f in second if f.details["barrier"] == "smp_wmb")
    assert rmb.not_asked.startswith("the other side is the smp_wmb() in qux_cpu_stop() of 02/2, with a comment")
    assert wmb.not_asked.startswith("the other side is the smp_rmb() in qux_stop_others() of 01/2, with a comment")
    # without the series, the same barriers are asked about
    alone = list(check_patch(two, _RULES, RuleContext()).findings)
    assert next(f for f in alone if f.details["barrier"] == "smp_wmb").not_asked == ""


def test_another_commented_barrier_of_the_other_kind_about_something_else_leaves_it_asked() -> None:
    """Two read barriers in the series, one about the stopping CPUs and one about a statistics counter: which of
    them pairs with the smp_wmb() is no longer plain, so the draft asks."""
    other = [
        " static u64 qux_read_stats(struct qux_stats *st)",
        " {",
        "+	/* read the counter generation before the counter values themselves */",
        "+	smp_rmb();",
        " 	return st->packets;",
        " }",
    ]
    series, (one, two) = _series()
    three = parse_patch(
        parse_rfc822(_mail("[PATCH 3/3] qux: stats", "Stats.", "kernel/qux_stats.c", "", other, 3).encode(), "3")
    )
    ctx = RuleContext(series=Series(version=1, total=3, cover=None, patches=(one, two, three)))
    wmb = next(f for f in check_patch(two, _RULES, ctx).findings if f.details["barrier"] == "smp_wmb")
    assert wmb.not_asked == ""


def test_the_same_atomic_set_point_is_drafted_once_per_series() -> None:
    series, (one, two) = _series()
    ctx = RuleContext(series=series)
    first = [f for f in check_patch(one, _RULES, ctx).findings if f.details["problem"] == "not-after-rmw"]
    second = [f for f in check_patch(two, _RULES, ctx).findings if f.details["problem"] == "not-after-rmw"]
    assert [f.not_asked for f in first] == [""]
    assert [f.not_asked for f in second] == [
        "the same point (smp_mb__after_atomic() next to atomic_set()) is on 01/2 of this series"
    ]
    text = _reply(one, first)
    assert text.endswith(
        "is a barrier needed at all? If another CPU reads what is stored here, which barrier on that side does it pair with?"
    )
    assert "Should this be smp_mb()" not in text


# -- 6. a new function copying an existing one's barriers --------------------------------------------------


def test_a_new_handler_copying_the_old_ones_barriers_is_not_asked() -> None:
    lines = [
        " \tqux_check(irqnr);",
        " \tsmp_wmb(); /* pairs with rmb in qux_check_acked */",
        " }",
        " ",
        "+static void qux_fiq_handler(struct pt_regs *regs)",
        "+{",
        "+\tu32 irqnr = qux_read_iar();",
        "+",
        "+\tif (irqnr == QUX_SPURIOUS) {",
        "+\t\t++qux_spurious[qux_cpu()];",
        "+\t\tsmp_wmb();",
        "+\t\treturn;",
        "+\t}",
        "+\tqux_check(irqnr);",
        "+\tsmp_wmb(); /* pairs with rmb in qux_check_acked */",
        "+}",
    ]
    _, [f] = _check(
        _mail(
            "[PATCH] qux: add an FIQ handler",
            "Add it.",
            "qux/gic.c",
            "static void qux_irq_handler(struct pt_regs *regs)",
            lines,
        )
    )
    assert f.line == 20 and f.not_asked.startswith("the new function copies an unchanged barrier of the file")


# -- 9. wmb() right before writel() --------------------------------------------------------------------------


def test_wmb_right_before_writel_is_asked_whether_it_is_needed() -> None:
    lines = [
        " static void qux_start(struct qux *q, u32 v)",
        " {",
        "+\tq->flow.status = 0;",
        "+\twmb();",
        "+\twritel(v, q->base + QUX_CTL);",
        " }",
    ]
    patch, [f] = _check(_mail("[PATCH] qux: start the engine", "Start.", "drivers/crypto/qux.c", "", lines))
    assert f.details["redundant_before"] == "writel" and f.not_asked == ""
    # check says it too, where the author reads first (a new user's report: "add a comment" misled the fix)
    assert f.message == (
        "wmb() at line 13 added right before writel(), which already orders earlier writes to memory before the "
        "device sees its write: is it needed?"
    )
    assert _reply(patch, [f]) == (
        "The wmb() right before writel() looks redundant to me: as far as I understand "
        "Documentation/memory-barriers.txt, writel() already orders earlier writes to memory before the device "
        "sees its write. Is the wmb() needed here? If it is, could a comment say what it orders?"
    )
    relaxed = [t.replace("writel(", "writel_relaxed(") for t in lines]
    _, [g] = _check(_mail("[PATCH] qux: start the engine", "Start.", "drivers/crypto/qux.c", "", relaxed))
    assert "redundant_before" not in g.details


# -- the drafter: a finding not asked is a skip with its reason, no draft --------------------------------


def test_the_drafter_records_not_asked_and_writes_no_draft(tmp_path: Path) -> None:
    raw = _mail(
        "[PATCH] qux: enqueue several entries at once", "Fill many entries.", "drivers/soc/qux/ring.c", "", RING
    )
    message = parse_rfc822(raw.encode(), "test mail")
    with Store(tmp_path / "store.sqlite") as store:
        found = load_thread(store, [message], _RULES)
        assert len(found[message.message_id]) == 2
        summary = draft_fixed(store, _RULES, tmp_path / "outbox")
        assert summary.drafts == 0 and summary.not_asked == 2
        states = [state for _f, state in store.handled_findings_of([message.message_id])]
        assert states == [SKIP_NOT_ASKED, SKIP_NOT_ASKED]
