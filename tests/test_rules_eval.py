"""The rules on the real corpus (../shared/corpus): no crash, precision and recall >= 0.9 per rule."""

from __future__ import annotations

import pytest

from conftest import CORPUS
from reviewbot.commands.evaluate import NOTE_OVERRIDES, Label, expected_for, format_result, read_labels, run_eval
from reviewbot.registry import load_rules


def test_label_mapping() -> None:
    row = Label("x@y", "s", frozenset({"barrier_added", "barrier_commented"}), "checked: ...")
    assert expected_for(row, "RB102", True) == (False, "patterns barrier_added,barrier_commented")
    row = Label("x@y", "s", frozenset({"perf_claim"}), "checked: ...")
    assert expected_for(row, "RB201", True)[0] is True
    assert expected_for(row, "RB201", False) == (False, "not a patch submission")
    assert expected_for(row, "RB301", True)[0] is False
    partial = Label(
        "20231130194633.649319-8-axboe@kernel.dk", "s", frozenset({"barrier_added", "barrier_commented"}), ""
    )
    assert expected_for(partial, "RB102", True)[0] is True


@pytest.mark.shared
def test_labels_file_reads_69_rows() -> None:
    labels = read_labels(CORPUS / "labels.tsv")
    assert len(labels) == 69
    assert all(not label.message_id.startswith("<") for label in labels)


@pytest.mark.slow
@pytest.mark.shared
def test_rules_meet_precision_and_recall_on_real_mail() -> None:
    rules = load_rules(entry_points=False)
    result = run_eval(CORPUS / "lkml-real.mbox", CORPUS / "labels.tsv", rules)
    assert result.messages == 4416
    assert result.crashes == []
    assert result.labelled_found == 69
    for rule_id, score in result.scores.items():
        assert score.precision >= 0.9, (rule_id, score, result.disagreements)
        assert score.recall >= 0.9, (rule_id, score, result.disagreements)
    # the labelled positives really are found (not vacuous)
    assert result.scores["RB101"].tp >= 8
    assert result.scores["RB102"].tp >= 7  # dw zcrx 14/20 moves its smp_rmb(): no finding expected (NOTE_OVERRIDES)
    assert result.scores["RB201"].tp >= 19
    # every label read from its note is printed with its reason: an override is never silent
    report = "\n".join(format_result(result))
    for message_id, by_rule in NOTE_OVERRIDES.items():
        for rule_id, (_, reason) in by_rule.items():
            assert f"{rule_id} <{message_id}> expects" in report and reason in report
