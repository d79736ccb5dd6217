"""Working with findings as the README shows it: `findings`, `draft --msgid --dry-run`, `draft --again`, `dismiss`.

Real thread files from tests/data/threads go the real way: parse -> Store (SQLite file) -> rules ->
the commands (CliRunner).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import THREADS, cli_env, load_thread, read_mbox_messages
from reviewbot.cli import main
from reviewbot.registry import load_rules
from reviewbot.store import Store

RAISED = THREADS / "barrier-raised.mbox"  # Bob asks under the quoted barrier in <87bob5678.fsf@example.com>
RAISED_PATCH = "20250315090000.5555-1-ada@example.org"
ANSWERED = THREADS / "perf-claim-answered.mbox"  # Ada posts numbers in <20250314160000.4444-2-ada@example.org>
ANSWERED_PATCH = "20250314090000.4444-1-ada@example.org"
PLAIN = THREADS / "barrier.mbox"  # a patch nobody answered


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def _db(tmp_path: Path, mbox: Path, rules) -> Path:
    db = tmp_path / "reviewbot.db"
    with Store(db) as store:
        load_thread(store, read_mbox_messages(mbox), rules)
    return db


def _run(*args: str):
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def test_dry_run_says_raised_in_which_reply_and_writes_nothing(tmp_path: Path, rules, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, RAISED, rules)
    outbox = tmp_path / "outbox"
    before = json.loads(_run("findings", "--db", str(db), "--format", "json"))
    assert [r["status"] for r in before] == ["open"]
    out = _run("draft", "--db", str(db), "--outbox", str(outbox), "--msgid", f"<{RAISED_PATCH}>", "--dry-run")
    assert "no finding to draft" not in out
    line = next(ln for ln in out.splitlines() if ln.startswith(f"<{RAISED_PATCH}>: RB102 "))
    assert "no draft, raised: " in line and "<87bob5678.fsf@example.com>" in line, out
    assert out.rstrip().endswith("0 draft(s) shown, nothing written (--dry-run)")
    # nothing recorded, nothing written: the real run decides the same and records it
    assert json.loads(_run("findings", "--db", str(db), "--format", "json")) == before
    assert not outbox.exists()
    out = _run("draft", "--db", str(db), "--outbox", str(outbox), "--msgid", f"<{RAISED_PATCH}>")
    assert "1 skipped as already raised in the thread" in out
    after = json.loads(_run("findings", "--db", str(db), "--format", "json"))
    assert [r["status"] for r in after] == ["raised"]


def test_dry_run_names_the_authors_answer(tmp_path: Path, rules, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, ANSWERED, rules)
    out = _run(
        "draft", "--db", str(db), "--outbox", str(tmp_path / "outbox"), "--msgid", f"<{ANSWERED_PATCH}>", "--dry-run"
    )
    line = next(ln for ln in out.splitlines() if ln.startswith(f"<{ANSWERED_PATCH}>: RB201 "))
    assert "no draft, answered: " in line and "<20250314160000.4444-2-ada@example.org>" in line, out


def test_dry_run_says_which_findings_would_be_drafted(tmp_path: Path, rules, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, PLAIN, rules)
    (mid,) = {r["message_id"] for r in json.loads(_run("findings", "--db", str(db), "--format", "json"))}
    out = _run("draft", "--db", str(db), "--outbox", str(tmp_path / "outbox"), "--msgid", mid, "--dry-run")
    assert f"<{mid.strip('<>')}>: RB102 " in out and f"would be drafted (in reply to <{mid.strip('<>')}>)" in out
    assert out.rstrip().endswith("1 draft(s) shown, nothing written (--dry-run)")


def test_again_on_a_dismissed_finding_keeps_the_draft_and_says_dismissed_once(
    tmp_path: Path, rules, monkeypatch
) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, PLAIN, rules)
    outbox = tmp_path / "outbox"
    _run("draft", "--db", str(db), "--outbox", str(outbox))
    (row,) = json.loads(_run("findings", "--db", str(db), "--format", "json"))
    mid, path = row["message_id"], Path(row["draft"])
    assert path.is_file()
    _run("dismiss", mid, "--reason", "the pair is in the next patch", "--db", str(db))
    out = _run("draft", "--db", str(db), "--outbox", str(outbox), "--again", mid)
    assert "dismissed: the pair is in the next patch" in out and "dismissed: dismissed" not in out, out
    assert str(path) in out  # the file the person may delete by hand is named
    with Store(db) as store:  # the draft record is kept, nothing forgotten silently
        assert [d.path for d in store.drafts_for(mid.strip("<>"))] == [str(path)]
    assert path.is_file()
    out = _run("draft", "--db", str(db), "--outbox", str(outbox), "--msgid", mid, "--dry-run")
    assert "--again" not in out and "dismissed: the pair is in the next patch" in out, out
    assert "dismissed: dismissed" not in out


def test_findings_text_shows_why_a_drafted_finding_was_dismissed(tmp_path: Path, rules, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, PLAIN, rules)
    _run("draft", "--db", str(db), "--outbox", str(tmp_path / "outbox"))
    (row,) = json.loads(_run("findings", "--db", str(db), "--format", "json"))
    _run("dismiss", row["fingerprint"], "--reason", "sent by hand", "--db", str(db))
    out = _run("findings", "--db", str(db))
    assert f"draft: {row['draft']}" in out and "    dismissed: sent by hand" in out, out
    assert " dismissed " in out.splitlines()[0]
    out = _run("findings", "--db", str(tmp_path / "reviewbot.db"), "--state", "dismissed")
    assert "dismissed: sent by hand" in out and "1 finding(s)" in out


def test_show_help_and_output_say_what_is_printed(tmp_path: Path, rules, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, RAISED, rules)
    help_text = " ".join(_run("show", "--help").split())
    assert "the body only with --body" in help_text
    out = _run("show", f"<{RAISED_PATCH}>", "--db", str(db))
    assert "Bob" not in out and "smp_wmb" not in out.split("\n\n", 1)[0]  # headers, no body
    # open, but the next draft run skips it: show points at the dry run that says so
    assert f"`reviewbot draft --msgid '<{RAISED_PATCH}>' --dry-run` says whether a run drafts or skips it" in out
    body = _run("show", RAISED_PATCH, "--db", str(db), "--body")
    assert "diff --git a/drivers/foo/ring.c" in body and "diff --git" not in out
    _run("draft", "--db", str(db), "--outbox", str(tmp_path / "outbox"))
    out = _run("show", f"<{RAISED_PATCH}>", "--db", str(db))
    assert "  state: raised: already commented on under the quoted code in <87bob5678.fsf@example.com>" in out
    # an unknown archive URL is named as given, not as a Message-ID in <> (a new user's report)
    url = "https://lists.openwall.net/linux-kernel/2023/06/09/999"
    missing = CliRunner().invoke(main, ["show", url, "--db", str(db)])
    assert missing.exit_code == 2 and f"{url}: no such message" in missing.output and f"<{url}>" not in missing.output


def test_message_id_convention_text_brackets_json_bare(tmp_path: Path, rules, monkeypatch) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, RAISED, rules)
    (row,) = json.loads(_run("findings", "--db", str(db), "--format", "json"))
    assert row["message_id"] == RAISED_PATCH
    assert f"<{RAISED_PATCH}>" in _run("findings", "--db", str(db))
    assert "json gives the bare id@host" in " ".join(_run("findings", "--help").split())
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "JSON\n(`findings --format json`, `check --format json`) gives the bare `id@host`" in readme
    assert "python3 -m venv .venv && . .venv/bin/activate" in readme
