"""Findings -> a reply Draft: headers, quotes, wording, and the thread checks that keep us quiet.

One draft per patch message, holding all of its open findings. Headers follow
what a kernel reviewer's mail client would produce for a reply:

* ``From``: the configured identity (``[identity]`` in the config), else git's
  ``sendemail.from``, else ``user.name`` + ``user.email`` (the order b4 uses);
* ``To``: the patch author; ``Cc``: the patch's To and Cc minus ourselves;
* ``Subject: Re: <subject>`` with exactly one ``Re:``;
* ``In-Reply-To``: the patch's Message-ID; ``References``: its known ancestry
  (Message-IDs only, comments dropped) plus that Message-ID.

Addresses the archive obfuscated (``ada@...mple.org``) are completed only when
certain: a unique full address of the same mailbox from the store (mail files,
other sources) or from a MAINTAINERS file. An address that stays uncertain is
left out, the draft is marked ``recipients_complete=False`` and starts with a
note naming who is missing, for the person sending it. An address containing
``@...`` never reaches a header.

The body: ``On <Date as sent>, <Name> wrote:``, then for each group of
findings the trimmed quote of the lines it is about and the rule's reply
paragraph wrapped at 72 columns (quoted lines are never wrapped), and a short
closing with the identity's first name. Never a Reviewed-by or Acked-by.
"""

from __future__ import annotations

import logging
import re
import subprocess
import textwrap
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from email.utils import getaddresses, make_msgid as _email_make_msgid
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from reviewbot.config import Settings
from reviewbot.errors import UsageError
from reviewbot.models import Address, Draft, Finding, FindingState, Message, Patch
from reviewbot.parse.threads import about_patch, norm_title
from reviewbot.respond.quote import claim_quote, quote_finding, subject_quote
from reviewbot import textsafe

log = logging.getLogger(__name__)

WIDTH = 72
INCOMPLETE_HEADER = "X-Reviewbot-Recipients"

__all__ = [
    "WIDTH",
    "INCOMPLETE_HEADER",
    "build_draft",
    "resolve_identity",
    "reply_subject",
    "msgids",
    "references_for",
    "complete_address",
    "parse_maintainers",
    "wrap_paragraphs",
    "thread_state",
    "applied_in_thread",
    "said_in_thread",
    "reviewed_in_thread",
    "APPLIED_WORDS",
    "AUTHOR_APPLIED_WORDS",
    "REJECTED_WORDS",
    "WITHDRAWN_WORDS",
    "REVIEW_TRAILERS",
    "REVIEW_BOTS",
    "default_make_msgid",
    "stable_msgid",
    "RecipientResult",
    "resolve_recipients",
    "same_mailbox",
    "missing_note",
    "MISSING_NOTE",
]


# ------------------------------------------------------------------ identity


def _git_config(key: str, cwd: Path | None = None) -> str | None:
    try:
        done = subprocess.run(
            ["git", "config", "--get", key],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value or None


def resolve_identity(settings: Settings, *, cwd: Path | None = None) -> Address:
    """The From address of our drafts.

    Order: ``settings.identity_name``/``identity_email``; else ``git config
    sendemail.from``; else ``git config user.name`` + ``user.email``.
    Raises UsageError when no e-mail address can be found.
    """
    if settings.identity_email:
        return Address(settings.identity_name or "", settings.identity_email)
    sendemail_from = _git_config("sendemail.from", cwd)
    if sendemail_from:
        name, email = getaddresses([sendemail_from])[0]
        if email and "@" in email:
            return Address(name or settings.identity_name or "", email)
    user_email = _git_config("user.email", cwd)
    if user_email:
        return Address(settings.identity_name or _git_config("user.name", cwd) or "", user_email)
    from reviewbot.config import user_config_path

    raise UsageError(
        f"no identity for drafts: set [identity] name/email in {user_config_path()}, "
        "or git config sendemail.from / user.name + user.email",
        subject="identity",
    )


def default_make_msgid(domain: str) -> str:
    """A fresh Message-ID (without brackets) in ``domain``, via email.utils.make_msgid."""
    return _email_make_msgid(idstring="reviewbot", domain=domain).strip("<>")


def stable_msgid(domain: str, in_reply_to: str, fingerprints: Sequence[str]) -> str:
    """A Message-ID that is the same for the same reply (patch + findings), so a re-run after a
    crash rewrites the very same draft instead of making a second one."""
    import hashlib

    seed = "\0".join((in_reply_to, *sorted(fingerprints))).encode("utf-8")
    return f"reviewbot.{hashlib.sha1(seed).hexdigest()[:20]}@{domain}"


# ------------------------------------------------------------------ headers

_RE_PREFIX = re.compile(r"^(?:\s*(?:re|aw|sv|antw)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)


def reply_subject(subject: str) -> str:
    """``Re: <subject>`` with exactly one ``Re:`` (folding and extra ``Re:``/``Aw:`` removed)."""
    text = " ".join(subject.split())
    text = _RE_PREFIX.sub("", text)
    return f"Re: {text}" if text else "Re:"


_MSGID_RE = re.compile(r"<([^<>\s]+@[^<>\s]+)>")


def msgids(value: str | Iterable[str] | None) -> list[str]:
    """Message-IDs (no brackets) from a header value or a list of ids; comments and junk dropped."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        found = _MSGID_RE.findall(item)
        if found:
            out.extend(found)
            continue
        bare = item.strip().strip("<>").strip()
        if bare and " " not in bare and "@" in bare:
            out.append(bare)
    return out


def references_for(message: Message, known_ancestry: Sequence[str] = ()) -> tuple[str, ...]:
    """``References`` of a reply to ``message``: its ancestry (oldest first) then its Message-ID.

    The ancestry is the message's References, or its In-Reply-To parent when
    References are missing (C12: ``In-Reply-To: <id> (message from ...)``
    gives ``id``), or, when the message has neither, ``known_ancestry``
    (e.g. the thread root the store found from the archive's thread links).
    Message-IDs only, each once.
    """
    ancestry = msgids(message.references)
    parent = msgids(message.in_reply_to)
    if parent and parent[0] not in ancestry:
        ancestry.append(parent[0])
    if not ancestry:  # archive pages carry no References: use what the store knows (the thread root)
        ancestry = msgids(list(known_ancestry))
    out: list[str] = []
    for mid in ancestry:
        if mid != message.message_id and mid not in out:
            out.append(mid)
    out.append(message.message_id)
    return tuple(out)


# ------------------------------------------------------------------ recipients


def _split(email: str) -> tuple[str, str]:
    local, _, domain = email.rpartition("@")
    return local, domain


def is_obfuscated(email: str) -> bool:
    """True for the archive's obfuscated form ``user@...tail``."""
    return "@..." in email


def complete_address(partial: Address, known: Iterable[Address]) -> Address | None:
    """The one full address of ``known`` that ``partial`` (``user@...tail``) stands for, else None.

    blists drops exactly three characters after the ``@``: a candidate must
    have the same local part (case-insensitive), a domain ending with the
    visible tail and exactly three characters longer. Two or more different
    candidates in all sources: None (not certain). When the archive shows a
    display name, the one candidate must carry the same name too: a look-alike
    domain in one spam mail of the reviewer's own mail (``torvalds@evlux-...``
    for ``Linus Torvalds <torvalds@...ux-foundation.org>``) is a guess, not
    a completion.
    """
    email = partial.email
    if not is_obfuscated(email):
        return partial
    local, domain = _split(email)
    tail = domain[3:] if domain.startswith("...") else domain
    matches: dict[str, Address] = {}
    names: dict[str, set[str]] = {}  # every display name each candidate address was seen with
    for cand in known:
        if not cand.email or is_obfuscated(cand.email) or cand.partial or not usable_email(cand.email):
            continue
        c_local, c_domain = _split(cand.email)
        if c_local.lower() != local.lower():
            continue
        if len(c_domain) != len(tail) + 3 or not c_domain.lower().endswith(tail.lower()):
            continue
        key = cand.email.lower()
        if key not in matches or (_real_name(cand.name) and not _real_name(matches[key].name)):
            matches[key] = cand  # a person's name over none or over an address used as a name
        if cand.name:
            names.setdefault(key, set()).add(_same_name_key(cand.name))
    if len(matches) != 1:
        return None
    key, found = next(iter(matches.items()))
    shown = _same_name_key(partial.name) if "@..." not in partial.name else ""
    if shown and shown not in names.get(key, set()):
        return None  # the address fits, the person may not (never seen with this name): not certain
    name = partial.name if _real_name(partial.name) else found.name
    return Address(name if _real_name(name) else "", found.email)


def _real_name(name: str) -> bool:
    """True for a display name that is a name, not an address shown as one (``"ada@example.org"``,
    the archive's ``ada@...mple.org``): mail clients show the address anyway."""
    return bool(name.strip()) and "@" not in name


# Hosts that carry only mailing lists: an obfuscated list address (``linux-block@...r.kernel.org``)
# is completed when exactly one of them fits what the archive shows (three characters dropped).
LIST_HOSTS = (
    "vger.kernel.org",
    "lists.infradead.org",
    "lists.linux.dev",
    "lists.ozlabs.org",
    "kvack.org",
    "lists.freedesktop.org",
    "lists.sourceforge.net",
    "lists.linux-foundation.org",
    "lists.linaro.org",
    "lists.osuosl.org",
    "lists.xenproject.org",
    "lists.openwall.com",
    "lists.samba.org",
    "lists.01.org",
    "lists.cip-project.org",
    "lists.yoctoproject.org",
)


def complete_list_address(partial: Address) -> Address | None:
    """The full list address an obfuscated one stands for, when exactly one of :data:`LIST_HOSTS` fits
    (the visible tail ends it, three characters dropped): ``linux-mm@...ck.org`` -> ``linux-mm@kvack.org``."""
    if not is_obfuscated(partial.email):
        return None
    local, domain = _split(partial.email)
    tail = domain[3:] if domain.startswith("...") else domain
    if not local or not tail:
        return None
    fits = [h for h in LIST_HOSTS if len(h) == len(tail) + 3 and h.endswith(tail.lower())]
    if len(fits) != 1:
        return None
    name = partial.name if _real_name(partial.name) else ""
    return Address(name, f"{local}@{fits[0]}")


def is_list_address(addr: Address) -> bool:
    """True for a full address on one of :data:`LIST_HOSTS`."""
    return not is_obfuscated(addr.email) and addr.email.rpartition("@")[2].lower() in LIST_HOSTS


def _same_name_key(name: str) -> str:
    """A display name compared loosely: quotes dropped, whitespace runs as one space, case folded."""
    return " ".join(name.replace('"', " ").split()).casefold()


def usable_email(email: str) -> bool:
    """True when ``email`` can be a recipient: ``local@domain``, printable ASCII, no spaces, not obfuscated.

    ``root`` or ``Just A Name`` (a From without an address) are never recipients.
    """
    local, at, domain = email.rpartition("@")
    return (
        bool(at and local and domain)
        and email.isascii()
        and email.isprintable()
        and not any(c in email for c in ' \t<>,;"')
        and not is_obfuscated(email)
    )


_MAINT_LINE = re.compile(r"^[MR]:\s*(.+?)\s*$")


def parse_maintainers(path: Path) -> list[Address]:
    """Every ``M:`` and ``R:`` address of a kernel MAINTAINERS file (duplicates kept once).

    Raises UsageError naming the file when it cannot be read.
    """
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read MAINTAINERS file: {exc.strerror}", subject=str(path)) from exc
    out: dict[str, Address] = {}
    for line in text.splitlines():
        m = _MAINT_LINE.match(line)
        if not m:
            continue
        name, email = getaddresses([m.group(1)])[0]
        if email and "@" in email and not is_obfuscated(email):
            out.setdefault(email.lower(), Address(name, email))
    return list(out.values())


@dataclass(frozen=True)
class RecipientResult:
    """To/Cc of a draft; ``complete`` False when an obfuscated address could not be completed.

    ``unresolved``: the addresses left out, as the archive shows them; ``missing``: the same as
    addresses (display name kept), for the note a draft carries at its top (:func:`missing_note`)."""

    to: tuple[Address, ...]
    cc: tuple[Address, ...]
    complete: bool
    unresolved: tuple[str, ...] = ()
    missing: tuple[Address, ...] = ()
    dropped: int = 0  # recipients past MAX_DRAFT_RECIPIENTS, left out


#: At most this many addresses in a draft's To and Cc (the largest Cc list of the corpus names 191):
#: more are left out and the draft is marked incomplete, so a message naming thousands never becomes
#: a reply to all of them.
MAX_DRAFT_RECIPIENTS = 300


def same_mailbox(a: Address | None, b: Address | None) -> bool:
    """True when ``a`` and ``b`` are one mailbox, either of them possibly as the archive shows it
    (``ada@...mple.org`` is ``ada@example.org``: same local part, the visible tail, three characters
    dropped)."""
    if a is None or b is None or not a.email or not b.email:
        return False
    x, y = a.email.lower(), b.email.lower()
    if x == y:
        return True
    if is_obfuscated(x) == is_obfuscated(y):
        return False
    part, full = (x, y) if is_obfuscated(x) else (y, x)
    p_local, p_domain = _split(part)
    f_local, f_domain = _split(full)
    tail = p_domain[3:] if p_domain.startswith("...") else p_domain
    return p_local == f_local and len(f_domain) == len(tail) + 3 and f_domain.endswith(tail)


def resolve_recipients(
    message: Message,
    *,
    identity: Address,
    list_address: str,
    known: Sequence[Address] = (),
    sender: Address | None = None,
) -> RecipientResult:
    """To = the author (and the sender, when another person posted the patch: its header From with an
    in-body ``From:`` of the author; the author's own other mailbox goes first in Cc), Cc = the
    message's To + Cc minus ``identity``.

    Obfuscated addresses are completed from ``known`` (only when certain, see
    :func:`complete_address`), list addresses from :data:`LIST_HOSTS`, and an
    address shown with a name that the message's own headers also show without
    one (the in-body author also in Cc) as that header completes. An address
    that stays uncertain is left out and named in ``missing``; ``complete`` is
    then False and the draft says so at its top. Without an author the patch's
    list is in To.
    """
    pool = list(known) + [Address("", list_address)]
    unresolved: list[str] = []
    missing: list[Address] = []
    own_headers = [a for a in (sender, *message.to, *message.cc) if a is not None and a.email]

    def from_own_headers(addr: Address) -> Address | None:
        for other in own_headers:
            if other.email.lower() != addr.email.lower() or (other.name and "@..." not in other.name):
                continue
            done = complete_address(Address("", other.email, True), pool)
            if done is not None:
                return Address(addr.name if "@..." not in addr.name else "", done.email)
        return None

    def fix(addr: Address | None) -> Address | None:
        if addr is None or not addr.email:
            return None
        if addr.partial or is_obfuscated(addr.email):
            done = complete_address(addr, pool) or complete_list_address(addr) or from_own_headers(addr)
            if done is None:
                unresolved.append(addr.email)
                missing.append(addr)
            return done
        if not usable_email(addr.email):  # "root", "Just A Name": no address at all
            unresolved.append(addr.email)
            missing.append(addr)
            return None
        if addr.name and not _real_name(addr.name):  # an address used as a display name
            return Address("", addr.email)
        return addr

    me = identity.email.lower()
    to: list[Address] = []
    author = fix(message.from_addr)
    if author is not None and author.email.lower() != me:
        to.append(author)
    cc: list[Address] = []
    if sender is not None and not same_mailbox(sender, message.from_addr):
        posted_by = fix(sender)
        if posted_by is not None and posted_by.email.lower() not in {me, *(a.email.lower() for a in to)}:
            # the author's other mailbox (same name) in Cc, another person who posted the patch in To
            same = (
                author is not None
                and bool(author.name)
                and _same_name_key(author.name) == _same_name_key(posted_by.name)
            )
            (cc if same else to).append(posted_by)
    seen = {a.email.lower() for a in (*to, *cc)} | {me}
    for addr in (*message.to, *message.cc):
        done = fix(addr)
        if done is None or done.email.lower() in seen:
            continue
        seen.add(done.email.lower())
        cc.append(done)
    if author is None and (message.from_addr is None or not message.from_addr.email):
        unresolved.append("(no From)")
        if message.from_addr is not None and message.from_addr.name:  # a name without an address
            missing.append(message.from_addr)
    if not to:  # no author to write to (unknown, or ourselves): the patch's list in To
        lists = [a for a in cc if is_list_address(a)]
        first = next((a for a in lists if a.email.lower() == list_address.lower()), None) or (
            lists[0] if lists else Address("", list_address)
        )
        to, cc = [first], [a for a in cc if a != first]
    dropped = 0
    if len(to) + len(cc) > MAX_DRAFT_RECIPIENTS:  # the lists stay (the reply belongs on them), then the first people
        before = len(cc)
        room = max(0, MAX_DRAFT_RECIPIENTS - len(to) - sum(1 for a in cc if is_list_address(a)))
        people = {id(a) for a in [a for a in cc if not is_list_address(a)][:room]}
        cc = [a for a in cc if is_list_address(a) or id(a) in people][: max(0, MAX_DRAFT_RECIPIENTS - len(to))]
        dropped = before - len(cc)
    return RecipientResult(
        tuple(to), tuple(cc), not unresolved and not dropped, tuple(unresolved), tuple(missing), dropped
    )


#: First words of the note on top of a draft whose recipients are incomplete (tools look for it).
MISSING_NOTE = "[Before sending:"


def missing_note(rcpt: RecipientResult, lore_said: str = "") -> str:
    """The note on top of an incomplete draft, naming who is left out and why, to be deleted by hand
    before sending; empty when the recipients are complete. ``lore_said``: why lore's copy of the
    message was not taken (it disagreed with the archive), told too."""
    if rcpt.complete:
        return ""
    hidden, bare = [], []
    named: dict[str, Address] = {}  # each mailbox once, with its name when one showing has it
    for addr in rcpt.missing:
        key = addr.email.lower() or addr.name
        if key not in named or (_real_name(addr.name) and not _real_name(named[key].name)):
            named[key] = addr
    for addr in named.values():
        if is_obfuscated(addr.email):
            hidden.append(f"{addr.name} <{addr.email}>" if addr.name and "@..." not in addr.name else addr.email)
        else:
            bare.append(addr.name or addr.email)
    said = []
    if len(hidden) == 1:
        said.append(
            f"{hidden[0]} is not in To/Cc: the archive hides part of the address and no mail file, "
            "stored message or MAINTAINERS entry completes it."
        )
    elif hidden:
        said.append(
            f"{len(hidden)} people are not in To/Cc, as the archive hides part of their addresses and "
            f"no mail file, stored message or MAINTAINERS entry completes them: {', '.join(hidden)}."
        )
    for name in bare:
        said.append(f'the patch\'s author "{name}" has no e-mail address, so is not in To.')
    if not hidden and not bare and not rcpt.dropped:
        said.append("the patch has no From, so its author is not in To.")
    if rcpt.dropped:
        said.append(
            f"the patch names {rcpt.dropped} more recipients than a draft carries ({MAX_DRAFT_RECIPIENTS}): "
            "they are left out."
        )
    if lore_said:
        said.append(f"lore's copy of the patch was not used for the addresses: {lore_said}.")
    what = "the addresses" if len(hidden) + len(bare) > 1 else "the address"
    return wrap_paragraphs(f"{MISSING_NOTE} {' '.join(said)} Add {what} by hand, then delete this note.]")


# ------------------------------------------------------------------ wording

_TRAILER_RE = re.compile(r"^\s*(Reviewed|Acked|Tested|Signed-off|Reported|Suggested)-by:", re.IGNORECASE)


def wrap_paragraphs(text: str, width: int = WIDTH) -> str:
    """Wrap prose at ``width`` columns, keep code and quotes as they are.

    Paragraphs are separated by blank lines. A paragraph whose lines start
    with whitespace or ``>`` (code, a quote) is kept verbatim; ``- ``/``* ``
    bullets are wrapped with a hanging indent; other paragraphs are refilled.
    Lines that look like review trailers (Reviewed-by, Acked-by...) are
    dropped: reviewbot never gives tags.
    """
    lines = [line for line in text.strip("\n").split("\n") if not _TRAILER_RE.match(line)]
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line.rstrip())
        elif paragraphs[-1]:
            paragraphs.append([])
    out: list[str] = []
    for para in paragraphs:
        if not para:
            continue
        if all(line[:1] in (" ", "\t", ">") for line in para):
            out.append("\n".join(para))
            continue
        items: list[list[str]] = []
        for line in para:
            if re.match(r"^\s*(?:[-*]|\d+[.)])\s", line) or not items:
                items.append([line])
            elif line[:1] in (" ", "\t") and items[-1][0].lstrip()[:1] not in ("-", "*"):
                items.append([line])
            else:
                items[-1].append(line)
        chunks: list[str] = []
        for item in items:
            first = item[0]
            bullet = re.match(r"^(\s*(?:[-*]|\d+[.)])\s+)", first)
            joined = " ".join(part.strip() for part in item)
            if bullet:
                indent = " " * len(bullet.group(1))
                body = joined[len(bullet.group(1).strip()) :].strip()
                chunks.append(
                    textwrap.fill(
                        body,
                        width=width,
                        initial_indent=bullet.group(1),
                        subsequent_indent=indent,
                        break_long_words=False,
                        break_on_hyphens=False,
                    )
                )
            elif first[:1] in (" ", "\t"):
                chunks.append("\n".join(item))
            else:
                chunks.append(textwrap.fill(joined, width=width, break_long_words=False, break_on_hyphens=False))
        out.append("\n".join(chunks))
    return "\n\n".join(out)


def _first_name(addr: Address) -> str:
    if addr.name and addr.email.endswith(".invalid"):
        return addr.name  # a preview's stand-in sender ("Your Name"): the whole placeholder, not "Your"
    if addr.name:
        name = addr.name.strip().strip('"')
        if "," in name:  # "Last, First"
            name = name.split(",", 1)[1].strip()
        return name.split()[0] if name.split() else addr.email.split("@")[0]
    return addr.email.split("@")[0]


def _author_name(message: Message) -> str:
    addr = message.from_addr
    if addr is None:
        return "the author"
    if addr.name:
        return addr.name
    local = addr.email.split("@")[0]
    return local or "the author"


def _date_as_sent(message: Message) -> str:
    if message.date_raw.strip():
        return " ".join(message.date_raw.split())
    if message.date is not None:
        from email.utils import format_datetime

        return format_datetime(message.date)
    return "an unknown date"


def _reply_fn(rules: Any, rule_id: str) -> Callable[[Sequence[Finding], Patch], str] | None:
    """The rule's wording of one point: its module's ``reply_point`` when it has one, else ``reply``."""
    import sys

    if rules is None:
        return None
    if isinstance(rules, Mapping):
        entry = rules.get(rule_id)
        if entry is None:
            return None
        if callable(entry):
            return entry
        return getattr(entry, "reply_point", None) or getattr(entry, "reply", None)
    for rule in rules:
        meta = getattr(rule, "meta", None) or getattr(rule, "RULE", None)
        if meta is not None and getattr(meta, "id", None) == rule_id:
            module = sys.modules.get(getattr(rule, "module_name", "") or "")
            point = getattr(module, "reply_point", None) if module is not None else getattr(rule, "reply_point", None)
            return point if callable(point) else getattr(rule, "reply", None)
    return None


def _groups(findings: Sequence[Finding]) -> list[list[Finding]]:
    """All findings of one rule on one patch make one point: one group per rule, in first-seen order."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.rule_id, []).append(f)
    return list(groups.values())


def _places(group: list[Finding]) -> list[list[Finding]]:
    """The places a group quotes: its findings on one hunk (or one commit-message spot) together."""
    places: dict[tuple[Any, ...], list[Finding]] = {}
    last_line: dict[tuple[Any, ...], tuple[int, int]] = {}  # long hunk -> (place number, last line)
    for f in group:
        hunk_key = (f.hunk.header, f.hunk.new_start) if f.hunk is not None else None
        # a long hunk (a new file): findings far apart get their own excerpts under the same @@ line,
        # so that no place the paragraph names is left out of the quote
        part = None
        if f.hunk is not None and len(f.hunk.lines) > 60:
            first = min(f.lines or ((f.line,) if f.line is not None else (0,)))
            number, last = last_line.get((f.path, hunk_key), (0, first))
            if first - last > 12:
                number += 1
            last_line[(f.path, hunk_key)] = (number, max(f.lines or (first,)))
            part = number
        places.setdefault((f.path, hunk_key, part), []).append(f)
    return list(places.values())


def _merged(group: list[Finding]) -> Finding:
    if len(group) == 1:
        return group[0]
    from dataclasses import replace

    lines: list[int] = []
    for f in group:
        for n in f.lines or ((f.line,) if f.line is not None else ()):
            if n not in lines:
                lines.append(n)
    return replace(group[0], lines=tuple(sorted(lines)))


def _one_point(group: list[Finding]) -> list[Finding]:
    """Findings of one rule that say the same thing (equal plain details, e.g. one struct) become one
    finding whose list details (moved members, ...) and lines are joined, so the rule names each
    member or barrier once in one paragraph instead of one paragraph per hunk."""
    from dataclasses import replace

    merged: dict[str, Finding] = {}
    for n, f in enumerate(group):
        details = dict(f.details or {})
        plain = {k: v for k, v in details.items() if not isinstance(v, (list, tuple, dict))}
        key = repr(sorted(plain.items(), key=lambda kv: kv[0])) + f.severity.value
        if not any(isinstance(v, (list, tuple)) for v in details.values()):
            key += f"#{n}"  # nothing to join (two smp_store_release() of one kind): the rule counts both
        if key not in merged:
            merged[key] = f
            continue
        old = merged[key]
        joined = dict(old.details or {})
        for k, v in details.items():
            if isinstance(v, (list, tuple)):
                have = list(joined.get(k) or [])
                joined[k] = have + [x for x in v if x not in have]
        lines = tuple(dict.fromkeys((*old.lines, *f.lines)))
        merged[key] = replace(old, details=joined, lines=lines)
    return list(merged.values())


def _paragraph(group: list[Finding], patch: Patch, rules: Any) -> str:
    fn = _reply_fn(rules, group[0].rule_id)
    text = ""
    if fn is not None:
        try:
            text = fn(_one_point(group), patch) or ""
        except Exception:  # a rule's wording must not stop the draft
            log.exception("rule %s: reply() failed on %s", group[0].rule_id, patch.message_id)
            text = ""
    if not text.strip():
        text = "\n\n".join(dict.fromkeys(f.message for f in group))
    return wrap_paragraphs(_same_point_once(text))


_C_KINDS = ("struct", "union", "enum")


def _same_point_once(text: str) -> str:
    """Paragraphs that say the same thing about different places (they differ in one stretch of
    words only, e.g. the struct's name and its members) become the first paragraph and one
    sentence naming the other places: "The same goes for struct b (x and y)." One point, one paragraph."""
    import difflib

    paras = [p for p in text.split("\n\n") if p.strip()]
    if len(paras) < 2:
        return text
    out: list[str] = []
    others: dict[int, list[str]] = {}  # index in out -> the differing stretches of its look-alikes
    for para in paras:
        words = para.split()
        for i, first in enumerate(out):
            base = first.split()
            match = difflib.SequenceMatcher(None, base, words, autojunk=False)
            ops = [op for op in match.get_opcodes() if op[0] != "equal"]
            if len(ops) != 1 or match.ratio() < 0.75:
                continue
            _, a0, _, b0, b1 = ops[0]
            stretch = words[b0:b1]
            if b0 and words[b0 - 1] in _C_KINDS:
                stretch = [words[b0 - 1], *stretch]
            if stretch:
                others.setdefault(i, []).append(" ".join(stretch))
                break
        else:
            out.append(para)
    for i, names in others.items():
        out[i] += " The same goes for " + ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1] + "."
    return "\n\n".join(out)


def _norm_para(text: str) -> str:
    return " ".join(text.split()).lower()


def _without_repeats(text: str, seen: set[str]) -> str:
    """``text`` without the paragraphs already in ``seen`` (which it extends): a draft says a thing once."""
    out = []
    for para in text.split("\n\n"):
        key = _norm_para(para)
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(para)
    return "\n\n".join(out)


def _quotes(patch: Patch, group: list[Finding]) -> list[str]:
    """The quoted places of one point: each hunk once (file header once per file), each commit-message
    excerpt once."""
    out: list[str] = []
    last_path: str | None = None
    last_at = ""  # the @@ line quoted last (a long hunk's excerpts share it)
    for place in _places(group):
        if place[0].series_point and place[0].hunk is None:
            claim = place[0].quote.lower()
            if not claim:
                continue  # a point about several patches, answered on the cover letter: nothing to quote
            prose = re.split(r"^\S.*\(\d+\):\s*$", patch.commit_message, maxsplit=1, flags=re.M)[0]
            if claim not in prose.lower():  # the claim is in the subject (the shortlog only repeats titles)
                quote = "\n".join(subject_quote(patch))
                if quote and quote not in out:
                    out.append(quote)
                continue
        quote = quote_finding(patch, _merged(place))
        if not quote or quote in out:
            continue
        lines = quote.split("\n")
        if (
            place[0].hunk is not None
            and last_path == place[0].path
            and len(lines) > 2
            and lines[0].startswith("> --- ")
            and lines[1].startswith("> +++ ")
        ):
            quote = "\n".join(lines[2:])  # same file as the quote above: no second file header
            lines = quote.split("\n")
            if last_at and lines[0] == last_at:  # another excerpt of the hunk above: its @@ once
                lines = lines[1:]
                if lines and lines[0] == "> [...]" and out and out[-1].endswith("\n> [...]"):
                    lines = lines[1:]
                quote = "\n".join(lines)
        if place[0].hunk is not None:
            last_at = next((ln for ln in quote.split("\n") if ln.startswith("> @@")), last_at)
        out.append(quote)
        last_path = place[0].path if place[0].hunk is not None else None
    return out


#: How a paragraph names what the patch says: ``The subject says "..."``, ``The changelog says "..."``.
_SAYS_RE = re.compile(r'\bsays\s+"([^"]{8,})"')


def _matching_quotes(patch: Patch, group: list[Finding], text: str) -> list[str]:
    """The quotes of a point; for a point on the changelog (no hunk) whose paragraph cites a sentence
    (``The subject says "..."``), the quote that shows that sentence, so the reader sees what is cited
    (the subject's claim was quoted as the changelog paragraph holding the claim word)."""
    quotes = _quotes(patch, group)
    if any(f.hunk is not None for f in group):
        return quotes
    m = _SAYS_RE.search(" ".join(text.split()))
    if m is None:
        return quotes
    cited = " ".join(m.group(1).split()).lower().rstrip(".")
    shown = " ".join(" ".join(line[1:].split()) for q in quotes for line in q.split("\n")).lower()
    if cited in shown:
        return quotes
    better = claim_quote(patch, m.group(1))
    return ["\n".join(better)] if better else quotes


#: A paragraph that opens by citing a sentence: ``The changelog says "...". That sounds plausible, ...``.
_OPENS_WITH_CITATION_RE = re.compile(r'^The [\w\' ]{3,40} says "([^"]{8,})"\.\s+(?=\S)')


def _without_restated_quote(text: str, quotes: Sequence[str]) -> str:
    """The paragraph without its opening citation when the quote right above already shows that sentence: a
    reviewer quotes the sentence and writes under it, not the sentence again in prose."""
    flat = " ".join(text.split())
    m = _OPENS_WITH_CITATION_RE.match(flat)
    if m is None:
        return text
    cited = " ".join(m.group(1).split()).lower().rstrip(".")
    shown = " ".join(" ".join(line[1:].split()) for q in quotes for line in q.split("\n")).lower()
    if cited not in shown:
        return text
    return wrap_paragraphs(flat[m.end() :])


#: A point made at more places of one patch than this is made at the first ones only (:data:`KEPT_PLACES`),
#: and the others are named in one sentence: a reviewer makes the one or two points that matter and says
#: "the same for the others", not a dozen quoted barriers in a 200-line reply.
MAX_PLACES = 3
KEPT_PLACES = 2


def _first_places(group: list[Finding]) -> tuple[list[Finding], str]:
    """The findings of a point to quote and word, and a sentence naming the places left out ("" when none)."""
    places = _places(group)
    if len(places) <= MAX_PLACES:
        return group, ""
    kept = [f for place in places[:KEPT_PLACES] for f in place]
    lines: dict[tuple[str, str], list[int]] = {}  # (what, file) -> lines: "the smp_wmb() in a.c at lines 3, 9"
    for f in (f for place in places[KEPT_PLACES:] for f in place):
        what = (f.symbol or "").split("@")[0]  # a rule's symbol: "smp_wmb@<hunk section>", "struct foo"
        what = f"{what}()" if re.fullmatch(r"[A-Za-z_]\w*", what) else what
        at = lines.setdefault((what, f.path or "the commit message"), [])
        for n in (f.line,) if f.line is not None else ():
            if n not in at:
                at.append(n)
    named = []
    for (what, path), at in lines.items():
        spot = f"{path} at line{'s' if len(at) > 1 else ''} {', '.join(map(str, at))}" if at else path
        named.append(f"the {what} in {spot}" if what else spot)
    count = len(places) - KEPT_PLACES
    return kept, f"The same goes for the other {count} places of this patch: {'; '.join(named)}."


def build_body(patch: Patch, findings: Sequence[Finding], rules: Any, identity: Address, intro: str = "") -> str:
    """The reply text (``\\n`` line ends, ending with a newline): attribution, quotes + comments, closing.

    One paragraph per point (all findings of one rule), under the quotes of every place it is about;
    a paragraph already said above is not said again. ``intro``: a sentence put after the
    paragraph (a series-level point says which patches it is about)."""
    parts = [f"On {_date_as_sent(patch.message)}, {_author_name(patch.message)} wrote:"]
    seen: set[str] = set()
    for whole in _groups(findings):
        group, others = _first_places(whole)
        text = _without_repeats(_paragraph(group, patch, rules), seen)
        if not text:
            continue
        quotes = _matching_quotes(patch, group, text)
        text = _without_restated_quote(text, quotes)
        parts.extend(quotes)
        parts.append("")
        parts.append(text)
        parts.append("")
        if others:
            parts.append(wrap_paragraphs(others))
            parts.append("")
        if intro:  # after the point it is about: "The same goes for patches 1/4 and 3/4."
            parts.append(wrap_paragraphs(intro))
            parts.append("")
    parts.append("Thanks,")
    parts.append(_first_name(identity))
    return "\n".join(parts) + "\n"


# ------------------------------------------------------------------ thread state


def _own_text(message: Message) -> str:
    """The lines a message adds itself (quoted ``>`` lines and the signature dropped)."""
    out = []
    for line in message.body.split("\n"):
        if line.startswith("-- ") and line.strip() == "--":
            break
        if line.lstrip().startswith(">"):
            continue
        out.append(line)
    return "\n".join(out)


def _same_person(a: Address | None, b: Address | None) -> bool:
    from reviewbot.rule import same_person

    return same_person(a, b)


def _rule_module(rules: Any, rule_id: str) -> Any:
    """The module of rule ``rule_id`` among ``rules`` (loaded rules or a mapping), else the built-in one."""
    import sys

    if isinstance(rules, Mapping):
        entry = rules.get(rule_id)
        if entry is not None and not callable(entry):
            return entry
    elif rules is not None:
        for rule in rules:
            meta = getattr(rule, "meta", None) or getattr(rule, "RULE", None)
            if meta is not None and getattr(meta, "id", None) == rule_id:
                name = getattr(rule, "module_name", None)
                return sys.modules.get(name) if name else rule
    return _builtin_modules().get(rule_id)


def _builtin_modules() -> dict[str, Any]:
    import sys

    global _BUILTIN
    if _BUILTIN is None:
        from reviewbot.registry import load_rules

        _BUILTIN = {r.id: sys.modules.get(r.module_name) for r in load_rules(entry_points=False)}
    return _BUILTIN


_BUILTIN: dict[str, Any] | None = None


def thread_state(
    finding: Finding,
    patch: Patch,
    thread: Sequence[Message],
    *,
    identity: Address | None = None,
    rules: Any = None,
) -> tuple[FindingState, str]:
    """Whether the thread already covers ``finding``: (state, reason).

    A state a rule set itself (e.g. RB201 found the numbers in the cover
    letter) is kept. Otherwise the rule decides from the thread: its module's
    own ``thread_state`` when it has one, else the shared
    :func:`reviewbot.rule.point_in_thread` with the module's ``THREAD_WORDS``
    (``raised`` when someone else already made the point, ``answered`` when
    the author did, else ``open``). ``thread`` holds the other messages of
    the thread (any order); ``rules`` the loaded rules (the built-in ones
    when None).
    """
    from reviewbot.rule import point_in_thread

    module = _rule_module(rules, finding.rule_id)
    own = getattr(module, "thread_state", None)

    def judged(f: Finding) -> tuple[FindingState, str]:
        if callable(own):
            return own(f, patch, thread, identity=identity)
        return point_in_thread(f, patch, thread, getattr(module, "THREAD_WORDS", None), identity=identity)

    if finding.state is not FindingState.OPEN:
        source = finding.evidence_where
        if finding.state is FindingState.ANSWERED and source:
            # the rule words where its evidence was found (RB101: "the layout comment is added by {where}")
            reason = str(getattr(module, "ANSWERED_WHERE", "the numbers are in the {where}")).format(where=source)
        else:
            reason = f"state {finding.state.value} set by {finding.rule_id}"
        if finding.state in (FindingState.ANSWERED, FindingState.RAISED) and source in ("", "author's reply"):
            # the rule saw it in a reply: name that reply, as the thread check does
            reply = _reply_naming(finding, patch, thread, identity, judged)
            if reply:
                reason += f" <{reply}>" if source else f" (in <{reply}>)"
        return finding.state, reason
    return judged(finding)


def _reply_naming(
    finding: Finding, patch: Patch, thread: Sequence[Message], identity: Address | None, judged: Any
) -> str | None:
    """The Message-ID of the reply that settled a finding whose state its rule set (raised by a reviewer,
    answered by the author): the one the thread check names, else the newest later reply of the author
    (answered) or of someone else (raised) about the patch; None when there is none."""
    from dataclasses import replace

    from reviewbot.rule import later_replies, same_person

    try:
        state, reason = judged(replace(finding, state=FindingState.OPEN))
    except Exception:  # naming the reply is a courtesy; the state stands without it
        state, reason = FindingState.OPEN, ""
    m = re.search(r"<([^<>\s]+@[^<>\s]+)>", reason)
    if state is finding.state and m:
        return m.group(1)
    author = patch.message.from_addr
    want_author = finding.state is FindingState.ANSWERED
    found = [
        msg
        for msg in later_replies(patch, thread, identity=identity)
        if not msg.subject.is_patch and same_person(msg.from_addr, author) == want_author
    ]
    return found[-1].message_id if found else None


# A line of a maintainer's "it is in my tree" reply: "Applied, thanks!", "Applied.", "Applied",
# "Applied to net-next, thanks" (b4 ty: "Applied to 6.9/block, thanks!"), "Series applied to ...",
# "Applied to the foo tree". Not "Applied on top of v6.8 and tested" (a tester's report).
_APPLIED_LINE = re.compile(
    r"^\s*(?:(?:the\s+)?(?:whole\s+)?(?:series|patch(?:es)?|both|all)\s+)?applied"
    r"(?:\s+(?:to|into)\s+\S.*|\s*(?:[,.!]+\s*)?(?:thanks?(?:\s+you)?\b.*|thx\b.*)?)$",
    re.IGNORECASE,
)
_THANKS_APPLIED_LINE = re.compile(
    # "Thanks, applied." / "Applied, let's see if it passes smoke tests" (a sentence opening with "Applied,")
    r"^\s*(?:thanks?(?:\s+you)?(?:\s*[,!.])?\s+applied\b|applied\s*[,;:]\s+\w).*$",
    re.IGNORECASE,
)
# A bot's or a maintainer's report of what went in: "This patch was applied to netdev/net-next.git (master)",
# "This series was applied to ...", "Patches 1, 2 and 4-8, applied to powerpc next, thanks." (the numbers
# are read by _numbers_named).
_REPORTED_APPLIED_LINE = re.compile(
    r"^\s*(?:(?:(?:this|the)\s+)?(?:patch|series|patchset)\s+(?:was|has\s+been)\s+applied\s+to\s+\S"
    r"|patch(?:es)?\s+[\d\s,#&-]+(?:and\s+[\d\s#-]+)?,?\s*applied\b)",
    re.IGNORECASE,
)
# A patchwork client's report (pwcli, the wireless trees): "9 patches applied to wireless-next.git, thanks.",
# "6 patch(es) applied to rtw-next branch of rtw.git, thanks.", then a line per commit ("0d7b3a83c034 wifi: ...",
# read as _COMMIT_ITEM): a count, not a patch number.
_COUNT_APPLIED_LINE = re.compile(r"^\s*(\d+)\s+patch(?:es|\(es\))?\s+applied\s+to\s+\S", re.IGNORECASE)
#: Words in an applied line that make it about the whole series, wherever in the series it was sent.
_WHOLE_SERIES_RE = re.compile(
    r"\b(?:series|patchset|all\s+(?:of\s+them|patches)|whole\s+thing|(?:all|both)\s+applied)\b", re.IGNORECASE
)  # "All applied.  Thanks." under the first patch of a series sent without a cover letter
# "OK done, thanks for the fix, applied.": a line whose last clause is a bare "applied", after a
# comma or a full stop (not "... before it got applied", not "applied on top of x and tested")
_LAST_CLAUSE_APPLIED_LINE = re.compile(r"^(?=.*\bthank).*[,.;]\s*applied\s*[.!]*\s*$", re.IGNORECASE)
_TESTER_WORDS = re.compile(r"\b(?:test(?:ed|ing)?|boot(?:ed|s)?|works?|compiles?|built|build)\b", re.IGNORECASE)
# b4 ty lists what it applied: "[1/3] block: do x" (then "      commit: <sha>").
_TY_ITEM = re.compile(r"^\s*\[(\d+)/(\d+)\]\s+(\S.*)$")  # group 3 is compared after norm_title
# A commit an applied report lists: its abbreviated hash, then its title ("b3d07736b30a rtw88: pci: move ...").
_COMMIT_ITEM = re.compile(r"^\s*[0-9a-f]{12,40}\s+(\S.*)$")


def applied_in_thread(
    patch: Patch,
    thread: Sequence[Message],
    *,
    identity: Address | None = None,
) -> str | None:
    """The Message-ID of a reply saying ``patch`` is already applied, else None.

    Such a reply is about the patch (or its series' cover letter, see
    :func:`about_patch`), sent after it, by someone other than the patch's
    author and ourselves, and has an own (unquoted) line like ``Applied,
    thanks!``, ``Applied to net-next`` (b4 ty) or a bare ``Applied``. When
    the reply lists what was applied the way b4 ty does (``[2/3] title``),
    the patch's title must be among them. A review point sent after that
    comes too late for this version of the patch.
    """
    author = patch.message.from_addr
    title = norm_title(patch.subject.title)
    root, siblings = _series_answered(patch, thread)
    for msg in thread:
        if msg.message_id == patch.message_id:
            continue
        if patch.message.date and msg.date and msg.date < patch.message.date:
            continue
        # the author counts only through a tree's report listing the commits ("6 patch(es) applied to rtw-next
        # branch of rtw.git" then "56624544c8a6 <title>"): a maintainer applying their own series
        by_author = _same_person(msg.from_addr, author)
        if identity is not None and _same_person(msg.from_addr, identity):
            continue
        about = about_patch(msg, patch)
        if not about and not _in_same_series(msg, root, siblings):
            continue
        lines = _own_text(msg).split("\n")
        said = [
            line
            for line in _sentences(lines)
            if (
                _APPLIED_LINE.match(line)
                or _THANKS_APPLIED_LINE.match(line)
                or _LAST_CLAUSE_APPLIED_LINE.match(line)
                or _REPORTED_APPLIED_LINE.match(line)
                or _COUNT_APPLIED_LINE.match(line)
            )
            and not _TESTER_WORDS.search(line)
        ]
        counted = [int(m.group(1)) for m in map(_COUNT_APPLIED_LINE.match, said) if m]  # "9 patches applied to"
        if not said or by_author and not counted:
            continue
        listed = [norm_title(m.group(3)) for m in map(_TY_ITEM.match, lines) if m]
        commits = [norm_title(m.group(1)) for m in map(_COMMIT_ITEM.match, lines) if m]
        if by_author and not commits:
            continue
        listed += commits
        if listed and title:
            if not any(item == title or item.endswith(title) for item in listed):
                continue  # b4 ty listing other patches of the series
            return msg.message_id
        if counted and patch.subject.total and max(counted) >= patch.subject.total:
            return msg.message_id  # "12 patches applied to ...", no commits listed: the whole series of 12
        named = set().union(*(_numbers_named(line.lower()) for line in said if not _COUNT_APPLIED_LINE.match(line)))
        if named:
            if (patch.subject.index or 1) in named:
                return msg.message_id  # "Patches 1, 2 and 4-8 applied": this one among them
            continue
        if about or any(_WHOLE_SERIES_RE.search(line) for line in said):
            # on this patch (or its cover letter); or "Series applied to powerpc next" under another patch
            return msg.message_id
    return None


def _sentences(lines: Sequence[str]) -> list[str]:
    """Each line, then each later sentence of it on its own: "OK, I can live with that.  Applied, let's see
    if it passes smoke tests" holds its applied sentence after another one."""
    out = list(lines)
    for line in lines:
        out += re.split(r"(?<=[.!?])\s+", line.strip())[1:]
    return out


def _series_answered(patch: Patch, thread: Sequence[Message]) -> tuple[str | None, frozenset[str]]:
    """``patch``'s series as a reply sees it: its thread root (first Reference, else In-Reply-To) and the
    patches sent in reply to the root, worked out once per thread (a reply answering any of them is in the
    series). ``(None, {})`` for a patch without a number or a root.

    A maintainer often answers the first patch with "Series applied to ..., thanks", and a patchwork reply
    names only that patch in its References."""
    root = patch.message.references[0] if patch.message.references else patch.message.in_reply_to
    if patch.subject.index is None or not root:
        return None, frozenset()
    return root, frozenset(m.message_id for m in thread if m.in_reply_to == root and m.subject.is_patch)


def _in_same_series(msg: Message, root: str | None, siblings: frozenset[str]) -> bool:
    """Is ``msg`` a reply within the series of ``root`` (under the cover letter or another patch of it)?"""
    return root is not None and (root == msg.in_reply_to or root in msg.references or msg.in_reply_to in siblings)


#: Plain words a maintainer (or a stable maintainer's bot) uses for "it is in my tree", beside
#: "Applied, thanks!": matched lower-cased inside one own line of a reply about the patch. A
#: kernel developer fixes a miss by adding the phrase here (and a test in tests/test_thread_state.py).
APPLIED_WORDS = (
    "already applied",
    "i applied",
    "i've applied",
    "i have applied",
    "have applied the",
    "now queued up",
    "queued up, thanks",
    "queued, thanks",
    "i've queued",
    "i have queued",
    "i queued",
    "queued it",
    "queued this",
    "queued the",
    "picked up, thanks",
    "i've picked",
    "i picked up",
    "picked it up",
    "picked this up",
    "picked them up",
    "picked these up",
    "taken, thanks",
    # "Thanks, I'll go stick this in sched/urgent" (a tip maintainer's queued)
    "stick this in",
    "stick it in",
    "stuck this in",
    "stuck it in",
    "i'll queue this",
    "i'll queue it",
    "i will queue this",
    "i will queue it",
    "i'll apply this",
    "i'll apply it",
    "i'll apply the series",
    "i will apply this",
    "i will apply it",
    "i will apply the series",
    "applied patches",  # "Applied patches 1-5 to ...": the range is read by _numbers_named
)
#: Words by which the patch's author says it is in their own tree (the author is also the tree's
#: maintainer): a plain "Applied, thanks!" from the author stays ambiguous and does not count.
AUTHOR_APPLIED_WORDS = (
    "applied patches",
    "applied the series to",
    "applied this series to",
)
#: The author, maintaining the tree, saying in a sentence that the patch or series went into a named tree or
#: branch: "I've applied this to the dma-mapping for-next tree now." (not "I applied it on top of v6.8").
_AUTHOR_TREE_APPLIED_RE = re.compile(
    r"\b(?:i've|i have|i)\s+(?:now\s+)?(?:applied|queued|pushed|merged)\s+(?:this|it|them|these|the\s+series|the\s+patch(?:es)?)"
    r"\s+(?:to|into|in)\s+(?:the\s+|my\s+)?[\w./-]*(?:\s+[\w./-]+)?\s*(?:tree|branch|for-next|-next\b)"
)
#: Words of a maintainer or reviewer turning the patch down: matched lower-cased, as whole words,
#: in an own line of a reply about the patch by someone other than its author. A review point on a
#: patch the maintainer rejected is moot: the author reworks it or drops it.
REJECTED_WORDS = (
    "nak",
    "nack",  # the other spelling ("NACK. What do you think this does?")
    "nacked-by:",
    "this kills it",
    "not going to do this",
    "not going to take this",
    "not going to apply this",
    "i don't agree with the approach",
    "i do not agree with the approach",
    "i don't like this approach",
    # a maintainer's own words for "no": "this is unacceptable, because ...", "your patches make no
    # sense to me", "let's not second-guess the compiler"
    "unacceptable",
    "make no sense to me",
    "makes no sense to me",
    "not second-guess the compiler",
    "not second guess the compiler",
    "don't second-guess the compiler",
    # the maintainer drops what was posted: "Full disclosure, I'm dropping this set for now."
    "dropping this set",
    "dropping this series",
    "dropping this patch",
)
#: Plain words of an author taking the patch back: matched lower-cased in an own line of the
#: author's reply about the patch.
WITHDRAWN_WORDS = (
    "please ignore this patch",
    "please ignore this series",
    "please ignore this one",
    "please ignore it",
    "please ignore the patch",
    "please drop this patch",
    "sent by mistake",
    "send it by mistake",
    "sent it by mistake",
    "sent this by mistake",
    "i'll drop it",
    "i'll drop this",
    "i will drop this",
    "i will drop it",
    "drop it for now",
    "superseded by v",
    "self-nak",
    "self nak",
    # the approach dropped for another one ("I will send a patch to revert that change")
    "i will send a patch to revert",
    "i'll send a patch to revert",
    "i will send a revert",
    "i'll send a revert",
    # the author takes the patch back to rework it
    "i'll rework it",
    "i'll rework this",
    "i'll rework the patch",
    "i'll rework the series",
    "i will rework it",
    "i will rework this",
    "i will rework the patch",
    "i will rework the series",
    "will drop it",
    # "this patch will be dropped in the next version"
    "this patch will be dropped",
    "this patch can be dropped",
    "this one will be dropped",
    "this one can be dropped",
)
#: Words that make a patch moot, from anyone: the problem it fixes is already fixed elsewhere.
MOOT_WORDS = (
    "already fixed upstream",
    "already been fixed upstream",
    "already fixed in mainline",
    "already been fixed in mainline",
    "already fixed in linus",
    "is already fixed by",
    "was already fixed by",
    "has already been fixed by",
    "already fixed in stable",
)
#: Words that turn a line into its opposite ("not applied", "can't be queued").
_NEGATIONS = re.compile(r"\b(?:not|n't|never|no longer|won't|cannot|can't|before|until|if|when)\b")
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}
# Patch numbers a line names: "the 1st patch", "patch 2", "patches 1 and 4", "2/5", "the first patch".
_NUMBER_RE = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b|\bpatch(?:es)?\s*#?(\d+)\b|\b(\d+)/\d+\b|\band\s+#?(\d+)\b")
# A range of patch numbers: "patches 1-5", "patches 2 to 4", "patches #3 through #6".
_RANGE_RE = re.compile(r"\bpatch(?:es)?\s*#?(\d+)\s*(?:-|to|through|until)\s*#?(\d+)\b")
_ORDINAL_RE = re.compile(r"\b(" + "|".join(_ORDINALS) + r")\b")


# A list of patch numbers after "patches": "Patches 1, 2 and 4-8", "patches #3, #5 & 7-9".
_LIST_RE = re.compile(r"\bpatch(?:es)?\s+(#?\d+(?:\s*(?:-|,|and|&)\s*#?\d+)+)")


def _numbers_named(line: str) -> set[int]:
    """Patch numbers ``line`` names (empty when it names none); a range names every number in it."""
    out = {int(n) for m in _NUMBER_RE.finditer(line) for n in m.groups() if n}
    ranges = [(int(m.group(1)), int(m.group(2))) for m in _RANGE_RE.finditer(line)]
    for m in _LIST_RE.finditer(line):  # "patches 1, 2 and 4-8": every number and range of the list
        for part in re.split(r"\s*(?:,|and|&)\s*", m.group(1)):
            lo, _, hi = part.replace("#", "").partition("-")
            if lo.strip().isdigit():
                ranges.append((int(lo), int(hi) if hi.strip().isdigit() else int(lo)))
    for lo, hi in ranges:
        if lo <= hi <= lo + 100:  # "patches 1-5"; not a date or a version
            out |= set(range(lo, hi + 1))
    if "patch" in line:
        out |= {_ORDINALS[m.group(1)] for m in _ORDINAL_RE.finditer(line)}
    return out


def _says(line: str, words: Sequence[str], *, whole_words: bool = False) -> str | None:
    """The phrase of ``words`` in ``line`` (lower-cased own line) when not negated, else None.
    ``whole_words``: the phrase must not be part of a longer word ("nak" is not "snake")."""
    for word in words:
        if whole_words:
            m = re.search(r"(?<![\w-])" + re.escape(word) + (r"(?![\w-])" if word[-1].isalnum() else ""), line)
            at = m.start() if m else -1
        else:
            at = line.find(word)
        if at >= 0 and not _NEGATIONS.search(line[:at][-40:]):
            return word
    return None


def said_in_thread(
    patch: Patch,
    thread: Sequence[Message],
    *,
    identity: Address | None = None,
) -> tuple[str, str] | None:
    """``("applied"|"rejected"|"withdrawn"|"moot", reason)`` when a later reply about ``patch`` says so
    in plain words.

    Applied: someone other than the author writes a phrase of :data:`APPLIED_WORDS`
    ("I already applied the 1st patch", "Now queued up, thanks", "I'll go stick this in
    sched/urgent"), or the author, maintaining the tree, one of :data:`AUTHOR_APPLIED_WORDS`
    ("Applied patches 1-5 to ..."). Rejected: someone other than the author writes one of
    :data:`REJECTED_WORDS` ("NAK", "And this kills it"). Withdrawn: the author writes one of
    :data:`WITHDRAWN_WORDS` ("please ignore this patch", "Maybe I'll drop it", "I will send a
    patch to revert that change"). Moot: anyone writes one of :data:`MOOT_WORDS` ("already fixed
    upstream and stable"). When the line names patch numbers ("the 1st patch",
    "patches 1 and 4", "patches 1-5"), this patch's number must be among them; a reply to the
    cover letter naming no number covers the series.
    """
    from reviewbot.rule import later_replies

    author = patch.message.from_addr
    for msg in later_replies(patch, thread, identity=identity):
        by_author = _same_person(msg.from_addr, author)
        lists: tuple[tuple[Sequence[str], str, bool], ...]
        if by_author:
            lists = (
                (WITHDRAWN_WORDS, "withdrawn", False),
                (AUTHOR_APPLIED_WORDS, "applied", False),
                (MOOT_WORDS, "moot", False),
            )
        else:
            lists = ((APPLIED_WORDS, "applied", False), (REJECTED_WORDS, "rejected", True), (MOOT_WORDS, "moot", False))
        for line in _own_text(msg).split("\n"):
            low = " ".join(line.lower().replace("\u2019", "'").split())
            for words, state, whole in lists:
                phrase = _says(low, words, whole_words=whole)
                if phrase is None and by_author and state == "applied":
                    m = _AUTHOR_TREE_APPLIED_RE.search(low)
                    phrase = m.group(0) if m and not _NEGATIONS.search(low[: m.start()][-40:]) else None
                if phrase is None:
                    continue
                if state == "moot" and re.match(r"[^.!?]*\?", low[low.find(phrase) :]):
                    continue  # "is this already fixed upstream?" asks, it does not tell
                named = _numbers_named(low)
                if named and (patch.subject.index or 1) not in named:
                    continue  # "applied the 1st patch" on patch 2
                name = (msg.from_addr.name or msg.from_addr.email) if msg.from_addr else ""
                who = f"the author ({name})" if by_author and name else "the author" if by_author else name or "a reply"
                return state, f'{state}: {who} wrote "{line.strip()[:80]}" in <{msg.message_id}>'
    return None


#: Words of the author announcing the next version: a reviewer waits for it rather than review this one.
NEXT_VERSION_WORDS = re.compile(
    r"\b(?:i'll|i will|will|going to|plan to|am going to)\s+(?:send|post|spin|respin|submit)\s+(?:out\s+)?"
    r"(?:a\s+|the\s+)?(?:v\d+|new version|next version|new revision|updated version|updated series|respin)\b|"
    r"\bin (?:the\s+)?(?:next|new) (?:version|revision|spin|iteration)\b|\bin v\d+\b"
)
#: Words in a reply by someone else that may say the patch went into a tree, in forms the sure
#: patterns above do not read ("applied to for-next with a few tweaks", "merged, thanks").
MAYBE_APPLIED_WORDS = re.compile(
    r"^(?:(?:ok|okay|thanks|thank you|thx|great|nice|cool)[,.!]*\s+)*(?:the\s+)?"
    r"(?:(?:whole\s+)?series\s+|patch(?:es)?\s+|both\s+|all\s+|now\s+)?(?:applied|queued|merged|picked up|pulled|taken)\b"
)


#: Words of someone else saying this posting cannot be taken as it is ("Patch is corrupted and can not be
#: applied", "this does not apply to my tree", "whitespace damaged"): a resend is due, and a reviewer reads that.
RESEND_DUE_WORDS = re.compile(
    r"\b(?:patch(?:es)?|this|it|series)\s+(?:is|are|was|were)\s+(?:\w+ly\s+)?"  # "is totally corrupted"
    r"(?:corrupt(?:ed)?|whitespace[- ]damaged|mangled)\b|"
    r"\b(?:does not|doesn't|did not|didn't|fails to|failed to|won't)\s+apply\b|"
    r"\b(?:can not|cannot|can't|could not|couldn't)\s+be\s+applied\b"
)


def unsure_settled(patch: Patch, thread: Sequence[Message], *, identity: Address | None = None) -> str | None:
    """Why the thread may already be settled without saying so in words read for sure (None when it
    does not look so): the author announces a next version ("will send v2", "fixed in the next
    version"), someone else says the posting cannot be applied as it is ("Patch is corrupted and can not
    be applied": a resend is due), or someone else opens a paragraph with a line that may say it was applied ("Merged
    into for-next with the comment reworded", "OK, queued with small changes"), not a question. Precision first: such a
    finding is kept, not drafted, with this reason."""
    from reviewbot.rule import later_replies

    author = patch.message.from_addr
    for msg in later_replies(patch, thread, identity=identity):
        if msg.subject.is_patch:
            continue
        by_author = _same_person(msg.from_addr, author)
        lines = _own_text(msg).split("\n")
        if any(_TY_ITEM.match(line) for line in lines):
            continue  # b4 ty lists what it applied: read for sure by applied_in_thread
        previous = ""
        for line in lines:
            low = " ".join(line.lower().replace("\u2019", "'").split())
            opens, previous = not previous.strip(), line  # a paragraph's first line, not a wrapped one
            if not low or low.endswith("?"):
                continue
            if by_author:
                m = NEXT_VERSION_WORDS.search(low)
                if m and not _NEGATIONS.search(low[: m.start()][-40:]):
                    return f'unsure: the author announced a new version ("{line.strip()[:80]}") in <{msg.message_id}>'
                continue
            due = RESEND_DUE_WORDS.search(low)
            if due and not _NEGATIONS.search(low[: due.start()][-30:]):  # "if it doesn't apply, ..." is no report
                name = (msg.from_addr.name or msg.from_addr.email) if msg.from_addr else "a reply"
                return (
                    f'unsure: {name} wrote it cannot be applied as posted ("{line.strip()[:80]}") in <{msg.message_id}>'
                )
            m = MAYBE_APPLIED_WORDS.search(low) if opens else None
            if m and not _TESTER_WORDS.search(low):
                name = (msg.from_addr.name or msg.from_addr.email) if msg.from_addr else "a reply"
                return f'unsure: {name} may have applied it ("{line.strip()[:80]}") in <{msg.message_id}>'
    return None


#: Trailers by which someone other than the author vouches for a patch. Given in a reply about the
#: patch (or its cover letter), or carried in the patch's own trailers from an earlier round.
REVIEW_TRAILERS = ("Reviewed-by", "Acked-by", "Tested-by", "Reviewed-and-tested-by")
#: Senders of test reports, not reviewers: their Tested-by/Reported-by says a robot ran it, nobody read it.
REVIEW_BOTS = ("kernel test robot", "syzbot", "lkp@", "kernelci")
_REVIEW_LINE = re.compile(r"^\s*(" + "|".join(REVIEW_TRAILERS) + r"):\s*(\S.*?)\s*$", re.IGNORECASE)


def _trailer_person(value: str) -> Address | None:
    name, email = getaddresses([value])[0]
    return Address(name, email) if email and "@" in email else (Address(value.strip(), "") if value.strip() else None)


def _not_author(person: Address | None, author: Address | None, identity: Address | None) -> bool:
    if person is None:
        return False
    if any(bot in f"{person.name} {person.email}".lower() for bot in REVIEW_BOTS):
        return False
    if identity is not None and _same_person(person, identity):
        return False
    return not _same_person(person, author)


def reviewed_in_thread(
    patch: Patch,
    thread: Sequence[Message],
    *,
    identity: Address | None = None,
) -> str | None:
    """Why ``patch`` counts as reviewed by someone other than its author (a sentence naming who and
    where), else None.

    A trailer of :data:`REVIEW_TRAILERS` from another person (not one of :data:`REVIEW_BOTS`) in the patch itself (``Acked-by: Roman
    ...``, carried from an earlier round) or on an own line of a later reply about the patch or its
    cover letter (``Reviewed-by: Ard ...``). When that line or the line above it names patch numbers
    ("For patches 1-3:"), this patch's number must be among them.
    """
    from reviewbot.rule import later_replies

    author = patch.message.from_addr
    for trailer in patch.trailers:
        if trailer.key.lower() in {t.lower() for t in REVIEW_TRAILERS}:
            if _not_author(_trailer_person(trailer.value), author, identity):
                return f"reviewed: the patch carries {trailer.key}: {trailer.value.strip()[:70]}"
    for msg in later_replies(patch, thread, identity=identity):
        if msg.subject.is_patch or _same_person(msg.from_addr, author):
            continue
        lines = _own_text(msg).split("\n")
        for n, line in enumerate(lines):
            m = _REVIEW_LINE.match(line)
            if m is None:
                continue
            person = _trailer_person(m.group(2)) or msg.from_addr
            if not _not_author(person, author, identity):
                continue
            above = next((x for x in reversed(lines[:n]) if x.strip()), "")
            above = above if above.rstrip().endswith(":") else ""  # "For patches 1-3:", "For the series:"
            named = _numbers_named(" ".join((above + " " + line).lower().split()))
            if named and (patch.subject.index or 1) not in named:
                continue
            return f"reviewed: {line.strip()[:80]} in <{msg.message_id}>"
    return None


#: Subject tags of a stable backport: "[PATCH 6.1 ...]", "[PATCH 5.10.y]", "[PATCH stable]", "stable-6.1".
_STABLE_TAG = re.compile(r"^(?:stable(?:[-/ ]\S+)?|\d+\.\d+(?:\.\d+)?(?:\.y|-stable)?|\S+-stable)$", re.IGNORECASE)
#: The first changelog line of a backport: "commit X upstream.", "[ upstream commit X ]",
#: "[ Upstream commit X ]", "upstream commit X".
_UPSTREAM_LINE = re.compile(
    r"^\s*\[?\s*(?:commit\s+[0-9a-f]{7,40}\s+upstream\b|upstream\s+commit\s+[0-9a-f]{7,40}\b)", re.IGNORECASE
)


#: git cherry-pick -x's line: the patch is a commit already merged, carried to another branch.
_CHERRY_PICKED = re.compile(r"^\s*\(cherry picked from commit ([0-9a-f]{7,40})\)", re.IGNORECASE | re.MULTILINE)


def stable_backport(patch: Patch) -> str | None:
    """Why ``patch`` is a backport (which must match the commit it carries), else None: a stable tag, an
    "upstream commit X" first line, or git cherry-pick -x's "(cherry picked from commit X)"."""
    for tag in patch.subject.tags:
        if _STABLE_TAG.match(tag):
            return f"a stable backport ([{tag}] in the subject): it must match the upstream commit"
    for line in (patch.commit_message or "").split("\n"):
        if line.strip():
            if _UPSTREAM_LINE.match(line):
                return f'a stable backport ("{line.strip()[:60]}"): it must match the upstream commit'
            break
    picked = _CHERRY_PICKED.search(patch.commit_message or "")
    if picked:
        return f"a backport (cherry picked from commit {picked.group(1)[:12]}): it must match that commit"
    return None


#: Subject tags that say the patch is not for merging: "[DEBUG PATCH]", "[HACK]", "[DNM]", "[PATCH DO NOT MERGE]",
#: "[PATCH NOT FOR MERGE]": a demonstration or a test, whose timing code or missing comments are its purpose.
_NOT_FOR_MERGE_TAGS = frozenset({"DEBUG", "HACK", "DNM", "NOT-FOR-MERGE", "DO-NOT-MERGE", "NFM"})


def not_for_merge(patch: Patch) -> str | None:
    """Why ``patch`` is not meant to be merged (its subject's tags say so), else None."""
    tags = [t.upper() for t in patch.subject.tags]
    joined = " ".join(tags)
    said = next((t for t in tags if t in _NOT_FOR_MERGE_TAGS), None) or next(
        (p for p in ("NOT FOR MERGE", "DO NOT MERGE", "NOT FOR MERGING") if p in joined), None
    )
    return f"not meant to be merged ([{said}] in the subject): nothing to fix before it is applied" if said else None


# ------------------------------------------------------------------ draft


def build_draft(
    patch: Patch,
    findings: Sequence[Finding],
    rules: Any,
    *,
    identity: Address,
    list_address: str,
    store_addresses: Sequence[Address] | None = None,
    maintainers: Sequence[Address] | Path | None = None,
    clock: Callable[[], datetime] | None = None,
    make_msgid: Callable[[str], str] | None = None,
    ancestry: Sequence[str] = (),
    real_headers: Callable[[Message], Message] | None = None,
    intro: str = "",
    sender: Address | None = None,
) -> Draft:
    """One reply Draft to ``patch`` about ``findings`` (all of them; filter states before).

    ``rules`` maps rule ids to their reply functions: a sequence of loaded
    rules (``.meta.id`` + ``.reply``) or a mapping id -> callable/module.
    ``store_addresses`` and ``maintainers`` (addresses, or a MAINTAINERS file
    path) are the only sources used to complete obfuscated addresses.
    ``clock`` gives the Date (UTC now by default); ``make_msgid(domain)``
    the new Message-ID without brackets. ``ancestry``: Message-IDs known to
    be above the patch (oldest first), used when the message itself carries
    no References/In-Reply-To. ``real_headers`` (lore's
    :class:`~reviewbot.fetch.lore.AddressCompleter`) may give the message's real
    From/To/Cc/References in place of obfuscated ones. Raises UsageError when ``findings``
    is empty or the identity has no e-mail address. ``sender``: the message's header From when an
    in-body ``From:`` made another person the patch's author (it gets the reply too). A draft whose
    recipients stay incomplete starts with a note naming who is missing (:func:`missing_note`).
    """
    if not findings:
        raise UsageError("no findings to draft a reply about", subject=patch.message_id)
    if not identity.email or "@" not in identity.email or is_obfuscated(identity.email):
        raise UsageError(f"identity e-mail {identity.email!r} is not a full address", subject="identity")
    known: list[Address] = list(store_addresses or ())
    if isinstance(maintainers, (str, Path)):
        known.extend(parse_maintainers(Path(maintainers)))
    elif maintainers:
        known.extend(maintainers)
    message = patch.message
    if real_headers is not None:
        # lore's copy is compared with what the archive shows of the header From (the sender), not
        # with an in-body author's
        shown = replace(message, from_addr=sender) if sender is not None else message
        completed = real_headers(shown)
        message = completed if completed is not shown else message
    if message is not patch.message and message.from_addr is not None:
        # lore's real headers: their From is the sender; an in-body From: (another author) stays the author
        sender = message.from_addr
        if patch.message.from_addr is not None and not same_mailbox(patch.message.from_addr, sender):
            message = replace(message, from_addr=patch.message.from_addr)
    rcpt = resolve_recipients(message, identity=identity, list_address=list_address, known=known, sender=sender)
    refused = getattr(real_headers, "refused", None)
    lore_said = refused(message.message_id) if callable(refused) and message is patch.message else ""
    now = (clock or (lambda: datetime.now(timezone.utc)))()
    domain = identity.email.rpartition("@")[2]
    fingerprints = tuple(dict.fromkeys(f.fingerprint for f in findings if f.fingerprint))
    if make_msgid is not None:
        msgid = make_msgid(domain).strip("<>")
    else:
        msgid = stable_msgid(domain, message.message_id, fingerprints)
    for addr in (*rcpt.to, *rcpt.cc, identity):
        assert "@..." not in addr.email, addr
    return Draft(
        in_reply_to=message.message_id,
        references=references_for(message, ancestry),
        subject=reply_subject(message.subject.raw or message.subject.title),
        from_addr=identity,
        to=rcpt.to,
        cc=rcpt.cc,
        # the patch's text quoted here (subject, diff lines, names) must carry no ESC or BEL to a mail reader
        body=textsafe.shown(
            _with_note(missing_note(rcpt, lore_said), build_body(patch, findings, rules, identity, intro)), keep="\n\t"
        ),
        fingerprints=fingerprints,
        recipients_complete=rcpt.complete,
        message_id=msgid,
        date=now,
    )


def _with_note(note: str, body: str) -> str:
    return f"{note}\n\n{body}" if note else body
