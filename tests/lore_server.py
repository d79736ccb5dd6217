"""A real public-inbox server on 127.0.0.1: the tests' stand-in for lore.kernel.org.

:func:`build_inbox` makes a v2 inbox (``public-inbox-init -V2``) and delivers
mails into it one by one with ``public-inbox-mda --no-precheck`` (spam check
off in its config), with ``HOME`` and ``PI_CONFIG`` inside the given folder so
nothing of the user's is read or written. :class:`LoreServer` runs
``public-inbox-httpd -W0`` on a free port of 127.0.0.1 (it is handed the bound
socket as fd 3 with ``LISTEN_FDS``, so no other process can take the port
between choosing and binding it) and stops it by its PID.

Debian's ``public-inbox`` package provides the three programs (``.ci/run``
installs it); without them :data:`MISSING` names what is missing and the tests
skip with that reason.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterable

PROGRAMS = ("public-inbox-init", "public-inbox-mda", "public-inbox-httpd")
MISSING = [p for p in PROGRAMS if shutil.which(p) is None]
SKIP_REASON = (
    f"public-inbox is not installed ({', '.join(MISSING)} not found; "
    "Debian: apt-get install public-inbox, as .ci/run does)"
)
LIST_ADDRESS = "linux-kernel@vger.kernel.org"

_HAND_OVER = (
    "import os, sys\n"
    "os.dup2(int(sys.argv[1]), 3)\n"
    "os.environ['LISTEN_PID'] = str(os.getpid())\n"
    "os.execvp('public-inbox-httpd', ['public-inbox-httpd', '-W0'])\n"
)


def pi_env(home: Path) -> dict[str, str]:
    """The environment for public-inbox programs: HOME and PI_CONFIG inside ``home``."""
    env = dict(os.environ)
    env.update(
        {"HOME": str(home), "PI_CONFIG": str(home / "pi_config"), "LC_ALL": "C", "ORIGINAL_RECIPIENT": LIST_ADDRESS}
    )
    return env


def build_inbox(home: Path, name: str, messages: Iterable[bytes]) -> Path:
    """A v2 inbox ``name`` under ``home`` holding ``messages`` (raw RFC 5322 bytes, in this order)."""
    home.mkdir(parents=True, exist_ok=True)
    inbox = home / name
    env = pi_env(home)
    subprocess.run(
        ["public-inbox-init", "-V2", name, str(inbox), f"http://127.0.0.1/{name}", LIST_ADDRESS],
        env=env,
        check=True,
        capture_output=True,
    )
    subprocess.run(
        ["git", "config", "-f", env["PI_CONFIG"], "publicinboxmda.spamcheck", "none"],
        env=env,
        check=True,
        capture_output=True,
    )
    for data in messages:
        deliver(home, data)
    return inbox


def deliver(home: Path, data: bytes) -> None:
    """Deliver one mail into the inbox configured under ``home`` (as the list would)."""
    done = subprocess.run(["public-inbox-mda", "--no-precheck"], input=data, env=pi_env(home), capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"public-inbox-mda failed ({done.returncode}): {done.stderr.decode(errors='replace')}")


class LoreServer:
    """``public-inbox-httpd`` serving the inboxes configured under ``home`` on 127.0.0.1."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "LoreServer":
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        env = pi_env(self.home)
        env.update({"LISTEN_FDS": "1"})
        log = open(self.home / "httpd.log", "ab")
        # a small launcher puts the socket on fd 3 and names itself in LISTEN_PID, then becomes the
        # daemon (exec keeps the PID), as systemd's socket activation would
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HAND_OVER, str(sock.fileno())],
            env=env,
            stdout=log,
            stderr=log,
            pass_fds=(sock.fileno(),),
        )
        sock.close()
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/robots.txt", timeout=2):
                    break
            except urllib.error.HTTPError:
                break  # it answers (404: no robots.txt)
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"public-inbox-httpd exited: {(self.home / 'httpd.log').read_text()}") from None
                time.sleep(0.05)
        else:
            self.stop()
            raise RuntimeError("public-inbox-httpd did not answer within 30 s")
        return self

    def stop(self) -> None:
        """Stop the daemon by its PID and wait for it."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> "LoreServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---------------------------------------------------------------------- pytest fixtures (used via conftest)

import email.utils  # noqa: E402
import mailbox  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from datetime import date, timezone  # noqa: E402

import pytest  # noqa: E402

#: The fixture inbox holds the corpus messages dated (UTC) in this range: June 2023 and a few days around it.
INBOX_FIRST, INBOX_LAST = date(2023, 5, 25), date(2023, 7, 5)


@dataclass
class CorpusMail:
    """One corpus message: its Message-ID (no brackets), Date as a UTC day, raw bytes."""

    message_id: str
    day: date
    data: bytes


def corpus_mails(mbox_path: Path, first: date, last: date) -> list[CorpusMail]:
    """The messages of the corpus mbox whose Date (UTC) lies in ``first`` .. ``last``, in mbox order."""
    out = []
    box = mailbox.mbox(str(mbox_path), create=False)
    try:
        for key in box.iterkeys():
            data = box.get_bytes(key)
            head = email.message_from_bytes(data.split(b"\n\n", 1)[0] + b"\n\n")
            when = email.utils.parsedate_to_datetime(head["Date"])
            day = when.astimezone(timezone.utc).date()
            if first <= day <= last:
                mid = email.utils.unquote(head["Message-ID"].strip())
                out.append(CorpusMail(mid, day, data))
    finally:
        box.close()
    return out


@dataclass
class LoreInbox:
    """The built fixture inbox: its public-inbox home (config, inbox ``lkml``) and the mails in it."""

    home: Path
    mails: list[CorpusMail]


def copy_inbox(src: LoreInbox, dst: Path) -> LoreInbox:
    """A copy of an inbox home at ``dst`` (for tests that add mail), its config pointing at the copy."""
    shutil.copytree(src.home, dst, symlinks=True, ignore=shutil.ignore_patterns("httpd.log"))
    subprocess.run(
        ["git", "config", "-f", str(dst / "pi_config"), "publicinbox.lkml.inboxdir", str(dst / "lkml")],
        check=True,
        capture_output=True,
    )
    return LoreInbox(dst, list(src.mails))


@pytest.fixture(scope="session")
def lore_inbox(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> LoreInbox:
    """Inbox ``lkml`` built with public-inbox from the sample mails of tests/data dated 2023-05-25 .. 2023-07-05."""
    if MISSING:
        pytest.skip(SKIP_REASON)
    mails = corpus_mails(data_dir / "mail" / "lkml-sample.mbox", INBOX_FIRST, INBOX_LAST)
    home = tmp_path_factory.mktemp("lore-home")
    build_inbox(home, "lkml", (m.data for m in mails))
    return LoreInbox(home, mails)


@pytest.fixture(scope="session")
def lore_server(lore_inbox: LoreInbox):
    """public-inbox-httpd over :func:`lore_inbox` on 127.0.0.1 for the whole session."""
    with LoreServer(lore_inbox.home) as server:
        yield server
