"""Issue 11: only the newest revision of a patch gets a draft; a point settled on vN stays settled on vN+1.

The real cases come from the LKML mirror (../shared/openwall-mirror, scanned offline into a real SQLite
file, drafted into a real outbox): David Howells' watch_queue patch, posted as [PATCH 1/7] and then
[ver #2] .. [ver #8] (stgit puts the version tag at the end of the subject), where Jann Horn raised the
barrier on v1; Jack Wang's ibnbd -> rnbd -> block/rnbd client patch (v4, v6, v7: the subject renamed
with the driver); Satya Tangirala's blk-crypto patch (v5 -> v7: the fallback split into its own file).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.registry import load_rules
from reviewbot.respond.runner import draft_pending
from reviewbot.revisions import changed_lines, normalised_title, same_code, title_words
from reviewbot.store import Store
from helpers import FIXED_NOW, IDENTITY, LIST_ADDRESS, fixed_msgid_factory

WQ_V1 = "155905931502.7587.11705449537368497489.stgit@warthog.procyon.org.uk"
WQ_V8 = "156763538137.18676.270876812178890760.stgit@warthog.procyon.org.uk"
RNBD_V4 = "20190620150337.7847-18-jinpuwang@gmail.com"
RNBD_V6 = "20191230102942.18395-18-jinpuwang@gmail.com"
RNBD_V7 = "20200116125915.14815-18-jinpuwang@gmail.com"
CRYPTO_V5 = "20191028072032.6911-4-satyat@google.com"
CRYPTO_V7 = "20200221115050.238976-4-satyat@google.com"


def test_normalised_title_drops_version_tags() -> None:
    assert (
        normalised_title("General notification queue with user mmap()'able ring buffer [ver #3]")
        == "general notification queue with user mmap()'able ring buffer"
    )
    assert normalised_title("Add the vdo recovery journal.") == "add the vdo recovery journal"
    assert normalised_title("foo: bar [v2] [RESEND]") == "foo: bar"
    assert normalised_title("foo: use a[v2] index") == "foo: use a[v2] index"
    assert title_words("dm vdo: add the recovery journal") == {"dm", "vdo", "recovery", "journal"}


def _diff(prefix: str, n: int) -> str:
    lines = "".join(f"+\tret = {prefix}_clt_get_dev(sess, dev_{i}, flags);\n" for i in range(n))
    return f"diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,1 +1,{n} @@\n{lines}"


def test_same_code_reads_a_renamed_prefix_as_the_same_line() -> None:
    a, b = changed_lines(_diff("ibnbd", 10)), changed_lines(_diff("rnbd", 10))
    assert len(a) == len(b) == 10
    assert same_code(a, b) == 1.0  # only the prefix differs
    other = changed_lines(
        "diff --git a/y.c b/y.c\n@@ -1 +1,10 @@\n"
        + "".join(f"+\tspin_lock_irqsave(&queue_{i}->lock, flags_{i});\n" for i in range(10))
    )
    assert same_code(a, other) == 0.0
    assert same_code(a[:3], b[:3]) == 0.0  # too little code to call two patches the same


@pytest.fixture(scope="module")
def mirror_db(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LKML 2019-05-28 .. 2020-02-21 of the shared mirror, scanned offline (patches + their threads)."""
    db = tmp_path_factory.mktemp("revs") / "rb.db"
    out = CliRunner().invoke(
        main,
        [
            "scan",
            "linux-kernel",
            "--since",
            "2019-05-28",
            "--until",
            "2020-02-21",
            "--offline",
            "--cache-dir",
            str(shared_dir / "openwall-mirror"),
            "--db",
            str(db),
        ],
        env={"REVIEWBOT_NOW": "2026-07-01T00:00:00Z"},
    )
    assert out.exit_code == 0, out.output
    return db


def test_revisions_linked_on_real_pages(mirror_db: Path) -> None:
    with Store(mirror_db) as store:
        wq = store.revisions_of(WQ_V8)
        assert [r.version for r in wq] == [1, 2, 3, 4, 5, 6, 7, 8]
        assert (wq[0].message_id, wq[-1].message_id) == (WQ_V1, WQ_V8)
        assert {normalised_title(r.title) for r in wq} == {
            "general notification queue with user mmap()'able ring buffer"
        }
        # renamed subject, same code: ibnbd -> rnbd -> block/rnbd
        assert [r.message_id for r in store.revisions_of(RNBD_V4)] == [RNBD_V4, RNBD_V6, RNBD_V7]
        assert [r.message_id for r in store.revisions_of(CRYPTO_V7)] == [CRYPTO_V5, CRYPTO_V7]
        # patches of one series are never each other's revisions
        rnbd = store.patch_row(RNBD_V7)
        assert rnbd is not None and rnbd.series_key
        for row in store.series_rows(rnbd.series_key):
            if row.message_id != RNBD_V7:
                assert RNBD_V7 not in {r.message_id for r in store.revisions_of(row.message_id)}


def test_only_the_newest_revision_is_drafted_and_raised_carries_forward(mirror_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "rb.db"
    db.write_bytes(mirror_db.read_bytes())
    rules = load_rules(entry_points=False)
    with Store(db) as store:
        summary = draft_pending(
            store,
            unsure=True,
            rules=rules,
            identity=IDENTITY,
            list_address=LIST_ADDRESS,
            outbox=tmp_path / "outbox",
            clock=lambda: FIXED_NOW,
            make_msgid=fixed_msgid_factory(),
        )
        answered = {w.patch_message_id for w in summary.written}
        wq = {r.message_id for r in store.revisions_of(WQ_V8)}
        # Jann Horn raised the barrier on v1: no draft on v1, nor on v2..v8 (the code is unchanged)
        assert not answered & wq
        v1 = [store.skip_for(f.fingerprint) for f in store.findings_for(WQ_V1)]
        assert v1 and {s.state for s in v1} == {"raised"}
        v8 = [store.skip_for(f.fingerprint) for f in store.findings_for(WQ_V8)]
        assert v8 and all(
            s.state == "earlier-revision" and f"raised on an earlier revision <{WQ_V1}>" in s.reason for s in v8
        )
        # one draft per patch, on the newest revision
        assert not {RNBD_V4, RNBD_V6} & answered
        assert CRYPTO_V5 not in answered
        for mid in answered:
            assert store.revisions_of(mid)[-1].message_id == mid
        assert summary.superseded >= 3


def test_a_small_patch_reworded_links_only_when_its_lines_are_the_same() -> None:
    """cgroup/cpuset 5/5 -> v2 5/6 (LKML 2024-10): five changed lines, the same in both postings."""
    from reviewbot.revisions import SMALL_LINES, TINY_LINES

    body = (
        "diff --git a/kernel/cgroup/cpuset.c b/kernel/cgroup/cpuset.c\n@@ -1,5 +1,2 @@\n"
        "-\t\t\t\tuf_union(&csa[i]->node, &csa[j]->node);\n"
        "+\t\t\t\tndoms += uf_union(&csa[i]->node, &csa[j]->node);\n"
        "-\t/* Count the total number of domains */\n"
        "-\tfor (i = 0; i < csn; i++) {\n"
        "-\t\tif (uf_find(&csa[i]->node) == &csa[i]->node)\n"
    )
    a = changed_lines(body)
    assert same_code(a, a) == 0.0  # below the size two authors' patches are compared at
    assert same_code(a, a, TINY_LINES) == 1.0 >= SMALL_LINES
    other = changed_lines(
        body.replace("total number of domains", "domains here").replace(
            "for (i = 0; i < csn; i++) {", "list_for_each_entry(cs, &head, list) {"
        )
    )
    assert same_code(a, other, TINY_LINES) < SMALL_LINES


def _posting(tmp_path: Path, n: int, subject: str, lines: list[str]) -> Path:
    body = "".join(f"+{ln}\n" for ln in lines)
    mbox = tmp_path / f"p{n}.mbox"
    mbox.write_text(
        f"From ada@example.org Mon Dec  1 10:0{n}:00 2025\nFrom: Ada Example <ada@example.org>\n"
        f"To: linux-kernel@vger.kernel.org\nSubject: {subject}\nDate: Mon, {n} Dec 2025 10:00:00 +0000\n"
        f"Message-ID: <p-{n}@example.org>\n\nThe lock.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        f"diff --git a/kernel/locking/hqlock_core.h b/kernel/locking/hqlock_core.h\n"
        f"--- /dev/null\n+++ b/kernel/locking/hqlock_core.h\n@@ -0,0 +1,{len(lines)} @@\n{body}-- \n2.43.0\n"
    )
    return mbox


def test_a_patch_split_into_a_series_under_a_new_subject_is_the_same_patch(tmp_path: Path) -> None:
    """HQspinlock (LKML 2025-11-28, one patch) -> [RFC PATCH v2 1/5] kernel: introduce Hierarchical Queued
    spinlock (2025-12-06): the subject renamed, the core file carried over; both got the same draft."""
    from helpers import load_thread, read_mbox_messages

    core = [f"\tstatic inline void hq_step_{i}(struct hq_lock *lock, int node_{i})" for i in range(12)]
    rules = load_rules(entry_points=False)
    with Store(tmp_path / "rb.db") as store:
        for n, subject, lines in (
            (
                1,
                "[RFC PATCH 1/1] HQspinlock - (NUMA-aware) Hierarchical Queued spinlock",
                core + ["\tint extra_a = 1;"],
            ),
            (2, "[RFC PATCH v2 1/5] kernel: introduce Hierarchical Queued spinlock", core[:10]),
            # the same author's later patch over the same lines, about something else: not a revision
            (3, "[PATCH v3] locking: convert the slow path to per-node queues", core[:10]),
        ):
            load_thread(store, read_mbox_messages(_posting(tmp_path, n, subject, lines)), rules)
        assert [r.message_id for r in store.revisions_of("p-1@example.org")] == [
            "p-1@example.org",
            "p-2@example.org",
        ]
