"""RB102's step 8 ("the named other side has no barrier") reads one call deep (issue 23's last first look,
first10: a filesystem patch's smp_store_release() in super_wake() says it pairs with the acquire "in
super_wait()", and super_wait() waits with wait_var_event(..., wait_born(sb)), where wait_born() holds the
smp_load_acquire(); the rule called the comment wrong, a point it drafts for sure). A helper the patch adds,
called by the named function, is part of that side. Our own functions, modelled on that kind."""

from __future__ import annotations

from helpers import added_file_patch
from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")


def _patch(waiter_calls: str) -> bytes:
    lines = [
        "+static inline bool zed_ready(struct zed *z)",
        "+{",
        "+\t/* Pairs with smp_store_release() in zed_wake(): see the state once it is published. */",
        "+\treturn smp_load_acquire(&z->state) & ZED_READY;",
        "+}",
        "+",
        "+static inline bool zed_idle(struct zed *z)",
        "+{",
        "+\treturn READ_ONCE(z->users) == 0;",
        "+}",
        "+",
        "+static void zed_wait(struct zed *z)",
        "+{",
        f"+\twait_var_event(&z->state, {waiter_calls}(z));",
        "+}",
        "+",
        "+static void zed_wake(struct zed *z, unsigned int flag)",
        "+{",
        "+\t/* Pairs with smp_load_acquire() in zed_wait(): publish the setup before the flag. */",
        "+\tsmp_store_release(&z->state, z->state | flag);",
        "+\twake_up_var(&z->state);",
        "+}",
    ]
    return added_file_patch(
        "drivers/misc/zed/zed.c",
        lines,
        "zed: wait for setup",
        "helper-1@example.org",
        "Wait until the device is set up.",
    )


def _problems(text: bytes) -> list[str]:
    patch = parse_patch(parse_rfc822(text, "zed.patch"))
    return [f.details.get("problem", "") for f in check_patch(patch, [RULE], RuleContext(strict=True)).findings]


def test_the_named_side_orders_through_a_helper_it_calls() -> None:
    assert "other-side-missing" not in _problems(_patch("zed_ready"))


def test_a_named_side_whose_helpers_order_nothing_is_still_reported() -> None:
    assert "other-side-missing" in _problems(_patch("zed_idle"))
