"""The ``reviewbot scan`` command: arguments, list-name validation, the shipped pages, summary and exit codes."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.commands.scan import parse_day
from reviewbot.config import Settings, shipped_cache_dir
from reviewbot.fetch.openwall import day_counts_from_year_page
from reviewbot.scan import scan
from reviewbot.status import ExitStatus
from reviewbot.store import Store

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
SHIPPED_HOST = shipped_cache_dir() / "lists.openwall.net"  # type: ignore[operator]
RB102_LINE = (
    "RB102 WARNING undrafted  [PATCH 5/6] io_uring: add support for futex wake and wait  "
    "io_uring/futex.c:129  smp_store_release() at line 129 added without a comment saying what it pairs with"
)


def test_parse_day_accepts_months_and_days() -> None:
    assert parse_day("2023-06", end=False) == date(2023, 6, 1)
    assert parse_day("2023-06", end=True) == date(2023, 6, 30)
    assert parse_day("2024-02", end=True) == date(2024, 2, 29)
    assert parse_day("2023-06-09", end=True) == date(2023, 6, 9)
    for bad in ("2023", "2023-13", "2023-06-31", "June", "2023-6", "2023-06-01T00:00"):
        with pytest.raises(click.BadParameter):
            parse_day(bad, end=False)


def test_year_page_counts_from_the_shipped_copy() -> None:
    body = (SHIPPED_HOST / "linux-kernel/2023/index.html").read_bytes()
    counts = day_counts_from_year_page(body, 2023)
    june = {d.day: n for d, n in counts.items() if d.month == 6 and d.year == 2023}
    assert june == {1: 1, 9: 2, 12: 3, 13: 3, 14: 4, 23: 4, 25: 2, 27: 5, 28: 8, 29: 5}
    assert sum(june.values()) == 37 and len(counts) == 148


@pytest.mark.parametrize("name", ["Linux-Kernel", "../etc", "linux kernel", "a/b", "", "lkml;rm -rf /"])
def test_bad_list_names_are_usage_errors(isolated_env: Path, name: str) -> None:
    result = CliRunner().invoke(
        main, ["scan", name, "--since", "2023-06", "--offline", "--db", str(isolated_env / "db.sqlite")]
    )
    assert result.exit_code == ExitStatus.USAGE
    assert "reviewbot scan:" in result.output
    assert not (isolated_env / "db.sqlite").exists() or Store(isolated_env / "db.sqlite").count("messages") == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--since", "2023-13"],
        ["--since", "2023-06", "--until", "2023-05"],
        ["--since", "yesterday"],
    ],
)
def test_bad_ranges_are_usage_errors(isolated_env: Path, args: list[str]) -> None:
    result = CliRunner().invoke(main, ["scan", "linux-kernel", *args, "--offline"])
    assert result.exit_code == ExitStatus.USAGE, result.output


def test_shipped_pages_as_a_cache_give_findings_offline(isolated_env: Path) -> None:
    """The shipped pages given as the cache (--cache-dir) are read like any cached pages: June 2023's
    10 days, its patches and the one thread with a finding (RB102 in Jens Axboe's io_uring futex patch)."""
    settings = Settings(db_path=isolated_env / "db.sqlite", cache_dir=SHIPPED_HOST, rate=0.0)
    summary = scan(settings, "linux-kernel", date(2023, 6, 1), date(2023, 6, 30), offline=True, clock=lambda: NOW)
    assert summary.ok and summary.requests == 0
    assert summary.days == 10
    assert summary.pages_from_cache == 37 and summary.patches == 13 and summary.threads_followed == 1
    assert summary.pages_from_shipped == 0  # named as --cache-dir: the user's own cache, read as such
    assert dict(summary.findings_by_rule) == {"RB102": 1}
    with Store(settings.db_path) as store:
        [row] = store.findings_in_range("linux-kernel", date(2023, 6, 1), date(2023, 6, 30))
        assert row.message_id == "20230609183125.673140-6-axboe@kernel.dk"
        assert (row.path, row.line) == ("io_uring/futex.c", 129)
        assert store.conn.execute("SELECT COUNT(*) FROM messages WHERE shipped = 1").fetchone()[0] == 0


def test_offline_scan_reads_the_shipped_copy_into_the_database(isolated_env: Path) -> None:
    """Offline on a fresh machine (empty default cache) the pages come from the copy shipped in
    archive_cache/: real messages, stored in the database given like any others and marked shipped."""
    settings = Settings(db_path=isolated_env / "db.sqlite", rate=0.0)
    june = (date(2023, 6, 1), date(2023, 6, 30))
    summary = scan(settings, "linux-kernel", *june, offline=True, clock=lambda: NOW)
    assert summary.ok and summary.requests == 0 and summary.days == 10
    assert summary.pages_from_shipped == summary.pages_from_cache == 37
    assert dict(summary.findings_by_rule) == {"RB102": 1}
    with Store(settings.db_path) as store:
        assert store.count("messages") == summary.messages_stored == 26
        assert store.conn.execute("SELECT COUNT(*) FROM messages WHERE shipped = 1").fetchone()[0] == 26
        assert store.failed_pages() == []
        stored = store.message_row("20230609183125.673140-6-axboe@kernel.dk")
        assert stored is not None and stored.shipped
        assert stored.message.archive_url == "https://lists.openwall.net/linux-kernel/2023/06/09/2"
    assert not settings.host_cache_dir().exists()  # offline: nothing written, the shipped copy only read


def test_an_empty_cache_dir_given_reads_nothing_shipped(isolated_env: Path) -> None:
    """--cache-dir names the one folder to read: the shipped copy is the default cache's fallback only."""
    empty = isolated_env / "cache"
    empty.mkdir()
    settings = Settings(db_path=isolated_env / "db.sqlite", cache_dir=empty, rate=0.0)
    summary = scan(settings, "linux-kernel", date(2023, 6, 1), date(2023, 6, 30), offline=True, clock=lambda: NOW)
    assert summary.errors == (("https://lists.openwall.net/linux-kernel/2023/", "not in the cache (offline)"),)
    assert summary.pages_from_shipped == 0 and summary.findings == 0
    with Store(settings.db_path) as store:
        assert store.count("messages") == 0


def test_cli_summary_and_second_run(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    args = [
        "scan",
        "linux-kernel",
        "--since",
        "2023-06",
        "--until",
        "2023-06",
        "--offline",
        "--all",
        "--db",
        str(isolated_env / "db.sqlite"),
        "--cache-dir",
        str(SHIPPED_HOST),
    ]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == ExitStatus.OK, first.output
    assert "messages stored (new)" in first.output and "findings RB102" in first.output
    assert "0 HTTP requests" in first.output
    second = CliRunner().invoke(main, args)
    assert second.exit_code == ExitStatus.OK
    assert "messages already stored" in second.output
    with Store(isolated_env / "db.sqlite") as store:
        assert store.count("messages") == 37  # --all: every message of June 2023 on the shipped pages


def test_offline_missing_pages_exit_3_and_are_recorded(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    db = isolated_env / "db.sqlite"
    result = CliRunner().invoke(
        main,
        [
            "scan",
            "linux-kernel",
            "--since",
            "2023-06",
            "--until",
            "2024-01",
            "--offline",
            "--db",
            str(db),
            "--cache-dir",
            str(SHIPPED_HOST),
        ],
    )
    assert result.exit_code == ExitStatus.PARTIAL_FAILURE, result.output
    assert "108 pages could not be read: offline and not cached" in result.output  # one line for all
    # the shipped copy holds June 2023 only: its year page lists later days whose pages it has not
    year = day_counts_from_year_page((SHIPPED_HOST / "linux-kernel/2023/index.html").read_bytes(), 2023)
    later = sorted(d for d in year if d > date(2023, 6, 30))
    assert (later[0], later[-1], len(later)) == (date(2023, 7, 5), date(2023, 12, 31), 107)
    base = "https://lists.openwall.net/linux-kernel/"
    with Store(db) as store:
        rows = store.failed_pages("linux-kernel")
        assert {(r.url, r.kind) for r in rows} == {(base + "2024/", "year")} | {
            (f"{base}{d:%Y/%m/%d}/", "day") for d in later
        }
        assert store.get_cursor("linux-kernel") is None


def test_shipped_pages_follow_the_blists_format() -> None:
    """Every shipped page passes the archive's completeness check and the page parsers."""
    from reviewbot.fetch import openwall as ow
    from reviewbot.fetch.archive import check_page
    from reviewbot.fetch.cache import ArchiveCache

    base = "https://lists.openwall.net/linux-kernel/"
    cache = ArchiveCache(SHIPPED_HOST, readonly=True)
    pages = sorted(SHIPPED_HOST.rglob("*.html"))
    assert len(pages) == 1 + 1 + 1 + 10 + 37  # list, year, month, days, messages
    for path in pages:
        rel = path.relative_to(SHIPPED_HOST).as_posix()
        url = "https://lists.openwall.net/" + (rel[: -len("index.html")] if path.name == "index.html" else rel[:-5])
        check_page(cache.info(url), path.read_bytes(), url)
    assert (2023, 6) in ow.parse_list_page((SHIPPED_HOST / "linux-kernel/index.html").read_bytes(), base)
    days = ow.parse_month_page((SHIPPED_HOST / "linux-kernel/2023/06/index.html").read_bytes(), base + "2023/06/")
    assert days == [date(2023, 6, d) for d in (1, 9, 12, 13, 14, 23, 25, 27, 28, 29)]
    refs = ow.parse_day_page((SHIPPED_HOST / "linux-kernel/2023/06/09/index.html").read_bytes(), base + "2023/06/09/")
    assert [r.subject for r in refs] == [
        "[PATCHSET RFC 0/6] Add io_uring support for futex wait/wake",
        "[PATCH 5/6] io_uring: add support for futex wake and wait",
    ]
    raw = ow.parse_message_page(
        (SHIPPED_HOST / "linux-kernel/2023/06/09/2.html").read_bytes(), base + "2023/06/09/2", "linux-kernel"
    )
    assert dict(raw.header_lines)["Message-ID"] == "<20230609183125.673140-6-axboe@kernel.dk>"
    assert raw.thread_prev_url == base + "2023/06/09/1" and raw.thread_next_url == base + "2023/06/12/1"


def test_findings_print_as_plain_lines_when_not_a_terminal(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped output (cron mail, files) gets one unwrapped line per finding, not a table squeezed to 80 columns."""
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    result = CliRunner().invoke(
        main,
        [
            "scan",
            "linux-kernel",
            "--since",
            "2023-06",
            "--until",
            "2023-06",
            "--offline",
            "--db",
            str(isolated_env / "db.sqlite"),
            "--cache-dir",
            str(SHIPPED_HOST),
        ],
    )
    assert result.exit_code == ExitStatus.OK, result.output
    lines = result.output.splitlines()
    assert RB102_LINE in lines
    assert not any("┃" in line or "│ RB" in line for line in lines)


@pytest.mark.parametrize("flag", ["-v", "--verbose"])
def test_scan_and_cron_take_verbose(isolated_env: Path, monkeypatch: pytest.MonkeyPatch, flag: str) -> None:
    """`reviewbot scan ... -v` (as the README shows) logs like `reviewbot -v scan`, with a timestamp per line."""
    import logging

    from reviewbot.cli import LOG_FORMAT

    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    root = logging.getLogger()
    level = root.level
    try:
        result = CliRunner().invoke(
            main,
            [
                "scan",
                "linux-kernel",
                "--since",
                "2023-06",
                "--until",
                "2023-06",
                "--offline",
                "--db",
                str(isolated_env / "db.sqlite"),
                "--cache-dir",
                str(SHIPPED_HOST),
                flag,
            ],
        )
        assert result.exit_code == ExitStatus.OK, result.output
        assert root.level == logging.INFO
        help_text = CliRunner().invoke(main, ["cron", "--help"]).output
        assert "-v, --verbose" in help_text
    finally:
        root.setLevel(level)
    assert LOG_FORMAT.startswith("%(asctime)s ")


def test_unreachable_missing_pages_are_said_once() -> None:
    from reviewbot.commands.scan import error_lines

    base = "https://lists.openwall.net/linux-kernel/"
    errors = [(f"{base}{y}/", "not in the cache (host unreachable)") for y in (2024, 2025, 2026)]
    errors.append((f"{base}2023/06/05/9", "HTTP 500 after 4 attempts"))
    assert error_lines(errors) == [
        f"3 pages could not be read: host unreachable and not cached ({base}2024/, {base}2025/, {base}2026/)",
        f"error: {base}2023/06/05/9: HTTP 500 after 4 attempts",
    ]


def test_offline_newcomer_run_stores_real_findings_for_draft_and_show(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's main job offline on a fresh machine: the shipped June 2023 pages give the real
    finding, stored in the database given, so `findings`, `draft` and `show` work on it; the days after
    June are not shipped: failed (exit 3), retried by the next run."""
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    config = isolated_env / "config.toml"
    config.write_text(
        'draft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    db = isolated_env / "db.sqlite"
    result = CliRunner().invoke(main, ["scan", "linux-kernel", "--since", "2023-06", "--offline", "--db", str(db)])
    assert result.exit_code == ExitStatus.PARTIAL_FAILURE, result.output
    lines = result.output.splitlines()
    assert RB102_LINE in lines
    assert (
        "note: 37 of the pages from cache were read (offline) from the copy of lists.openwall.net shipped "
        "with reviewbot in archive_cache/"
    ) in result.output
    year = day_counts_from_year_page((SHIPPED_HOST / "linux-kernel/2023/index.html").read_bytes(), 2023)
    later_days = sum(1 for d in year if d > date(2023, 6, 30))
    unread = later_days + 3  # the day pages of July to December 2023, the year pages 2024 to 2026
    assert f"{unread} pages could not be read: offline and not cached" in result.output
    with Store(db) as store:
        assert store.count("messages") == 26 and store.count("findings") == 1
        assert len(store.failed_pages()) == unread
    listed = CliRunner().invoke(main, ["findings", "--db", str(db)])
    assert listed.exit_code == 0, listed.output
    assert "[PATCH 5/6] io_uring: add support for futex wake and wait  (io_uring/futex.c:129)" in listed.output
    outbox = isolated_env / "outbox"
    drafted = CliRunner().invoke(main, ["draft", "--db", str(db), "--outbox", str(outbox)])
    assert drafted.exit_code == 0, drafted.output
    [eml] = outbox.glob("*.eml")
    text = eml.read_text(encoding="utf-8")
    assert "Subject: Re: [PATCH 5/6] io_uring: add support for futex wake and wait" in text
    assert "In-Reply-To: <20230609183125.673140-6-axboe@kernel.dk>" in text
    shown = CliRunner().invoke(main, ["show", "--db", str(db), "20230609183125.673140-6-axboe@kernel.dk"])
    assert shown.exit_code == 0, shown.output
    assert "Archive: https://lists.openwall.net/linux-kernel/2023/06/09/2" in shown.output
    assert "Read from: archive_cache/" in shown.output
    assert "state: drafted" in shown.output


def test_offline_month_of_the_shipped_copy_exits_0(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--until 2023-06`: every page of the range is shipped, so the offline scan is complete (exit 0)."""
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    db = isolated_env / "db.sqlite"
    args = ["scan", "linux-kernel", "--since", "2023-06", "--until", "2023-06", "--offline", "--db", str(db)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == ExitStatus.OK, result.output
    assert RB102_LINE in result.output.splitlines()
    assert "pages could not be read" not in result.output


def test_cache_pages_are_not_shipped(isolated_env: Path) -> None:
    """A page of the user's own cache is the user's; only the shipped root marks pages as shipped."""
    from reviewbot.fetch.archive import Archive
    from reviewbot.fetch.cache import ArchiveCache

    url = "https://lists.openwall.net/linux-kernel/2023/06/09/2"
    own = isolated_env / "own-cache"
    own_copy = own / "linux-kernel/2023/06/09/2.html"
    own_copy.parent.mkdir(parents=True)
    own_copy.write_bytes((SHIPPED_HOST / "linux-kernel/2023/06/09/2.html").read_bytes())
    settings = Settings(db_path=isolated_env / "db.sqlite", rate=0.0)
    shipped = Archive(settings, offline=True, clock=lambda: NOW).fetch(url)
    assert shipped.shipped and shipped.from_cache
    mine = Archive(
        settings, offline=True, clock=lambda: NOW, cache=ArchiveCache(own, readonly=True, fallbacks=(SHIPPED_HOST,))
    ).fetch(url)
    assert mine.from_cache and not mine.shipped and mine.body == shipped.body


def test_second_scan_counts_as_already_stored_what_the_first_stored(isolated_env: Path) -> None:
    """ "messages stored (new)" of a first scan and "messages already stored" of the second count the same
    messages: the replies reached through the threads followed count in both (they were left out of the
    second count, so 9 new messages became 7 already stored)."""
    settings = Settings(db_path=isolated_env / "db.sqlite", cache_dir=SHIPPED_HOST, rate=0.0)
    june = (date(2023, 6, 1), date(2023, 6, 30))
    first = scan(settings, "linux-kernel", *june, offline=True, clock=lambda: NOW)
    second = scan(settings, "linux-kernel", *june, offline=True, clock=lambda: NOW)
    with Store(settings.db_path) as store:
        stored = store.count("messages")
    assert first.threads_followed == second.threads_followed > 0  # replies are part of both scans
    assert (first.messages_stored, first.messages_skipped) == (stored, 0)
    assert (second.messages_stored, second.messages_skipped) == (0, stored)


def test_scan_lists_each_finding_as_findings_does(
    isolated_env: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan's list claims no state it has not checked: before any draft run a finding that the rules
    left open is "undrafted" (the drafter's checks of the thread may still skip it: here one is raised by a
    reviewer, one in a patch already applied); after `reviewbot draft`, a second scan says of each finding
    what `reviewbot findings` says (it said "open" for all three, also after the draft had skipped two)."""
    import json

    config = isolated_env / "config.toml"
    config.write_text(
        'draft-unsure = true\n[identity]\nname = "Zoe Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    db = str(isolated_env / "db.sqlite")
    mirror = str(data_dir / "openwall-mirror")
    args = ["scan", "linux-kernel", "--since", "2023-06", "--until", "2023-07", "--offline", "--cache-dir", mirror]

    def listed(output: str) -> dict[str, str]:
        """finding text -> the state the scan's list gives it (plain lines: `RULE SEVERITY STATE  ...`)."""
        rows = [line.split("  ") for line in output.splitlines() if line.startswith("RB")]
        return {row[-1]: row[0].split(" ")[2] for row in rows}

    def statuses() -> dict[str, str]:
        out = CliRunner().invoke(main, ["findings", "--db", db, "--format", "json"]).output
        return {f["message"]: f["status"] for f in json.loads(out)}

    first = CliRunner().invoke(main, [*args, "--db", db])
    assert first.exit_code == ExitStatus.OK, first.output
    before = listed(first.output)
    assert len(before) == 5 and "open" not in before.values()
    assert sorted(before.values()) == ["answered", "answered", "undrafted", "undrafted", "undrafted"]
    assert before == {m: "undrafted" if s == "open" else s for m, s in statuses().items()}
    assert "\nundrafted: no `reviewbot draft` run has looked at these yet" in first.output

    drafted = CliRunner().invoke(main, ["draft", "--db", db, "--outbox", str(isolated_env / "out"), "--no-lore"])
    assert drafted.exit_code == ExitStatus.OK, drafted.output
    second = CliRunner().invoke(main, [*args, "--db", db])
    after = listed(second.output)
    assert after == statuses()
    assert sorted(after.values()) == ["answered", "answered", "applied", "drafted", "raised"]
    assert "undrafted" not in second.output
