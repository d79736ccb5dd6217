"""``reviewbot eval --set DIR``: a labelled set in the evalset layout, scored through the check pipeline."""

from __future__ import annotations

import csv
import mailbox
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.checking import run_check
from reviewbot.cli import main
from reviewbot.commands.evaluate import SET_COLUMNS, SET_RULES, read_set, run_set, short_list_name, wilson
from reviewbot.config import Settings
from reviewbot.errors import ReviewbotError
from reviewbot.models import Severity
from reviewbot.registry import load_rules

RULES = tuple(load_rules(entry_points=False))


def _rows(evalset: Path) -> list[dict[str, str]]:
    with (evalset / "labels.tsv").open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _write_set(root: Path, rows: list[dict[str, str]], source: Path) -> Path:
    """A labelled set in the evalset layout holding ``rows`` and their real mails copied from ``source``."""
    (root / "mail").mkdir(parents=True)
    with (root / "labels.tsv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=SET_COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    for row in rows:
        for name in (f"{row['id']}.eml", f"{row['id']}.cover.eml"):
            if (source / "mail" / name).is_file():
                shutil.copy(source / "mail" / name, root / "mail" / name)
    return root


def _fired_by_check(evalset: Path, row: dict[str, str], tmp: Path, strict: bool = False) -> set[str]:
    """The rules that fire on the row's patch when its cover letter and patch are checked as one mbox file."""
    path = tmp / f"{row['id']}.mbox"
    box = mailbox.mbox(str(path))
    cover = evalset / "mail" / f"{row['id']}.cover.eml"
    if cover.is_file():
        box.add(mailbox.mboxMessage(cover.read_bytes()))
    box.add(mailbox.mboxMessage((evalset / "mail" / f"{row['id']}.eml").read_bytes()))
    box.close()
    run = run_check([str(path)], Settings(strict=strict), rules=RULES)
    mid = row["message_id"].strip("<>")
    return {
        f.rule_id
        for f in run.findings
        if f.message_id.strip("<>") == mid and (strict or f.severity is not Severity.CHECK)
    }


def _expected(evalset: Path, rows: list[dict[str, str]], tmp: Path) -> dict[str, tuple[int, int, int]]:
    out = {r: [0, 0, 0] for r in SET_RULES}
    for row in rows:
        fired = _fired_by_check(evalset, row, tmp)
        for rule in SET_RULES:
            label = row[rule]
            if label == "?":
                continue
            if rule in fired:
                out[rule][0 if label == "1" else 1] += 1
            elif label == "1":
                out[rule][2] += 1
    return {r: (tp, fp, fn) for r, (tp, fp, fn) in out.items()}


def _scores(result) -> dict[str, tuple[int, int, int]]:
    return {r: (s.tp, s.fp, s.fn) for r, s in result.scores.items()}


def _pick(rows: list[dict[str, str]], evalset: Path, tmp: Path) -> list[dict[str, str]]:
    """Rows with a rule that fires and is labelled 1, one labelled 0, one without a cover letter, one with."""
    picked: dict[str, dict[str, str]] = {}
    want = {"tp": None, "fp": None}
    for row in rows:
        if all(want.values()) and len(picked) >= 4:
            break
        fired = _fired_by_check(evalset, row, tmp)
        for rule in fired:
            kind = "tp" if row[rule] == "1" else "fp" if row[rule] == "0" else None
            if kind == "tp" and want["tp"] is not None and want["fp"] is None and row["id"] not in picked:
                # the rules may leave no false alarm on the whole set: a second true finding, its label made 0
                # in the copy, is a false alarm all the same
                row = dict(row, **{rule: "0", "reason": f"{row['reason']} (label made 0 for this test)"})
                kind = "fp"
            if kind and want[kind] is None:
                want[kind] = rule
                picked[row["id"]] = row
        if not fired and len(picked) < 4 and row["id"] not in picked:
            picked[row["id"]] = row
    assert all(want.values()), want
    return list(picked.values())


def test_wilson_interval() -> None:
    low, high = wilson(8, 10)
    assert round(low, 3) == 0.490 and round(high, 3) == 0.943  # the textbook 8 of 10
    assert wilson(0, 0) is None
    low, high = wilson(0, 5)
    assert low == 0.0 and 0.4 < high < 0.5
    low, high = wilson(5, 5)
    assert high == 1.0 and 0.5 < low < 0.6


def test_small_set_scores_as_check_does_and_leaves_question_marks_out(shared_dir: Path, tmp_path: Path) -> None:
    evalset = shared_dir / "evalset"
    rows = _pick(_rows(evalset), evalset, tmp_path)
    small = _write_set(tmp_path / "small", rows, evalset)
    result = run_set(small, RULES)
    assert result.rows == len(rows) and not result.problems
    assert _scores(result) == _expected(evalset, rows, tmp_path)
    assert any(s.tp for s in result.scores.values()) and any(s.fp for s in result.scores.values())
    fp = next(d for d in result.disagreements if d.kind == "FP")
    row = next(r for r in rows if r["id"] == fp.row_id)
    assert fp.reason == row["reason"] and fp.finding  # the label's reason next to the finding's message

    # the same rows with that label made '?': left out of the counts
    unsure = [dict(r, **({fp.rule_id: "?"} if r["id"] == fp.row_id else {})) for r in rows]
    result2 = run_set(_write_set(tmp_path / "unsure", unsure, evalset), RULES)
    assert result2.scores[fp.rule_id].fp == result.scores[fp.rule_id].fp - 1
    assert not any(d.row_id == fp.row_id and d.rule_id == fp.rule_id for d in result2.disagreements)

    out = CliRunner().invoke(main, ["eval", "--set", str(small)])
    assert out.exit_code == 0, out.output
    assert f"{fp.rule_id} FP {fp.row_id}" in out.output and row["reason"][:40] in out.output
    line = next(ln for ln in out.output.splitlines() if ln.startswith(fp.rule_id + " "))
    s = result.scores[fp.rule_id]
    assert line.split()[1:4] == [str(s.tp), str(s.fp), str(s.fn)] and "[" in line


def test_a_set_without_labels_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "mail").mkdir()
    with pytest.raises(ReviewbotError, match="labels"):
        read_set(tmp_path)
    (tmp_path / "labels.tsv").write_text("id\tsubject\nX1\tfoo\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["eval", "--set", str(tmp_path)])
    assert out.exit_code == 2 and "not a labelled set" in out.output and "Traceback" not in out.output


def test_missing_mail_is_named_and_the_rest_scored(shared_dir: Path, tmp_path: Path) -> None:
    evalset = shared_dir / "evalset"
    rows = _rows(evalset)[:2]
    root = _write_set(tmp_path / "s", rows, evalset)
    (root / "mail" / f"{rows[0]['id']}.eml").unlink()
    result = run_set(root, RULES)
    assert result.rows == 1
    assert len(result.problems) == 1 and rows[0]["id"] in result.problems[0]


def test_shared_evalset_gives_what_check_gives_on_each_cover_and_patch_mbox(shared_dir: Path, tmp_path: Path) -> None:
    evalset = shared_dir / "evalset"
    rows = _rows(evalset)
    result = run_set(evalset, RULES)
    assert result.rows == len(rows) and not result.problems
    assert _scores(result) == _expected(evalset, rows, tmp_path)


def test_replies_in_the_set_are_the_thread(data_dir: Path, tmp_path: Path) -> None:
    """EX001 (tests/data/evalset-replies): the author's numbers are only in a later reply. With the
    ``ID.replyN.eml`` files the claim is answered (no WARNING); without them the rule asks."""
    root = data_dir / "evalset-replies"
    rb201 = [r for r in RULES if r.id == "RB201"]
    with_replies = run_set(root, rb201)
    assert (with_replies.scores["RB201"].tp, with_replies.scores["RB201"].fp) == (1, 0)
    bare = tmp_path / "bare"
    shutil.copytree(root, bare)
    for reply in (bare / "mail").glob("*.reply*.eml"):
        reply.unlink()
    assert run_set(bare, rb201).scores["RB201"].fp == 1  # EX001 asked for numbers it has in the thread


def test_per_list_counts_add_up_and_match_each_list_alone(shared_dir: Path, tmp_path: Path) -> None:
    """``--by-list``: each list's counts are what the list's rows alone score, and they add up to the set's."""
    evalset = shared_dir / "evalset"
    rows = _rows(evalset)
    lists = sorted({r["list"] for r in rows})[:2]
    picked = [r for r in rows if r["list"] in lists and r["RB201"] in ("0", "1")][:40]
    whole = run_set(_write_set(tmp_path / "two", picked, evalset), RULES)
    assert sorted(whole.by_list) == sorted(short_list_name(n) for n in lists)
    for name in lists:
        alone = run_set(
            _write_set(tmp_path / name.replace("/", "_"), [r for r in picked if r["list"] == name], evalset), RULES
        )
        assert _scores_of(whole.by_list[short_list_name(name)]) == _scores_of(alone.scores)
    for rule_id, total in whole.scores.items():
        parts = [whole.by_list[n][rule_id] for n in whole.by_list]
        assert (total.tp, total.fp, total.fn) == tuple(sum(getattr(p, k) for p in parts) for k in ("tp", "fp", "fn"))
    out = CliRunner().invoke(main, ["eval", "--set", str(tmp_path / "two"), "--by-list"])
    assert out.exit_code == 0 and "per list:" in out.output
    shown = {tuple(ln.split()[:5]) for ln in out.output.split("per list:")[1].split("disagreements")[0].splitlines()}
    want = {
        (name, rule_id, str(s.tp), str(s.fp), str(s.fn))
        for name, scores in whole.by_list.items()
        for rule_id, s in scores.items()
        if s.tp or s.fp or s.fn
    }
    assert want and want <= shown


def test_check_level_label_c_is_no_warning_and_a_check_with_strict(shared_dir: Path, tmp_path: Path) -> None:
    """RB101 ``c`` (packing, CHECK level at most): a WARNING on it is a false alarm; with --strict it is expected."""
    fresh = shared_dir / "evalset-fresh"
    rows = [r for r in _rows(fresh) if r["RB101"] == "c"]
    assert rows
    root = _write_set(tmp_path / "c", rows, fresh)
    plain, strict = run_set(root, RULES), run_set(root, RULES, strict=True)
    assert plain.scores["RB101"].tp == 0 and plain.scores["RB101"].fn == 0  # never expected as a WARNING
    assert strict.scores["RB101"].fp == 0  # with --strict a 'c' row expects a finding: none can be a false alarm
    assert strict.scores["RB101"].tp + strict.scores["RB101"].fn == len(rows)
    bad = tmp_path / "bad"
    _write_set(bad, [dict(rows[0], RB102="c")], fresh)
    with pytest.raises(ReviewbotError, match="RB101 also c"):
        read_set(bad)


def test_list_names_are_the_lists_own() -> None:
    assert short_list_name("linux-mailinglist-archives/kvm.vger.kernel.org.0") == "kvm"
    assert short_list_name("linux-mailinglist-archives/xen-devel.lists.xenproject.org.0") == "xen-devel"
    assert short_list_name("linux-mailinglist-archives/kasan-dev.googlegroups.com.0") == "kasan-dev"
    assert short_list_name("kvm") == "kvm" and short_list_name("") == "-"
    assert short_list_name("linux-mailinglist-archives/linux-stm32.st-md-mailman.stormreply.com.0") == "linux-stm32"


def _scores_of(scores: dict) -> dict[str, tuple[int, int, int]]:
    return {r: (s.tp, s.fp, s.fn) for r, s in scores.items()}


def _own_mail(msgid: str, subject: str, body: str, diff: str, extra: str = "") -> bytes:
    return (
        f"From: Ada Example <ada@example.org>\nMessage-ID: <{msgid}>\nSubject: {subject}\n{extra}"
        f"Date: Mon, 10 Mar 2025 10:00:00 +0100\n\n{body}\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
        " drivers/misc/qux.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
        "diff --git a/drivers/misc/qux.c b/drivers/misc/qux.c\nindex 1111111..2222222 100644\n"
        f"--- a/drivers/misc/qux.c\n+++ b/drivers/misc/qux.c\n{diff}"
    ).encode()


def test_a_labelled_patch_the_rules_never_saw_is_a_problem_not_a_score(tmp_path: Path) -> None:
    # a row is scored only when check read its mail as a patch: a mail cut inside its hunk, or a "[tip: ...]"
    # notice of a merged commit (check leaves those alone), counted as a miss or a pass, measured nothing
    hunk = "@@ -10,3 +10,3 @@ static int qux_poll(struct qux *q)\n \tint n = 0;\n-\tn = qux_count(q);\n+\tn = qux_fast_count(q);\n \treturn n;\n"
    claim = "Use the cached count: this makes qux_poll() faster."
    mails = {
        "Q1": _own_mail("q1@example.org", "[PATCH] qux: use the cached count", claim, hunk),
        "Q2": _own_mail("q2@example.org", "[PATCH] qux: use the cached count", claim, hunk.rsplit("\n", 3)[0] + "\n"),
        "Q3": _own_mail(
            "q3@example.org",
            "[tip: misc/core] qux: use the cached count",
            claim,
            hunk,
            "In-Reply-To: <q1@example.org>\n",
        ),
    }
    (tmp_path / "mail").mkdir()
    rows = []
    for pid, raw in mails.items():
        (tmp_path / "mail" / f"{pid}.eml").write_bytes(raw)
        row = dict.fromkeys(SET_COLUMNS, "")
        row.update(id=pid, list="x/qux.example.org.0", message_id=f"{pid.lower()}@example.org", subject="qux")
        row.update(RB101="0", RB102="0", RB201="1", RB202="0", reason="RB201: 'faster', no numbers")
        rows.append(row)
    with (tmp_path / "labels.tsv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=SET_COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    result = run_set(tmp_path, RULES)
    assert result.rows == 1
    assert (result.scores["RB201"].tp, result.scores["RB201"].fn) == (1, 0)
    unscored = [p for p in result.problems if "not checked, so it is not scored" in p]
    assert [p.split(":")[0] for p in unscored] == ["Q2", "Q3"]
    assert "[tip: misc/core]" in unscored[1] and "not a [PATCH]" in unscored[1]
