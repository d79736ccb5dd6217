"""lore.kernel.org (public-inbox): raw messages by Message-ID, and a list's git epochs.

lists.openwall.net hides every address (``ada@...mple.org``); the kernel's own
archive, lore.kernel.org, runs public-inbox and serves each message raw, with
its real headers, and each list as git repositories ("epochs", one commit per
message holding the file ``m``). This module reads both, politely:

* :class:`RawLookup`: ``GET LORE/<inbox>/<Message-ID>/raw`` (then
  ``LORE/all/...`` when the list's inbox does not have it) through the same
  :class:`~reviewbot.fetch.http.PoliteSession` as the archive (rate limit,
  User-Agent with the contact, bounded retries, Retry-After, robots.txt).
  Raw messages never change: they are kept on disk and never fetched twice.
* :class:`AddressCompleter`: the drafter's hook. For a message whose addresses
  the archive obfuscated it returns the same message with the real From, To,
  Cc and References, but only when lore's copy has the same Message-ID and the
  same subject; otherwise the message unchanged, and a note saying why.
* :class:`InboxMirror`: the list's epochs (from ``LORE/<inbox>/manifest.js.gz``,
  or by probing ``LORE/<inbox>/0``, ``/1``, ...) cloned once with ``git clone
  --mirror`` under the cache and brought up to date with ``git fetch`` only when
  the manifest's fingerprint says the epoch changed; commits are picked by their
  author date (public-inbox writes the message's Date there) without reading
  any message, and the picked ``m`` blobs are read through one ``git cat-file
  --batch``.

Library choice: ``ezpi`` (kernel.org's own small public-inbox library) was
read first. It reads a local v2 inbox from a named cursor onwards, but every
message after the cursor, with no way to pick a date range without reading
each blob, it keeps its cursor in a JSON file inside the inbox (ours belongs
in the database, beside what was stored), and it neither clones nor fetches.
What we need from it is a ``git log`` and a ``git cat-file --batch`` pipe, so
this module drives git directly; from ezpi it takes the lessons: skip commits
without ``m`` (purges), and check that a cursor is still on the history
(``git merge-base --is-ancestor``) before reading from it.

Layout of the cache (the URL paths, under ``~/.cache/reviewbot/archive/HOST``)::

    <inbox>/<escaped Message-ID>/raw     LORE/<inbox>/<Message-ID>/raw
    <inbox>/git/<N>.git                  LORE/<inbox>/<N>  (a bare mirror clone)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import zlib
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence
from urllib.parse import quote, urlsplit

from reviewbot.config import Settings, default_cache_root
from reviewbot.errors import FetchError, HostUnreachable, ParseError, UsageError
from reviewbot.models import Address, Message, RawMessage
from reviewbot.pids import pid_alive

log = logging.getLogger(__name__)

__all__ = [
    "INBOX_OF_LIST",
    "AddressCompleter",
    "Commit",
    "Epoch",
    "InboxMirror",
    "RawLookup",
    "inbox_for",
    "lore_cache_dir",
    "pick_epochs",
    "raw_url",
    "split_mboxrd",
]

#: Lists whose public-inbox name differs from the list name (linux-kernel is ``lkml`` on lore).
INBOX_OF_LIST = {"linux-kernel": "lkml"}

#: The inbox that searches every list on lore.kernel.org (an extindex; a mirror may not have it).
ALL_INBOX = "all"

#: How far around the asked range an epoch's last change may lie and still be read: a message
#: can arrive some days after its Date (moderation, retries), so an epoch that ended shortly
#: before the range may still hold some of it.
EPOCH_SLACK = timedelta(days=7)

#: Bounds on what a public-inbox host may hand us (issue 24: a hostile or broken host). The manifest
#: inflated: lore's per-inbox manifests are a few kilobytes; an 8 MB gzip bomb inflated to 8 GiB.
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
#: Epochs of one inbox: LKML has about 20 (each a gigabyte or so); a manifest listing 100,000 had a run
#: clone them one a second for a day.
MAX_EPOCHS = 500
#: The largest epoch number taken (numbers count up from 0; LKML's newest is about 20).
MAX_EPOCH_NUMBER = 99_999
#: The largest message read from an epoch: vger takes mails of up to 10 MiB, blists cuts at 10 MiB. A
#: larger one is passed and named in the run's ``passed`` (a 2 GB message was read whole: MemoryError).
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
#: Time for lore's network work in one run (clones, fetches, probes): the epochs not reached are named
#: in the run's errors and the next run goes on from there. One git operation gets at most this too.
RUN_SECONDS = 3 * 3600.0
#: A git transfer slower than this many bytes a second over ``timeout`` seconds is given up (then
#: retried like any transient failure): a host dripping a byte a second held a clone for 600 s.
LOW_SPEED_BYTES = 1024
#: Temporary clones (``.N.git-PID-*``) of runs that died are removed by the next run; ones made by the
#: older naming (no PID) once they are this old.
STALE_CLONE_SECONDS = 24 * 3600.0

_INBOX_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$")
_EPOCH_KEY_RE = re.compile(r"^/(?P<inbox>[^/]+)/git/(?P<n>\d{1,9})\.git$")
_FINGERPRINT_RE = re.compile(r"^[0-9a-f]{40}$")
_LAST_TIME = 253402300799  # 9999-12-31T23:59:59Z, the last second a datetime holds
_TEMP_CLONE_RE = re.compile(r"^\.(?P<n>\d+)\.git-(?:(?P<pid>\d+)-)?")


def inbox_for(list_name: str) -> str:
    """The public-inbox name of ``list_name`` on lore: ``lkml`` for linux-kernel, else the list's name."""
    inbox = INBOX_OF_LIST.get(list_name, list_name)
    if not _INBOX_RE.match(inbox) or inbox in (".", ".."):
        raise UsageError(f"{inbox!r} is not an inbox name", subject=list_name)
    return inbox


#: lore-url values that turn lore off (config ``lore-url = "off"``, ``REVIEWBOT_LORE_URL=off``, ``--no-lore``)
OFF_VALUES = ("", "off", "none", "no")


def lore_enabled(settings: Settings) -> bool:
    """False when ``settings.lore_url`` turns lore off."""
    return (settings.lore_url or "").strip().lower() not in OFF_VALUES


def check_lore_url(lore_url: str) -> str:
    """``lore_url`` without its trailing slash; UsageError unless it is an http(s) URL without a path."""
    url = (lore_url or "").rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise UsageError(
            f"{lore_url!r} is not a public-inbox host URL such as https://lore.kernel.org", subject="lore-url"
        )
    return url


def lore_cache_dir(lore_url: str) -> Path:
    """Where raw messages and epoch clones of ``lore_url`` are kept: ``~/.cache/reviewbot/archive/HOST[_PORT]``."""
    parts = urlsplit(lore_url)
    host = parts.hostname or "unknown-host"
    if parts.port:
        host = f"{host}_{parts.port}"
    return default_cache_root() / host


def _mid_url_part(message_id: str) -> str:
    """A Message-ID as one URL path segment (public-inbox escapes ``/`` and anything unusual)."""
    return quote(message_id, safe="@!$&'()*+,;=:-._~")


def _mid_file_name(message_id: str) -> str:
    """A Message-ID as one safe file name: percent-escaped, never ``.``/``..``, long ones hashed."""
    name = quote(message_id, safe="@+-_=")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name) > 180:
        name = name[:100] + "-" + hashlib.sha256(message_id.encode("utf-8", "surrogatepass")).hexdigest()
    return name


def raw_url(lore_url: str, inbox: str, message_id: str) -> str:
    """``LORE/<inbox>/<Message-ID>/raw``."""
    return f"{lore_url.rstrip('/')}/{inbox}/{_mid_url_part(message_id)}/raw"


def message_url(lore_url: str, inbox: str, message_id: str) -> str:
    """``LORE/<inbox>/<Message-ID>/``: the message's page on lore (for people to click)."""
    return f"{lore_url.rstrip('/')}/{inbox}/{_mid_url_part(message_id)}/"


_MBOXRD_FROM = re.compile(rb"^>(>*From )", re.MULTILINE)


def split_mboxrd(data: bytes) -> list[bytes]:
    """The messages of public-inbox's ``raw`` answer (mboxrd: ``From mboxrd@z ...`` separators,
    ``>From`` escaping undone by one ``>``). Data without a separator is one message."""
    if not data.startswith(b"From "):
        return [data] if data.strip() else []
    out: list[bytes] = []
    for chunk in re.split(rb"(?m)^From [^\n]*\n", data):
        if not chunk.strip():
            continue
        chunk = _MBOXRD_FROM.sub(rb"\1", chunk)
        if chunk.endswith(b"\n\n"):
            chunk = chunk[:-1]  # the empty line mboxrd puts before the next separator
        out.append(chunk)
    return out


def _norm_subject(text: str) -> str:
    return " ".join((text or "").split())


def _subject_matches(archived: str, real: str) -> bool:
    """True when the archive's subject is the real one (the archive may have obfuscated addresses in it)."""
    a, r = _norm_subject(archived), _norm_subject(real)
    if a == r:
        return True
    if "@..." not in a:
        return False
    pattern = "@.{3}".join(re.escape(part) for part in a.split("@..."))
    return re.fullmatch(pattern, r) is not None


# ---------------------------------------------------------------------- raw messages


class RawLookup:
    """``LORE/<inbox>/<Message-ID>/raw``, politely, kept on disk once fetched.

    ``settings`` gives the politeness (rate, retries, Retry-After cap,
    timeout, User-Agent, robots.txt) and ``lore_url``; ``session`` a
    :class:`~reviewbot.fetch.http.PoliteSession` to share (default: one of
    its own, made on first use); ``cache_root`` the folder for raw messages
    (default :func:`lore_cache_dir`). A 404 in the list's inbox is asked of
    ``LORE/all/`` once; answers are remembered for the run.
    """

    def __init__(self, settings: Settings, *, session: Any = None, cache_root: Path | None = None) -> None:
        self.lore_url = check_lore_url(settings.lore_url)
        self.settings = replace(settings, base_url=self.lore_url)
        self._session = session
        self.cache_root = Path(cache_root) if cache_root is not None else lore_cache_dir(self.lore_url)
        self.unreachable: HostUnreachable | None = None
        self.from_cache = 0
        self.fetched = 0
        self._missing: set[tuple[str, str]] = set()

    @property
    def session(self) -> Any:
        if self._session is None:
            from reviewbot.fetch.http import PoliteSession

            self._session = PoliteSession(self.settings)
        return self._session

    @property
    def requests(self) -> int:
        """HTTP requests made so far (retries and robots.txt included)."""
        return int(getattr(self._session, "requests_made", 0)) if self._session is not None else 0

    def cache_path(self, inbox: str, message_id: str) -> Path:
        """The file holding the raw answer for one Message-ID of one inbox."""
        return self.cache_root / inbox / _mid_file_name(message_id) / "raw"

    def raw(self, message_id: str, inbox: str) -> list[bytes]:
        """The messages lore archived under ``message_id`` (usually one); [] when lore has none.

        Looks in ``inbox``, then in ``all``. Raises HostUnreachable when the
        host cannot be reached (and every later call at once, without a
        request), FetchError for other failures (after the session's retries).
        """
        for where in dict.fromkeys((inbox, ALL_INBOX)):
            data = self._one(message_id, where)
            if data is not None:
                return split_mboxrd(data)
        return []

    def _one(self, message_id: str, inbox: str) -> bytes | None:
        path = self.cache_path(inbox, message_id)
        try:
            data = path.read_bytes()
        except OSError:
            data = None
        if data:
            self.from_cache += 1
            return data
        if (inbox, message_id) in self._missing:
            return None
        if self.unreachable is not None:
            raise self.unreachable
        url = raw_url(self.lore_url, inbox, message_id)
        try:
            page = self.session.get(url)
        except HostUnreachable as exc:
            self.unreachable = exc
            raise
        except FetchError as exc:
            if exc.status in (404, 410):
                self._missing.add((inbox, message_id))
                return None
            raise
        self.fetched += 1
        self._keep(path, page.body)
        return page.body

    def _keep(self, path: Path, body: bytes) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".raw-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(body)
            os.replace(tmp, path)
        except OSError as exc:
            log.warning("%s: could not write the cache: %s", path, exc.strerror)

    def close(self) -> None:
        if self._session is not None:
            self._session.close()


@dataclass(frozen=True)
class Completion:
    """What the lookup of one message's real headers gave: ``completed`` or why not (``reason``)."""

    message_id: str
    completed: bool
    reason: str = ""


@dataclass
class AddressCompleter:
    """The drafter's hook: real From/To/Cc/References of an archived message, from lore.

    Call it with a :class:`Message`; it returns the message with lore's real
    headers when its addresses were obfuscated and lore has the same
    Message-ID with the same subject, else the message unchanged. Each lookup
    is kept in ``results``; once lore cannot be reached no further request is
    made and ``unreachable`` says why (the drafts keep the list-only fallback).
    """

    lookup: RawLookup
    results: list[Completion] = field(default_factory=list)

    @classmethod
    def from_settings(cls, settings: Settings) -> "AddressCompleter | None":
        """A completer for ``settings.lore_url``; None when lookups are off (empty lore-url)."""
        if not lore_enabled(settings):
            return None
        return cls(RawLookup(settings))

    @property
    def unreachable(self) -> str | None:
        """Why lore could not be reached, when it could not."""
        exc = self.lookup.unreachable
        return exc.message if exc is not None else None

    def __call__(self, message: Message) -> Message:
        if not _needs_real_addresses(message):
            return message
        mid = message.message_id
        try:
            inbox = inbox_for(message.list_name or "linux-kernel")
            found = self.lookup.raw(mid, inbox)
        except (FetchError, UsageError) as exc:
            return self._keep(message, False, f"lore lookup failed: {exc.message}")
        if not found:
            return self._keep(message, False, "not archived on lore")
        from reviewbot.parse.mail import parse_rfc822

        reasons: list[str] = []
        agreeing: list[Message] = []
        for data in found[:MAX_COPIES]:
            try:
                real = parse_rfc822(data, raw_url(self.lookup.lore_url, inbox, mid))
            except ParseError as exc:
                reasons.append(f"lore's copy cannot be parsed: {exc.message}")
                continue
            why = _disagreement(message, real)
            if why:
                reasons.append(f"lore's copy {why}")
                continue
            agreeing.append(real)
        if len(found) > MAX_COPIES:
            reasons.append(f"lore holds {len(found)} copies; only the first {MAX_COPIES} were read")
        kinds = {_address_key(real) for real in agreeing}
        if len(kinds) > 1:
            # two copies both fit what the archive shows but name other people: not certain which is real
            return self._keep(
                message, False, f"lore holds {len(agreeing)} copies that fit the archive with other addresses"
            )
        if agreeing:
            real = agreeing[0]
            assert real.from_addr is not None
            done = replace(
                message,
                from_addr=real.from_addr,
                to=real.to,
                cc=real.cc,
                references=real.references or message.references,
                in_reply_to=real.in_reply_to or message.in_reply_to,
            )
            return self._keep(done, True)
        return self._keep(message, False, "; ".join(dict.fromkeys(reasons)) or "no usable copy on lore")

    def refused(self, message_id: str) -> str:
        """Why lore's copy of ``message_id`` was not taken (empty when it was, or was not asked)."""
        for r in reversed(self.results):
            if r.message_id == message_id:
                return "" if r.completed else r.reason
        return ""

    def _keep(self, message: Message, completed: bool, reason: str = "") -> Message:
        self.results.append(Completion(message.message_id, completed, reason))
        if not completed:
            log.info("<%s>: addresses not completed from lore: %s", message.message_id, reason)
        return message

    def lines(self, incomplete: int | None = None) -> list[str]:
        """Human lines for the command's output: lookups made, and why some did not complete.

        ``incomplete``: how many drafts the run marked incomplete (the summary's count), so an
        unreachable lore is said with the same number: drafts completed otherwise are not incomplete."""
        if not self.results:
            return []
        done = sum(1 for r in self.results if r.completed)
        out = [
            f"lore ({self.lookup.lore_url}): real addresses for {done} of {len(self.results)} draft(s) "
            f"({self.lookup.requests} HTTP requests, {self.lookup.from_cache} raw message(s) from the cache)"
        ]
        if self.unreachable and incomplete == 0:
            out.append(
                f"lore could not be reached ({self.unreachable}); the other sources completed every address, "
                "no draft is marked incomplete"
            )
        elif self.unreachable and incomplete is not None:
            out.append(
                f"lore could not be reached ({self.unreachable}): the {incomplete} draft(s) with incomplete "
                "recipients name the addresses left out at their top"
            )
        elif self.unreachable:
            out.append(
                f"lore could not be reached ({self.unreachable}): those drafts name the addresses left out, "
                "marked incomplete"
            )
        for r in self.results:
            if not r.completed and not (self.unreachable and r.reason.startswith("lore lookup failed")):
                out.append(f"  <{r.message_id}>: {r.reason}")
        return out

    def close(self) -> None:
        self.lookup.close()


#: Copies of one Message-ID read from a ``raw`` answer (public-inbox keeps each mail that came with it).
MAX_COPIES = 20


def _address_agrees(shown: Address | None, real: Address | None) -> bool:
    """True when ``real`` is what the archive shows as ``shown``: the same mailbox (all the archive
    shows of it: the local part, the domain's visible tail and its length) and, when the archive
    shows a display name, the same name."""
    from reviewbot.respond.draft import same_mailbox

    if shown is None or not shown.email:
        return True  # the archive shows nothing to compare
    if real is None or not same_mailbox(shown, real):
        return False
    name = " ".join(shown.name.replace('"', " ").split()).casefold()
    if not name or "@" in name:
        return True
    return " ".join(real.name.replace('"', " ").split()).casefold() == name


def _list_agrees(shown: Sequence[Address], real: Sequence[Address]) -> str:
    """Empty when every address of ``real`` is one the archive shows in ``shown`` and the other way
    round; else which address does not agree."""
    left = [a for a in real]
    for addr in shown:
        hit = next((i for i, r in enumerate(left) if _address_agrees(addr, r)), None)
        if hit is None:
            return f"has no address that fits {addr.email}"
        del left[hit]
    if left and shown:
        return f"names {left[0].email}, which the archive does not show"
    return ""


def _disagreement(archived: Message, real: Message) -> str:
    """Why lore's copy ``real`` is not the archived message (empty when it agrees with everything the
    archive shows): Message-ID, subject, From, To and Cc, and a bounded number of recipients."""
    if real.message_id != archived.message_id:
        return f"has Message-ID <{real.message_id}>"
    if not _subject_matches(archived.subject.raw, real.subject.raw):
        return f"has another subject ({_norm_subject(real.subject.raw)[:60]!r})"
    if real.from_addr is None or not real.from_addr.email:
        return "has no From"
    if not _address_agrees(archived.from_addr, real.from_addr):
        shown = archived.from_addr.email if archived.from_addr else ""
        return f"is from {real.from_addr.email}, which does not fit the archive's {shown}"
    from reviewbot.respond.draft import MAX_DRAFT_RECIPIENTS

    count = len(real.to) + len(real.cc)
    if count > MAX_DRAFT_RECIPIENTS:  # a forged copy named 3,000
        return f"names {count} recipients in To/Cc (a draft carries at most {MAX_DRAFT_RECIPIENTS})"
    for header, shown_list, real_list in (("To", archived.to, real.to), ("Cc", archived.cc, real.cc)):
        why = _list_agrees(shown_list, real_list)
        if why:
            return f"{header} {why}"
    return ""


def _address_key(message: Message) -> tuple[str, ...]:
    """The mailboxes a copy names, to tell copies that differ in who gets the reply."""
    addrs = [a for a in (message.from_addr, *message.to, *message.cc) if a is not None]
    return tuple(sorted(a.email.lower() for a in addrs))


def _needs_real_addresses(message: Message) -> bool:
    addrs = [a for a in (message.from_addr, *message.to, *message.cc) if a is not None]
    return message.obfuscated or any(a.partial or "@..." in a.email for a in addrs)


# ---------------------------------------------------------------------- git epochs


@dataclass(frozen=True)
class Epoch:
    """One git epoch of an inbox: its number, clone URL, and what the manifest says (may be None)."""

    number: int
    url: str
    modified: int | None = None  # unix time of its last commit
    fingerprint: str | None = None  # sha1 of ``git show-ref`` output


@dataclass(frozen=True)
class Commit:
    """One commit of an epoch: its id, author time (the message's Date) and committer time (arrival)."""

    oid: str
    at: int
    ct: int

    @property
    def day(self) -> date:
        """The message's day by its Date header, in UTC."""
        return datetime.fromtimestamp(self.at, timezone.utc).date()


def pick_epochs(epochs: Sequence[Epoch], since: date, until: date | None) -> list[Epoch]:
    """The epochs that can hold messages dated ``since`` .. ``until`` (None: up to now).

    Epochs are filled one after the other: one whose last change came well
    before ``since`` (by :data:`EPOCH_SLACK`) is done with the range; one that
    follows an epoch last changed well after ``until`` began after it. Epochs
    without a ``modified`` time are always kept.
    """
    ordered = sorted(epochs, key=lambda e: e.number)
    start = datetime.combine(since, datetime.min.time(), timezone.utc) - EPOCH_SLACK
    end = (
        datetime.combine(until + timedelta(days=1), datetime.min.time(), timezone.utc) + EPOCH_SLACK
        if until is not None
        else None
    )
    out: list[Epoch] = []
    previous: Epoch | None = None
    for epoch in ordered:
        ended_before = epoch.modified is not None and epoch.modified < start.timestamp()
        began_after = (
            end is not None
            and previous is not None
            and previous.modified is not None
            and previous.modified > end.timestamp()
        )
        if not ended_before and not began_after:
            out.append(epoch)
        previous = epoch
    return out


_UNREACHABLE = (
    "could not resolve host",
    "failed to connect",
    "connection refused",
    "couldn't connect",
    "no route to host",
    "network is unreachable",
    "connection timed out",
)
_TRANSIENT = re.compile(
    r"error: (429|5\d\d)|rpc failed|early eof|the remote end hung up|"
    r"operation timed out|operation too slow|transfer closed|gnutls|ssl",
    re.IGNORECASE,
)
_NOT_FOUND = re.compile(r"not found|error: 40[34]|repository .* does not exist", re.IGNORECASE)


class GitFailed(FetchError):
    """A git network operation failed (``not_found`` when the repository does not exist)."""

    def __init__(self, message: str, *, url: str, attempts: int = 1, not_found: bool = False) -> None:
        self.not_found = not_found
        super().__init__(message, url=url, attempts=attempts, status=404 if not_found else None)


class InboxMirror:
    """The git epochs of one inbox on a public-inbox host, cloned into the cache.

    ``settings``: ``lore_url`` and the politeness (``rate`` between network
    operations, ``retries`` and ``backoff`` for failures that may pass,
    ``timeout``, the User-Agent with the contact). ``root``: where the clones
    live (default ``lore_cache_dir(lore_url)/<inbox>/git``). Counters:
    ``http_requests`` (manifest), ``git_operations`` (clone, fetch, ls-remote
    attempts), ``git_new_objects`` (clones and fetches that changed a ref).
    """

    def __init__(self, settings: Settings, inbox: str, *, root: Path | None = None, session: Any = None) -> None:
        from reviewbot.fetch.http import RateLimiter

        self.lore_url = check_lore_url(settings.lore_url)
        self.settings = replace(settings, base_url=self.lore_url)
        self.inbox = inbox
        self.root = Path(root) if root is not None else lore_cache_dir(self.lore_url) / inbox / "git"
        self._session = session
        self.limiter = RateLimiter(settings.rate)
        self.git_operations = 0
        self.git_new_objects = 0
        self.unreachable: str | None = None
        self.started = time.monotonic()
        self.run_seconds = RUN_SECONDS
        self.passed: list[tuple[str, str]] = []  # (message, why) of messages not read (too large)
        self._cleaned = False

    # -- where things are
    def path(self, number: int) -> Path:
        return self.root / f"{number}.git"

    def clone_url(self, number: int) -> str:
        return f"{self.lore_url}/{self.inbox}/{number}"

    def local_epochs(self) -> list[Epoch]:
        """Epochs already cloned here (for working without the network)."""
        out = []
        if self.root.is_dir():
            for entry in self.root.iterdir():
                stem = entry.name[:-4] if entry.name.endswith(".git") else ""
                if stem.isdigit() and (entry / "HEAD").exists():
                    out.append(Epoch(int(stem), self.clone_url(int(stem))))
        return sorted(out, key=lambda e: e.number)

    @property
    def http_requests(self) -> int:
        return int(getattr(self._session, "requests_made", 0)) if self._session is not None else 0

    # -- the epoch list
    def epochs(self) -> list[Epoch]:
        """The inbox's epochs from ``LORE/<inbox>/manifest.js.gz``, else by probing N = 0, 1, ...

        Raises HostUnreachable when the host cannot be reached, FetchError
        when neither way finds an epoch (no such inbox).
        """
        try:
            found = self._from_manifest()
        except HostUnreachable as exc:
            self.unreachable = exc.message
            raise
        except BadManifest:
            raise  # the host answered, with something no run should follow: the clones here are read
        except FetchError as exc:
            log.info("%s: no manifest (%s); probing the epochs", self.lore_url, exc.message)
            found = []
        if found:
            return found
        probed: list[Epoch] = []
        for n in range(0, MAX_EPOCHS):
            try:
                self._git_network(["ls-remote", "--heads", self.clone_url(n)], url=self.clone_url(n))
            except GitFailed as exc:
                if exc.not_found:
                    break
                raise
            probed.append(Epoch(n, self.clone_url(n)))
        if not probed:
            raise FetchError(
                f"no inbox {self.inbox!r} on {self.lore_url}", url=f"{self.lore_url}/{self.inbox}/", status=404
            )
        return probed

    def _from_manifest(self) -> list[Epoch]:
        if self._session is None:
            from reviewbot.fetch.http import PoliteSession

            self._session = PoliteSession(self.settings)
        url = f"{self.lore_url}/{self.inbox}/manifest.js.gz"
        page = self._session.get(url)
        try:
            manifest = json.loads(_inflate(page.body, url).decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise BadManifest(f"manifest cannot be read: {exc}", url=url) from exc
        out = []
        passed: list[str] = []
        for key, info in manifest.items() if isinstance(manifest, dict) else ():
            m = _EPOCH_KEY_RE.match(key) if isinstance(key, str) else None
            if m is None or m.group("inbox") != self.inbox or not isinstance(info, dict):
                if isinstance(key, str) and key.startswith(f"/{self.inbox}/git/"):
                    passed.append(key[:80])
                continue
            n = int(m.group("n"))
            if n > MAX_EPOCH_NUMBER:
                passed.append(key[:80])
                continue
            out.append(Epoch(n, self.clone_url(n), _unix_time(info.get("modified")), _fingerprint(info)))
            if len(out) > MAX_EPOCHS:
                raise BadManifest(f"manifest lists more than {MAX_EPOCHS} epochs of {self.inbox}", url=url)
        if passed:
            log.warning(
                "%s: %d epoch entries passed (not an epoch number up to %d): %s",
                url,
                len(passed),
                MAX_EPOCH_NUMBER,
                ", ".join(passed[:3]),
            )
        return sorted(out, key=lambda e: e.number)

    def clean_temporary(self) -> list[Path]:
        """Remove the temporary clones (``.N.git-PID-*``) of runs that died (killed during a first clone);
        those of the older naming without a PID once :data:`STALE_CLONE_SECONDS` old. Returns what was removed."""
        removed: list[Path] = []
        try:
            entries = list(self.root.iterdir()) if self.root.is_dir() else []
        except OSError:
            return removed
        now = time.time()
        for entry in entries:
            m = _TEMP_CLONE_RE.match(entry.name)
            if m is None or not entry.is_dir() or entry.is_symlink():
                continue
            pid = int(m.group("pid")) if m.group("pid") else None
            try:
                stale = (not pid_alive(pid)) if pid is not None else now - entry.stat().st_mtime > STALE_CLONE_SECONDS
            except OSError:
                continue
            if stale:
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
                log.info("%s: temporary clone of a run that stopped, removed", entry)
        return removed

    # -- clone / fetch
    def fingerprint(self, number: int) -> str | None:
        """sha1 of ``git show-ref`` of the local clone (what the manifest's fingerprint is), or None."""
        if not (self.path(number) / "HEAD").exists():
            return None
        done = self._git(["show-ref"], git_dir=self.path(number))
        if done.returncode not in (0, 1):
            return None
        return hashlib.sha1(done.stdout).hexdigest()

    def sync(self, epoch: Epoch) -> bool:
        """Clone or fetch one epoch; returns True when it brought new objects.

        No network at all when the manifest's fingerprint equals the local
        clone's. A clone goes to a temporary folder first, so a killed run
        never leaves half a repository. Raises HostUnreachable / GitFailed.
        """
        dest = self.path(epoch.number)
        if not self._cleaned:  # once a run: what runs killed during a first clone left
            self._cleaned = True
            self.clean_temporary()
        before = self.fingerprint(epoch.number)
        if before is not None and epoch.fingerprint is not None and before == epoch.fingerprint:
            log.debug("%s: up to date (fingerprint %s)", epoch.url, before)
            return False
        if before is None:
            dest.parent.mkdir(parents=True, exist_ok=True)
            # the PID in the name tells the next run whether the clone's run is still alive
            tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{epoch.number}.git-{os.getpid()}-"))

            def empty_tmp() -> None:  # each attempt clones into an empty folder (a timed-out one left objects)
                shutil.rmtree(tmp, ignore_errors=True)
                tmp.mkdir(exist_ok=True)

            try:
                self._git_network(
                    ["clone", "--mirror", "--quiet", epoch.url, str(tmp)], url=epoch.url, prepare=empty_tmp
                )
                if dest.exists():
                    shutil.rmtree(dest)
                os.replace(tmp, dest)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            self.git_new_objects += 1
            return True
        self._git_network(["fetch", "--quiet", "--prune", epoch.url, "+refs/*:refs/*"], url=epoch.url, git_dir=dest)
        changed = self.fingerprint(epoch.number) != before
        if changed:
            self.git_new_objects += 1
        return changed

    # -- reading
    def head(self, number: int) -> str | None:
        done = self._git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], git_dir=self.path(number))
        value = done.stdout.decode().strip()
        return value if done.returncode == 0 and value else None

    def is_ancestor(self, number: int, older: str, newer: str) -> bool:
        """True when ``older`` is on the history of ``newer`` (else the history was rewritten)."""
        done = self._git(["merge-base", "--is-ancestor", older, newer], git_dir=self.path(number))
        return done.returncode == 0

    def commits(self, number: int, tip: str, after: str | None = None) -> list[Commit]:
        """Commits of the epoch up to ``tip`` (after ``after`` when given), oldest first; no blob is read."""
        rev = f"{after}..{tip}" if after else tip
        done = self._git(["log", "--reverse", "--format=%H %at %ct", rev], git_dir=self.path(number))
        if done.returncode != 0:
            raise FetchError(
                f"git log failed: {done.stderr.decode(errors='replace').strip()}", url=str(self.path(number))
            )
        out = []
        for line in done.stdout.decode(errors="replace").splitlines():
            parts = line.split()
            times = [int(t) for t in parts[1:] if t.isdigit()]
            if len(parts) != 3 or len(times) != 2 or not all(0 <= t <= _LAST_TIME for t in times):
                # a date no message can have (year 3170843 was a ValueError): passed, named
                what = f"{self.clone_url(number)}@{parts[0] if parts else '?'}"
                self.passed.append((what, f"commit time out of range ({' '.join(parts[1:])[:40]})"))
                continue
            out.append(Commit(parts[0], times[0], times[1]))
        return out

    def read(self, number: int, commits: Iterable[Commit]) -> Iterator[tuple[Commit, bytes]]:
        """(commit, the message in its ``m``) for each commit; commits without ``m`` (purges) skipped."""
        with _CatFile(self.path(number)) as cat:
            for commit in commits:
                try:
                    data = cat.read(f"{commit.oid}:m")
                except _TooLarge as exc:
                    why = f"message of {exc.size} bytes, more than {MAX_MESSAGE_BYTES} (not read)"
                    log.warning("%s epoch %d commit %s: %s", self.inbox, number, commit.oid, why)
                    self.passed.append((f"{self.clone_url(number)}@{commit.oid}", why))
                    continue
                if data is not None:
                    yield commit, data

    # -- git
    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_ASKPASS": "true"})
        return env

    def _git(
        self, args: Sequence[str], *, git_dir: Path | None = None, timeout: float | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        cmd = [
            "git",
            "-c",
            f"http.userAgent={self.settings.user_agent}",
            "-c",
            f"http.lowSpeedLimit={LOW_SPEED_BYTES}",
            "-c",
            f"http.lowSpeedTime={max(1, int(self.settings.timeout))}",
        ]
        if git_dir is not None:
            cmd += ["--git-dir", str(git_dir)]
        cmd += list(args)
        try:
            # its own process group: on a timeout git's helpers (git-remote-http) are stopped with it
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env(),
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise UsageError("git is not installed (needed to read lore's epochs)", subject="git") from exc
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:  # a timeout, or the run interrupted: no git process outlives it
            _kill_group(proc)
            raise
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    def time_left(self) -> float:
        """Seconds left of the run's time for lore's network work (:data:`RUN_SECONDS`)."""
        return self.run_seconds - (time.monotonic() - self.started)

    def _git_network(
        self,
        args: Sequence[str],
        *,
        url: str,
        git_dir: Path | None = None,
        prepare: Callable[[], None] | None = None,
    ) -> None:
        """One git operation over the network: rate-limited, retried on failures that may pass, within
        the run's time (``prepare`` is called before each attempt)."""
        retries = max(0, int(self.settings.retries))
        for attempt in range(1, retries + 2):
            left = self.time_left()
            if left <= 0:
                raise GitFailed(
                    f"git {args[0]}: not tried, the run's {self.run_seconds:.0f}s for lore are used up "
                    "(the next run goes on)",
                    url=url,
                    attempts=attempt - 1,
                )
            self.limiter.wait()
            self.git_operations += 1
            log.info("git %s %s", args[0], url)
            if prepare is not None:
                prepare()
            timed_out = False
            try:
                done = self._git(args, git_dir=git_dir, timeout=min(max(60.0, self.settings.timeout * 20), left))
            except subprocess.TimeoutExpired:
                timed_out = True
                err = "timed out"
            else:
                if done.returncode == 0:
                    return
                err = " ".join(done.stderr.decode(errors="replace").split())
            low = err.lower()
            if any(word in low for word in _UNREACHABLE):
                self.unreachable = err
                raise HostUnreachable(f"cannot connect to {urlsplit(url).netloc}: {err}", url=url, attempts=attempt)
            if _NOT_FOUND.search(err) and not _TRANSIENT.search(err):
                raise GitFailed(f"git {args[0]}: not found", url=url, attempts=attempt, not_found=True)
            if attempt > retries or not (_TRANSIENT.search(err) or timed_out):
                raise GitFailed(f"git {args[0]} failed after {attempt} attempt(s): {err}", url=url, attempts=attempt)
            pause = max(0.0, min(self.settings.backoff * (2 ** (attempt - 1)), 120.0, self.time_left()))
            log.warning("git %s %s: %s; retrying in %.0fs", args[0], url, err, pause)
            time.sleep(pause)

    def close(self) -> None:
        if self._session is not None:
            self._session.close()


class _TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class BadManifest(FetchError):
    """The host's manifest is one no run should follow (too large inflated, too many epochs, unreadable)."""


def _inflate(body: bytes, url: str) -> bytes:
    """``body`` gunzipped when it is gzip, never past :data:`MAX_MANIFEST_BYTES` (a gzip bomb stops there)."""
    if body[:2] != b"\x1f\x8b":
        if len(body) > MAX_MANIFEST_BYTES:
            raise BadManifest(f"manifest larger than {MAX_MANIFEST_BYTES // (1024 * 1024)} MiB; not read", url=url)
        return body
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, MAX_MANIFEST_BYTES + 1)
    except zlib.error as exc:
        raise BadManifest(f"manifest cannot be read: {exc}", url=url) from exc
    if len(out) > MAX_MANIFEST_BYTES:
        raise BadManifest(f"manifest inflates past {MAX_MANIFEST_BYTES // (1024 * 1024)} MiB; not read", url=url)
    return out


def _unix_time(value: object) -> int | None:
    """A manifest's ``modified``: a unix time in a sane range, else None (treated as unknown)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not (0 <= value < 2**40):  # also NaN and infinities (json reads "Infinity")
        return None
    return int(value)


def _fingerprint(info: dict[str, Any]) -> str | None:
    value = info.get("fingerprint")
    return value if isinstance(value, str) and _FINGERPRINT_RE.match(value) else None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop ``proc`` and every process of its group (it was started in a session of its own), and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.kill()
    except OSError:
        pass
    try:
        proc.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


class _CatFile:
    """One ``git cat-file --batch`` process: objects read one at a time over its pipes."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self.proc = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            ["git", "--git-dir", str(self.git_dir), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def restart(self) -> None:
        """A new process in place of this one (whose answer is not to be read)."""
        self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        self.proc = self._start()

    def read(self, spec: str) -> bytes | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(spec.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline()
        if not header:
            raise FetchError("git cat-file stopped", url=spec)
        if header.rstrip().endswith(b" missing"):
            return None
        try:
            size = int(header.split()[-1])
        except (ValueError, IndexError) as exc:
            raise FetchError(f"git cat-file: unreadable answer {header[:80]!r}", url=spec) from exc
        if size > MAX_MESSAGE_BYTES:
            self.restart()  # not read: the object is dropped with the process that holds it
            raise _TooLarge(size)
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the LF after each object
        if len(data) != size:
            raise FetchError("git cat-file: short read", url=spec)
        return data

    def __enter__(self) -> "_CatFile":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def raw_message(lore_url: str, inbox: str, epoch: int, commit: Commit, data: bytes, list_name: str) -> RawMessage:
    """One message read from an epoch as a RawMessage (source: the epoch and commit it came from)."""
    return RawMessage(
        source=f"{lore_url}/{inbox}/{epoch}@{commit.oid}:m", kind="rfc822", data=data, list_name=list_name
    )
