"""The real b4 drives ``reviewbot check`` as its per-patch check command.

* ``b4 prep --check`` with ``b4.prep-perpatch-check-cmd = reviewbot check --format terse -``
  in a throwaway git repo (b4 reads one finding per output line);
* b4's review-check runner (``b4.review.checks.run_perpatch_checks``, what
  ``review-perpatch-check-cmd`` uses) on ``reviewbot check --format b4 -``,
  so the JSON is read by b4's own parser.

HOME and the XDG dirs point into tmp_path: b4 caches check results there.
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import UNCOMMENTED, COMMENTED, corpus_message, git

pytestmark = pytest.mark.slow


def reviewbot_cmdline() -> str:
    """The command line b4 should run: the installed script beside this Python, else ``python -m reviewbot``."""
    script = Path(sys.executable).parent / "reviewbot"
    if script.is_file():
        return shlex.quote(str(script))
    return f"{shlex.quote(sys.executable)} -m reviewbot"


def b4(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(repo.parent / "home"), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        [sys.executable, "-m", "b4.command", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def prep_repo(isolated_env: Path) -> Path:
    repo = isolated_env / "linux"
    repo.mkdir()
    (isolated_env / "home").mkdir()
    git(repo, "init", "-q", "-b", "master")
    git(repo, "config", "user.name", "Ada Lovelace")
    git(repo, "config", "user.email", "ada@example.org")
    (repo / "kernel").mkdir()
    (repo / "kernel/foo.c").write_text("int value;\n\nvoid publish(int v)\n{\n\tvalue = v;\n}\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "foo: add publish")
    git(repo, "config", "b4.prep-perpatch-check-cmd", f"{reviewbot_cmdline()} check --format terse -")
    proc = b4(repo, "prep", "-n", "demo", "-f", "master")
    assert proc.returncode == 0, proc.stderr
    return repo


def test_b4_prep_check_reads_terse_output(prep_repo: Path) -> None:
    (prep_repo / "kernel/foo.c").write_text("int value;\n\nvoid publish(int v)\n{\n\tvalue = v;\n\tsmp_mb();\n}\n")
    git(
        prep_repo,
        "commit",
        "-q",
        "-am",
        "foo: order the store",
        "-m",
        "Order it.",
        "-m",
        "Signed-off-by: Ada Lovelace <ada@example.org>",
    )
    proc = b4(prep_repo, "prep", "--check")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "foo: order the store" in out
    (line,) = [x for x in out.splitlines() if "RB102" in x]
    assert ": WARNING:RB102: smp_mb()" in line and "without a comment" in line
    assert "Success: 0, Warning: 1, Error: 0" in out


def test_b4_prep_check_clean_patch_passes(prep_repo: Path) -> None:
    (prep_repo / "kernel/foo.c").write_text("int value;\n\nvoid publish(int new_value)\n{\n\tvalue = new_value;\n}\n")
    git(
        prep_repo,
        "commit",
        "-q",
        "-am",
        "foo: rename the argument",
        "-m",
        "Say what it is.",
        "-m",
        "Signed-off-by: Ada Lovelace <ada@example.org>",
    )
    proc = b4(prep_repo, "prep", "--check")
    out = proc.stdout + proc.stderr
    assert "Success: 1, Warning: 0, Error: 0" in out, out


def _checks_env(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp / "data"))


def test_b4_review_runner_parses_our_json(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from b4.review import checks

    _checks_env(isolated_env, monkeypatch)
    cmd = f"{reviewbot_cmdline()} check --format b4 -"
    msgs = []
    for mid in (UNCOMMENTED, COMMENTED):
        raw = corpus_message(mid)
        msgs.append((mid, email.message_from_bytes(raw.split(b"\n", 1)[1], policy=email.policy.default)))
    results = checks.run_perpatch_checks(msgs, [cmd], str(isolated_env))
    (bad,) = results[UNCOMMENTED]
    assert (bad["tool"], bad["status"], bad["summary"]) == ("reviewbot", "warn", "1 warning")
    assert bad["url"].endswith("Documentation/memory-barriers.txt")
    details = json.loads(bad["details"])
    assert details[0]["status"] == "warn"
    assert details[0]["description"].startswith("WARNING:RB102: smp_mb()")
    assert "without a comment" in details[0]["description"]
    assert details[0]["description"].endswith("(io_uring/io_uring.c:596)")
    assert details[0]["srcline"] == "+\t\tsmp_mb();"
    (good,) = results[COMMENTED]
    assert (good["tool"], good["status"], good["summary"]) == ("reviewbot", "pass", "passed all checks")


def test_b4_review_runner_gets_nothing_for_a_reply(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, shared_dir: Path
) -> None:
    """A reply is nothing to report: ``[]``, which b4's runner turns into no result at all."""
    from b4.review import checks

    _checks_env(isolated_env, monkeypatch)
    raw = (shared_dir / "cases" / "C09.eml").read_bytes()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    proc = subprocess.run(
        [*shlex.split(reviewbot_cmdline()), "check", "--format", "b4", "-"], input=raw, capture_output=True, timeout=120
    )
    assert (proc.returncode, proc.stdout) == (0, b"[]\n")
    results = checks.run_perpatch_checks(
        [("reply@x", msg)], [f"{reviewbot_cmdline()} check --format b4 -"], str(isolated_env)
    )
    assert results == {"reply@x": []}
