"""``reviewbot draft`` with outbox/Maildir folders that do not exist yet or cannot be written.

The README's command names ``~/Mail/Drafts`` while ``~/Mail`` may not exist:
missing parents are created. A folder that cannot be created or written stops
the command with one line naming it (exit status 2) before any draft, file or
store row is made.
"""

from __future__ import annotations

import mailbox
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.store import Store
from helpers import THREADS, cli_env, load_thread, read_mbox_messages


@pytest.fixture(scope="module")
def rules():
    from reviewbot.registry import load_rules

    return load_rules(entry_points=False)


def _db(tmp_path: Path, rules) -> Path:
    db = tmp_path / "reviewbot.db"
    with Store(db) as store:
        load_thread(store, read_mbox_messages(THREADS / "barrier.mbox"), rules)
        load_thread(store, read_mbox_messages(THREADS / "perf-claim.mbox"), rules)
    return db


def test_missing_parents_of_outbox_and_maildir_are_created(tmp_path: Path, monkeypatch, rules) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, rules)
    home = tmp_path / "home"  # neither home/review nor home/Mail exists
    result = CliRunner().invoke(
        main,
        [
            "draft",
            "--list",
            "linux-kernel",
            "--db",
            str(db),
            "--outbox",
            str(home / "review" / "outbox"),
            "--maildir",
            str(home / "Mail" / "Drafts"),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    emls = sorted((home / "review" / "outbox").glob("*.eml"))
    assert len(emls) == 2
    box = mailbox.Maildir(str(home / "Mail" / "Drafts"), create=False)
    assert len(box) == 2
    assert all("D" in m.get_flags() for m in box)


def test_unusable_maildir_one_line_exit_2_nothing_done(tmp_path: Path, monkeypatch, rules) -> None:
    """``Mail`` is a file: the Maildir cannot be made. One line naming it, exit 2, no draft anywhere
    (the outbox is checked and created first, but holds no .eml), no store row."""
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, rules)
    (tmp_path / "Mail").write_text("a file\n", encoding="utf-8")
    outbox = tmp_path / "review" / "outbox"
    result = CliRunner().invoke(
        main, ["draft", "--db", str(db), "--outbox", str(outbox), "--maildir", str(tmp_path / "Mail" / "Drafts")]
    )
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"reviewbot draft: {tmp_path / 'Mail' / 'Drafts'}: cannot write the Maildir: not a folder ({tmp_path / 'Mail'})"
    ]
    assert not list(outbox.glob("*.eml"))  # nothing half-done
    with Store(db) as store:
        assert store.count("drafts") == 0 and store.count("draft_skips") == 0


def test_outbox_path_is_a_file(tmp_path: Path, monkeypatch, rules) -> None:
    cli_env(tmp_path, monkeypatch)
    db = _db(tmp_path, rules)
    (tmp_path / "review").write_text("not a folder\n", encoding="utf-8")
    result = CliRunner().invoke(
        main,
        [
            "draft",
            "--db",
            str(db),
            "--outbox",
            str(tmp_path / "review" / "outbox"),
            "--maildir",
            str(tmp_path / "Mail" / "Drafts"),
        ],
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"reviewbot draft: {tmp_path / 'review' / 'outbox'}: cannot write the outbox: not a folder"
    ]
    assert not (tmp_path / "Mail").exists()
    with Store(db) as store:
        assert store.count("drafts") == 0
