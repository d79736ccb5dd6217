"""A device barrier's comment that names the writes by where they go ("ensure CPU writes are flushed to BAR1")
says what it orders (issue 26's reading r8, five lists never read: a GPU driver's commented wmb() was asked
"the comment does not say what it orders", a false sentence). "Make sure the writes in order" still names
nothing. Our own driver function, modelled on that kind."""

from __future__ import annotations

from helpers import added_file_patch
from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")


def _problems(comment: str) -> list[str]:
    lines = [
        "+static void quux_chan_kick(struct quux_chan *chan)",
        "+{",
        "+\tquux_wr32(&chan->userd, 0x8c, chan->put);",
        f"+\twmb(); /* {comment} */",
        "+\tquux_rd32(&chan->userd, 0);",
        "+\tchan->doorbell(chan, chan->token);",
        "+}",
    ]
    raw = added_file_patch("drivers/gpu/drm/quux/chan.c", lines, "quux: kick the channel", "flush-1@example.org")
    patch = parse_patch(parse_rfc822(raw, "chan.patch"))
    return [f.details.get("problem", "") for f in check_patch(patch, [RULE], RuleContext(strict=True)).findings]


def test_writes_named_by_where_they_are_flushed_say_what_it_orders() -> None:
    assert _problems("ensure CPU writes are flushed to the aperture") == []
    assert _problems("the writes are visible to the GPU before the read back") == []


def test_writes_only_said_to_be_in_order_name_nothing() -> None:
    assert _problems("make sure the writes in order") == ["comment-without-pairing"]


def test_the_question_names_the_register_write_that_hands_over_not_the_next_store() -> None:
    # r9: "which writes must be visible before the store to espi_flash->tx_sts below it?", where the writes of
    # the DMA buffer must precede the regmap_write() of the TX control register, lines further on
    from reviewbot.rules import rb102_barrier_pairing as rb102

    lines = [
        "+static void quux_flash_send(struct quux_flash *f, const void *pkt, size_t len, u32 cyc)",
        "+{",
        "+\tunsigned long flags;",
        "+\tu32 reg;",
        "+",
        "+\tmemcpy(f->dma.tx_virt, pkt, len);",
        "+\tdma_wmb();",
        "+",
        "+\tspin_lock_irqsave(&f->lock, flags);",
        "+\tf->tx_sts = 0;",
        "+\tf->rx_sts = 0;",
        "+\treg = ((cyc << QUUX_TX_CTRL_CYC_SHIFT) & QUUX_TX_CTRL_CYC_MASK) |",
        "+\t      ((len << QUUX_TX_CTRL_LEN_SHIFT) & QUUX_TX_CTRL_LEN_MASK) |",
        "+\t      QUUX_TX_CTRL_TRIGGER;",
        "+\tregmap_write(f->map, QUUX_TX_CTRL, reg);",
        "+\tspin_unlock_irqrestore(&f->lock, flags);",
        "+}",
    ]
    raw = added_file_patch("drivers/soc/quux/flash.c", lines, "quux: send flash packets", "flash-2@example.org")
    patch = parse_patch(parse_rfc822(raw, "flash.patch"))
    findings = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    text = " ".join(rb102.reply_point(findings, patch).split())
    assert "which writes must be visible before regmap_write() below it" in text
    assert "tx_sts" not in text
