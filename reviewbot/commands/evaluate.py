"""``reviewbot eval``: measure the rules against hand-checked labels on real mail.

Runs every loaded rule over each patch submission of an mbox (default
``../shared/corpus/lkml-real.mbox``), with the cover letter and the thread as
context, and compares the findings on the labelled messages (default
``../shared/corpus/labels.tsv``) with what the labels say a finding should be.

How a label row maps to an expected finding (per rule)
------------------------------------------------------
A row whose message is not a patch submission (``review_reply``, cover
letters) expects no finding from any rule. For a patch:

* RB101 (struct reorder): expected when ``struct_reorder`` is labelled, i.e.
  members were moved and, as every such note says, no sentence saying the
  layout is cache-line ordered was added (pre-existing comments that merely
  moved, a bare ``/* task_work */`` tag, or a comment about something else do
  not count);
* RB102 (barrier): expected when ``barrier_added`` is labelled and
  ``barrier_commented`` is not;
* RB201 (perf claim): expected when ``perf_claim`` is labelled and
  ``perf_evidence`` is not (struct sizes are not performance evidence);
* RB202 and RB301: no label speaks of them; every labelled message expects
  none (``instrumentation`` rows are tracepoints and counters meant for
  merging, not measuring harnesses).

The notes column overrides the patterns where it says more (``NOTE_OVERRIDES``
below, each with the note's reason):

* ``b7f3fcb5...`` (io_uring 13/15 "separate task_work/waiting cache line"):
  labelled ``struct_reorder`` but the note says the moved members got a
  comment naming the cache line ("Compliant with rule 1"): no RB101 finding;
* ``20231130194633.649319-8-axboe`` (io_buffer_list via RCU): labelled
  ``barrier_commented`` but the note says ``smp_store_release(&ctx->io_bl, bl)``
  itself has no comment ("Partially commented"): an RB102 finding is expected;
* ``20231107214045.2172393-15-dw`` (io_uring/zcrx "introduce io_zc_get_rbuf_cqe"):
  labelled ``barrier_added`` (an auto label), but the smp_rmb() in the new helper
  is moved unchanged, with the statements around it, from the removed lines of
  the same hunk. The barrier was added by 12/20 of the same series (``-13``,
  not labelled), where RB102 asks about it; asking again on the patch that
  moves it would repeat the question (label decision, third review).

A finding in any state counts as "found". This matters for RB201: the labels
judge the message alone ("no numbers in this patch"), while issue 2 lets
numbers in the cover letter or in the author's later reply count. The rule
reports those patches with state ``answered`` (no draft asks again), so they
agree with labels such as io_uring 01/15 and 13/15, whose notes say the
numbers are only in the cover letter.

Only patch submissions are checked (``is_submission``: not replies, even
replies that carry a suggested diff). The thread given to a rule is the
whole thread of the patch in corpus order; the cover letter is the 0/N
message of the same thread, version and total.
"""

from __future__ import annotations

import csv
import os
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

import click

from reviewbot.commands import fail
from reviewbot.errors import ParseError, ReviewbotError
from reviewbot.models import Message, Patch

if TYPE_CHECKING:
    from reviewbot.checking import InputMessage

DEFAULT_SHARED = (
    Path(os.environ["REVIEWBOT_SHARED"]) / "corpus"
    if os.environ.get("REVIEWBOT_SHARED")
    else Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
)

LABEL_RULES = {
    "RB101": lambda p: "struct_reorder" in p,
    "RB102": lambda p: "barrier_added" in p and "barrier_commented" not in p,
    "RB201": lambda p: "perf_claim" in p and "perf_evidence" not in p,
}

#: Where the notes column says more than the patterns: Message-ID -> {rule: (expected, reason)}.
NOTE_OVERRIDES: dict[str, dict[str, tuple[bool, str]]] = {
    "b7f3fcb5b6b9cca0238778262c1fdb7ada6286b7.1692916914.git.asml.silence@gmail.com": {
        "RB101": (False, "note: moved members got a comment naming the cache line ('Compliant with rule 1')"),
    },
    "20231130194633.649319-8-axboe@kernel.dk": {
        "RB102": (True, "note: 'smp_store_release(&ctx->io_bl, bl) itself has no comment. Partially commented.'"),
    },
    "20231107214045.2172393-15-dw@davidwei.uk": {
        "RB102": (
            False,
            "label decision: the smp_rmb() is moved unchanged from the removed lines of the same "
            "hunk into the new helper; it was added by 12/20 of the same series (-13), where RB102 asks",
        ),
    },
}


@dataclass(frozen=True)
class Label:
    """One row of labels.tsv."""

    message_id: str
    subject: str
    patterns: frozenset[str]
    notes: str


@dataclass
class RuleScore:
    """Confusion counts for one rule over the labelled messages."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


@dataclass(frozen=True)
class Disagreement:
    """A labelled message where a rule and the label disagree."""

    rule_id: str
    message_id: str
    kind: str  # "FP" or "FN"
    subject: str
    reason: str


@dataclass
class EvalResult:
    """What ``reviewbot eval`` measured (times in seconds)."""

    messages: int = 0
    patches: int = 0
    parse_errors: int = 0
    findings: int = 0
    crashes: list = field(default_factory=list)
    check_seconds: float = 0.0
    check_cpu_seconds: float = 0.0
    per_rule: dict[str, int] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    scores: dict[str, RuleScore] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)
    labelled_found: int = 0
    labelled_total: int = 0

    @property
    def patches_per_second(self) -> float:
        return self.patches / self.check_seconds if self.check_seconds else 0.0

    @property
    def patches_per_cpu_second(self) -> float:
        return self.patches / self.check_cpu_seconds if self.check_cpu_seconds else 0.0

    @property
    def rule_runs_per_second(self) -> float:
        return self.patches * len(self.rules) / self.check_seconds if self.check_seconds else 0.0


def read_labels(path: Path) -> list[Label]:
    """Rows of a labels TSV (``message_id, subject, patterns, notes``), Message-IDs without brackets."""
    out = []
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            pats = frozenset(p.strip() for p in (row.get("patterns") or "").split(",") if p.strip())
            out.append(Label(row["message_id"].strip().strip("<>"), row.get("subject", ""), pats, row.get("notes", "")))
    return out


def expected_for(label: Label, rule_id: str, is_patch: bool) -> tuple[bool, str]:
    """(finding expected?, why) for one label row and rule, per the mapping in the module docstring."""
    override = NOTE_OVERRIDES.get(label.message_id, {}).get(rule_id)
    if override is not None:
        return override
    if not is_patch:
        return False, "not a patch submission"
    rule = LABEL_RULES.get(rule_id)
    if rule is None:
        return False, "no label for this rule: none expected"
    expected = rule(label.patterns)
    return expected, f"patterns {','.join(sorted(label.patterns)) or '-'}"


def iter_mbox(path: Path) -> Iterator[tuple[bytes, str]]:
    """(raw bytes, source) of each message of an mbox, in order."""
    from reviewbot.fetch.mailfiles import read_path

    for raw in read_path(path):
        yield raw.data, raw.source


def run_eval(mbox: Path, labels_path: Path | None, rules: Sequence, *, strict: bool = False) -> EvalResult:
    """Parse the mbox, review every submission with cover/thread context (``reviewbot.review``), score against labels."""
    from reviewbot.parse.mail import parse_rfc822
    from reviewbot.parse.patch import is_submission, parse_patch
    from reviewbot.review import review

    result = EvalResult(rules=tuple(r.id for r in rules))
    items: list[Patch | Message] = []
    patches: dict[str, Patch] = {}
    for data, source in iter_mbox(mbox):
        result.messages += 1
        try:
            msg = parse_rfc822(data, source)
        except ParseError:
            result.parse_errors += 1
            continue
        try:
            patch = parse_patch(msg)
        except ParseError:
            result.parse_errors += 1
            items.append(msg)
            continue
        patches[msg.message_id] = patch
        # submissions and cover letters are reviewed as patches; the rest is thread context
        wanted = (patch.has_diff and is_submission(patch)) or msg.subject.is_cover_letter
        items.append(patch if wanted else msg)
    submissions = {mid: p for mid, p in patches.items() if p.has_diff and is_submission(p)}
    result.patches = len(submissions)
    found: dict[str, set[str]] = defaultdict(set)
    said: dict[tuple[str, str], str] = {}
    t0 = time.perf_counter()
    c0 = time.process_time()
    for reviewed in review(items, rules, strict=strict):
        mid = reviewed.patch.message_id
        report = reviewed.report
        result.findings += len(report.findings)
        result.crashes.extend(report.failures)
        for f in report.findings:
            found[mid].add(f.rule_id)
            said.setdefault((mid, f.rule_id), f"{f.path or 'commit message'}:{f.line or '-'}: {f.message}")
            result.per_rule[f.rule_id] = result.per_rule.get(f.rule_id, 0) + 1
    result.check_seconds = time.perf_counter() - t0
    result.check_cpu_seconds = time.process_time() - c0
    if labels_path is None:
        return result
    labels = read_labels(labels_path)
    result.labelled_total = len(labels)
    for rule_id in result.rules:
        result.scores[rule_id] = RuleScore()
    for label in labels:
        if label.message_id not in patches:
            continue
        result.labelled_found += 1
        is_patch = label.message_id in submissions
        for rule_id in result.rules:
            expected, why = expected_for(label, rule_id, is_patch)
            got = rule_id in found.get(label.message_id, set())
            score = result.scores[rule_id]
            if expected and got:
                score.tp += 1
            elif expected:
                score.fn += 1
                result.disagreements.append(
                    Disagreement(
                        rule_id, label.message_id, "FN", label.subject, f"label expects one ({why}); rule found none"
                    )
                )
            elif got:
                score.fp += 1
                result.disagreements.append(
                    Disagreement(
                        rule_id,
                        label.message_id,
                        "FP",
                        label.subject,
                        f"label expects none ({why}); rule said {said.get((label.message_id, rule_id), '?')}",
                    )
                )
            else:
                score.tn += 1
    return result


# ------------------------------------------------------------------ labelled sets (--set DIR)

#: The columns of a labelled set's ``labels.tsv`` (the ``../shared/evalset`` layout).
SET_COLUMNS = (
    "id",
    "list",
    "commit",
    "message_id",
    "date",
    "subject",
    "RB101",
    "RB102",
    "RB201",
    "RB202",
    "cover_commit",
    "reason",
)
#: Rules a labelled set has a column for.
SET_RULES = ("RB101", "RB102", "RB201", "RB202")
#: z for a 95% interval.
Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``successes`` of ``n`` (95% by default); None when ``n`` is 0."""
    if n <= 0:
        return None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * ((p * (1 - p) / n + z2 / (4 * n * n)) ** 0.5) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class SetRow:
    """One labelled patch of a set: its labels per rule (``1``, ``0``, ``?`` or, for RB101, ``c``), the labeller's reason.

    ``c`` is a packing or layout change that is CHECK level at most: no WARNING
    expected, and with ``--strict`` (CHECK findings counted) a finding expected.
    ``list`` is the list the patch was read from, short (``kvm``, not the mirror's
    ``linux-mailinglist-archives/kvm.vger.kernel.org.0``); ``-`` when the set has no list column.
    """

    id: str
    message_id: str
    subject: str
    labels: dict[str, str]
    reason: str
    list: str = "-"


@dataclass(frozen=True)
class SetDisagreement:
    """A labelled patch where a rule and the label disagree, with both sides' words."""

    rule_id: str
    kind: str  # "FP" or "FN"
    row_id: str
    subject: str
    finding: str  # the finding's message ("" for a miss)
    reason: str  # the label's reason


@dataclass
class SetResult:
    """What ``reviewbot eval --set DIR`` measured."""

    path: Path
    rows: int = 0
    scores: dict[str, RuleScore] = field(default_factory=dict)
    disagreements: list[SetDisagreement] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the same counts per list the patches were read from: list -> rule -> score
    by_list: dict[str, dict[str, RuleScore]] = field(default_factory=dict)


#: Labels a set may hold per rule; ``c`` (CHECK level at most) only where a rule has a CHECK level.
SET_LABELS = {"RB101": ("1", "0", "?", "c")}


def short_list_name(name: str) -> str:
    """``kvm`` for ``linux-mailinglist-archives/kvm.vger.kernel.org.0`` (and for ``kvm``): the list's own name.

    A mirror is named list.host.epoch; a list's own name has no dot.
    """
    return name.strip().rpartition("/")[2].partition(".")[0] or "-"


def read_set(root: Path) -> list[SetRow]:
    """The rows of ``root/labels.tsv``; ReviewbotError naming the file when it is missing or lacks columns."""
    from reviewbot.errors import InputError

    path = root / "labels.tsv"
    try:
        fh = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(f"cannot read the labels: {exc.strerror or exc}", subject=str(path)) from exc
    with fh:
        reader = csv.DictReader(fh, delimiter="\t")
        missing = [c for c in ("id", "message_id", "subject", "reason") if c not in (reader.fieldnames or ())]
        if missing:
            raise InputError(
                f"not a labelled set: no column {', '.join(missing)} (want {' '.join(SET_COLUMNS)})", subject=str(path)
            )
        rows = []
        for n, row in enumerate(reader, 2):
            labels = {r: (row.get(r) or "").strip() for r in SET_RULES if row.get(r) is not None}
            bad = {r: v for r, v in labels.items() if v not in SET_LABELS.get(r, ("1", "0", "?"))}
            if bad:
                raise InputError(
                    f"line {n}: labels must be 1, 0 or ? (RB101 also c: CHECK level at most), not {bad}",
                    subject=str(path),
                )
            rows.append(
                SetRow(
                    row["id"].strip(),
                    row["message_id"].strip().strip("<>"),
                    row.get("subject") or "",
                    labels,
                    row.get("reason") or "",
                    short_list_name(row.get("list") or "-"),
                )
            )
    return rows


def row_messages(root: Path, row: SetRow) -> list[InputMessage]:
    """A labelled row's mails as one ``check`` input: ``mail/ID.cover.eml`` (when present), ``mail/ID.eml`` and
    the thread's later replies ``mail/ID.replyN.eml`` in order (an author's numbers there answer a claim), as the
    cover letter and the patch in one mbox (cover first). Raises OSError or ReviewbotError."""
    from reviewbot.checking import messages_from_bytes

    mail = root / "mail"
    patch_file = mail / f"{row.id}.eml"
    replies = sorted(mail.glob(f"{row.id}.reply*.eml"), key=lambda p: int(p.stem.rpartition("reply")[2] or 0))
    items: list[InputMessage] = []
    for path in (mail / f"{row.id}.cover.eml", patch_file, *replies):
        if path == patch_file or path.is_file():
            items.extend(replace(m, input=str(patch_file)) for m in messages_from_bytes(path.read_bytes(), str(path)))
    return items


def run_set(root: Path, rules: Sequence, *, strict: bool = False) -> SetResult:
    """Score ``rules`` on a labelled set: each patch with its cover letter through the ``check`` pipeline.

    Per row, ``mail/ID.cover.eml`` (when present), ``mail/ID.eml`` and the
    replies ``mail/ID.replyN.eml`` (when present) are checked together as one
    run of ``reviewbot check`` (a series: the cover letter is the rules'
    ``ctx.cover``; the replies are the thread). A rule "fired" when it reported a
    WARNING or ERROR on the labelled message (any level with ``strict``).
    ``?`` labels are left out. A row whose mail cannot be read is a problem,
    named, and left out.
    """
    from reviewbot.checking import check_messages
    from reviewbot.models import Severity

    result = SetResult(path=root)
    loaded = {r.id for r in rules}
    scored = [r for r in SET_RULES if r in loaded]
    result.scores = {r: RuleScore() for r in scored}
    t0 = time.perf_counter()
    for row in read_set(root):
        try:
            items = row_messages(root, row)
        except OSError as exc:
            result.problems.append(f"{row.id}: cannot read {exc.filename}: {exc.strerror}")
            continue
        except ReviewbotError as exc:
            result.problems.append(f"{row.id}: {exc}")
            continue
        run = check_messages(items, rules, strict=strict)
        for problem in run.problems:
            result.problems.append(f"{row.id}: {problem}")
        if not any(cp.report.patch.message.message_id.strip("<>") == row.message_id for cp in run.patches):
            # the rules never ran on it (cut off, or a notice such as "[tip: ...]" that check leaves alone):
            # scoring it would count what the rules never saw
            why = "; ".join(run.notes) if run.notes else "check did not read it as a patch"
            result.problems.append(f"{row.id}: the labelled patch was not checked, so it is not scored ({why})")
            continue
        result.rows += 1
        said: dict[str, str] = {}
        for f in run.findings:
            if f.message_id.strip("<>") != row.message_id:
                continue
            if f.severity is Severity.CHECK and not strict:
                continue
            said.setdefault(f.rule_id, f.message)
        per_list = result.by_list.setdefault(row.list, {r: RuleScore() for r in scored})
        for rule_id in scored:
            label = row.labels.get(rule_id, "?")
            if label == "?":
                continue
            if label == "c":  # CHECK level at most: a WARNING is wrong, a CHECK (counted with --strict) is right
                label = "1" if strict else "0"
            fired = rule_id in said
            score = result.scores[rule_id]
            _count(per_list[rule_id], fired, label == "1")
            if fired and label == "1":
                score.tp += 1
            elif fired:
                score.fp += 1
                result.disagreements.append(
                    SetDisagreement(rule_id, "FP", row.id, row.subject, said[rule_id], row.reason)
                )
            elif label == "1":
                score.fn += 1
                result.disagreements.append(SetDisagreement(rule_id, "FN", row.id, row.subject, "", row.reason))
            else:
                score.tn += 1
    result.seconds = time.perf_counter() - t0
    return result


def _count(score: RuleScore, fired: bool, expected: bool) -> None:
    if fired and expected:
        score.tp += 1
    elif fired:
        score.fp += 1
    elif expected:
        score.fn += 1
    else:
        score.tn += 1


def _ratio(k: int, n: int) -> str:
    ci = wilson(k, n)
    if ci is None:
        return f"{'-':>4} {'':13}"
    return f"{k / n:4.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def format_by_list(result: SetResult) -> Iterable[str]:
    """Per list and rule: TP/FP/FN, precision and recall (a rule a list has no positive or finding for shows ``-``)."""
    yield f"{'list':24} {'rule':6} {'TP':>3} {'FP':>3} {'FN':>3} {'prec':>5} {'recall':>6}"
    for name in sorted(result.by_list):
        for rule_id, s in result.by_list[name].items():
            if not (s.tp or s.fp or s.fn):
                continue
            prec = f"{s.precision:5.2f}" if s.tp + s.fp else f"{'-':>5}"
            rec = f"{s.recall:6.2f}" if s.tp + s.fn else f"{'-':>6}"
            yield f"{name:24} {rule_id:6} {s.tp:3d} {s.fp:3d} {s.fn:3d} {prec} {rec}"


def format_set(result: SetResult, *, by_list: bool = False) -> Iterable[str]:
    """Lines of the report for a labelled set: per rule TP/FP/FN, precision and recall (95% Wilson), disagreements."""
    yield (
        f"set: {result.path}: {result.rows} labelled patches checked in {result.seconds:.1f} s "
        f"('?' labels left out), {len(result.problems)} problems"
    )
    for problem in result.problems[:20]:
        yield f"  problem: {problem}"
    yield f"{'rule':6} {'TP':>3} {'FP':>3} {'FN':>3}  {'precision [95% CI]':18}  {'recall [95% CI]':18}"
    for rule_id, s in result.scores.items():
        yield (
            f"{rule_id:6} {s.tp:3d} {s.fp:3d} {s.fn:3d}  {_ratio(s.tp, s.tp + s.fp):18}  {_ratio(s.tp, s.tp + s.fn):18}"
        )
    if by_list:
        yield "per list:"
        yield from (f"  {line}" for line in format_by_list(result))
    if not result.disagreements:
        yield "disagreements: none"
        return
    yield "disagreements:"
    for d in result.disagreements:
        yield f"  {d.rule_id} {d.kind} {d.row_id} {d.subject[:80]}"
        yield f"      rule:  {d.finding}" if d.finding else "      rule:  (no finding)"
        yield f"      label: {d.reason}"


def format_result(result: EvalResult) -> Iterable[str]:
    """Lines of the human report."""
    yield (
        f"corpus: {result.messages} messages, {result.patches} patch submissions checked, "
        f"{result.parse_errors} parse errors, {result.findings} findings, {len(result.crashes)} rule crashes"
    )
    yield (
        f"speed: {result.check_seconds:.2f} s for the rules, {result.patches_per_second:.0f} patches/s, "
        f"{result.rule_runs_per_second:.0f} rule runs/s ({len(result.rules)} rules); "
        f"CPU time {result.check_cpu_seconds:.2f} s = {result.patches_per_cpu_second:.0f} patches/s"
    )
    yield "findings per rule (whole corpus): " + ", ".join(f"{k} {v}" for k, v in sorted(result.per_rule.items()))
    for c in result.crashes[:20]:
        yield f"  crash: {c.rule_id} on <{c.message_id}>: {c.error}"
    if not result.scores:
        return
    yield f"labels: {result.labelled_found} of {result.labelled_total} labelled messages found in the corpus"
    yield f"{'rule':6} {'TP':>3} {'FP':>3} {'FN':>3} {'TN':>3} {'precision':>9} {'recall':>6}"
    for rule_id, s in result.scores.items():
        yield f"{rule_id:6} {s.tp:3d} {s.fp:3d} {s.fn:3d} {s.tn:3d} {s.precision:9.2f} {s.recall:6.2f}"
    if result.disagreements:
        yield "disagreements:"
        for d in result.disagreements:
            yield f"  {d.rule_id} {d.kind} <{d.message_id}> {d.subject[:70]} ({d.reason})"
    else:
        yield "disagreements: none"
    # an override is a reading of the label, never silent: each one is printed with its reason
    yield "labels read from their notes (NOTE_OVERRIDES):"
    for message_id, by_rule in NOTE_OVERRIDES.items():
        for rule_id, (expected, reason) in by_rule.items():
            yield f"  {rule_id} <{message_id}> expects {'a finding' if expected else 'none'}: {reason}"


@click.command("eval")
@click.option(
    "--mbox",
    "mbox",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="mbox of real mail (default: ../shared/corpus/lkml-real.mbox).",
)
@click.option(
    "--labels",
    "labels",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    default=None,
    help="labels TSV (default: ../shared/corpus/labels.tsv).",
)
@click.option(
    "--set",
    "set_dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="A labelled set in the evalset layout (DIR/labels.tsv, DIR/mail/ID.eml, DIR/mail/ID.cover.eml).",
)
@click.option("--strict", is_flag=True, help="Count CHECK-level findings too.")
@click.option("--by-list", is_flag=True, help="With --set: also the counts per list the patches come from.")
@click.option("--rules-dir", "rules_dirs", multiple=True, type=click.Path(path_type=Path, file_okay=False))
@click.option("--select", multiple=True, help="Rule ids, prefixes or names to run.")
@click.option("--ignore", multiple=True, help="Rule ids, prefixes or names to skip.")
def command(
    mbox: Path | None,
    labels: Path | None,
    set_dir: Path | None,
    strict: bool,
    by_list: bool,
    rules_dirs,
    select,
    ignore,
) -> None:
    """Run all rules over real mail and compare with hand-checked labels (precision, recall, speed).

    With --set DIR, score the rules on a labelled set in the evalset layout
    instead: each patch checked with its cover letter as `reviewbot check`
    does, per rule TP/FP/FN, precision and recall with 95% intervals, and
    every disagreement with the label's reason.
    """
    from reviewbot.registry import load_rules

    if by_list and set_dir is None:
        raise click.UsageError("--by-list needs --set DIR (the corpus labels carry no list)")
    if set_dir is not None:
        if mbox is not None or labels is not None:
            raise click.UsageError("--set DIR replaces --mbox/--labels: give one or the other")
        try:
            rules = load_rules(rules_dirs=rules_dirs, select=select, ignore=ignore)
            set_result = run_set(set_dir, rules, strict=strict)
        except ReviewbotError as exc:
            fail("eval", exc)
        for line in format_set(set_result, by_list=by_list):
            click.echo(line)
        return

    mbox = mbox or DEFAULT_SHARED / "lkml-real.mbox"
    if labels is None and (DEFAULT_SHARED / "labels.tsv").is_file():
        labels = DEFAULT_SHARED / "labels.tsv"
    if not mbox.is_file():
        raise click.UsageError(f"{mbox}: no such mbox (give --mbox PATH)")
    try:
        rules = load_rules(rules_dirs=rules_dirs, select=select, ignore=ignore)
        result = run_eval(mbox, labels, rules, strict=strict)
    except ReviewbotError as exc:
        fail("eval", exc)
    for line in format_result(result):
        click.echo(line)
