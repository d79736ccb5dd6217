"""The draft command's summary: finding counts and draft counts, labelled apart, adding up.

A real run: the messages of tests/data/mail/lkml-sample.mbox (real LKML
patches and replies from the shared corpus, June and July 2023 with their threads) stored with their threads and findings the way a
scan stores them, then ``reviewbot draft`` twice through the CLI. Every
number of the summary is checked against the rows the run left in the store.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import DATA_MAIL
from reviewbot.cli import main
from reviewbot.engine import check_patch
from reviewbot.fetch.mailfiles import split_mbox_bytes
from reviewbot.parse.mail import parse_message
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.threads import assign_threads
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext
from reviewbot.store import Store
from helpers import FIXED_NOW, cli_env


FINDINGS_RE = re.compile(
    r"^(?P<total>\d+) finding\(s\): (?P<drafted>\d+) drafted now, "
    r"(?P<raised>\d+) skipped as already raised in the thread, "
    r"(?P<answered>\d+) skipped as already answered by the author, "
    r"(?P<applied>\d+) skipped as the patch is already applied, "
    r"(?:(?P<withdrawn>\d+) skipped as the author withdrew the patch, )?"
    r"(?:(?P<rejected>\d+) skipped as a maintainer or reviewer rejected the patch, )?"
    r"(?:(?P<unsure>\d+) kept, not drafted: the thread may be settled \(the reason is in `show`\), )?"
    r"(?:(?P<moot>\d+) skipped as the thread says it is already fixed elsewhere, )?"
    r"(?:(?P<reviewed>\d+) skipped as another person already reviewed the patch, )?"
    r"(?:(?P<backports>\d+) skipped as stable backports \(they must match upstream\), )?"
    r"(?:(?P<not_for_merge>\d+) skipped on patches not meant to be merged \(\[DEBUG PATCH\], \[DNM\]\), )?"
    r"(?:(?P<superseded>\d+) left to a newer revision or handled on an earlier one, )?"
    r"(?:(?P<dismissed>\d+) skipped as dismissed, )?"
    r"(?:(?P<not_asked>\d+) not asked \(the rule says why, or a sibling patch has the same point\), )?"
    r"(?:(?P<unusable>\d+) skipped as the patch's Message-ID cannot be used in a reply, )?"
    r"(?:(?P<failed>\d+) left for the next run after errors, )?"
    r"(?P<before>\d+) drafted or skipped by earlier runs$"
)
DRAFTS_RE = re.compile(
    r"^(?P<drafts>\d+) draft\(s\) written for the (?P<drafted>\d+) finding\(s\) drafted now, "
    r"(?P<incomplete>\d+) with incomplete recipients$"
)


def counts(output: str) -> dict[str, int]:
    lines = output.splitlines()
    f = next(FINDINGS_RE.match(line) for line in lines if FINDINGS_RE.match(line))
    d = next(DRAFTS_RE.match(line) for line in lines if DRAFTS_RE.match(line))
    out = {k: int(v or 0) for k, v in f.groupdict().items()}
    assert int(d["drafted"]) == out["drafted"]
    out.update(
        drafts=int(d["drafts"]),
        incomplete=int(d["incomplete"]),
        draft_lines=sum(1 for line in lines if line.startswith("draft: ")),
    )
    return out


@pytest.fixture(scope="module")
def corpus_db(tmp_path_factory) -> Path:
    data = (DATA_MAIL / "lkml-sample.mbox").read_bytes()
    raws = split_mbox_bytes(data, "lkml-sample.mbox")
    messages = []
    for raw in raws:
        try:
            messages.append(parse_message(raw))
        except Exception:  # an unreadable entry is skipped, as scan does
            continue
    import dataclasses

    messages = [dataclasses.replace(m, list_name="linux-kernel") for m in messages]
    threads = assign_threads(messages)
    rules = load_rules(entry_points=False)
    db = tmp_path_factory.mktemp("summary") / "reviewbot.db"
    by_thread: dict[str, list] = {}
    for m in messages:
        by_thread.setdefault(threads.get(m.message_id, m.message_id), []).append(m)
    with Store(db) as store:
        with store.transaction():
            for m in messages:
                store.put_message(m, thread_id=threads.get(m.message_id, m.message_id))
        for m in messages:
            if not m.subject.is_patch or m.subject.is_reply:
                continue
            try:
                patch = parse_patch(m)
            except Exception:
                continue
            if not patch.files:
                continue
            store.put_patch(patch)
            thread = tuple(
                t for t in by_thread[threads.get(m.message_id, m.message_id)] if t.message_id != m.message_id
            )
            report = check_patch(patch, rules, RuleContext(thread=thread))
            store.replace_findings(m.message_id, report.findings, report.failures, now=FIXED_NOW)
    return db


def test_summary_counts_add_up_and_match_the_store(corpus_db: Path, tmp_path: Path, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = tmp_path / "reviewbot.db"
    db.write_bytes(corpus_db.read_bytes())
    runner = CliRunner()
    first = runner.invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "out")], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    c = counts(first.output)
    print(first.output.splitlines()[-2:])
    assert c["total"] > 0 and c["drafts"] > 0
    # findings: each considered finding ends in exactly one bucket
    assert c["total"] == (
        c["drafted"]
        + c["raised"]
        + c["answered"]
        + c["applied"]
        + c["withdrawn"]
        + c["rejected"]
        + c["reviewed"]
        + c["backports"]
        + c["not_for_merge"]
        + c["superseded"]
        + c["dismissed"]
        + c["unsure"]
        + c["moot"]
        + c["not_asked"]
        + c["unusable"]
        + c["failed"]
        + c["before"]
    )
    assert c["before"] == 0
    # drafts: one per patch, each covering at least one finding
    assert c["draft_lines"] == c["drafts"] == len(list((tmp_path / "out").glob("*.eml")))
    assert c["drafts"] <= c["drafted"]
    with Store(db) as store:
        assert store.count("drafts") == c["drafts"]
        assert store.count("draft_findings") == c["drafted"]
        skips = Counter(r[0] for r in store.conn.execute("SELECT state FROM draft_skips"))
        superseded = skips.pop("superseded", 0) + skips.pop("earlier-revision", 0)
        # not asked: the rule's own reason, or the same point on a sibling patch
        assert skips.pop("not-asked", 0) + skips.pop("repeated-in-series", 0) == c["not_asked"]
        assert superseded == c["superseded"]
        assert skips == Counter(
            {
                k: v
                for k, v in {
                    "raised": c["raised"],
                    "answered": c["answered"],
                    "applied": c["applied"],
                    "withdrawn": c["withdrawn"],
                    "stable-backport": c["backports"],
                    "not-for-merge": c["not_for_merge"],
                    "dismissed": c["dismissed"],
                    "rejected": c["rejected"],
                    "reviewed": c["reviewed"],
                    "unsure": c["unsure"],
                    "moot": c["moot"],
                }.items()
                if v
            }
        )
        assert store.count("findings") == c["total"]
    # a second run drafts nothing and says every finding was handled before
    again = counts(runner.invoke(main, ["draft", "--db", str(db), "--outbox", str(tmp_path / "out")]).output)
    assert again["total"] == c["total"] and again["before"] == c["total"] - c["failed"]
    assert again["drafts"] == again["drafted"] == again["raised"] == again["answered"] == 0
