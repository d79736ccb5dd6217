"""The ``reviewbot scan`` command: arguments, list-name validation, the shipped sample, summary and exit codes."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.commands.scan import parse_day
from reviewbot.config import Settings, sample_cache_dir
from reviewbot.fetch.openwall import day_counts_from_year_page
from reviewbot.scan import demo_scan, scan
from reviewbot.status import ExitStatus
from reviewbot.store import Store

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
SAMPLE_HOST = sample_cache_dir() / "lists.openwall.net"


def test_parse_day_accepts_months_and_days() -> None:
    assert parse_day("2023-06", end=False) == date(2023, 6, 1)
    assert parse_day("2023-06", end=True) == date(2023, 6, 30)
    assert parse_day("2024-02", end=True) == date(2024, 2, 29)
    assert parse_day("2023-06-09", end=True) == date(2023, 6, 9)
    for bad in ("2023", "2023-13", "2023-06-31", "June", "2023-6", "2023-06-01T00:00"):
        with pytest.raises(click.BadParameter):
            parse_day(bad, end=False)


def test_year_page_counts_from_the_sample() -> None:
    body = (SAMPLE_HOST / "linux-kernel/2023/index.html").read_bytes()
    counts = day_counts_from_year_page(body, 2023)
    assert counts == {date(2023, 6, 5): 2, date(2023, 6, 6): 3, date(2023, 6, 7): 2, date(2023, 6, 8): 3}


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


def test_sample_pages_as_a_cache_give_findings_offline(isolated_env: Path) -> None:
    """The sample's pages given as the cache (--cache-dir) are read like any cached pages."""
    settings = Settings(db_path=isolated_env / "db.sqlite", cache_dir=SAMPLE_HOST, rate=0.0)
    summary = scan(settings, "linux-kernel", date(2023, 6, 1), date(2023, 6, 30), offline=True, clock=lambda: NOW)
    assert summary.ok and summary.requests == 0
    assert summary.days == 4
    assert summary.pages_from_cache == 1 + 4 + 7 + 1 + 2  # year, days, patch pages, attachment, replies
    assert summary.pages_from_sample == summary.pages_in_sample == 0  # the user's cache, not the demo
    assert {"RB101", "RB102", "RB201", "RB202"} <= set(summary.findings_by_rule)
    with Store(settings.db_path) as store:
        subjects = [r.message.subject.raw for r in store.messages("linux-kernel")]
        assert "Question about sample_pool per-CPU cache sizing" not in subjects  # not a patch, no thread
        attached = store.patch_row("20230608150000.31337-1-chen.example@example.net")
        assert attached is not None and "lib/sample_hash.c" in [f.path for f in attached.files]


def test_offline_demo_runs_in_a_database_of_its_own(isolated_env: Path) -> None:
    """Offline on a fresh machine the scan stores nothing made up: the pages it cannot read are failed
    (and retried next run); the demo reads them from the sample into a temporary database."""
    settings = Settings(db_path=isolated_env / "db.sqlite", cache_dir=isolated_env / "cache", rate=0.0)
    june = (date(2023, 6, 1), date(2023, 6, 30))
    summary = scan(settings, "linux-kernel", *june, offline=True, clock=lambda: NOW)
    assert summary.errors == (("https://lists.openwall.net/linux-kernel/2023/", "not in the cache (offline)"),)
    assert summary.pages_in_sample == 1 and summary.pages_from_sample == 0 and summary.findings == 0
    with Store(settings.db_path) as store:
        assert store.count("messages") == 0 and store.count("findings") == 0
        assert [r.url for r in store.failed_pages()] == ["https://lists.openwall.net/linux-kernel/2023/"]
    demo, rows = demo_scan(settings, "linux-kernel", *june, clock=lambda: NOW)
    assert demo.ok and demo.requests == 0 and demo.days == 4
    assert demo.pages_from_sample == demo.pages_from_cache == 1 + 4 + 7 + 1 + 2
    assert {"RB101", "RB102", "RB201", "RB202"} <= set(demo.findings_by_rule)
    assert len(rows) == demo.findings and {r.rule_id for r in rows} == set(demo.findings_by_rule)
    with Store(settings.db_path) as store:  # the real database is as the scan left it
        assert store.count("messages") == 0 and len(store.failed_pages()) == 1
    assert not (isolated_env / "cache").exists()  # offline: nothing written


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
        str(SAMPLE_HOST),
    ]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == ExitStatus.OK, first.output
    assert "messages stored (new)" in first.output and "findings RB102" in first.output
    assert "0 HTTP requests" in first.output
    second = CliRunner().invoke(main, args)
    assert second.exit_code == ExitStatus.OK
    assert "messages already stored" in second.output
    with Store(isolated_env / "db.sqlite") as store:
        assert store.count("messages") == 10


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
            str(SAMPLE_HOST),
        ],
    )
    assert result.exit_code == ExitStatus.PARTIAL_FAILURE, result.output
    assert "https://lists.openwall.net/linux-kernel/2024/" in result.output
    with Store(db) as store:
        [row] = store.failed_pages("linux-kernel")
        assert row.url == "https://lists.openwall.net/linux-kernel/2024/" and row.kind == "year"
        assert store.get_cursor("linux-kernel") is None


def test_sample_pages_follow_the_blists_format() -> None:
    """Every shipped sample page passes the archive's completeness check and the page parsers."""
    from reviewbot.fetch import openwall as ow
    from reviewbot.fetch.archive import check_page
    from reviewbot.fetch.cache import ArchiveCache

    base = "https://lists.openwall.net/linux-kernel/"
    cache = ArchiveCache(SAMPLE_HOST, readonly=True)
    pages = sorted(SAMPLE_HOST.rglob("*.html"))
    assert len(pages) == 17
    for path in pages:
        rel = path.relative_to(SAMPLE_HOST).as_posix()
        url = "https://lists.openwall.net/" + (rel[: -len("index.html")] if path.name == "index.html" else rel[:-5])
        check_page(cache.info(url), path.read_bytes(), url)
    assert ow.parse_list_page((SAMPLE_HOST / "linux-kernel/index.html").read_bytes(), base) == [(2023, 6)]
    days = ow.parse_month_page((SAMPLE_HOST / "linux-kernel/2023/06/index.html").read_bytes(), base + "2023/06/")
    assert days == [date(2023, 6, d) for d in (5, 6, 7, 8)]
    refs = ow.parse_day_page((SAMPLE_HOST / "linux-kernel/2023/06/06/index.html").read_bytes(), base + "2023/06/06/")
    assert [r.subject for r in refs][1] == "[PATCH v2 1/2] ringbuf: publish entries with smp_wmb()"
    raw = ow.parse_message_page(
        (SAMPLE_HOST / "linux-kernel/2023/06/06/2.html").read_bytes(), base + "2023/06/06/2", "linux-kernel"
    )
    assert dict(raw.header_lines)["Message-ID"] == "<20230606080000.777-1-chen.example@example.net>"
    assert raw.thread_prev_url == base + "2023/06/06/1" and raw.thread_next_url == base + "2023/06/06/3"


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
            str(SAMPLE_HOST),
        ],
    )
    assert result.exit_code == ExitStatus.OK, result.output
    lines = result.output.splitlines()
    assert (
        "RB102 WARNING undrafted  [PATCH v2 1/2] ringbuf: publish entries with smp_wmb()  "
        "lib/sample_ringbuf.c:45  smp_wmb() at line 45 added without a comment saying what it pairs with"
    ) in lines
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
                str(SAMPLE_HOST),
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


def test_offline_demo_prints_findings_and_stores_nothing(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's offline demo: the made-up sample's findings are printed as a demo, the database
    given holds none of its messages (the unread page is failed, exit 3), so `reviewbot draft` has
    nothing to draft."""
    monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
    config = isolated_env / "config.toml"
    config.write_text('[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8")
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    db = isolated_env / "db.sqlite"
    result = CliRunner().invoke(
        main, ["scan", "linux-kernel", "--since", "2023-06", "--until", "2023-06", "--offline", "--db", str(db)]
    )
    assert result.exit_code == ExitStatus.PARTIAL_FAILURE, result.output
    assert (
        "note: the made-up sample in archive_cache/ holds 1 of the pages that could not be read (offline). "
        "A demo, not the real list: scanned into a temporary database"
    ) in result.output
    assert "15 sample pages give 6 patches and 5 findings" in result.output
    assert (
        "RB102 WARNING undrafted  [PATCH v2 1/2] ringbuf: publish entries with smp_wmb()  "
        "lib/sample_ringbuf.c:45  smp_wmb() at line 45 added without a comment saying what it pairs with"
    ) in result.output.splitlines()
    with Store(db) as store:
        assert store.count("messages") == store.count("findings") == 0
        assert store.known_urls("linux-kernel") == {}
        assert [r.url for r in store.failed_pages()] == ["https://lists.openwall.net/linux-kernel/2023/"]
    outbox = isolated_env / "outbox"
    drafted = CliRunner().invoke(main, ["draft", "--db", str(db), "--outbox", str(outbox)])
    assert drafted.exit_code == 0, drafted.output
    assert not outbox.exists() or not list(outbox.glob("*.eml"))
    with Store(db) as store:
        assert store.count("drafts") == 0


def test_cache_pages_are_not_samples(isolated_env: Path) -> None:
    """A page of the user's own cache is real; only the shipped sample root marks pages as samples."""
    from reviewbot.fetch.archive import Archive
    from reviewbot.fetch.cache import ArchiveCache

    url = "https://lists.openwall.net/linux-kernel/2023/06/06/2"
    own = isolated_env / "own-cache"
    own_copy = own / "linux-kernel/2023/06/06/2.html"
    own_copy.parent.mkdir(parents=True)
    own_copy.write_bytes((SAMPLE_HOST / "linux-kernel/2023/06/06/2.html").read_bytes())
    settings = Settings(db_path=isolated_env / "db.sqlite", cache_dir=isolated_env / "empty", rate=0.0)
    sampled = Archive(settings, offline=True, clock=lambda: NOW, sample=True).fetch(url)
    assert sampled.sample and sampled.from_cache
    mine = Archive(
        settings, offline=True, clock=lambda: NOW, cache=ArchiveCache(own, readonly=True, fallbacks=(SAMPLE_HOST,))
    ).fetch(url)
    assert mine.from_cache and not mine.sample and mine.body == sampled.body


def test_second_scan_counts_as_already_stored_what_the_first_stored(isolated_env: Path) -> None:
    """ "messages stored (new)" of a first scan and "messages already stored" of the second count the same
    messages: the replies reached through the threads followed count in both (they were left out of the
    second count, so 9 new messages became 7 already stored)."""
    settings = Settings(db_path=isolated_env / "db.sqlite", cache_dir=SAMPLE_HOST, rate=0.0)
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
    config.write_text('[identity]\nname = "Zoe Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8")
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
    assert len(before) == 4 and "open" not in before.values()
    assert sorted(before.values()) == ["answered", "undrafted", "undrafted", "undrafted"]
    assert before == {m: "undrafted" if s == "open" else s for m, s in statuses().items()}
    assert "\nundrafted: no `reviewbot draft` run has looked at these yet" in first.output

    drafted = CliRunner().invoke(main, ["draft", "--db", db, "--outbox", str(isolated_env / "out"), "--no-lore"])
    assert drafted.exit_code == ExitStatus.OK, drafted.output
    second = CliRunner().invoke(main, [*args, "--db", db])
    after = listed(second.output)
    assert after == statuses()
    assert sorted(after.values()) == ["answered", "applied", "drafted", "raised"]
    assert "undrafted" not in second.output
