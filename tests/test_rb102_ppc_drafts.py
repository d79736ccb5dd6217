"""RB102 drafts a fresh reader of linuxppc-dev (2019-2022) would not send, fixed by kind.

11 RB102 drafts were read: 0 SEND, 2 EDIT, 9 NO. Three kinds are general enough for a step of the rule, each
with a small patch of our own in the style of the real one (the finding stays; ``not_asked`` says why no
draft asks it):

1. a mandatory ``mb()`` around I-cache maintenance (``mb(); icbi(addr); mb(); isync();``): it orders the
   stores that wrote instructions against the instruction fetch, no barrier on another CPU pairs with it
   (the rule knew this only of SMP barriers and only looked below the barrier);
2. a barrier the same hunk removes and adds back (the trailing ``mb()`` moved into both branches of a new
   early return): not a new barrier;
3. ``mmu_seq = kvm->mmu_notifier_seq; smp_rmb();``: the read side of the sequence-count idiom.
A barrier with none of these stays asked.
"""

from __future__ import annotations

from test_rb102_lak_drafts import _check, _mail

from reviewbot.rules import rb102_barrier_pairing as rb102


def _not_asked(lines: list[str], path: str = "arch/powerpc/mm/mem.c") -> list[str]:
    _, findings = _check(_mail("[PATCH] powerpc/x: y", "Do y.", path, "void f(void)", lines))
    assert findings, "the finding stays"
    return [str(f.details.get(rb102.NOT_ASKED_KEY, "")) for f in findings]


def test_mandatory_barriers_around_icache_maintenance_are_not_asked() -> None:
    reasons = _not_asked(
        [
            " {",
            "+\tflush_dcache_range(addr, addr + len);",
            "+\tmb(); /* sync */",
            "+\ticbi((void *)addr);",
            "+\tmb(); /* sync */",
            "+\tisync();",
            " }",
        ]
    )
    assert len(reasons) == 2 and all("instructions" in r for r in reasons), reasons


def test_a_barrier_moved_within_its_hunk_is_not_asked() -> None:
    # the trailing mb() moved into each of three new early returns: two of them read as the removed one moved
    # (the rule's move test), the third is asked about today without this step
    reasons = _not_asked(
        [
            " \tif (a) {",
            "+\t\tmb();",
            "+\t\treturn 1;",
            " \t} else if (b) {",
            " \t\tfoo();",
            "+\t\tmb();",
            "+\t\treturn 2;",
            " \t}",
            " \tbar();",
            "+\tmb();",
            "+\treturn 3;",
            "-\tmb();",
            " }",
        ],
        "arch/powerpc/kvm/book3s_xive.c",
    )
    assert reasons and all("moves the one the same hunk removes" in r for r in reasons), reasons


def test_the_read_side_of_a_sequence_count_is_not_asked() -> None:
    reasons = _not_asked(
        [
            " \tunsigned long mmu_seq;",
            "+\tmmu_seq = kvm->mmu_notifier_seq;",
            "+\tsmp_rmb();",
            " \tstt = find_table(kvm, liobn);",
        ],
        "arch/powerpc/kvm/book3s_64_vio.c",
    )
    assert reasons == ["the smp_rmb() after loading a sequence count is the read side of the sequence-count idiom"]


def test_an_uncommented_barrier_with_none_of_these_is_still_asked() -> None:
    reasons = _not_asked(
        [
            " {",
            "+\tring->data[head] = v;",
            "+\tsmp_wmb();",
            "+\tWRITE_ONCE(ring->head, head + 1);",
            " }",
        ],
        "kernel/x/ring.c",
    )
    assert reasons == [""]


def test_a_read_barrier_between_a_descriptor_check_and_its_reads_is_not_asked() -> None:
    """The read example of memory-barriers.txt: check the descriptor's ownership, dma_rmb(), read the rest
    (linux-renesas-soc reading: 'the textbook pattern, same as ravb/rswitch')."""
    reasons = _not_asked(
        [
            " {",
            "+\twhile ((desc->die_dt & DT_MASK) != DT_FEMPTY) {",
            "+\t\tdma_rmb();",
            "+\t\tpkt_len = le16_to_cpu(desc->info_ds) & RX_DS;",
            "+\t\tfoo_rx(priv, desc, pkt_len);",
            "+\t}",
            " }",
        ],
        "drivers/net/ethernet/foo/foo.c",
    )
    assert reasons == ["the dma_rmb() stands between the check of desc's status and the reads of its other fields"]
    # a read barrier after a check of one object and before reads of another is still asked
    reasons = _not_asked(
        [
            " {",
            "+\tif (ring->head == ring->tail)",
            "+\t\treturn;",
            "+\tdma_rmb();",
            "+\tval = readl(priv->base + REG);",
            " }",
        ],
        "drivers/net/ethernet/foo/foo.c",
    )
    assert reasons == [""]
