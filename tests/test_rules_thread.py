"""Rules that read the thread and the series: RB201 states, cover-letter evidence; RB202/RB301 edges."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from reviewbot.engine import check_patch
from reviewbot.models import Address, FindingState, Message
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.subject import parse_subject
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

RULES = {r.id: r for r in load_rules(entry_points=False)}
EXAMPLES = Path(RULES["RB201"].examples_dir)


def bad_speed_up():
    path = EXAMPLES / "bad-speed-up.patch"
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    return replace(patch, message=replace(patch.message, message_id="speedup-1@example.org"))


def reply(body: str, who: Address, mid: str, parent: str = "speedup-1@example.org") -> Message:
    return Message(
        message_id=mid,
        subject=parse_subject("Re: [PATCH] foocache: Speed up cache entry creation"),
        from_addr=who,
        date=None,
        in_reply_to=parent,
        references=(parent,),
        body=body,
    )


REVIEWER = Address("Rita Reviewer", "rita@example.org")
AUTHOR = Address("Ada Example", "ada@example.org")


def run(patch, **ctx):
    return check_patch(patch, [RULES["RB201"]], RuleContext(**ctx)).findings


def test_open_without_thread() -> None:
    (f,) = run(bad_speed_up())
    assert f.state is FindingState.OPEN
    assert f.details["evidence"] == "none"
    assert f.details["suggest"] == "fio"  # fs/foocache.c
    assert f.line is None and "Speed up" in f.message


def test_raised_when_a_reviewer_already_asked_for_numbers() -> None:
    thread = (reply("> Avoid taking the lock twice.\n\nCan you add performance numbers here?\n", REVIEWER, "r1@x"),)
    (f,) = run(bad_speed_up(), thread=thread)
    assert f.state is FindingState.RAISED


def test_quoted_request_does_not_count_as_raised() -> None:
    thread = (reply("> can you add performance numbers here?\n\nLooks fine to me.\n", REVIEWER, "r1@x"),)
    (f,) = run(bad_speed_up(), thread=thread)
    assert f.state is FindingState.OPEN


def test_answered_when_the_author_posted_numbers() -> None:
    thread = (
        reply("Can you share any data about this optimization?\n", REVIEWER, "r1@x"),
        reply("> Can you share any data?\n\nSure: 2310 -> 1290 cycles per call (-44%).\n", AUTHOR, "a1@x", "r1@x"),
    )
    # the author's answer replies to the reviewer, still in this patch's branch
    thread = (thread[0], replace(thread[1], references=("speedup-1@example.org", "r1@x")))
    (f,) = run(bad_speed_up(), thread=thread)
    assert f.state is FindingState.ANSWERED
    assert f.details["evidence_source"] == "author's reply"


def test_author_reply_without_numbers_is_not_an_answer() -> None:
    thread = (
        reply("Could you share numbers?\n", REVIEWER, "r1@x"),
        replace(
            reply("I will collect some precise performance numbers.\n", AUTHOR, "a1@x", "r1@x"),
            references=("speedup-1@example.org", "r1@x"),
        ),
    )
    (f,) = run(bad_speed_up(), thread=thread)
    assert f.state is FindingState.RAISED


def test_cover_letter_numbers_mark_it_answered() -> None:
    patch = bad_speed_up()
    cover = replace(
        patch, files=(), commit_message="This series speeds up foocache.\n\nfio randwrite: 410k -> 520k IOPS (+27%)\n"
    )
    (f,) = run(patch, cover=cover)
    assert f.state is FindingState.ANSWERED
    assert f.details["evidence_source"] == "cover letter"
    assert "cover letter" in f.message


def test_cover_letter_numbers_about_another_patch_are_not_evidence() -> None:
    """A cover letter's paragraph naming other patches of the series backs those patches, not this one."""
    patch = bad_speed_up()
    three = replace(
        patch,
        message=replace(patch.message, subject=parse_subject("[PATCH 3/4] foocache: Speed up cache entry creation")),
    )
    text = (
        "This series speeds up foocache.\n\n"
        "Patch 1 converts the lookup to RCU: fio randread went from 410k to 520k IOPS (+27%).\n\n"
        "Patches 3-4 take the bucket lock once per entry.\n"
    )
    cover = replace(patch, files=(), commit_message=text)
    (f,) = run(three, cover=cover)
    assert f.state is FindingState.OPEN and "cover letter" not in f.message
    one = replace(
        patch,
        message=replace(patch.message, subject=parse_subject("[PATCH 1/4] foocache: Speed up cache entry creation")),
    )
    (f,) = run(one, cover=cover)
    assert f.state is FindingState.ANSWERED and f.details["evidence_source"] == "cover letter"


def test_measured_changelog_and_negated_claims_give_nothing() -> None:
    patch = bad_speed_up()
    assert run(replace(patch, commit_message=patch.commit_message + "\nhackbench: 12.1s -> 10.3s (-15%)\n")) == ()
    plain = replace(patch.message, subject=parse_subject("[PATCH] foocache: allocate before locking"))
    text = "This is not an optimization; it only moves the allocation out of the lock.\n"
    assert run(replace(patch, message=plain, commit_message=text)) == ()
    quoted = 'Commit 0123456789ab ("foocache: speed up lookups") broke the error path. Fix it.\n'
    assert run(replace(patch, message=plain, commit_message=quoted)) == ()


def test_size_numbers_are_not_performance_evidence() -> None:
    patch = bad_speed_up()
    text = "Reorder to speed up lookups. The struct shrinks from 864 to 832 bytes (14 -> 13 cachelines).\n"
    (f,) = run(replace(patch, commit_message=text))
    assert f.details["evidence"] == "claim-only"


def test_rb301_ignores_indented_and_plain_dashes() -> None:
    path = RULES["RB301"].examples_dir / "bad-embedded-diff.patch"
    patch = parse_patch(parse_rfc822(path.read_bytes(), str(path)))
    ok = "Three dashes in prose:\n--- not a file header\n\nSigned-off-by: Ada Example <ada@example.org>\n"
    assert check_patch(replace(patch, commit_message=ok), [RULES["RB301"]], RuleContext()).findings == ()


def _patch_with_added(lines: list[str], path: str = "drivers/x/y.c"):
    from reviewbot.models import DiffLine, FileDiff, Hunk, LineKind, Patch

    dls = tuple(DiffLine(LineKind.ADDED, t, None, i + 1) for i, t in enumerate(lines))
    hunk = Hunk("@@ -0,0 +1 @@", 0, 0, 1, len(dls), "static int y_flush(struct y *y)", dls)
    msg = Message("h@x", parse_subject("[PATCH] y: flush"), AUTHOR, None)
    return Patch(msg, "Flush.\n", files=(FileDiff(path, path, path, (hunk,)),))


def test_rb202_variants() -> None:
    rule = [RULES["RB202"]]
    ktime = [
        "\tktime_t start = ktime_get();",
        "\ty_do(y);",
        '\tpr_info("y: %lld ns\\n", ktime_to_ns(ktime_sub(ktime_get(), start)));',
    ]
    (f,) = check_patch(_patch_with_added(ktime), rule, RuleContext()).findings
    assert f.line == 3 and f.details["kind"] == "time delta"
    average = [
        "static u64 total_ns, nr_calls;",
        "\ttotal_ns += y_do(y);",
        "\tnr_calls++;",
        '\tpr_info("avg %llu\\n", total_ns / nr_calls);',
    ]
    (f,) = check_patch(_patch_with_added(average), rule, RuleContext()).findings
    assert f.details["kind"] == "average of static counters"
    irq = [
        "\tlocal_irq_save(flags);",
        "\tt0 = rdtsc();",
        "\ty_do(y);",
        "\tt1 = rdtsc();",
        "\tlocal_irq_restore(flags);",
        '\ttrace_printk("%llu\\n", t1 - t0);',
    ]
    (f,) = check_patch(_patch_with_added(irq), rule, RuleContext()).findings
    assert f.details["irq_off"] is True and "interrupts disabled" in f.message
    timeout = ["\tunsigned long deadline = ktime_get_ns() + TIMEOUT;", '\tpr_warn("y: flush failed\\n");']
    assert check_patch(_patch_with_added(timeout), rule, RuleContext()).findings == ()
    assert check_patch(_patch_with_added(ktime, "tools/testing/y.c"), rule, RuleContext()).findings == ()


def test_archive_replies_without_headers_count_by_subject_title() -> None:
    """Archive pages show no In-Reply-To/References: a reply with the patch's title still counts."""
    asked = replace(
        reply("Do you have any performance numbers for this?\n", REVIEWER, "r9@x"),
        in_reply_to=None,
        references=(),
        obfuscated=True,
    )
    other_patch = replace(asked, message_id="r10@x", subject=parse_subject("Re: [PATCH 2/2] foocache: drop a lock"))
    (f,) = run(bad_speed_up(), thread=(other_patch,))
    assert f.state is FindingState.OPEN
    (f,) = run(bad_speed_up(), thread=(other_patch, asked))
    assert f.state is FindingState.RAISED


EXTRA = Path(__file__).parent / "data" / "evalset-replies" / "mail"


def _real(name: str):
    from reviewbot.parse.mail import parse_rfc822 as parse

    return parse((EXTRA / name).read_bytes(), name)


def test_real_claim_answered_only_in_a_later_author_reply() -> None:
    """linux-raid: 'run faster' with no numbers; the author answers '~3% gain' from another address."""
    patch = parse_patch(_real("EX001.eml"))
    cover = parse_patch(_real("EX001.cover.eml"))
    thread = (_real("EX001.reply1.eml"), _real("EX001.reply2.eml"))
    (f,) = check_patch(patch, [RULES["RB201"]], RuleContext(cover=cover, thread=thread)).findings
    assert f.state is FindingState.ANSWERED and f.details["evidence_source"] == "author's reply"
    (alone,) = check_patch(patch, [RULES["RB201"]], RuleContext(cover=cover)).findings
    assert alone.state is FindingState.OPEN


def test_real_claim_whose_author_names_a_tool_but_no_numbers() -> None:
    """linux-raid: 'improve the performance'; asked how it was measured, the author says fio, 'no big change'."""
    patch = parse_patch(_real("EX002.eml"))
    cover = parse_patch(_real("EX002.cover.eml"))
    thread = tuple(_real(f"EX002.reply{k}.eml") for k in (1, 2, 3))
    (f,) = check_patch(patch, [RULES["RB201"]], RuleContext(cover=cover, thread=thread)).findings
    assert f.state is FindingState.RAISED and f.details["evidence"] == "none"
    assert f.details["claim"] == "improve the performance"


def test_real_clock_and_error_prints_are_no_harness() -> None:
    """linux-raid: ktime_get_seconds() for an hourly decay next to pr_notice() of error counts."""
    for name in ("EX003.eml", "EX004.eml"):
        patch = parse_patch(_real(name))
        assert check_patch(patch, [RULES["RB202"]], RuleContext()).findings == ()
