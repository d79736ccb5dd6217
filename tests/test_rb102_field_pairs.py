"""RB102 wording for two kinds a reader of whole-mirror drafts found wrong (issue 11, item 3):

* both sides of one field added by the patch, spelled differently on each side (``zd->stats.seq`` and
  ``s->seq``, a ``void **trigger_ptr`` parameter, one flag reached through two struct pointers): the draft
  says they look like a pair and asks each comment to name the other, not "I could not find the other side";
* a plain ``mb()`` in CPU hotplug code that touches no device: a CPU ordering barrier, worded as such,
  with no descriptor/doorbell example.
"""

from __future__ import annotations

import sys

import pytest

from reviewbot.engine import check_patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULE = next(r for r in load_rules(entry_points=False) if r.id == "RB102")
MODULE = sys.modules[RULE.module_name]


def reply_for(name: str, text: str | None = None) -> tuple[list, str]:
    path = RULE.examples_dir / name
    raw = path.read_bytes() if text is None else text.encode()
    patch = parse_patch(parse_rfc822(raw, str(path)))
    findings = list(check_patch(patch, [RULE], RuleContext(strict=True)).findings)
    return findings, " ".join(MODULE.reply_point(findings, patch).split())


def test_seqcount_sides_spelled_differently_are_a_pair() -> None:
    findings, text = reply_for("bad-seqcount-sides-in-one-patch.patch")
    assert sorted(f.details["barrier"] for f in findings) == ["smp_rmb", "smp_rmb", "smp_wmb", "smp_wmb"]
    assert text.startswith(
        "The smp_wmb() in zed_update_stats() and the smp_rmb() in zed_read_stats() on s->seq "
        "look like the write and read sides of one pairing."
    )
    assert "could not find" not in text and "Could you add a comment to" not in text


def test_release_and_acquire_through_a_pointer_parameter_are_a_pair() -> None:
    findings, text = reply_for("bad-release-through-pointer-parameter.patch")
    assert sorted(f.details["barrier"] for f in findings) == ["smp_load_acquire", "smp_store_release"]
    assert (
        "The smp_store_release() in zed_trigger_write() and the smp_load_acquire() in zed_trigger_poll() on "
        "ctx->zed.trigger look like a pair."
    ) in text
    assert "could not find" not in text


def test_flag_reached_through_two_pointers_is_a_pair() -> None:
    findings, text = reply_for("bad-flag-through-different-pointers.patch")
    assert sorted(f.details["barrier"] for f in findings) == ["smp_rmb", "smp_wmb"]
    assert (
        "The smp_wmb() in zed_chan_own_nolock() and the smp_rmb() in zed_chan_busy() on c->owner.busy look like a pair."
    ) in text
    assert '"Pairs with the smp_rmb() in zed_chan_busy()"' in text


def test_different_last_member_is_no_pair() -> None:
    """The same fence pattern on ``owner.busy`` and ``owner.idle``: the fields differ, no pair is named."""
    path = RULE.examples_dir / "bad-flag-through-different-pointers.patch"
    text = path.read_text().replace("return c->owner.busy;", "return c->owner.idle;")
    findings, reply = reply_for(path.name, text)
    assert len(findings) == 2
    assert "look like" not in reply and "each of the new barriers here (smp_rmb(), smp_wmb())" in reply


def test_two_sides_in_one_function_are_no_pair() -> None:
    """A write and a read barrier around one field in one function are not the two sides of a pairing."""
    path = RULE.examples_dir / "bad-flag-through-different-pointers.patch"
    text = (
        path.read_text()
        .replace(
            "+\treturn true;\n+}\n+\n+static bool zed_chan_busy(const struct zed_chan *c)\n+{\n", "+\treturn true;\n+\n"
        )
        .replace("@@ -80,3 +80,23 @@", "@@ -80,3 +80,20 @@")
    )
    assert text != path.read_text()
    _, reply = reply_for(path.name, text)
    assert "look like" not in reply


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("zd->stats.seq", "s->seq", True),
        ("vd[CS_HRES_COARSE].seq", "vd->seq", True),
        ("sk->sk_lock.owned", "c->sk_lock.owned", True),
        ("sk->sk_lock.owned", "c->owner.owned", False),
        ("trigger_ptr", "ctx->psi.trigger", True),
        ("trigger", "ctx->psi.trigger", False),
        ("r->head", "r->tail", False),
        ("bcache_is_reboot", "bcache_is_reboot", True),
    ],
)
def test_same_field_by_member_names(a: str, b: str, same: bool) -> None:
    assert MODULE._same_field(MODULE._field_path(a), MODULE._field_path(b)) is same


def test_pair_named_at_both_ends_is_not_reported() -> None:
    findings, _ = reply_for("good-field-pair-named-at-both-ends.patch")
    assert findings == []


def test_cpu_hotplug_barrier_is_worded_as_cpu_ordering() -> None:
    findings, text = reply_for("bad-cpu-barrier-in-hotplug.patch")
    assert [f.details.get("cpu_ordering") for f in findings] == ["hotplug", "hotplug"]
    assert "each mb() saying what it orders against the other CPU" in text
    assert "descriptor" not in text and "doorbell" not in text


def test_mb_beside_a_device_access_keeps_the_device_wording() -> None:
    """The same path, but the barrier is followed by an MMIO write: ordering against the device after all."""
    path = RULE.examples_dir / "bad-cpu-barrier-in-hotplug.patch"
    text = path.read_text().replace("+\tmb();\n+}\n", "+\tmb();\n+\twritel(0, zed_clk_base + cpu);\n+}\n", 1)
    text = text.replace("@@ -120,3 +120,25 @@", "@@ -120,3 +120,26 @@")
    assert text != path.read_text()
    findings, reply = reply_for(path.name, text)
    assert [bool(f.details.get("cpu_ordering")) for f in findings] == [False, True]
    assert "descriptor writes" in reply and "against the other CPU" in reply


def test_mb_in_a_driver_keeps_the_device_wording() -> None:
    findings, text = reply_for("bad-device-barrier.patch")
    assert not any(f.details.get("cpu_ordering") for f in findings)
    assert "other CPU" not in text
    # the access after the barrier named (issue 26 kind 4), not the stock descriptor/doorbell example
    assert "which writes must be visible before the store to d->flags below it" in text
    assert "doorbell" not in text
    # and a draft would not ask it: the address store, the barrier and the OWN flag store are all in view
    assert [f.details.get("not_asked", "").endswith("in plain view") for f in findings] == [True]
