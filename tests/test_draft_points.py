"""Issue 11: one reply per point, exact quotes, only the newest revision, list recipients, dismiss/findings.

Threads are written here as mbox text (made-up patches in the shape of tests/data/threads) and go the
real way: parse -> Store (SQLite file) -> rules -> draft_pending -> outbox files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.models import Address
from reviewbot.respond.draft import complete_list_address, resolve_recipients
from reviewbot.respond.runner import draft_pending
from reviewbot.store import Store
from helpers import FIXED_NOW, IDENTITY, LIST_ADDRESS, fixed_msgid_factory, load_thread, read_mbox_messages
from reviewbot.registry import load_rules

HUNK = """\
@@ -{o},7 +{n},8 @@ static void foo_{name}(struct foo_ring *r, u32 v)
 {{
 \tu32 tail = r->tail;
\x20
 \tr->slot[tail & r->mask] = v;
+\tsmp_wmb();
 \tWRITE_ONCE(r->tail, tail + 1);
 \tr->nr_pushed++;
 }}
"""


def patch_mail(msgid: str, subject: str, day: int, hunks: str) -> str:
    return f"""From ada@example.org Wed Mar {day:02d}09:00:00 2025
From: Ada Example <ada@example.org>
To: linux-kernel@vger.kernel.org
Cc: Bob Maintainer <bob@example.com>
Subject: {subject}
Date: Wed, {day} Mar 2025 10:00:00 +0100
Message-ID: <{msgid}>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

Order the slot stores against the tail in both push paths.

Signed-off-by: Ada Example <ada@example.org>
---
 drivers/foo/ring.c | 2 ++
 1 file changed, 2 insertions(+)

diff --git a/drivers/foo/ring.c b/drivers/foo/ring.c
index 3333333..4444444 100644
--- a/drivers/foo/ring.c
+++ b/drivers/foo/ring.c
{hunks}--\x20
2.43.0

"""


TWO_HUNKS = HUNK.format(o=40, n=40, name="push") + HUNK.format(o=80, n=81, name="push_many")


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def run(tmp_path: Path, text: str, rules):
    box = tmp_path / "thread.mbox"
    box.write_text(text, encoding="utf-8")
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, read_mbox_messages(box), rules)
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
    return store, found, summary


def test_one_paragraph_for_one_rule_on_two_hunks(tmp_path: Path, rules) -> None:
    store, found, summary = run(
        tmp_path, patch_mail("p1@example.org", "[PATCH] foo: order the slot", 12, TWO_HUNKS), rules
    )
    assert [f.rule_id for f in found["p1@example.org"]] == ["RB102", "RB102"]
    body = summary.written[0].draft.body
    own = "\n".join(line for line in body.split("\n") if not line.startswith(">"))
    assert own.count("smp_wmb()") == 1 and own.count("Could you add a comment") == 1, body
    # both places quoted, each under its own real @@ line, the file header once
    assert "> @@ -40,7 +40,8 @@ static void foo_push(" in body
    assert "> @@ -80,7 +81,8 @@ static void foo_push_many(" in body
    assert body.count("> +++ b/drivers/foo/ring.c") == 1
    store.close()


def test_only_the_newest_revision_is_drafted(tmp_path: Path, rules) -> None:
    text = patch_mail(
        "v1@example.org", "[PATCH] foo: order the slot", 12, HUNK.format(o=40, n=40, name="push_old")
    ) + patch_mail("v2@example.org", "[PATCH v2] foo: order the slot", 14, HUNK.format(o=40, n=40, name="push"))
    store, found, summary = run(tmp_path, text, rules)
    assert [w.patch_message_id for w in summary.written] == ["v2@example.org"]
    assert summary.superseded == len(found["v1@example.org"]) >= 1
    store.close()


def test_list_addresses_completed_from_known_hosts() -> None:
    assert complete_list_address(Address("", "linux-block@...r.kernel.org")).email == "linux-block@vger.kernel.org"
    assert complete_list_address(Address("", "linux-mm@...ck.org")).email == "linux-mm@kvack.org"
    assert complete_list_address(Address("", "linuxppc-dev@...ts.ozlabs.org")).email == "linuxppc-dev@lists.ozlabs.org"
    assert complete_list_address(Address("", "ada@...mple.org")) is None  # no list host fits
    assert complete_list_address(Address("", "ada@example.org")) is None  # not obfuscated


def test_uncertain_people_still_reach_the_patch_lists(tmp_path: Path) -> None:
    from reviewbot.parse.mail import parse_rfc822

    msg = parse_rfc822(
        b"From: Ada <ada@...mple.org>\nTo: linux-block@...r.kernel.org\n"
        b"Cc: linux-kernel@...r.kernel.org, bob@...mple.com\nSubject: [PATCH] x\n"
        b"Message-ID: <m@x>\n\nbody\n",
        "test",
    )
    res = resolve_recipients(msg, identity=IDENTITY, list_address=LIST_ADDRESS)
    assert res.complete is False
    assert {a.email for a in (*res.to, *res.cc)} == {"linux-block@vger.kernel.org", "linux-kernel@vger.kernel.org"}


def test_a_null_sender_is_not_written_to() -> None:
    """``From: Build Robot <>``: no address to write to, so the reply goes to the lists only."""
    from reviewbot.parse.mail import parse_rfc822

    msg = parse_rfc822(
        b"From: Build Robot <>\nTo: linux-mm@kvack.org, carl@example.net\nSubject: [PATCH] y\n"
        b"Message-ID: <n@x>\n\nbody\n",
        "test",
    )
    res = resolve_recipients(msg, identity=IDENTITY, list_address=LIST_ADDRESS)
    assert res.complete is False
    assert "" not in {a.email for a in (*res.to, *res.cc)}
    assert "linux-mm@kvack.org" in {a.email for a in (*res.to, *res.cc)}


def test_dismiss_holds_and_findings_lists(tmp_path: Path, rules, monkeypatch) -> None:
    box = tmp_path / "thread.mbox"
    box.write_text(patch_mail("p1@example.org", "[PATCH] foo: order the slot", 12, TWO_HUNKS), encoding="utf-8")
    db = tmp_path / "reviewbot.db"
    with Store(db) as store:
        load_thread(store, read_mbox_messages(box), rules)
    config = tmp_path / "config.toml"
    config.write_text(
        'draft-unsure = true\n[identity]\nname = "Zoe Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    monkeypatch.setenv("REVIEWBOT_NOW", "2025-03-20T08:30:00")
    cli = CliRunner()
    out = cli.invoke(main, ["findings", "--db", str(db), "--format", "json"])
    assert out.exit_code == 0, out.output
    assert out.output.count('"status": "open"') == 2
    rows = json.loads(out.output)  # each finding carries its message, the text a reviewer reads
    with Store(db) as store:
        texts = {f.fingerprint: f.message for f in store.findings_for("p1@example.org")}
    assert {r["fingerprint"]: r["message"] for r in rows} == texts and all(texts.values())
    out = cli.invoke(
        main, ["dismiss", "<p1@example.org>", "--rule", "RB102", "--reason", "the pair is obvious", "--db", str(db)]
    )
    assert out.exit_code == 0 and out.output.count("dismissed ") == 2, out.output
    out = cli.invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "outbox")])
    assert out.exit_code == 0 and "0 draft(s) written" in out.output, out.output
    out = cli.invoke(main, ["findings", "--db", str(db), "--state", "dismissed"])
    assert "2 finding(s)" in out.output and "the pair is obvious" in out.output


READER_HUNK = """\
@@ -120,7 +121,8 @@ static u32 foo_ring_pop(struct foo_ring *r)
 {
 \tu32 tail = READ_ONCE(r->tail);
\x20
 \tif (r->head == tail)
+\tsmp_rmb();
 \t\treturn 0;
 \treturn r->slot[r->head++ & r->mask];
 }
"""


def test_wmb_and_rmb_are_not_called_a_pair_but_not_missing_either(tmp_path: Path, rules) -> None:
    """An smp_wmb() and an smp_rmb() carry no object to match: no pair is named, and no function from the
    @@ lines (the hunks do not show the functions' openings); the other side may be in the hunks, so the
    draft does not say it could not be found."""
    _, found, summary = run(
        tmp_path,
        patch_mail(
            "p1@example.org", "[PATCH] foo: order the ring", 12, HUNK.format(o=40, n=40, name="push") + READER_HUNK
        ),
        rules,
    )
    assert sorted(f.details["barrier"] for f in found["p1@example.org"]) == ["smp_rmb", "smp_wmb"]
    body = summary.written[0].draft.body
    text = " ".join(line for line in body.split("\n") if not line.startswith(">"))
    text = " ".join(text.split())
    assert "look like a pair" not in text and "could not find" not in text
    assert "foo_push()" not in text and "foo_ring_pop()" not in text
    assert "each of the new barriers here (smp_rmb(), smp_wmb())" in text


RELEASE_HUNK = """\
@@ -10,6 +10,11 @@ struct foo_ring {
 \tu32 mask;
 };
\x20
+static void foo_publish(struct foo_ring *r, u32 tail)
+{
+\tsmp_store_release(&r->tail, tail);
+}
+
 static u32 foo_ring_pop(struct foo_ring *r)
 {
-\tu32 tail = READ_ONCE(r->tail);
+\tu32 tail = smp_load_acquire(&r->tail);
"""


def test_release_and_acquire_on_one_field_are_named_as_a_pair(tmp_path: Path, rules) -> None:
    _, found, summary = run(
        tmp_path, patch_mail("p1@example.org", "[PATCH] foo: order the ring", 12, RELEASE_HUNK), rules
    )
    assert sorted(f.details["barrier"] for f in found["p1@example.org"]) == ["smp_load_acquire", "smp_store_release"]
    text = " ".join(
        " ".join(line for line in summary.written[0].draft.body.split("\n") if not line.startswith(">")).split()
    )
    assert "look like a pair" in text and "on r->tail" in text and "could not find" not in text
    assert "in foo_publish()" in text and "foo_ring_pop()" in text


def test_inline_question_under_the_barrier_is_not_repeated(tmp_path: Path, rules) -> None:
    reply = """From bob@example.com Wed Mar 12 14:00:00 2025
From: Bob Maintainer <bob@example.com>
To: Ada Example <ada@example.org>
Subject: Re: [PATCH] foo: order the slot
Date: Wed, 12 Mar 2025 15:00:00 +0100
Message-ID: <bob1@example.com>
In-Reply-To: <p1@example.org>
References: <p1@example.org>

On Wed, Mar 12, 2025 at 10:00:00AM +0100, Ada Example wrote:
>  \tr->slot[tail & r->mask] = v;
> +\tsmp_wmb();

Who reads the slot on the other side here?

>  \tWRITE_ONCE(r->tail, tail + 1);

Bob

"""
    store, found, summary = run(
        tmp_path,
        patch_mail("p1@example.org", "[PATCH] foo: order the slot", 12, HUNK.format(o=40, n=40, name="push")) + reply,
        rules,
    )
    assert summary.drafts == 0 and summary.raised == 1
    (finding,) = found["p1@example.org"]
    assert "bob1@example.com" in store.skip_for(finding.fingerprint).reason
    store.close()


def test_speed_claim_gets_the_measurement_that_fits(tmp_path: Path, rules) -> None:
    mail = patch_mail(
        "p1@example.org", "[PATCH] foo: cut the wakeup latency of the ring", 12, HUNK.format(o=40, n=40, name="push")
    ).replace(
        "Order the slot stores against the tail in both push paths.",
        "This reduces the wakeup latency of readers on a busy ring.",
    )
    _, found, summary = run(tmp_path, mail, rules)
    assert "RB201" in {f.rule_id for f in found["p1@example.org"]}
    text = " ".join(
        " ".join(line for line in summary.written[0].draft.body.split("\n") if not line.startswith(">")).split()
    )
    # the claim is quoted above the question and not restated in prose under it
    quoted = " ".join(
        " ".join(line[1:] for line in summary.written[0].draft.body.split("\n") if line.startswith(">")).split()
    )
    assert "This reduces the wakeup latency of readers on a busy ring" in quoted
    assert "says" not in text and text.count("This reduces the wakeup latency") == 0
    assert "cyclictest" in text
    assert "complexity" not in text and "added code" not in text  # a one-line change


def test_point_drafted_on_v1_is_not_drafted_again_on_v2(tmp_path: Path, rules) -> None:
    store, found, summary = run(
        tmp_path,
        patch_mail("v1@example.org", "[PATCH] foo: order the slot", 12, HUNK.format(o=40, n=40, name="push_old")),
        rules,
    )
    assert summary.drafts == 1
    box = tmp_path / "v2.mbox"
    box.write_text(
        patch_mail("v2@example.org", "[PATCH v2] foo: order the slot", 14, HUNK.format(o=40, n=40, name="push")),
        encoding="utf-8",
    )
    found2 = load_thread(store, read_mbox_messages(box), rules)
    (f2,) = found2["v2@example.org"]
    assert f2.fingerprint not in {f.fingerprint for f in found["v1@example.org"]}  # the function was renamed
    again = draft_pending(
        store,
        unsure=True,
        rules=rules,
        identity=IDENTITY,
        list_address=LIST_ADDRESS,
        outbox=tmp_path / "outbox",
        clock=lambda: FIXED_NOW,
        make_msgid=fixed_msgid_factory(),
    )
    assert again.drafts == 0 and again.superseded == 1
    assert "earlier revision <v1@example.org>" in store.skip_for(f2.fingerprint).reason
    store.close()


def _bare_patch():
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import parse_patch

    hunk = HUNK.format(o=40, n=40, name="push").replace("smp_wmb();", "barrier();")  # no SMP barrier to pair
    return parse_patch(
        parse_rfc822(patch_mail("p9@example.org", "[PATCH] foo: x", 12, hunk).split("\n", 1)[1].encode(), "test")
    )


def test_device_barrier_says_what_it_orders_and_randstruct_is_named(rules) -> None:
    from reviewbot.rules import rb101_struct_reorder as rb101
    from reviewbot.rules import rb102_barrier_pairing as rb102

    patch = _bare_patch()
    wmb = rb102.RULE.finding(patch, "m", details={"barrier": "dma_wmb", "problem": "no-comment", "smp": False})
    text = " ".join(rb102.reply_point([wmb], patch).split())
    assert "dma_wmb()" in text and "doorbell" in text and "Pairs with" not in text
    rmb = rb102.RULE.finding(patch, "m", details={"barrier": "smp_rmb", "problem": "no-comment", "smp": True})
    assert "(an smp_wmb() or smp_store_release() on the writer side)" in " ".join(
        rb102.reply_point([rmb], patch).split()
    )
    acq = rb102.RULE.finding(patch, "m", details={"barrier": "smp_load_acquire", "problem": "no-comment", "smp": True})
    text = " ".join(rb102.reply_point([acq], patch).split())
    assert "(an smp_store_release() on the writer side)" in text and "<writer>" not in text
    moved = [
        rb101.RULE.finding(
            patch, "m", details={"struct": "struct file", "members": m, "motivation": "cache", "randomize_layout": True}
        )
        for m in (["f_op", "f_lock"], ["f_lock", "f_mode"])
    ]
    text = " ".join(rb101.reply_point(moved, patch).split())
    assert text.count("struct file") == 2 and "f_op, f_lock and f_mode" in text  # each member once
    assert "CONFIG_RANDSTRUCT_NONE" in text


def test_findings_open_after_draft_and_dry_run_says_why(tmp_path: Path, rules, monkeypatch) -> None:
    """A new user's path: findings (json has severity), draft, `--state open` still lists the drafted
    point, and `draft --msgid X --dry-run` on the drafted patch names the file and `--again`."""
    import json

    box = tmp_path / "thread.mbox"
    box.write_text(patch_mail("p1@example.org", "[PATCH] foo: order the slot", 12, TWO_HUNKS), encoding="utf-8")
    db = tmp_path / "reviewbot.db"
    with Store(db) as store:
        load_thread(store, read_mbox_messages(box), rules)
    config = tmp_path / "config.toml"
    config.write_text(
        'draft-unsure = true\n[identity]\nname = "Zoe Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    monkeypatch.setenv("REVIEWBOT_NOW", "2025-03-20T08:30:00")
    cli = CliRunner()
    rows = json.loads(cli.invoke(main, ["findings", "--db", str(db), "--format", "json"]).output)
    assert [(r["rule_id"], r["severity"], r["status"], r["open"]) for r in rows] == [
        ("RB102", "WARNING", "open", True)
    ] * 2
    out = cli.invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "outbox")])
    assert out.exit_code == 0 and "1 draft(s) written" in out.output, out.output
    drafted = json.loads(cli.invoke(main, ["findings", "--db", str(db), "--format", "json", "--state", "open"]).output)
    assert [(r["status"], r["open"]) for r in drafted] == [("drafted", True)] * 2
    path = Path(drafted[0]["draft"])
    assert path.is_file()
    out = cli.invoke(main, ["draft", "--db", str(db), "--msgid", "<p1@example.org>", "--dry-run"])
    assert out.exit_code == 0, out.output
    assert f"<p1@example.org>: already drafted on 2025-03-20: {path}" in out.output
    assert "reviewbot draft --again '<p1@example.org>'" in out.output
    assert "Could you add a comment" in out.output  # the drafted file is printed
    assert out.output.rstrip().endswith("0 draft(s) shown, nothing written (--dry-run)")
    out = cli.invoke(main, ["dismiss", "<p1@example.org>", "--reason", "sent by hand", "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert "0 finding(s)" in cli.invoke(main, ["findings", "--db", str(db), "--state", "open"]).output


def test_the_quote_shows_what_the_paragraph_cites() -> None:
    """ "block: cleanup and optimize bvec_gap_to_prev" (linux-kernel 2025/10/10): RB201 cites the subject
    (the changelog's "... using two tricks:" only introduces a list), so the draft quotes the Subject line,
    not the changelog paragraph holding the word "optimize"."""
    from reviewbot.models import Address
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import parse_patch
    from reviewbot.respond.draft import build_draft
    from reviewbot.rule import RuleContext
    from reviewbot.rules import rb201_perf_claim as rb201

    mail = (
        "From: Ada Example <ada@example.org>\nTo: linux-block@vger.kernel.org\n"
        "Date: Fri, 10 Oct 2025 20:07:29 +0900\nMessage-ID: <gap-1@example.org>\n"
        "Subject: [PATCH] block: cleanup and optimize qux_gap_to_prev\n\n"
        "Micro-optimize the code in qux_gap_to_prev using two tricks:\n\n"
        " - OR the offset and the length so that one branch checks both.\n"
        " - Always OR in the boundary mask, as that instruction is cheaper than\n   the branch.\n\n"
        "Signed-off-by: Ada Example <ada@example.org>\n---\n"
        "diff --git a/block/qux.c b/block/qux.c\n--- a/block/qux.c\n+++ b/block/qux.c\n"
        "@@ -1,3 +1,3 @@ int qux_gap_to_prev(void)\n {\n-\treturn a || b;\n+\treturn a | b;\n }\n"
    )
    patch = parse_patch(parse_rfc822(mail.encode(), "test mail"))
    findings = list(rb201.check(patch, RuleContext()))
    draft = build_draft(
        patch,
        findings,
        {"RB201": rb201.reply_point},
        identity=Address("Zoë", "zoe@example.com"),
        list_address="linux-kernel@vger.kernel.org",
    )
    quoted = [line for line in draft.body.split("\n") if line.startswith(">")]
    assert "The subject says" not in draft.body  # the quoted Subject line shows it; not said again in prose
    assert quoted == ["> Subject: [PATCH] block: cleanup and optimize qux_gap_to_prev"]
