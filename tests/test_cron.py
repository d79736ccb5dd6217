"""``reviewbot cron`` over the mirror served on 127.0.0.1: drafts, quiet re-run, one run at a time,
and SIGKILL at random points followed by a re-run (same database and drafts as an uninterrupted run).

Every run is a real subprocess (``python -m reviewbot cron ...``) with a fixed
clock (``REVIEWBOT_NOW``), its own database, outbox and Maildir, and a config
file giving the identity and no rate limit. The range is May 2024 (73
messages, a handful of drafts) to keep the runs short.
"""

from __future__ import annotations

import mailbox
import os
import random
import re
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest

from reviewbot.cron import day_chunks, run_lock
from reviewbot.store import Store

NOW = "2024-06-01T00:00:00"
SINCE = "2024-05-01"


def wait_for_requests(server, proc: subprocess.Popen, until, timeout: float = 120) -> bool:
    """Poll the server's request log until ``until(paths)`` holds; False when the process ended first."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        if until([p for p, _s in list(server.requests)]):
            return True
        time.sleep(0.001)
    return False


@pytest.fixture(scope="module")
def cron_env(tmp_path_factory, data_mirror_server):
    base = tmp_path_factory.mktemp("cron")
    config = base / "config.toml"
    config.write_text(
        'rate = 0\nobey-robots = false\ndraft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n',
        encoding="utf-8",
    )
    env = dict(os.environ)
    for var in ("REVIEWBOT_DB", "REVIEWBOT_CACHE_DIR", "REVIEWBOT_BASE_URL"):
        env.pop(var, None)
    env.update(
        {
            "REVIEWBOT_CONFIG": str(config),
            "REVIEWBOT_NOW": NOW,
            "XDG_CACHE_HOME": str(base / "cache"),  # shared page cache: later runs are faster, results equal
            "XDG_CONFIG_HOME": str(base / "xdg-config"),
            "XDG_DATA_HOME": str(base / "xdg-data"),
            "HOME": str(base / "home"),
        }
    )
    return env, data_mirror_server.base_url, data_mirror_server


def cron_cmd(base_url: str, run: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "reviewbot",
        "cron",
        "linux-kernel",
        "--base-url",
        base_url,
        "--since",
        SINCE,
        "--db",
        str(run / "db.sqlite"),
        "--outbox",
        str(run / "outbox"),
        "--maildir",
        str(run / "Drafts"),
        *extra,
    ]


def run_cron(env, base_url: str, run: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    run.mkdir(parents=True, exist_ok=True)
    return subprocess.run(cron_cmd(base_url, run), env=env, cwd=run, capture_output=True, text=True, timeout=timeout)


def snapshot(run: Path) -> dict:
    """Everything a run leaves behind, normalised: DB rows, outbox files (bytes), Maildir Message-IDs."""
    with Store(run / "db.sqlite") as store:
        rows = store.dump_rows()
    prefix = str(run)
    norm: dict[str, list] = {}
    for table, items in rows.items():
        out = []
        for row in items:
            fixed = tuple(
                (k, (v.replace(prefix, "RUN") if isinstance(v, str) else v)) for k, v in row if k != "maildir_key"
            )
            out.append(fixed)
        norm[table] = sorted(out, key=repr)
    outbox = {p.name: p.read_bytes() for p in sorted((run / "outbox").iterdir())} if (run / "outbox").exists() else {}
    box = mailbox.Maildir(str(run / "Drafts"), create=False) if (run / "Drafts").exists() else None
    maildir = sorted((m["Message-ID"], "D" in m.get_flags()) for m in box) if box is not None else []
    return {"rows": norm, "outbox": outbox, "maildir": maildir}


@pytest.fixture(scope="module")
def reference(cron_env, tmp_path_factory):
    """One uninterrupted run (and its output), the yardstick of the other tests."""
    env, base_url, _server = cron_env
    run = tmp_path_factory.mktemp("reference")
    run_cron(env, base_url, tmp_path_factory.mktemp("warm-cache"))  # fill the shared page cache first
    started = time.monotonic()
    done = run_cron(env, base_url, run)
    assert done.returncode == 0, done.stderr
    done.duration = time.monotonic() - started  # type: ignore[attr-defined]
    return run, done


def test_cron_drafts_replies(reference) -> None:
    run, done = reference
    lines = done.stdout.splitlines()
    assert lines[0].startswith("reviewbot cron linux-kernel: 2024-05-01 .. 2024-06-01,")
    drafts = [line for line in lines if line.startswith("draft: ")]
    emls = sorted((run / "outbox").glob("*.eml"))
    # May 2024: three patches with findings get a draft on main before the settled-thread checks; the
    # sbitmap RFC (20240527042654.2404-1-yang.yang@vivo.com) is now skipped, its author agreed to send a
    # revert instead ("I will send a patch to revert that change": withdrawn)
    assert len(drafts) == len(emls) >= 2
    assert all(p.name.startswith("2024-06-01-linux-kernel-") for p in emls)
    summary = lines[-1]
    assert f"{len(emls)} draft(s) written" in summary
    # the archive obfuscates every address and nothing else is known: list only, and the output says so
    assert all(
        re.search(
            r"\[recipients incomplete: \d+ address(es)? to add by hand, named at the top of the "
            r"draft\]$",
            line,
        )
        for line in drafts
    )
    assert summary.endswith(f"{len(emls)} with incomplete recipients")
    assert all(b"\nX-Reviewbot-Recipients: incomplete\n" in p.read_bytes() for p in emls)
    for eml in emls:
        head = eml.read_bytes().split(b"\n\n", 1)[0]
        assert b"@..." not in head
        assert b"\nIn-Reply-To: <" in head and b"\nReferences: <" in head
    # the bitmap series: only 1/6 names a cost ("a cheaper cpumask_copy()"); 2/6, 4/6 and 5/6 say "optimize" only
    # in the subject of a small change (RB201 CHECK, not drafted): one draft, to 1/6, quoting its changelog
    # (the series-level question on the cover letter: tests/test_draft_series_point.py)
    series = [p for p in emls if b"20240513220146.1461457-" in p.read_bytes()]
    assert len(series) == 1
    data = series[0].read_bytes()
    assert b"In-Reply-To: <20240513220146.1461457-2-yury.norov@gmail.com>\n" in data
    assert b"References: <20240513220146.1461457-1-yury.norov@gmail.com>\n" in data
    assert b"cheaper" in data and b"2/6" not in data
    box = mailbox.Maildir(str(run / "Drafts"), create=False)
    assert len(box) == len(emls) and all("D" in m.get_flags() for m in box)
    with Store(run / "db.sqlite") as store:
        assert store.count("drafts") == len(emls)
        assert store.get_cursor("linux-kernel") is not None


def test_second_run_is_quiet_and_drafts_nothing(reference, cron_env) -> None:
    env, base_url, _server = cron_env
    run, _ = reference
    before = snapshot(run)
    again = run_cron(env, base_url, run)
    assert again.returncode == 0, again.stderr
    assert again.stdout == ""  # cron mails any output: nothing new, nothing said
    assert snapshot(run) == before


def test_locked_run_exits_zero_with_one_line(cron_env, tmp_path: Path) -> None:
    env, base_url, _server = cron_env
    (tmp_path / "db.sqlite.lock").parent.mkdir(parents=True, exist_ok=True)
    with run_lock(tmp_path / "db.sqlite.lock") as held:
        assert held
        done = run_cron(env, base_url, tmp_path)
    assert done.returncode == 0
    assert done.stdout.splitlines() == ["reviewbot cron: another run holds db.sqlite.lock; nothing done"]
    assert not (tmp_path / "outbox").exists() and not (tmp_path / "db.sqlite").exists()


def test_two_concurrent_runs_never_both_run(cron_env, reference, tmp_path: Path) -> None:
    env, base_url, _server = cron_env
    procs = [
        subprocess.Popen(
            cron_cmd(base_url, tmp_path),
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    worked = [o for o, _ in outs if "draft(s) written" in o]
    assert len(worked) == 1, outs
    other = next(o for o, _ in outs if "draft(s) written" not in o)
    assert other in ("", "reviewbot cron: another run holds db.sqlite.lock; nothing done\n")
    assert snapshot(tmp_path)["outbox"] == snapshot(reference[0])["outbox"]


@pytest.mark.slow
def test_sigkill_then_rerun_matches_uninterrupted(cron_env, reference, tmp_path: Path) -> None:
    """Kill points come from the server's request log, not the wall clock: a cold run is measured first
    (its request count), then each run is killed after a random number of requests below what is left,
    so the kills land while the process runs however fast the machine is."""
    env, base_url, server = cron_env
    ref_run, ref_done = reference
    env = dict(env, XDG_CACHE_HOME=str(tmp_path / "cold-cache"))  # a cold cache: a longer run, kills in the scan too
    measure = tmp_path / "measure"
    server.reset_log()
    measured = run_cron(dict(env, XDG_CACHE_HOME=str(measure / "cache")), base_url, measure)
    assert measured.returncode == 0, measured.stderr
    cold_requests = len(server.requests)
    assert cold_requests >= 20
    work = tmp_path / "work"
    work.mkdir()
    rng = random.Random(20240601)
    kills = 0
    remaining = cold_requests  # the shared cold cache fills up: each run has fewer requests left to make
    for _ in range(6):
        if remaining < 4:
            break
        after = rng.randint(1, remaining // 2)
        server.reset_log()
        proc = subprocess.Popen(
            cron_cmd(base_url, work), env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            if wait_for_requests(server, proc, lambda paths, after=after: len(paths) >= after):
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        remaining -= len(server.requests)
        if (work / "outbox").exists():  # whatever is there is whole, or a temporary file
            for p in (work / "outbox").iterdir():
                assert p.name.startswith(".tmp-") or p.read_bytes().endswith(b"\nZo\xc3\xab\n"), p
    # and once during drafting: after the last request of a run that has everything cached
    proc = subprocess.Popen(
        cron_cmd(base_url, work), env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(min(0.5, ref_done.duration / 2))
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    final = run_cron(env, base_url, work)
    assert final.returncode == 0, final.stderr
    assert kills >= 1
    print(f"SIGKILL points: {kills} kills by request count over a {cold_requests}-request cold run")
    assert not [p.name for p in (work / "outbox").iterdir() if not p.name.endswith(".eml")]
    got, want = snapshot(work), snapshot(ref_run)
    assert got["outbox"] == want["outbox"]
    assert got["maildir"] == want["maildir"]
    assert got["rows"] == want["rows"]


def test_day_chunks_final_days_alone_then_the_mutable_tail() -> None:
    from datetime import date

    assert day_chunks(date(2024, 5, 28), date(2024, 6, 1), 2) == [
        (date(2024, 5, 28), date(2024, 5, 28)),
        (date(2024, 5, 29), date(2024, 5, 29)),
        (date(2024, 5, 30), date(2024, 5, 30)),
        (date(2024, 5, 31), date(2024, 6, 1)),
    ]
    assert day_chunks(date(2024, 6, 1), date(2024, 6, 1), 2) == [(date(2024, 6, 1), date(2024, 6, 1))]


def test_ctrl_c_midway_exits_130_with_the_cursor_at_the_last_finished_day(cron_env, reference, tmp_path: Path) -> None:
    """SIGINT during a long catch-up: one line, status 130 (no click 'Aborted!'), and the cursor already
    at the last day scanned completely, so the re-run resumes there and ends like an uninterrupted run."""
    from datetime import date

    env, base_url, server = cron_env
    env = dict(env, XDG_CACHE_HOME=str(tmp_path / "cold-cache"))
    server.reset_log()
    # Ctrl-C as at a terminal: a suite started in the background (``pytest &``) passes SIGINT down as ignored
    proc = subprocess.Popen(
        cron_cmd(base_url, tmp_path, "--rate", "0", "--cache-dir", str(tmp_path / "pages"), "-v"),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    reached = wait_for_requests(server, proc, lambda paths: "/linux-kernel/2024/05/22/" in paths)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert reached, err
    assert proc.returncode == 130, err
    assert "reviewbot cron: interrupted" in err and "Aborted!" not in err
    assert any(line[:4].isdigit() and " INFO reviewbot.fetch.http: GET " in line for line in err.splitlines())
    assert (tmp_path / "pages" / "linux-kernel" / "2024" / "05" / "16" / "index.html").exists()  # --cache-dir
    with Store(tmp_path / "db.sqlite") as store:
        cursor = store.get_cursor("linux-kernel")
    assert cursor is not None and date(2024, 5, 21) <= cursor < date(2024, 5, 30)
    server.reset_log()
    final = subprocess.run(
        cron_cmd(base_url, tmp_path, "--rate", "0", "--cache-dir", str(tmp_path / "pages")),
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert final.returncode == 0, final.stderr
    assert f"/linux-kernel/2024/05/{cursor.day:02d}/" not in [p for p, _s in server.requests]  # resumed after it
    assert snapshot(tmp_path)["rows"] == snapshot(reference[0])["rows"]


def test_cron_names_what_each_count_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two counts, two sets: the first line counts the findings on the patches of the days this run scanned;
    the drafting line counts every finding of the list in the database (days `reviewbot scan` stored before
    included), and says so. Here `scan` stored June and July 2023 and cron scans from the scan's cursor (31 July,
    the last two days being still open to change) to 1 August: it read "1 finding(s) in range", then "4
    finding(s): 1 drafted now, ...", two counts that seemed to disagree."""
    from click.testing import CliRunner

    from conftest import DATA_MIRROR
    from reviewbot.cli import main

    config = tmp_path / "config.toml"
    config.write_text(
        'rate = 0\ndraft-unsure = true\n[identity]\nname = "Zoe Reviewer"\nemail = "zoe@example.com"\n',
        encoding="utf-8",
    )
    for var in ("REVIEWBOT_DB", "REVIEWBOT_CACHE_DIR", "REVIEWBOT_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    monkeypatch.setenv("REVIEWBOT_NOW", "2023-08-01T12:00:00")
    db = tmp_path / "db.sqlite"
    where = ["--offline", "--cache-dir", str(DATA_MIRROR), "--db", str(db)]
    scanned = CliRunner().invoke(main, ["scan", "linux-kernel", "--since", "2023-06", "--until", "2023-07", *where])
    assert scanned.exit_code == 0, scanned.output
    done = CliRunner().invoke(main, ["cron", "linux-kernel", *where, "--outbox", str(tmp_path / "out"), "--no-lore"])
    assert done.exit_code == 0, done.output
    with Store(db) as store:
        these = sum(store.finding_counts("linux-kernel", date(2023, 7, 31), date(2023, 8, 1)).values())
        every = sum(store.finding_counts("linux-kernel").values())
    assert (these, every) == (2, 5)  # June and July's findings are in the database, two on this run's days
    lines = done.output.splitlines()
    assert lines[0].startswith("reviewbot cron linux-kernel: 2023-07-31 .. 2023-08-01, ")
    assert lines[0].endswith(f", {these} finding(s) on the patches of these days")
    (summary,) = [line for line in lines if " drafted now, " in line and "draft(s) written" not in line]
    assert summary.startswith(f"{every} finding(s) of linux-kernel in the database (every day, not only these): ")
    parts = [int(part.split(" ", 1)[0]) for part in summary.split(": ", 1)[1].split(", ")]
    assert sum(parts) == every
