"""A local copy of lore's epochs as a source: ``scan --source lore --lore-url file:///DIR`` (or a path).

A maintainer with a mirror of lore (grokmirror), a public-inbox inbox of
their own, or the one-epoch git snapshots some projects publish, scans
without any server: :class:`LocalInbox` reads the epochs where they lie, with
the same git reading as :class:`~reviewbot.fetch.lore.InboxMirror` (``git
log`` for the dates, one ``git cat-file --batch`` for the picked messages),
and never clones, fetches or opens a connection.

Where the epochs of inbox ``I`` are looked for under ``DIR`` (the first
layout that has any wins):

* ``DIR`` is itself a git repository with a ``HEAD``: one epoch, number 0 (a
  v1 inbox, or one epoch cloned or snapshotted on its own);
* ``DIR/git/N.git``: a public-inbox v2 inbox folder;
* ``DIR/I/git/N.git``: a grokmirror tree of lore (one folder per inbox);
* ``DIR/N.git``: a folder of epochs (as reviewbot's own cache keeps them).

Messages are picked by the day of their Date header in UTC: public-inbox
writes the Date into the commit's author time, and git keeps that time as
seconds since the epoch, apart from the zone it prints. Some snapshots carry
zones no clock has (``+2100`` for a ``-0300`` Date, ``+1700`` for
``-0700``); only the printed zone is wrong, so the zone is never read:
on linux-kbuild's snapshot, 31,699 of 31,699 author times equal the
message's Date header to the second.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from reviewbot.config import Settings
from reviewbot.errors import UsageError
from reviewbot.fetch.lore import RUN_SECONDS, Epoch, InboxMirror

log = logging.getLogger(__name__)

__all__ = ["LocalInbox", "is_local", "local_root", "open_inbox"]

_EPOCH_DIR_RE = re.compile(r"^(\d{1,6})\.git$")


def is_local(lore_url: str | None) -> bool:
    """True when ``lore_url`` names a folder on this machine (``file:///DIR`` or a path), not a host."""
    value = (lore_url or "").strip()
    if value.startswith("file:"):
        return True
    return bool(value) and "://" not in value and (value.startswith(("/", ".", "~")) or Path(value).exists())


def local_root(lore_url: str) -> Path:
    """The folder ``lore_url`` names; UsageError when it is not a folder here."""
    value = lore_url.strip()
    if value.startswith("file:"):
        parts = urlsplit(value)
        if parts.netloc not in ("", "localhost"):
            raise UsageError(
                f"{lore_url!r}: a file URL names a folder on this machine (file:///DIR)", subject="lore-url"
            )
        path = Path(unquote(parts.path))
    else:
        path = Path(value).expanduser()
    if not path.is_dir():
        raise UsageError(f"{lore_url!r}: no such folder (a local lore copy is a folder of epochs)", subject="lore-url")
    return path.resolve()


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def _numbered(folder: Path) -> dict[int, Path]:
    out: dict[int, Path] = {}
    if folder.is_dir():
        for entry in folder.iterdir():
            m = _EPOCH_DIR_RE.match(entry.name)
            if m and _is_git_dir(entry):
                out[int(m.group(1))] = entry
    return out


def find_epochs(root: Path, inbox: str) -> dict[int, Path]:
    """Epoch number -> git folder for ``inbox`` under ``root`` (layouts in the module's text); {} when none."""
    if _is_git_dir(root):
        return {0: root}
    for folder in (root / "git", root / inbox / "git", root):
        found = _numbered(folder)
        if found:
            return found
    return {}


class LocalInbox(InboxMirror):
    """The epochs of one inbox in a folder on this machine, read in place (no clone, no fetch).

    Same reading as :class:`InboxMirror`; :meth:`epochs` are the ones found
    under ``root`` (all of them are read: a ``git log`` each), and
    :meth:`sync` does nothing.
    ``lore_url`` is ``file://ROOT``: it names the copy in cursors and sources.
    """

    def __init__(self, settings: Settings, inbox: str, root: Path) -> None:
        from reviewbot.fetch.http import RateLimiter

        self.root = Path(root)
        self.lore_url = f"file://{self.root}"
        self.settings = replace(settings, lore_url=self.lore_url)
        self.inbox = inbox
        self._session = None
        self.limiter = RateLimiter(0)
        self.git_operations = 0
        self.git_new_objects = 0
        self.unreachable = None
        # the reading's bounds as for a host (InboxMirror): a message too large is passed and named, git's
        # time is budgeted; nothing is cloned here, so no temporary clones are ever cleaned in the copy
        self.started = time.monotonic()
        self.run_seconds = RUN_SECONDS
        self.passed: list[tuple[str, str]] = []
        self._cleaned = True
        self._paths = find_epochs(self.root, inbox)
        if not self._paths:
            raise UsageError(
                f"{self.root}: no epochs of {inbox!r} here (looked for a git repository itself, "
                f"git/N.git, {inbox}/git/N.git and N.git)",
                subject="lore-url",
            )

    def path(self, number: int) -> Path:
        return self._paths.get(number, self.root / f"{number}.git")

    def clone_url(self, number: int) -> str:
        return str(self.path(number))

    def epochs(self) -> list[Epoch]:
        # every epoch is read (its git log only, locally): the order of commits in a copy need not be the
        # order of arrival, so an epoch's last commit says nothing sure about the days it holds
        return [Epoch(number, self.clone_url(number)) for number in sorted(self._paths)]

    def local_epochs(self) -> list[Epoch]:
        return self.epochs()

    def sync(self, epoch: Epoch) -> bool:
        return False  # read in place: nothing to bring


def open_inbox(settings: Settings, inbox: str) -> InboxMirror:
    """The epochs of ``inbox`` at ``settings.lore_url``: a :class:`LocalInbox` for a folder, else a mirror."""
    if is_local(settings.lore_url):
        return LocalInbox(settings, inbox, local_root(settings.lore_url))
    return InboxMirror(settings, inbox)
