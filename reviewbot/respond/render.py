"""Draft -> RFC 5322 bytes (stdlib email package), outbox ``.eml`` files and a Maildir drafts folder.

The message is plain ``text/plain; charset=utf-8``: 7bit when the body is
ASCII, 8bit otherwise, quoted-printable only when a line would exceed the
998-octet limit of RFC 5322 (quoted code is never wrapped). Non-ASCII names
and subjects are RFC 2047 encoded by the email package. Line ends are ``\\n``
(the form mutt, Maildir and ``git send-email`` read from files).

Files are written to a temporary name in the same directory, flushed to disk
and renamed, so a run killed at any point leaves either the whole file or
none (stale temporary files are removed by :func:`clean_outbox`).
"""

from __future__ import annotations

import hashlib
import logging
import mailbox
import os
import re
from datetime import datetime, timezone
from email import policy as email_policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Iterable

from reviewbot.errors import InputError, UsageError
from reviewbot.models import Address, Draft
from reviewbot.pids import pid_alive

log = logging.getLogger(__name__)

# refold_source="none": the raw Message-ID headers below are written as we fold them (a long
# Message-ID must never be RFC 2047-encoded, which the default refolding would do).
POLICY = email_policy.default.clone(linesep="\n", max_line_length=78, refold_source="none")
INCOMPLETE_HEADER = "X-Reviewbot-Recipients"
TMP_PREFIX = ".tmp-"  # temporary files of older releases, written beside the drafts (removed by clean_outbox)
# Temporary files live in this sub-folder of the outbox: ``git send-email outbox/`` and a user read
# the folder's files, never a sub-folder, so a run killed mid-write leaves nothing that looks like a draft.
TMP_DIR = ".reviewbot-tmp"

__all__ = [
    "POLICY",
    "render_message",
    "outbox_filename",
    "slugify",
    "write_outbox",
    "add_to_maildir",
    "clean_outbox",
    "atomic_write",
    "prepare_outputs",
    "output_error",
    "OutputError",
    "msgid_problem",
    "MAX_MSGID_LEN",
]

# The longest Message-ID a reply can carry: ``In-Reply-To: <id>`` must fit in one line of RFC 5322's
# 998 octets (a Message-ID is never folded or encoded).
MAX_MSGID_LEN = 980


def msgid_problem(msgid: str) -> str | None:
    """Why ``msgid`` cannot go into a reply's In-Reply-To/References header, or None when it can.

    A usable identifier is printable ASCII without spaces or angle brackets
    (RFC 5322 msg-id) and short enough for one header line. Archive pages can
    carry others (non-ASCII, a raw 8-bit byte decoded as U+FFFD, control
    characters); a reply to such a message would be refused by mail tools.
    """
    if not msgid:
        return "empty Message-ID"
    if len(msgid) > MAX_MSGID_LEN:
        return f"Message-ID of {len(msgid)} characters does not fit in a header line ({MAX_MSGID_LEN} at most)"
    for ch in msgid:
        if not ("!" <= ch <= "~"):
            what = (
                "a space"
                if ch.isspace()
                else ("a control character" if ord(ch) < 32 or ord(ch) == 127 else "a non-ASCII character")
            )
            return f"Message-ID holds {what} (U+{ord(ch):04X})"
        if ch in "<>" and not _reads_back_whole(msgid):
            return "Message-ID holds an angle bracket"
    return None


def _reads_back_whole(msgid: str) -> bool:
    """True when ``<msgid>`` in a header is read back as ``msgid`` (a quoted id may hold ``>``)."""
    from reviewbot.parse.mail import msgid_list

    return msgid_list(f"<{msgid}>") == (msgid,)


MAX_NAME_CHARS = 200  # a display name longer than this is cut (one address must fit a header line)


def header_text(text: str) -> str:
    """``text`` fit for a header: control characters (ESC, BEL, CR...) and line separators dropped,
    whitespace runs as one space. A page's text must never steer a terminal or a mail reader."""
    return " ".join("".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or ch.isprintable()).split())


def _header_address(addr: Address) -> str:
    """``Name <email>`` for a header: ASCII names quoted when needed, others RFC 2047 (Q) encoded."""
    if "@..." in addr.email or addr.partial:
        raise InputError(f"obfuscated address {addr.email!r} must not go into a header", subject="draft")
    if any(c in addr.email for c in '\r\n<>,"') or not addr.email.isascii():
        raise InputError(f"unusable address {addr.email!r}", subject="draft")
    name = header_text(addr.name)
    if len(name) > MAX_NAME_CHARS:
        name = name[:MAX_NAME_CHARS].rstrip() + "..."
    if not name:
        return addr.email
    if name.isascii():
        return formataddr((name, addr.email))
    from email.charset import QP, Charset
    from email.header import Header

    encoded = Header(name, "utf-8", maxlinelen=76).encode(linesep="\n ")
    if "\n" not in encoded:
        cs = Charset("utf-8")
        cs.header_encoding = QP
        return formataddr((name, addr.email), cs)
    return f"{encoded} <{addr.email}>"


def fold_addresses(name: str, addrs: Iterable[Address], width: int = 78) -> str:
    """The value of an address header (``a, b, c``), folded after commas to stay within ``width``.

    Written raw (our own folding): the email package's refolding can turn a
    comma into an encoded word next to a non-ASCII name, which breaks the list.
    """
    tokens = [_header_address(a) for a in addrs]
    lines: list[str] = []
    current = ""
    used = len(name) + 2
    for n, token in enumerate(tokens):
        piece = token + ("," if n < len(tokens) - 1 else "")
        if current and used + len(current) + 1 + len(piece) > width:
            lines.append(current)
            current, used = piece, 1
        else:
            current = f"{current} {piece}" if current else piece
    lines.append(current)
    return "\n ".join(lines)


def _choose_cte(body: str) -> str:
    longest = max((len(line.encode("utf-8")) for line in body.split("\n")), default=0)
    if longest > 998:
        return "quoted-printable"
    return "7bit" if body.isascii() else "8bit"


def encode_subject(subject: str) -> str:
    """The Subject value as written: ASCII kept on one line (up to RFC 5322's 998 octets; tools such
    as git send-email read only the first line), non-ASCII RFC 2047-encoded and folded by
    email.header.Header (never an empty first line)."""
    from email.header import Header

    text = header_text(subject)
    if text.isascii() and len(text) <= 980:
        return text
    return Header(text, "utf-8", header_name="Subject").encode(linesep="\n", maxlinelen=78)


def fold_msgids(name: str, ids: Iterable[str], width: int = 78) -> str:
    """``<a> <b> ...`` folded between Message-IDs so lines stay within ``width`` where possible.

    A Message-ID is never split or encoded (a long one gets a line of its own).
    """
    lines: list[str] = []
    current = ""
    used = len(name) + 2
    for mid in ids:
        token = f"<{mid}>"
        if current and used + len(current) + 1 + len(token) > width:
            lines.append(current)
            current, used = token, 1
        else:
            current = f"{current} {token}" if current else token
    lines.append(current)
    return "\n ".join(lines)


def render_message(draft: Draft) -> bytes:
    """The draft as an RFC 5322 message (bytes, ``\\n`` line ends).

    Header order: From, To, Cc, Subject, Date, Message-ID, In-Reply-To,
    References, X-Reviewbot-Recipients (only when incomplete), MIME-Version,
    Content-Type, Content-Transfer-Encoding. Raises InputError when a
    recipient is an obfuscated (``@...``) address or the draft lacks a
    Message-ID.
    """
    if not draft.message_id:
        raise InputError("draft has no Message-ID", subject=draft.in_reply_to)
    for mid in (draft.message_id, draft.in_reply_to, *draft.references):
        problem = msgid_problem(mid)
        if problem:
            raise InputError(f"cannot reply: {problem}", subject=ascii(mid)[1:-1][:200])
    msg = EmailMessage(policy=POLICY)
    msg.set_raw("From", fold_addresses("From", [draft.from_addr]))
    if draft.to:
        msg.set_raw("To", fold_addresses("To", draft.to))
    if draft.cc:
        msg.set_raw("Cc", fold_addresses("Cc", draft.cc))
    msg.set_raw("Subject", encode_subject(draft.subject))
    date = draft.date or datetime.now(timezone.utc)
    msg.set_raw("Date", format_datetime(date))
    msg.set_raw("Message-ID", f"<{draft.message_id}>")
    msg.set_raw("In-Reply-To", f"<{draft.in_reply_to}>")
    if draft.references:
        msg.set_raw("References", fold_msgids("References", draft.references))
    if not draft.recipients_complete:
        msg[INCOMPLETE_HEADER] = "incomplete"
    body = draft.body if draft.body.endswith("\n") else draft.body + "\n"
    cte = _choose_cte(body)
    msg.set_content(body, charset="utf-8", cte=cte)
    for name in ("MIME-Version", "Content-Type", "Content-Transfer-Encoding"):
        del msg[name]
    msg.set_raw("MIME-Version", "1.0")
    msg.set_raw("Content-Type", "text/plain; charset=utf-8")
    msg.set_raw("Content-Transfer-Encoding", cte)
    data = msg.as_bytes(policy=POLICY)
    head = data.split(b"\n\n", 1)[0]
    if b"@..." in head:
        raise InputError("an obfuscated address reached a header", subject=draft.in_reply_to)
    return data


_SLUG_RE = re.compile(r"[^a-z0-9]+")


def slugify(text: str, limit: int = 48) -> str:
    """Lower-case ASCII words joined by ``-``, at most ``limit`` characters, cut at a word end."""
    import unicodedata

    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_RE.sub("-", ascii_text.lower()).strip("-")
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0] or slug[:limit]
    return slug or "no-subject"


_BRACKETS_RE = re.compile(r"^(?:\s*(?:re|aw)\s*:\s*)*(?:\[[^\]]*\]\s*)*", re.IGNORECASE)


def outbox_filename(draft: Draft, list_name: str) -> str:
    """``YYYY-MM-DD-<list>-<subject-slug>-<shortid>.eml`` for a draft.

    The date is the draft's; the slug comes from the subject without
    ``Re:`` and bracket prefixes; ``shortid`` is 8 hex digits of the SHA-1 of
    the Message-ID replied to, so one patch always maps to one file name.
    """
    date = (draft.date or datetime.now(timezone.utc)).astimezone(timezone.utc)
    title = _BRACKETS_RE.sub("", draft.subject)
    short = hashlib.sha1(draft.in_reply_to.encode("utf-8")).hexdigest()[:8]
    return f"{date:%Y-%m-%d}-{slugify(list_name, 24)}-{slugify(title)}-{short}.eml"


def atomic_write(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file in ``TMP_DIR`` beside it, fsync, rename.

    The temporary name ends with our process id, so :func:`clean_outbox` can
    tell a killed run's leftovers from a running one's file.
    """
    path = Path(path)
    tmp_dir = path.parent / TMP_DIR
    tmp = tmp_dir / f"{path.name}.{os.getpid()}"
    try:
        for attempt in range(3):
            tmp_dir.mkdir(parents=True, exist_ok=True)
            try:
                fh = open(tmp, "wb")
            except FileNotFoundError:  # another run removed the empty folder just now
                if attempt == 2:
                    raise
                continue
            with fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            break
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        _remove_if_empty(tmp_dir)
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return path
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
    return path


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty (another run is writing) or already gone
        pass


def _owner_pid(name: str) -> int:
    tail = name.rsplit(".", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def clean_outbox(outbox: Path) -> list[Path]:
    """Remove temporary files killed runs left in ``outbox``; return what was removed.

    A temporary file is removed when the process named by its ``.PID`` suffix
    is gone, so any run (draft or cron, with or without the run lock) may call
    it while another run writes. Older releases' ``.tmp-NAME.eml.PID`` files
    beside the drafts are removed the same way.
    """
    removed: list[Path] = []
    outbox = Path(outbox)
    if not outbox.is_dir():
        return removed
    tmp_dir = outbox / TMP_DIR
    entries = list(tmp_dir.iterdir()) if tmp_dir.is_dir() else []
    entries += [e for e in outbox.iterdir() if e.name.startswith(TMP_PREFIX)]
    for entry in entries:
        if entry.is_file() and not pid_alive(_owner_pid(entry.name)):
            entry.unlink(missing_ok=True)
            removed.append(entry)
    _remove_if_empty(tmp_dir)
    return removed


def write_outbox(draft: Draft, outbox: Path, list_name: str, data: bytes | None = None) -> Path:
    """Write the rendered draft into ``outbox`` (created if needed); return the file's path.

    Writing the same draft again replaces the file in one step.
    """
    data = render_message(draft) if data is None else data
    return atomic_write(Path(outbox) / outbox_filename(draft, list_name), data)


def _maildir_find(box: mailbox.Maildir, msgid: str) -> str | None:
    """The key of the message with Message-ID ``msgid`` in ``box``, or None (reads headers only)."""
    for key in box.keys():
        try:
            with box.get_file(key) as fh:
                head = fh.read(16384)
        except (OSError, KeyError):
            continue
        m = re.search(rb"^Message-ID:\s*<([^>\r\n]+)>", head, re.IGNORECASE | re.MULTILINE)
        if m and m.group(1).decode("ascii", "replace") == msgid:
            return key
    return None


def remove_from_maildir(maildir: Path, message_id: str) -> bool:
    """Take the draft with Message-ID ``message_id`` out of the Maildir folder ``maildir`` (a dismissed
    point must not stay among the drafts a mail client offers to send); False when it is not there."""
    maildir = Path(maildir).expanduser()
    if not (maildir / "cur").is_dir():
        return False
    box = mailbox.Maildir(str(maildir), create=False)
    key = _maildir_find(box, message_id)
    if key is None:
        return False
    box.discard(key)
    return True


class OutputError(UsageError):
    """The outbox or Maildir folder cannot be created or written (exit status 2); names the path.

    Unlike a problem with one draft, this stops a drafting run.
    """


def output_error(exc: OSError, path: Path | str, what: str) -> OutputError:
    """A one-line OutputError naming ``path`` for an OSError while writing ``what`` (outbox, Maildir)."""
    reason = exc.strerror or str(exc) or exc.__class__.__name__
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        reason = "not a folder"
    culprit = os.fsdecode(exc.filename) if exc.filename else ""
    if culprit and os.path.normpath(culprit) != os.path.normpath(str(path)):
        reason += f" ({culprit})"
    return OutputError(f"cannot write the {what}: {reason}", subject=str(path))


def _probe_writable(folder: Path, what: str, probe_dir: Path | None = None) -> None:
    """Create and remove a temporary file in ``probe_dir`` (default ``folder``); UsageError naming
    ``folder`` when that fails."""
    probe = (probe_dir or folder) / f"probe.{os.getpid()}"
    try:
        if probe_dir is not None:
            os.makedirs(probe_dir, exist_ok=True)
        with open(probe, "wb"):
            pass
        probe.unlink()
    except OSError as exc:
        raise output_error(exc, folder, what) from exc
    finally:
        if probe_dir is not None:
            _remove_if_empty(probe_dir)


def prepare_outputs(outbox: Path, maildir: Path | None = None) -> None:
    """Make sure drafts can be written before any is: create ``outbox`` and the Maildir folder
    (with ``cur/``, ``new/``, ``tmp/``) and their missing parents, and check each is writable.

    ``~`` is expanded. Raises UsageError naming the first path that cannot be
    created or written (e.g. a parent that is a file, no permission); nothing
    is drafted then.
    """
    outbox = Path(outbox).expanduser()
    try:
        os.makedirs(outbox, exist_ok=True)
    except OSError as exc:
        raise output_error(exc, outbox, "outbox") from exc
    _probe_writable(outbox, "outbox", outbox / TMP_DIR)
    removed = clean_outbox(outbox)
    if removed:
        log.info("removed %d temporary file(s) a killed run left in %s", len(removed), outbox)
    if maildir is None:
        return
    maildir = Path(maildir).expanduser()
    try:
        _complete_maildir(maildir)
        mailbox.Maildir(str(maildir), create=True)
    except (OSError, mailbox.Error) as exc:
        if isinstance(exc, OSError):
            raise output_error(exc, maildir, "Maildir") from exc
        raise OutputError(f"not a Maildir folder: {exc}", subject=str(maildir)) from exc
    for sub in ("tmp", "cur"):
        _probe_writable(maildir / sub, "Maildir")


def _complete_maildir(maildir: Path) -> None:
    """Create ``maildir`` and whichever of its ``cur/``, ``new/``, ``tmp/`` is missing.

    A run killed while creating the folder leaves it without some of them;
    that is completed, not refused. A path that is a file raises OSError.
    """
    os.makedirs(maildir.parent, exist_ok=True)
    for sub in ("tmp", "new", "cur"):
        os.makedirs(maildir / sub, exist_ok=True)


def add_to_maildir(draft: Draft, maildir: Path, data: bytes | None = None) -> str:
    """Put the draft into the Maildir folder ``maildir`` (created if needed) with the Draft flag.

    The message goes to ``cur/`` with flag ``D`` (and ``S``: it is ours, not
    unread mail), so mutt/neomutt (``postponed``) and Thunderbird show it as a
    draft. A message with the same Message-ID already there is not added
    again. Returns the Maildir key. Missing parent folders are created.
    """
    maildir = Path(maildir).expanduser()
    _complete_maildir(maildir)
    box = mailbox.Maildir(str(maildir), create=True)
    existing = _maildir_find(box, draft.message_id)
    if existing is not None:
        log.info("draft <%s> already in %s", draft.message_id, maildir)
        return existing
    data = render_message(draft) if data is None else data
    message = mailbox.MaildirMessage(data)
    message.set_subdir("cur")
    message.set_flags("DS")
    return box.add(message)
