"""One point, one paragraph: a rule's paragraphs that differ only in the place they name merge.

The texts follow the RB101 draft to <20250123184754.555270-3-axboe@kernel.dk> (three structs
reordered in one patch), which said the same paragraph three times.
"""

from __future__ import annotations

from reviewbot.respond.draft import _same_point_once

PARA = (
    "Since the new order of struct {name} ({members}) is chosen for cache behaviour, could you add a "
    "comment to the struct saying that its members are cache-line ordered and which fields are hot?"
)


def test_look_alike_paragraphs_become_one() -> None:
    text = "\n\n".join(
        [
            PARA.format(name="io_uring_cmd_data", members="sqes"),
            PARA.format(name="io_async_msghdr", members="namelen and fast_iov"),
            PARA.format(name="io_async_rw", members="iter, iter_state and fast_iov"),
        ]
    )
    out = _same_point_once(text)
    assert out.count("\n\n") == 0
    assert out.count("could you add a comment") == 1
    assert out.endswith(
        "The same goes for struct io_async_msghdr (namelen and fast_iov) and "
        "struct io_async_rw (iter, iter_state and fast_iov)."
    )


def test_different_paragraphs_stay() -> None:
    text = PARA.format(name="a", members="x") + "\n\nWhich smp_wmb() does the smp_rmb() in foo() pair with?"
    assert _same_point_once(text) == text


def test_long_hunk_excerpts_share_one_hunk_header() -> None:
    """Two barriers far apart in one new file: two excerpts, the @@ line quoted once (zcrx draft)."""
    from reviewbot.models import Finding, Severity
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import parse_patch
    from reviewbot.respond.draft import _quotes

    body = [f"+int v{i};" for i in range(100)]
    body[5] = "+\tsmp_wmb();"
    body[90] = "+\tsmp_rmb();"
    raw = (
        "From: Ada <ada@example.org>\nMessage-ID: <z@example.org>\nSubject: [PATCH] zcrx: x\n"
        "Date: Tue, 17 Dec 2024 16:37:40 -0800\n\nAdd x.\n\nSigned-off-by: Ada <ada@example.org>\n---\n"
        "diff --git a/z.c b/z.c\nnew file mode 100644\n--- /dev/null\n+++ b/z.c\n@@ -0,0 +1,100 @@\n"
        + "\n".join(body)
        + "\n"
    )
    patch = parse_patch(parse_rfc822(raw.encode(), "test"))
    hunk = patch.files[0].hunks[0]
    found = [
        Finding("RB102", "barrier-pairing", Severity.WARNING, "m", path="z.c", line=n, lines=(n,), hunk=hunk)
        for n in (6, 91)
    ]
    quoted = "\n".join(_quotes(patch, found))
    assert quoted.count("> @@ -0,0 +1,100 @@") == 1
    assert "smp_wmb()" in quoted and "smp_rmb()" in quoted
    assert "> [...]\n> [...]" not in quoted


def test_barriers_after_plain_atomics_make_one_paragraph() -> None:
    """bcache "optimize barrier usage for atomic operations" (linux-kernel 2020/03/22): an
    smp_mb__after_atomic() after atomic_set() and an smp_mb__before_atomic() before atomic_read(), twice
    each; the draft said two paragraphs that differ in three words. Now one, naming both."""
    from reviewbot.models import Finding, Severity
    from reviewbot.rules.rb102_barrier_pairing import reply

    def f(barrier: str, op: str, line: int) -> Finding:
        return Finding(
            rule_id="RB102",
            rule_name="barrier-pairing",
            severity=Severity.WARNING,
            message="m",
            path="drivers/md/bcache/btree.c",
            line=line,
            lines=(line,),
            details={"barrier": barrier, "problem": "not-after-rmw", "op": op, "smp": True},
        )

    text = reply(
        [
            f("smp_mb__after_atomic", "atomic_set", 1950),
            f("smp_mb__before_atomic", "atomic_read", 2034),
            f("smp_mb__after_atomic", "atomic_set", 857),
            f("smp_mb__before_atomic", "atomic_read", 935),
        ],
        None,
    )
    assert text == (
        "As far as I understand Documentation/atomic_t.txt, smp_mb__after_atomic() and "
        "smp_mb__before_atomic() only order against a read-modify-write atomic, and atomic_set() and "
        "atomic_read() are plain accesses. So these order nothing here: is a barrier needed at all? If "
        "another CPU reads what is stored here, which barrier on that side do they pair with?"
    )
    one = reply([f("smp_mb__after_atomic", "atomic_set", 1950)], None)
    assert one.endswith(
        "and atomic_set() is a plain store. So this orders nothing here: is a barrier needed at all? If "
        "another CPU reads what is stored here, which barrier on that side does it pair with?"
    )


def test_two_barriers_of_one_kind_are_counted_as_two() -> None:
    """ "fs: sys_ringbuffer() (WIP)" (linux-kernel 2024/05/30): an smp_store_release() in the read and one in
    the write function, neither commented. The two findings say the same thing; merged into one, the
    rule asked about "the smp_store_release() here" under two quoted places. Now "each ... here"."""
    from reviewbot.engine import check_patch
    from reviewbot.models import Address
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import parse_patch
    from reviewbot.registry import load_rules
    from reviewbot.respond.draft import build_draft

    fn = (
        "+static void ring_{0}(struct ring *rb, u32 v)\n+{{\n+\tu32 x = rb->{0} + v;\n+\n"
        "+\trb->data[x & rb->mask] = v;\n+\tsmp_store_release(&rb->ptrs->{0}, x);\n+}}\n"
    )
    body = fn.format("head") + "+\n" + fn.format("tail")
    mail = (
        "From: Ada Example <ada@example.org>\nTo: linux-kernel@vger.kernel.org\n"
        "Date: Thu, 30 May 2024 23:53:49 -0400\nMessage-ID: <ring-1@example.org>\n"
        "Subject: [PATCH] ring: add a ring buffer\n\nA ring buffer.\n\n"
        "Signed-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/lib/ring.c b/lib/ring.c\nnew file mode 100644\n--- /dev/null\n+++ b/lib/ring.c\n"
        f"@@ -0,0 +1,{body.count(chr(10))} @@\n{body}"
    )
    patch = parse_patch(parse_rfc822(mail.encode(), "test mail"))
    rules = load_rules(entry_points=False)
    findings = [f for f in check_patch(patch, rules).findings if f.rule_id == "RB102"]
    assert len(findings) == 2
    draft = build_draft(
        patch, findings, rules, identity=Address("Zoë", "zoe@example.com"), list_address="linux-kernel@vger.kernel.org"
    )
    text = " ".join(draft.body.split())
    assert "Could you add a comment to each smp_store_release() here" in text
    assert draft.body.count("> +\tsmp_store_release(") == 2
