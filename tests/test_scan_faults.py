"""A scan under HTTP faults never aborts, records what failed, exits 3; a clean re-run repairs exactly that.

The mirror server (tests/data's mirror) injects, on chosen pages of 2023-06..2023-07:
429 with Retry-After (short: retried and recovered in the same run; too long:
the page fails), 500/502/503 bursts (short bursts recovered, long ones fail),
responses slower than the timeout, connections reset mid-body, truncated
HTML, blists error pages on HTTP 200, and invalid UTF-8 bytes in the year
page. The re-run must fetch only what failed and end with every row equal to
a fault-free scan.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import DATA_MIRROR
from mirror_server import Fault, MirrorServer
from scan_oracle import manifest_between
from reviewbot.cli import main
from reviewbot.config import Settings
from reviewbot.scan import scan
from reviewbot.status import ExitStatus
from reviewbot.store import Store

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
SINCE, UNTIL = date(2023, 6, 1), date(2023, 7, 31)


def clock() -> datetime:
    return NOW


class FaultPlan:
    """Faults by URL path, active until switched off."""

    def __init__(self) -> None:
        paths = sorted(manifest_between(SINCE, UNTIL).values())
        self.active = True
        year = (DATA_MIRROR / "linux-kernel/2023/index.html").read_bytes()
        bad_utf8 = year.replace(b"<title>", b"<title>\xff\xfe\xc3(", 1)
        # path -> (fault, attempts it applies to; None = every attempt while active)
        self.plan: dict[str, tuple[Fault, int | None]] = {
            paths[5]: (Fault("status", status=429, headers={"Retry-After": "1"}), 1),  # recovered in-run
            paths[11]: (Fault("status", status=503), 2),  # short burst: recovered in-run
            paths[10]: (Fault("status", status=500), None),
            paths[70]: (Fault("status", status=502), None),
            paths[60]: (Fault("status", status=429, headers={"Retry-After": "9999"}), None),
            paths[20]: (Fault("slow", delay=2.5), None),
            paths[30]: (Fault("reset", keep=300), None),
            paths[40]: (Fault("truncate", keep=1500), None),
            paths[50]: (Fault("error-page", reason="No such message"), None),
            "/linux-kernel/2023/": (Fault("body", body=bad_utf8), 1),
        }
        self.failing = {p for p, (_f, n) in self.plan.items() if n is None}

    def __call__(self, path: str, attempt: int) -> Fault | None:
        if not self.active or path not in self.plan:
            return None
        fault, upto = self.plan[path]
        return fault if upto is None or attempt <= upto else None


def _settings(tmp: Path, base_url: str) -> Settings:
    return Settings(
        base_url=base_url,
        db_path=tmp / "db.sqlite",
        cache_dir=tmp / "cache",
        rate=0.0,
        retries=2,
        backoff=0.0,
        timeout=1.0,
        max_retry_after=5.0,
    )


@pytest.mark.slow
def test_scan_under_faults_then_clean_rerun_equals_fault_free(tmp_path: Path, monkeypatch) -> None:
    plan = FaultPlan()
    with MirrorServer(DATA_MIRROR, faults=plan) as server:
        plan.active = False
        clean = _settings(tmp_path / "clean", server.base_url)
        ref = scan(clean, "linux-kernel", SINCE, UNTIL, fetch_all=True, clock=clock)
        assert ref.ok
        with Store(clean.db_path) as store:
            want = store.dump_rows()

        plan.active = True
        server.reset_log()
        work = tmp_path / "faulty"
        faulty = _settings(work, server.base_url)
        (work).mkdir()
        (work / "config.toml").write_text("retries = 2\nbackoff = 0.0\ntimeout = 1.0\nmax-retry-after = 5.0\n")
        monkeypatch.setenv("REVIEWBOT_CONFIG", str(work / "config.toml"))  # how to fetch: the user's config
        monkeypatch.chdir(work)
        monkeypatch.setenv("REVIEWBOT_NOW", NOW.isoformat())
        for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
            monkeypatch.setenv(var, str(work / var.lower()))
        result = CliRunner().invoke(
            main,
            [
                "scan",
                "linux-kernel",
                "--since",
                "2023-06",
                "--until",
                "2023-07",
                "--all",
                "--base-url",
                server.base_url,
                "--rate",
                "0",
                "--db",
                str(faulty.db_path),
                "--cache-dir",
                str(faulty.cache_dir),
            ],
        )
        assert result.exit_code == ExitStatus.PARTIAL_FAILURE, result.output
        assert "pages failed" in result.output and "error: " in result.output
        injected = sum(
            1
            for p, status in server.requests
            if p in plan.plan and (status != 200 or p in plan.failing or p == "/linux-kernel/2023/")
        )
        with Store(faulty.db_path) as store:
            failed = {row.url.split(server.base_url, 1)[1]: row for row in store.failed_pages()}
            assert set(failed) == plan.failing
            assert all(row.attempts >= 1 and row.last_error for row in failed.values())
            stored_first = store.count("messages")
        assert stored_first == len(manifest_between(SINCE, UNTIL)) - len(plan.failing)

        # clean re-run: fetches exactly the pages that failed, ends with the fault-free database
        plan.active = False
        server.reset_log()
        again = scan(faulty, "linux-kernel", SINCE, UNTIL, fetch_all=True, clock=clock)
        fetched = {p for p, _s in server.requests} - {"/robots.txt"}
        assert fetched == plan.failing
        assert again.ok and again.pages_recovered == len(plan.failing)
        with Store(faulty.db_path) as store:
            got = store.dump_rows()
            assert store.failed_pages() == []
        compared = sum(len(v) for v in want.values())
        different = sum(len(set(want[t]) ^ set(got.get(t, []))) for t in want)
        print(
            f"\nfaults: {injected} faulty responses on {len(plan.plan)} pages; pages failed {len(failed)}; "
            f"recovered on re-run {again.pages_recovered}; rows compared {compared}; rows different {different}"
        )
        assert got == want


def test_message_page_with_invalid_utf8_is_stored_with_replacement_characters(tmp_path: Path) -> None:
    path = sorted(manifest_between(date(2023, 6, 1), date(2023, 6, 30)).values())[3]
    page = (DATA_MIRROR / (path.lstrip("/") + ".html")).read_bytes()
    pre = page.index(b"<pre")
    body_at = page.index(b"\n\n", pre) + 2
    broken = page[:body_at] + b"caf\xe9 \xff\xfe bytes\n" + page[body_at:]

    def faults(p: str, attempt: int) -> Fault | None:
        return Fault("body", body=broken) if p == path else None

    with MirrorServer(DATA_MIRROR, faults=faults) as server:
        settings = _settings(tmp_path, server.base_url)
        summary = scan(settings, "linux-kernel", date(2023, 6, 1), date(2023, 6, 30), fetch_all=True, clock=clock)
    assert summary.ok
    with Store(settings.db_path) as store:
        [row] = [r for r in store.messages("linux-kernel") if (r.message.archive_url or "").endswith(path)]
    assert "caf\ufffd \ufffd\ufffd bytes" in row.message.body
