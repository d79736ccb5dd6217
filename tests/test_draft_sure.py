"""Issue 26: `draft` writes only the points a careful reviewer sends for sure; the rest stay findings.

Read next to their threads on lists the drafter never saw, speed-claim questions (RB201) and requests for a
pairing comment (RB102) were almost never sent as written, while a barrier that orders nothing
(``smp_mb__after_atomic()`` after ``atomic_set()``) or orders twice (``wmb()`` before ``writel()``) was. So by
default a draft carries only the sure points; the others are recorded as the skip ``unsure-point`` with the
rule's reason (shown by ``show`` and ``draft --dry-run``), and ``draft --unsure`` (config ``draft-unsure``)
drafts them too. Made-up patches in the shape of real ones go the real way: mbox -> Store (SQLite file) ->
rules -> draft_pending / the ``draft`` command.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.registry import load_rules
from reviewbot.respond.runner import SKIP_UNSURE_POINT
from reviewbot.store import Store
from helpers import cli_env, draft_fixed, load_thread, read_mbox_messages


def mail(msgid: str, subject: str, changelog: str, hunk: str) -> str:
    return f"""From ada@example.org Wed Mar 12 09:00:00 2025
From: Ada Example <ada@example.org>
To: linux-kernel@vger.kernel.org
Cc: Bob Maintainer <bob@example.com>
Subject: {subject}
Date: Wed, 12 Mar 2025 10:00:00 +0100
Message-ID: <{msgid}>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

{changelog}

Signed-off-by: Ada Example <ada@example.org>
---
 drivers/foo/ring.c | 3 +++
 1 file changed, 3 insertions(+)

diff --git a/drivers/foo/ring.c b/drivers/foo/ring.c
index 3333333..4444444 100644
--- a/drivers/foo/ring.c
+++ b/drivers/foo/ring.c
{hunk}--\x20
2.43.0

"""


#: Two points in one patch: a pairing-comment request (unsure) and an smp_mb__after_atomic() after atomic_set()
#: (sure: it orders nothing, Documentation/atomic_t.txt).
BOTH = """\
@@ -40,7 +40,8 @@ static void foo_push(struct foo_ring *r, u32 v)
 {
 \tu32 tail = r->tail;
\x20
 \tr->slot[tail & r->mask] = v;
+\tsmp_wmb();
 \tWRITE_ONCE(r->tail, tail + 1);
 \tr->nr_pushed++;
 }
@@ -80,6 +81,8 @@ static void foo_stop(struct foo_ring *r)
 {
 \tfoo_quiesce(r);
\x20
+\tatomic_set(&r->state, FOO_STOPPED);
+\tsmp_mb__after_atomic();
 \twake_up(&r->wq);
 \tfoo_flush(r);
 }
"""

#: Only unsure points: a speed claim in the subject and a pairing-comment request (the first hunk of BOTH).
UNSURE_ONLY = BOTH[: BOTH.index("@@ -80")]


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def stored(tmp_path: Path, text: str, rules) -> tuple[Store, dict]:
    box = tmp_path / "thread.mbox"
    box.write_text(text, encoding="utf-8")
    store = Store(tmp_path / "reviewbot.db")
    return store, load_thread(store, read_mbox_messages(box), rules)


def test_a_draft_carries_only_the_sure_point(tmp_path: Path, rules) -> None:
    text = mail("p1@example.org", "[PATCH] foo: order the ring", "Order the slot stores and the stop.", BOTH)
    store, found = stored(tmp_path, text, rules)
    by_problem = {f.details["problem"]: f for f in found["p1@example.org"]}
    assert set(by_problem) == {"no-comment", "not-after-rmw"}
    assert by_problem["no-comment"].unsure and not by_problem["not-after-rmw"].unsure
    summary = draft_fixed(store, rules, tmp_path / "outbox", unsure=False)
    assert len(summary.written) == 1 and summary.drafted == 1 and summary.unsure_points == 1
    body = summary.written[0].draft.body
    own = "\n".join(line for line in body.splitlines() if not line.startswith(">"))
    assert "atomic_t.txt" in own and "atomic_set() is a plain store" in own
    assert "Could you add a comment" not in own  # the pairing request is not in the draft
    assert "> +\tsmp_mb__after_atomic();" in body and "> +\tsmp_wmb();" not in body
    skips = store.conn.execute("SELECT state, reason FROM draft_skips").fetchall()
    assert [(s, r) for s, r in skips] == [(SKIP_UNSURE_POINT, by_problem["no-comment"].unsure)]
    store.close()


def test_a_patch_with_only_unsure_points_gets_no_draft_until_asked(tmp_path: Path, rules, monkeypatch) -> None:
    text = mail(
        "p2@example.org",
        "[PATCH] foo: speed up the ring push",
        "Make the push path faster by publishing the tail with a plain store.",
        UNSURE_ONLY,
    )
    store, found = stored(tmp_path, text, rules)
    assert sorted(f.rule_id for f in found["p2@example.org"]) == ["RB102", "RB201"]
    assert all(f.unsure for f in found["p2@example.org"])
    store.close()
    cli_env(tmp_path, monkeypatch)
    config = tmp_path / "config.toml"  # the default run: no draft-unsure in the config
    config.write_text(config.read_text(encoding="utf-8").replace("draft-unsure = true\n", ""), encoding="utf-8")
    db, out = str(tmp_path / "reviewbot.db"), str(tmp_path / "outbox")
    runner = CliRunner()
    preview = runner.invoke(main, ["draft", "--db", db, "--dry-run"])
    assert preview.exit_code == 0, preview.output
    assert preview.stdout.count("no draft, unsure-point: ") == 2, preview.stdout
    assert "0 draft(s) shown" in preview.stdout
    first = runner.invoke(main, ["draft", "--db", db, "--outbox", out])
    assert first.exit_code == 0, first.output
    assert "2 kept as findings: not sure a reviewer would send them" in first.stdout
    assert "0 draft(s) written" in first.stdout and not list(Path(out).glob("*.eml"))
    shown = runner.invoke(main, ["show", "<p2@example.org>", "--db", db])
    assert "unsure-point" in shown.stdout and "the reviewer's call" in shown.stdout, shown.stdout
    asked = runner.invoke(main, ["draft", "--db", db, "--outbox", out, "--unsure"])
    assert asked.exit_code == 0, asked.output
    assert "1 draft(s) written for the 2 finding(s) drafted now" in asked.stdout, asked.stdout
    (written,) = Path(out).glob("*.eml")
    body = written.read_text(encoding="utf-8")
    assert "faster" in body and "smp_wmb()" in body
    with Store(tmp_path / "reviewbot.db") as again:  # drafted now: no longer a skip
        assert again.conn.execute("SELECT COUNT(*) FROM draft_skips").fetchone()[0] == 0


def test_findings_lists_the_unsure_points_by_their_state(tmp_path: Path, rules, monkeypatch) -> None:
    text = mail("p3@example.org", "[PATCH] foo: order the ring", "Order the slot stores and the stop.", BOTH)
    store, _found = stored(tmp_path, text, rules)
    draft_fixed(store, rules, tmp_path / "outbox", unsure=False)
    store.close()
    cli_env(tmp_path, monkeypatch)
    out = CliRunner().invoke(main, ["findings", "--db", str(tmp_path / "reviewbot.db"), "--state", "unsure-point"])
    assert out.exit_code == 0, out.output
    # one of the patch's two findings: the pairing request at line 44, not the drafted atomic_set() point
    assert "RB102  WARNING  unsure-point <p3@example.org>" in out.stdout, out.stdout
    assert "(drivers/foo/ring.c:44)" in out.stdout and "1 finding(s)" in out.stdout
    assert "unsure-point: a request for a pairing comment" in out.stdout
    # listed with the patch's other finding, the Message-IDs stay in one column (a new user's report)
    both = CliRunner().invoke(main, ["findings", "--db", str(tmp_path / "reviewbot.db")]).stdout
    heads = [line for line in both.splitlines() if "<p3@example.org>" in line]
    assert len(heads) == 2 and len({line.index("<p3@") for line in heads}) == 1, both


#: Barriers next to accesses that order by themselves (step 7c): sure points, asked "is it needed?".
ORDERED_ALREADY = """\
@@ -40,7 +40,9 @@ static int foo_poll(struct foo_ring *r)
 {
 \tu32 status;
\x20
 \tstatus = readl(r->base + FOO_STATUS);
+\trmb();
 \tif (status & FOO_DONE)
 \t\treturn r->desc[r->head].len;
+\treturn -EAGAIN;
 }
@@ -80,5 +82,7 @@ static void foo_put(struct foo_ring *r)
 {
 \tif (atomic_dec_and_test(&r->refs)) {
+\t\tsmp_mb();
+\t\tr->dead = true;
 \t\tfoo_free(r);
 \t}
 }
"""

#: The same barriers where the access does not order: a relaxed read, a cmpxchg (unordered when it fails).
NOT_ORDERED = ORDERED_ALREADY.replace("readl(", "readl_relaxed(").replace(
    "atomic_dec_and_test(&r->refs)", "atomic_cmpxchg(&r->refs, 1, 0) == 1"
)


def test_a_barrier_next_to_an_access_that_orders_already_is_a_sure_question(tmp_path: Path, rules) -> None:
    text = mail("p4@example.org", "[PATCH] foo: poll the ring", "Poll the ring status.", ORDERED_ALREADY)
    store, found = stored(tmp_path, text, rules)
    redundant = {f.details["barrier"]: f.details.get("redundant") for f in found["p4@example.org"]}
    assert redundant == {
        "rmb": {"op": "readl", "side": "after", "kind": "mmio-read"},
        "smp_mb": {"op": "atomic_dec_and_test", "side": "after", "kind": "rmw"},
    }
    summary = draft_fixed(store, rules, tmp_path / "outbox", unsure=False)
    assert summary.unsure_points == 0 and summary.drafted == 2
    own = " ".join(line for line in summary.written[0].draft.body.splitlines() if not line.startswith(">"))
    own = " ".join(own.split())  # the draft is wrapped at 72 columns
    assert "The rmb() right after readl() looks redundant to me" in own
    assert "completes before any later read of memory starts" in own
    assert "The smp_mb() right after atomic_dec_and_test() looks redundant to me" in own
    assert "fully ordered already" in own and "pairs with" not in own
    store.close()


def test_the_same_barriers_where_the_access_does_not_order_stay_unsure(tmp_path: Path, rules) -> None:
    text = mail("p5@example.org", "[PATCH] foo: poll the ring", "Poll the ring status.", NOT_ORDERED)
    store, found = stored(tmp_path, text, rules)
    assert sorted(f.details["barrier"] for f in found["p5@example.org"]) == ["rmb", "smp_mb"]
    assert all(not f.details.get("redundant") and f.unsure for f in found["p5@example.org"])
    summary = draft_fixed(store, rules, tmp_path / "outbox", unsure=False)
    assert summary.written == [] and summary.unsure_points == 2
    store.close()


def test_unsure_points_of_a_drafted_patch_wait_for_again_never_a_second_file(
    tmp_path: Path, rules, monkeypatch
) -> None:
    """One reply per patch: `draft --unsure` after a sure draft of the same patch wrote a second draft under the
    same file name (a new user lost the sure point that way). Now the points wait, named in the summary, and
    `draft --again ID --unsure` writes the one draft anew with every point."""
    text = mail("p6@example.org", "[PATCH] foo: order the ring", "Order the slot stores and the stop.", BOTH)
    store, _found = stored(tmp_path, text, rules)
    store.close()
    cli_env(tmp_path, monkeypatch)
    config = tmp_path / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("draft-unsure = true\n", ""), encoding="utf-8")
    db, out = str(tmp_path / "reviewbot.db"), tmp_path / "outbox"
    runner = CliRunner()
    first = runner.invoke(main, ["draft", "--db", db, "--outbox", str(out)])
    assert "1 draft(s) written" in first.stdout, first.output
    (path,) = out.glob("*.eml")
    sure_only = path.read_bytes()
    second = runner.invoke(main, ["draft", "--db", db, "--outbox", str(out), "--unsure"])
    assert second.exit_code == 0, second.output
    assert "0 draft(s) written" in second.stdout and "1 kept: the patch has a draft already" in second.stdout
    assert list(out.glob("*.eml")) == [path] and path.read_bytes() == sure_only  # the sure draft is intact
    again = runner.invoke(main, ["draft", "--db", db, "--outbox", str(out), "--again", "<p6@example.org>", "--unsure"])
    assert again.exit_code == 0, again.output
    body = " ".join(path.read_text(encoding="utf-8").split())
    assert "atomic_t.txt" in body and "Could you add a comment to the smp_wmb()" in body  # both points, one file
    assert list(out.glob("*.eml")) == [path]


#: A function the hunk adds whole, after the end of the one its @@ line names.
NEW_FUNCTION = """\
@@ -40,3 +40,10 @@ static void foo_start(struct foo_ring *r)
 \tfoo_arm(r);
 \twake_up(&r->wq);
 }
+
+static void foo_stop(struct foo_ring *r)
+{
+\tatomic_set(&r->state, FOO_STOPPED);
+\tsmp_mb__after_atomic();
+\twake_up(&r->wq);
+}
"""


def test_the_report_line_names_the_function_the_barrier_sits_in(tmp_path: Path, rules) -> None:
    """A new user saw "smp_mb__after_atomic() in smp_stop_get_wait_settings()" for a barrier of the function
    the hunk added after it: the @@ line names the function the hunk starts in, not the one it adds."""
    text = mail("p7@example.org", "[PATCH] foo: add foo_stop()", "Add a stop.", NEW_FUNCTION)
    store, found = stored(tmp_path, text, rules)
    assert [f.details.get("function") for f in found["p7@example.org"]] == ["foo_stop"]
    summary = draft_fixed(store, rules, tmp_path / "outbox", unsure=False)
    assert summary.written[0].points == ("RB102 smp_mb__after_atomic() in foo_stop()",)
    store.close()


#: smp_mb() swapped for smp_mb__after_atomic() after a plain atomic_set(): an ordering that held is lost.
WEAKENED = """\
@@ -80,6 +80,6 @@ static void foo_stop(struct foo_ring *r)
 {
 \tfoo_quiesce(r);
 \tatomic_set(&r->state, FOO_STOPPED);
-\tsmp_mb();
+\tsmp_mb__after_atomic();
 \twake_up(&r->wq);
 }
"""


def test_a_full_barrier_swapped_for_one_that_orders_nothing_is_called_a_weakening(tmp_path: Path, rules) -> None:
    """A reader of such a draft: the patch replaces full smp_mb()s, so the question is not "is a barrier
    needed?" but "this weakens the ordering: keep smp_mb() or use release/acquire"."""
    text = mail("p8@example.org", "[PATCH] foo: optimize barrier usage", "Use lighter barriers.", WEAKENED)
    store, found = stored(tmp_path, text, rules)
    (f,) = found["p8@example.org"]
    assert f.details["problem"] == "not-after-rmw" and f.details["replaces"] == "smp_mb" and not f.unsure
    summary = draft_fixed(store, rules, tmp_path / "outbox", unsure=False)
    own = " ".join(
        " ".join(line for line in summary.written[0].draft.body.splitlines() if not line.startswith(">")).split()
    )
    assert "The smp_mb() this replaces did order it, so this weakens the ordering" in own
    assert "Should it stay smp_mb(), or become a release/acquire pair" in own
    assert "is a barrier needed at all" not in own
    store.close()
