"""``draft --unsure`` after a plain ``draft``: the points the first run kept as unsure are this run's, so the
summary's parts still add up to the findings there are (a new user's report: on the whole mirror the line said
"416 finding(s)" of 325, the unsure points counted once as drafted now and once as handled by earlier runs)."""

from __future__ import annotations

from pathlib import Path

from reviewbot.store import Store
from helpers import draft_fixed, load_thread
from test_draft_whole_thread import SINGLE, messages_of, patch_mail, rules  # noqa: F401 (rules: the fixture)


def test_the_unsure_run_counts_each_finding_once(tmp_path: Path, rules) -> None:  # noqa: F811
    store = Store(tmp_path / "reviewbot.db")
    found = load_thread(store, messages_of(patch_mail(SINGLE)), rules)
    assert len(found["ring-8@example.org"]) == 1  # an RB102 pairing request: an unsure point
    first = draft_fixed(store, rules, tmp_path / "outbox", unsure=False)
    assert first.drafts == 0 and first.unsure_points == 1 and first.total == 1 and first.before == 0
    second = draft_fixed(store, rules, tmp_path / "outbox", unsure=True)
    assert second.drafts == 1 and second.drafted == 1
    assert second.before == 0 and second.total == 1
    third = draft_fixed(store, rules, tmp_path / "outbox", unsure=True)
    assert third.drafted == 0 and third.before == 1 and third.total == 1
    store.close()
