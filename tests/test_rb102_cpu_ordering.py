"""RB102 judges a plain mb()/rmb()/wmb() that orders against another CPU as the SMP barrier it stands for (issue
23's first look first11: a GPU driver's ``rmb(); /* for list_empty to work without lock */`` before
``wait_event(..., list_empty(...))``, and a KVM patch's ``/* publish the table before setting nentries */
wmb(); WRITE_ONCE(t->nentries, n);``: both comments say what the barrier is for, neither names the CPU on the
other side, and both were passed as device barriers). A plain barrier right next to an access only another
CPU makes (a marked access, an atomic, a waitqueue, a lock), with no device access near it, must name that
side; the calls beside it are this side, not the other. Our own functions, modelled on that kind."""

from __future__ import annotations

from helpers import added_file_patch
from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")


def _patch(*lines: str) -> bytes:
    return added_file_patch("drivers/misc/quux/quux.c", lines, "quux: publish the table", "cpu-1@example.org")


def _findings(text: bytes) -> list[dict]:
    patch = parse_patch(parse_rfc822(text, "quux.patch"))
    return [f.details for f in check_patch(patch, [RULE], RuleContext(strict=True)).findings]


PUBLISH = (
    "+static void quux_publish(struct quux_table *t, unsigned int n)",
    "+{",
    "+\tunsigned int i;",
    "+",
    "+\tfor (i = t->count; i < n; i++)",
    "+\t\tt->slot[i] = i;",
    "+\t{comment}",
    "+\twmb();",
    "+\tWRITE_ONCE(t->count, n);",
    "+}",
)


def _publish(comment: str) -> bytes:
    return _patch(*(line.replace("{comment}", comment) for line in PUBLISH))


def test_a_plain_write_barrier_before_a_marked_store_must_name_its_reader() -> None:
    found = _findings(_publish("/* fill the slots before the count */"))
    assert [d["problem"] for d in found] == ["comment-without-pairing"]
    assert found[0]["cpu_ordering"] == "smp"


def test_naming_the_reader_is_enough() -> None:
    assert _findings(_publish("/* fill the slots before the count; pairs with the rmb() in quux_lookup() */")) == []


def test_a_call_beside_the_barrier_is_this_side_not_the_other() -> None:
    found = _findings(
        _patch(
            "+static void quux_drain(struct quux *q)",
            "+{",
            "+\trmb(); /* for list_empty to work without the lock */",
            "+\twait_event(q->wq, list_empty(&q->jobs));",
            "+\tquux_free(q);",
            "+}",
        )
    )
    assert [d["problem"] for d in found] == ["comment-without-pairing"]


def test_a_plain_barrier_beside_a_device_access_still_only_says_what_it_orders() -> None:
    found = _findings(
        _patch(
            "+static void quux_kick(struct quux *q, unsigned int tail)",
            "+{",
            "+\tq->ring[tail].len = 64;",
            "+\t/* the descriptor before the doorbell */",
            "+\twmb();",
            "+\tWRITE_ONCE(q->tail, tail);",
            "+\twritel(tail, q->regs + QUUX_DOORBELL);",
            "+}",
        )
    )
    assert found == []


def test_a_comment_earlier_in_the_function_naming_the_barriers_and_their_pair_covers_them() -> None:
    # r10: "The two smp_load_acquire()'s here pair with the smp_store_release()'s in ..." above an if/else of two
    # returns; the second return's barrier was asked for a pairing comment
    lines = [
        "+static bool quux_key_ready(struct quux_key *k, bool inline_crypt)",
        "+{",
        "+\t/*",
        "+\t * The two smp_load_acquire()'s here pair with the smp_store_release()'s",
        "+\t * in quux_prepare_blk_key() and quux_prepare_tfm().",
        "+\t */",
        "+\tif (inline_crypt)",
        "+\t\treturn smp_load_acquire(&k->blk_key) != NULL;",
        "+\treturn smp_load_acquire(&k->tfm) != NULL;",
        "+}",
    ]
    assert _findings(_patch(*lines)) == []
    unrelated = [ln.replace("smp_load_acquire()'s here pair with", "keys here are set by") for ln in lines]
    # without the barrier's name and "pair with" the earlier comment covers only the if's own barrier below it
    assert [d["problem"] for d in _findings(_patch(*unrelated))] == ["no-comment"]
