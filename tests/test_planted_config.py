"""Issue 24: a config file someone else left in a tree (a clone, a shared folder) is not the user's.

Real processes in a real git repository: ``reviewbot check`` reads the repository's project config
for how its own patches are checked (select, ignore, strict, fail-on, per-path ignores) and for
nothing else (a planted ``rules-dirs`` would run the tree's Python; identity, hosts and paths would
send drafts and data elsewhere): each other key is named in one warning and not obeyed. A config
above the repository's top, and any project config for the other commands, is not read at all.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reviewbot.config import shipped_cache_dir

BARRIER_C = "int ready, value;\n\nvoid publish(int v)\n{\n\tvalue = v;\n\tready = 1;\n}\n"


def _git(repo: Path, *args: str) -> bytes:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2023-06-01T12:00:00Z", "GIT_COMMITTER_DATE": "2023-06-01T12:00:00Z"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env).stdout


def _repo(path: Path) -> bytes:
    """A git repository at ``path`` whose last commit adds an uncommented smp_wmb(); its patch."""
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "master")
    _git(path, "config", "user.name", "Ada Lovelace")
    _git(path, "config", "user.email", "ada@example.org")
    (path / "kernel").mkdir()
    (path / "kernel/pub.c").write_text(BARRIER_C)
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "pub: add publish()")
    (path / "kernel/pub.c").write_text(BARRIER_C.replace("\tvalue = v;\n", "\tvalue = v;\n\tsmp_wmb();\n"))
    _git(path, "commit", "-q", "-am", "pub: order value before ready\n\nThe reader may see ready first.")
    return _git(path, "format-patch", "-1", "--stdout")


def _planted_rule(folder: Path, marker: Path) -> Path:
    """A rules folder whose module, once imported, leaves ``marker`` behind (the tree's code ran)."""
    folder.mkdir()
    (folder / "rb999_planted.py").write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n")
    return folder


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REVIEWBOT_", "XDG_"))}
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        env[var] = str(home / var.lower())
    env["REVIEWBOT_LORE_URL"] = "off"
    return env


def _reviewbot(args: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None):
    exe = shutil.which("reviewbot")
    cmd = [exe] if exe else [sys.executable, "-m", "reviewbot"]
    return subprocess.run([*cmd, *args], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=120)


def test_check_obeys_only_how_the_repository_is_checked(tmp_path: Path) -> None:
    repo = tmp_path / "linux"
    patch = _repo(repo)
    env = _env(tmp_path)
    plain = _reviewbot(["check", "--format", "terse", "-"], repo, env, patch)
    assert plain.returncode == 1 and b"RB102" in plain.stdout  # the patch has a finding to ignore

    marker = tmp_path / "planted-code-ran"
    rules = _planted_rule(tmp_path / "planted-rules", marker)
    cfg = repo / ".reviewbot.toml"
    cfg.write_text(
        'ignore = ["RB102"]\n'
        f'rules-dirs = ["{rules}"]\n'
        f'db-path = "{tmp_path / "planted.db"}"\n'
        'lore-url = "http://attacker.example"\n'
        "[identity]\nname = 'Eve'\nemail = 'eve@attacker.example'\n"
    )
    res = _reviewbot(["check", "--format", "terse", "-"], repo / "kernel", env, patch)
    assert not marker.exists()  # the tree's Python never ran
    assert res.returncode == 0 and res.stdout == b""  # its ignore is obeyed
    warnings = res.stderr.decode().splitlines()
    assert [line.split(": ")[3].split(" ")[0] for line in warnings] == [
        "'rules-dirs'",
        "'db-path'",
        "'lore-url'",
        "'identity'",
    ]
    for line in warnings:
        assert line.startswith(f"reviewbot: warning: {cfg}: ") and "not obeyed" in line


def test_a_config_above_the_repository_is_not_its_own(tmp_path: Path) -> None:
    """A shared parent folder (/tmp, a home directory another user writes to) holds no project config."""
    repo = tmp_path / "shared" / "linux"
    patch = _repo(repo)
    marker = tmp_path / "planted-code-ran"
    rules = _planted_rule(tmp_path / "planted-rules", marker)
    (tmp_path / "shared" / "pyproject.toml").write_text(
        f'[tool.reviewbot]\nignore = ["RB102"]\nrules-dirs = ["{rules}"]\n'
    )
    res = _reviewbot(["check", "--format", "terse", "-"], repo / "kernel", _env(tmp_path), patch)
    assert res.returncode == 1 and b"RB102" in res.stdout and res.stderr == b""
    assert not marker.exists()
    # outside any repository: nothing above is read either
    outside = tmp_path / "shared" / "notes"
    outside.mkdir()
    res = _reviewbot(["check", "--format", "terse", "-"], outside, _env(tmp_path), patch)
    assert res.returncode == 1 and b"RB102" in res.stdout and not marker.exists()


@pytest.mark.skipif(shipped_cache_dir() is None, reason="needs the checkout's archive_cache/")
def test_scan_reads_no_project_config(tmp_path: Path) -> None:
    """`reviewbot scan` inside a tree with a planted config: its database, rules and hosts are the user's."""
    repo = tmp_path / "linux"
    _repo(repo)
    marker = tmp_path / "planted-code-ran"
    rules = _planted_rule(tmp_path / "planted-rules", marker)
    planted_db = tmp_path / "planted.db"
    (repo / ".reviewbot.toml").write_text(f'db-path = "{planted_db}"\nrules-dirs = ["{rules}"]\n')
    cache = shipped_cache_dir() / "lists.openwall.net"  # type: ignore[operator]
    env = _env(tmp_path)
    res = _reviewbot(
        [
            "scan",
            "linux-kernel",
            "--offline",
            "--since",
            "2023-06-01",
            "--until",
            "2023-06-01",
            "--cache-dir",
            str(cache),
        ],
        repo,
        env,
    )
    assert res.returncode in (0, 3), res.stderr
    assert not planted_db.exists() and not marker.exists()
    assert (tmp_path / "xdg_data_home" / "reviewbot" / "reviewbot.db").is_file()
    assert b"planted" not in res.stderr


def test_an_unknown_key_in_a_project_config_is_called_unknown(tmp_path: Path) -> None:
    """A typo in a project config is no setting to move to the user's config: it is named as unknown."""
    repo = tmp_path / "linux"
    patch = _repo(repo)
    (repo / ".reviewbot.toml").write_text('bogus = 1\nignore = ["RB102"]\n')
    res = _reviewbot(["check", "--format", "terse", "-"], repo, _env(tmp_path), patch)
    assert res.returncode == 0 and res.stdout == b""
    (line,) = res.stderr.decode().splitlines()
    assert line == f"reviewbot: warning: {repo / '.reviewbot.toml'}: unknown setting 'bogus' ignored"
