"""Local mail input: mbox files, Maildir folders, .eml and git format-patch files, stdin, git ranges.

Everything is read as bytes (never universal newlines: a bare CR inside a
patch line must survive, C01) and handed on as :class:`RawMessage` of kind
``"rfc822"``. An mbox is split on ``From `` lines that follow an empty line
(or start the file) and look like an envelope (``From <who> <date with
hh:mm>``), which also covers ``git format-patch`` output (``From <sha> Mon Sep
17 00:00:00 2001``); mboxo escaping (``>From `` at a line start) is undone.
The envelope line stays in ``RawMessage.data`` so that line numbers count like
the file's (checkpatch numbers them so).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from reviewbot import lazyre
from reviewbot.errors import InputError
from reviewbot.models import RawMessage

__all__ = [
    "read_path",
    "read_bytes",
    "split_mbox_bytes",
    "git_format_patch",
    "looks_like_mail",
    "is_bare_diff",
    "MAIL_SUFFIXES",
]

#: File names taken from a plain directory (sorted by name).
MAIL_SUFFIXES = (".patch", ".eml", ".mbox", ".diff", ".mail")

_ENVELOPE = lazyre.compile(rb"From \S+ .*\d:\d\d")
# "From <who> Mon Sep 17 00:00:00 2001", "From x Fri Aug  8 22:24:03 2008": a time, then a year to end the line
_STRICT_ENVELOPE = lazyre.compile(rb"From \S+ [^\n]*\d\d:\d\d(?::\d\d)?(?: [^\n]*)? (?:19|20)\d\d\r?(?:\n|$)")
_HEADER = lazyre.compile(rb"[!-9;-~]{1,80}:")  # RFC 5322 field name, then colon


def read_path(path: str | os.PathLike[str]) -> Iterator[RawMessage]:
    """Yield the messages stored at ``path``.

    ``path`` is an mbox file, a single mail (.eml) or ``git format-patch``
    file, a Maildir directory (``cur``/``new``), a directory of ``*.patch``/
    ``*.eml``/``*.mbox`` files (read in name order), or ``"-"`` for stdin
    (an mbox or one mail). ``source`` of each message is ``path`` or
    ``path:N`` (1-based position in an mbox, or the Maildir key).
    Raises :class:`InputError` naming the file when it cannot be read or holds
    no mail.
    """
    if str(path) == "-":
        data = sys.stdin.buffer.read()
        yield from read_bytes(data, "<stdin>")
        return
    p = Path(path)
    if p.is_dir():
        if (p / "cur").is_dir() or (p / "new").is_dir():
            yield from _read_maildir(p)
            return
        files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in MAIL_SUFFIXES)
        if not files:
            raise InputError(f"no {'/'.join('*' + s for s in MAIL_SUFFIXES)} files in directory", subject=str(p))
        for f in files:
            yield from read_bytes(_read_file(f), str(f))
        return
    yield from read_bytes(_read_file(p), str(p))


def _read_file(p: Path) -> bytes:
    try:
        return p.read_bytes()
    except FileNotFoundError as exc:
        raise InputError("no such file", subject=str(p)) from exc
    except IsADirectoryError as exc:
        raise InputError("is a directory", subject=str(p)) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", subject=str(p)) from exc


def read_bytes(data: bytes, source: str) -> Iterator[RawMessage]:
    """Messages in ``data``: an mbox when it starts with an envelope line, else one mail.

    Raises :class:`InputError` naming ``source`` when ``data`` is empty or
    does not start like a mail (headers or an mbox ``From `` line).
    """
    if not (data[:4096].strip() or data.strip()):  # the head first: no copy of a large mbox
        raise InputError("empty input, no mail", subject=source)
    if not data.startswith(b"From "):
        # an editor's byte-order mark or leading lines of only blanks before an mbox
        # (git mailsplit skips them: t/t5100/sample.mbox starts so, C25)
        head = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
        head = _skip_blank_lines(head)
        if head.startswith(b"From "):
            data = head
    if is_bare_diff(data):
        # `git diff`, `git show`, `diff -u`, `hg diff`, svn `Index:` output: one patch without mail headers
        yield RawMessage(source=source, kind="rfc822", data=data)
        return
    if data.startswith(b"From "):
        msgs = split_mbox_bytes(data, source)
        if len(msgs) == 1:
            yield RawMessage(source=source, kind="rfc822", data=msgs[0].data)
        else:
            yield from msgs
        return
    if not looks_like_mail(data):
        raise InputError("not a mail, mbox or git format-patch file (no header lines at the start)", subject=source)
    yield RawMessage(source=source, kind="rfc822", data=data)


def _skip_blank_lines(data: bytes) -> bytes:
    """``data`` without its leading lines of only spaces, TABs and CRs."""
    pos = 0
    while True:
        nl = data.find(b"\n", pos, pos + 4096)
        if nl < 0 or data[pos:nl].strip(b" \t\r"):
            return data[pos:]
        pos = nl + 1


_DIFF_START = lazyre.compile(rb"^(?:diff --git \S|--- [^\n]*\n\+\+\+ [^\n]*\n@@ -)", re.MULTILINE)
_GIT_LOG_COMMIT = lazyre.compile(rb"commit [0-9a-f]{7,64}(?: |\r?$)")
_BZR_FILE = lazyre.compile(rb"=== (?:modified|added|removed|renamed) (?:file|directory) ")


def is_bare_diff(data: bytes) -> bool:
    """True when ``data`` is a diff without mail headers, as checkpatch.pl reads one (C18).

    It starts (after blank lines) with ``diff `` (``git diff``, ``diff -u``,
    ``hg diff``), ``commit <sha>`` then a diff (``git show``, ``git log -p``),
    ``Index: <file>`` then a ``===``/``---`` line (svn, cvs), ``=== modified
    file`` (bzr), or ``--- <file>`` followed by ``+++ <file>``.
    """
    head = _skip_blank_lines(data[:8192])
    lines = head.split(b"\n", 3)
    first = lines[0].rstrip(b"\r")
    second = lines[1] if len(lines) > 1 else b""
    if first.startswith(b"diff ") or _BZR_FILE.match(first):
        return True
    if first.startswith(b"--- ") and second.startswith(b"+++ "):
        return True
    if first.startswith(b"Index: ") and second.startswith((b"====", b"--- ", b"diff ")):
        return True
    if _GIT_LOG_COMMIT.match(first):
        return b"\ndiff --git " in data or b"\n--- " in data
    if first.startswith(b"From ") or _HEADER.match(first) or not first:
        return False  # a mail (or nothing at all)
    # text before the diff, as git apply and checkpatch.pl skip it (git's t4100 patches start with
    # "<sha> (from <sha>)", t4109's with a shell here-document line)
    return _DIFF_START.search(data) is not None


def looks_like_mail(data: bytes) -> bool:
    """True when ``data`` starts with an mbox envelope or an RFC 5322 header line."""
    head = data.lstrip(b"\r\n")[:1000]
    if head.startswith(b"From "):
        return True
    first = head.split(b"\n", 1)[0]
    return _HEADER.match(first) is not None and not first.startswith((b"diff", b"---", b"+++", b"@@"))


def split_mbox_bytes(data: bytes, source: str) -> list[RawMessage]:
    """Split mbox bytes into messages (``source:N``, N from 1); mboxo ``>From `` undone.

    A ``From `` line separates messages when it starts the data or follows an
    empty line, and looks like an envelope (a time ``h:mm`` on it). The empty
    line before a separator belongs to the mbox, not to the message. Raises
    :class:`InputError` when ``data`` does not start with an envelope line.
    """
    if not data.startswith(b"From "):
        raise InputError("not an mbox (does not start with a 'From ' line)", subject=source)
    # Byte offsets of the separator lines, found with bytes.find on b"\nFrom "
    # (no per-line work): the line before must be empty ("" or a lone CR) and
    # the line must look like an envelope (the regex cannot cross a newline).
    starts = [0]
    find = data.find
    at = find(b"\nFrom ")
    while at >= 0:
        if data[at - 1 : at] == b"\n" or (data[at - 1 : at] == b"\r" and data[at - 2 : at - 1] == b"\n"):
            if _ENVELOPE.match(data, at + 1):
                starts.append(at + 1)
        elif _STRICT_ENVELOPE.match(data, at + 1):
            # git mailsplit needs no empty line before a separator (git's t/t5100/sample.mbox has
            # them after a signature line); then the line must end like an envelope date (a year)
            starts.append(at + 1)
        at = find(b"\nFrom ", at + 1)
    out = []
    last = len(starts) - 1
    # the mboxo escapes (">From " lines), found in one scan of the mbox rather than one per message;
    # `escape` walks them along with the messages
    escapes = []
    at = find(b"\n>From ")
    while at >= 0:
        escapes.append(at)
        at = find(b"\n>From ", at + 1)
    escapes.append(len(data))  # the end: no escape after it
    escape = 0
    for k, s in enumerate(starts):
        if k < last:
            e = starts[k + 1]
            # drop the separator's empty line ("\n" or "\r\n" before the next "From ")
            if data[e - 2 : e] == b"\n\n":
                raw = data[s : e - 1]
            elif data[e - 3 : e] == b"\n\r\n":
                raw = data[s : e - 2]
            else:  # no empty line before this separator (git mailsplit's rule)
                raw = data[s:e]
        else:
            raw = data[s:]
        while escapes[escape] < s:
            escape += 1
        if escapes[escape] + 7 <= s + len(raw):  # an escape inside this message
            raw = raw.replace(b"\n>From ", b"\nFrom ")  # mboxo: one ">" taken off, never on the first line
        out.append(RawMessage(source=f"{source}:{k + 1}", kind="rfc822", data=raw))
    return out


def _read_maildir(p: Path) -> Iterator[RawMessage]:
    names: list[Path] = []
    for sub in ("new", "cur"):
        d = p / sub
        if d.is_dir():
            names.extend(f for f in d.iterdir() if f.is_file() and not f.name.startswith("."))
    names.sort(key=lambda f: f.name)
    if not names:
        raise InputError("empty Maildir", subject=str(p))
    for f in names:
        key = f.name.split(":", 1)[0]
        yield RawMessage(source=f"{p}:{key}", kind="rfc822", data=_read_file(f))


def git_format_patch(rev_range: str, cwd: str | os.PathLike[str] = ".") -> bytes:
    """``git format-patch --stdout`` of ``rev_range`` (see :func:`format_patch_args`) in ``cwd``, as mbox bytes.

    The revision is passed as one argument after ``--end-of-options`` (no
    shell, no option injection; ``-N`` is the only option taken). Raises
    :class:`InputError` naming the range when git fails or produces no patch.
    """
    import subprocess  # only this function runs a program

    if not rev_range or "\0" in rev_range or (rev_range.startswith("-") and not _LAST_N.fullmatch(rev_range)):
        raise InputError("not a revision range (a commit, A..B, -N or REV-N)", subject=rev_range or "''")
    cmd = ["git", "format-patch", "--stdout", *format_patch_args(rev_range, cwd)]
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise InputError("git is not installed or cwd does not exist", subject=rev_range) from exc
    if proc.returncode != 0:
        raise InputError(f"git format-patch failed: {_git_error(proc.stderr, proc.returncode)}", subject=rev_range)
    if not proc.stdout.strip():
        raise InputError("git format-patch produced no patch (empty range?)", subject=rev_range)
    return proc.stdout


_LAST_N = lazyre.compile(r"-[1-9][0-9]{0,5}")
_REV_COUNT = lazyre.compile(r"(.+)-([1-9][0-9]{0,5})")


def _is_commit(rev: str, cwd: str | os.PathLike[str]) -> bool:
    import subprocess

    proc = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"],
        cwd=cwd,
        capture_output=True,
        check=False,
    )
    return proc.returncode == 0


def format_patch_args(rev: str, cwd: str | os.PathLike[str] = ".") -> list[str]:
    """The ``git format-patch`` arguments for what a developer types after ``--git``.

    What ``git format-patch`` takes and what checkpatch.pl's ``--git`` takes:
    ``-N`` (the last N commits), a range (``A..B``, ``A...B``, ``REV^!``), a
    single commit (``HEAD``, a hash: that commit alone, as checkpatch reads it;
    plain ``git format-patch HEAD`` would give nothing) and ``REV-N`` (the N
    commits ending at REV, checkpatch's form).
    """
    if _LAST_N.fullmatch(rev):
        return [rev]
    if ".." in rev or rev.endswith(("^!", "^@")) or rev.startswith("^"):
        return ["--end-of-options", rev]
    if _is_commit(rev, cwd):
        return ["-1", "--end-of-options", rev]
    m = _REV_COUNT.fullmatch(rev)
    if m is not None and _is_commit(m.group(1), cwd):
        return [f"-{m.group(2)}", "--end-of-options", m.group(1)]
    return ["--end-of-options", rev]  # let git say what is wrong with it


def _git_error(stderr: bytes, returncode: int) -> str:
    """What went wrong, from a failed git command's stderr: its ``fatal:``/``error:`` line(s).

    git follows the reason with hints (``Use '--' to separate paths from
    revisions...`` and a usage line), which say nothing about the cause; they
    are left out. Without such a line, the last non-empty line; without any
    output, the exit status.
    """
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    reasons = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    if reasons:
        return "; ".join(dict.fromkeys(reasons))
    return lines[-1] if lines else f"exit status {returncode}"
