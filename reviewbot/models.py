"""Plain frozen values that cross stage boundaries (fetch -> parse -> check -> respond).

No logic lives here beyond tiny derived properties; every stage module builds
these and the next one reads them. Line numbers are 1-based everywhere. Dates
are timezone-aware UTC ``datetime`` objects. Message-IDs are stored without
the angle brackets (``20250319090000.7070-1-ada@example.org``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Literal, Mapping, NamedTuple


# --------------------------------------------------------------------- fetch


@dataclass(frozen=True)
class AttachmentRef:
    """An attachment link on a message page (``View attachment "0001-x.patch"``)."""

    index: int  # A in .../N/A, 1-based
    filename: str
    content_type: str
    size: int  # bytes of decoded content, as the page says
    url: str | None = None  # absolute, when the page came from the archive
    text: str | None = None  # its content once fetched (text/* only)


# eq=False: never compared (a raw mail is parsed, not matched); repr=False: it would print the whole mail.
# Each generated method is compiled at every start.
@dataclass(frozen=True, eq=False, repr=False)
class RawMessage:
    """A message before decoding, from either of the two kinds of source.

    ``kind`` is ``"rfc822"`` (``data`` holds the raw bytes of a mail: mbox
    entry, .eml, format-patch file) or ``"archive"`` (a blists message page
    already split: ``header_lines`` are the up-to-six header lines as printed,
    folded lines joined with "\n", entities decoded; ``body`` is the text after
    them). ``source`` names it for errors: a URL or ``path[:index]``.
    """

    source: str
    kind: Literal["rfc822", "archive"]
    data: bytes = b""
    header_lines: tuple[tuple[str, str], ...] = ()
    body: str = ""
    list_name: str | None = None
    archive_url: str | None = None
    attachments: tuple[AttachmentRef, ...] = ()
    thread_prev_url: str | None = None
    thread_next_url: str | None = None
    censored: bool = False


# --------------------------------------------------------------------- parse


@dataclass(frozen=True)
class Address:
    """A mailbox from a header or trailer.

    ``partial`` is True when the archive obfuscated it (``ada@...mple.org``:
    three characters dropped after the ``@``); such an address is never put
    into a header of ours. ``email`` is then the visible form.
    """

    name: str
    email: str
    partial: bool = False

    def __str__(self) -> str:
        if self.name:
            return f"{self.name} <{self.email}>"
        return self.email


@dataclass(frozen=True)
class Subject:
    """A parsed Subject line, e.g. ``Re: [RFC PATCH v2 3/7] mm: title``.

    ``tags`` holds the bracket words other than the version and counter, upper-
    cased (``("RFC", "PATCH")``, ``("PATCH", "NET-NEXT")``). ``version`` is 1
    when none is given; ``index``/``total`` are None without an n/m counter.
    ``title`` has every ``Re:``/``Fwd:`` and bracket prefix removed.
    """

    raw: str
    title: str
    tags: tuple[str, ...] = ()
    version: int = 1
    index: int | None = None
    total: int | None = None
    is_reply: bool = False

    @property
    def is_patch(self) -> bool:
        """True for a patch or RFC submission (not for a reply to one)."""
        return not self.is_reply and (
            any(t in ("PATCH", "RFC") or t.startswith("PATCH") for t in self.tags) or self.total is not None
        )

    @property
    def is_cover_letter(self) -> bool:
        """True for the 0/N message of a series."""
        return self.is_patch and self.index == 0

    @property
    def rfc(self) -> bool:
        return "RFC" in self.tags

    @property
    def resend(self) -> bool:
        return "RESEND" in self.tags


class Recipients:
    """An address-list header (To, Cc) as sent, parsed into Addresses when first read (``parse(raw)``).

    Every mail carries To/Cc (LKML Cc lists run to dozens of addresses), but ``check`` reads them only for
    a saved archive page: a mail's lists wait here, as a hunk's lines wait in :class:`Hunk.Body`."""

    __slots__ = ("raw", "parse", "value")

    def __init__(self, raw: str, parse: Callable[[str], tuple[Address, ...]]) -> None:
        self.raw = raw
        self.parse = parse
        self.value: tuple[Address, ...] | None = None

    def get(self) -> tuple[Address, ...]:
        if self.value is None:
            self.value = self.parse(self.raw)
        return self.value


class _AddressList:
    """The field behind ``Message.to``/``Message.cc``: given a tuple of Addresses or a :class:`Recipients`
    (the parser's), it reads as the tuple. Equality, repr and ``replace`` read it so too. The value is kept
    under the field's own name in the instance's ``__dict__`` (this descriptor, having ``__set__``, is read
    first), so ``Message(**message.__dict__)`` still makes a copy."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, objtype: type | None = None) -> tuple[Address, ...]:
        if obj is None:
            return ()  # the field's default (dataclasses asks the class)
        value = obj.__dict__[self.name]
        return value if type(value) is tuple else value.get()

    def __set__(self, obj: object, value: tuple[Address, ...] | Recipients) -> None:
        obj.__dict__[self.name] = value  # by the dataclass's __init__ only: the class is frozen


@dataclass(frozen=True)
class Message:
    """One decoded e-mail, whatever its source.

    ``body`` is Unicode text with "\n" line ends (transfer encoding, charset and
    format=flowed undone). For archive messages ``obfuscated`` is True: the
    addresses in headers and body lost three characters after ``@``.
    ``notes`` carries warnings a person should see (e.g. format=flowed).
    """

    message_id: str
    subject: Subject
    from_addr: Address | None
    date: datetime | None
    date_raw: str = ""
    to: _AddressList = _AddressList()  # reads as tuple[Address, ...]
    cc: _AddressList = _AddressList()
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    body: str = ""
    source: str = ""
    list_name: str | None = None
    archive_url: str | None = None
    obfuscated: bool = False
    flowed: bool = False
    attachments: tuple[AttachmentRef, ...] = ()
    thread_prev_url: str | None = None
    thread_next_url: str | None = None
    notes: tuple[str, ...] = ()
    # 1-based line of the raw input where ``body`` starts, when the body is the
    # input verbatim (plain 7bit/8bit, not multipart, not flowed); else 1.
    # Lets `check` print checkpatch-style ``#N:`` numbers of the file.
    body_start_line: int = 1
    # a bare diff (``git diff``/``git show``/``diff -u`` output, no mail headers): the diff
    # is checked, the commit-message rules are not run (as checkpatch.pl does)
    bare_diff: bool = False


class LineKind(str, enum.Enum):
    """Kind of a diff line: added, removed, context, or the ``\\ No newline`` marker."""

    ADDED = "+"
    REMOVED = "-"
    CONTEXT = " "
    MARKER = "\\"


#: What the archive leaves of an address it hides (``ada@...mple.org``): a diff line of an archive page
#: holding it is ``DiffLine.altered``.
ALTERED_MARK = "@..."


class DiffLine(NamedTuple):
    """One line of a hunk, without its leading ``+``/``-``/`` `` character.

    ``old_no``/``new_no`` are the file line numbers on each side (None where
    the line does not exist on that side; both None for the marker).
    ``input_line`` is the 1-based line of the patch input (mail body or file)
    this line came from, for checkpatch-style ``#N:`` output.
    ``altered`` is True when the archive's obfuscation changed this text (it holds :data:`ALTERED_MARK`).

    A NamedTuple (immutable like the frozen dataclasses here): a batch holds
    hundreds of thousands of diff lines, and a tuple is one small object,
    built at a third of a frozen dataclass's cost.
    """

    kind: LineKind
    text: str
    old_no: int | None
    new_no: int | None
    input_line: int | None = None
    altered: bool = False

    @property
    def raw(self) -> str:
        """The line as it appears in the diff (with its prefix character)."""
        return f"{self.kind.value}{self.text}" if self.kind is not LineKind.MARKER else f"\\{self.text}"


class Hunk:
    """One ``@@ -a,b +c,d @@ section`` block.

    ``section`` is the function/struct context git prints after the second
    ``@@`` (may be empty). ``lines`` are its :class:`DiffLine` s; ``body`` the
    same lines as the diff shows them (each ``DiffLine.raw``).

    A value like the frozen dataclasses here (equal by its fields, hashable,
    assigning raises ``FrozenInstanceError``), but a slotted class with its
    lines read on first use: a batch holds ~11,000 hunks of ~400,000 diff
    lines, and the rules ask most hunks only for their text (a word search
    over the added lines comes first). The parser builds a hunk from its body
    text and a reader of it (:meth:`from_text`); the DiffLines are made the first
    time ``lines`` is read, once (``is`` between them holds), and kept in
    the hunk's :class:`Hunk.Body` holder: the hunk itself is never written after
    construction. A hunk built with its lines (tests, the store) has them at once.
    """

    __slots__ = ("header", "old_start", "old_len", "new_start", "new_len", "section", "_body")

    class Body:
        """The hunk's body: its text (``raw``), its DiffLines once read (``read(*args)`` until then), and its
        line counts. ``args`` is a tuple of plain values, which the garbage collector stops tracking: a
        batch keeps one Body per hunk, and every tracked object it keeps makes each full collection longer."""

        __slots__ = ("raw", "read", "args", "lines", "counts", "first")

        def __init__(
            self,
            raw: tuple[str, ...] | None,
            read: Callable[..., tuple[DiffLine, ...]] | None,
            args: tuple[Any, ...],
            lines: tuple[DiffLine, ...] | None,
            counts: tuple[int, int, int] | None,
            first: int | None = None,
        ) -> None:
            self.raw = raw
            self.read = read
            self.args = args
            self.lines = lines
            self.counts = counts  # (context, added, removed)
            self.first = first  # the input line of the body's first line, when read from text

    header: str
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    section: str
    _body: Body

    def __init__(
        self,
        header: str,
        old_start: int,
        old_len: int,
        new_start: int,
        new_len: int,
        section: str,
        lines: tuple[DiffLine, ...],
    ) -> None:
        self._set(header, old_start, old_len, new_start, new_len, section, Hunk.Body(None, None, (), lines, None))

    @classmethod
    def from_text(
        cls,
        header: str,
        old_start: int,
        old_len: int,
        new_start: int,
        new_len: int,
        section: str,
        raw: tuple[str, ...],
        read: Callable[..., tuple[DiffLine, ...]],
        args: tuple[Any, ...],
        added: int,
        first: int | None = None,
    ) -> "Hunk":
        """A hunk whose body (``raw``, each line as ``DiffLine.raw``) matches its header's lengths, with
        ``added`` lines added; ``read(*args)`` makes its DiffLines, called on the first read of ``lines``.
        ``first``: the input line of the body's first line (see :attr:`body_input_line`)."""
        context = new_len - added
        hunk = cls.__new__(cls)
        hunk._set(
            header, old_start, old_len, new_start, new_len, section,
            Hunk.Body(raw, read, args, None, (context, added, old_len - context), first),
        )  # fmt: skip
        return hunk

    def _set(
        self, header: str, old_start: int, old_len: int, new_start: int, new_len: int, section: str, body: Body
    ) -> None:
        set_ = object.__setattr__  # construction, as a frozen dataclass's __init__ does
        set_(self, "header", header)
        set_(self, "old_start", old_start)
        set_(self, "old_len", old_len)
        set_(self, "new_start", new_start)
        set_(self, "new_len", new_len)
        set_(self, "section", section)
        set_(self, "_body", body)

    def __setattr__(self, name: str, value: Any) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")

    @property
    def lines(self) -> tuple[DiffLine, ...]:
        body = self._body
        lines = body.lines
        if lines is None:
            assert body.read is not None  # a hunk has its lines or a reader of them
            lines = body.lines = body.read(*body.args)
            body.read, body.args = None, ()
        return lines

    @property
    def body_input_line(self) -> int | None:
        """The input line of the body's first line, for a hunk the parser read from its text (each line of
        ``body`` is one input line: ``lines[k].input_line == body_input_line + k``); None for a hunk built
        with its lines. Lets a rule give one line's numbers without making every DiffLine."""
        return self._body.first

    @property
    def body(self) -> tuple[str, ...]:
        """The lines as the diff shows them (``DiffLine.raw``): ``+``/``-``/`` `` and the text, or the
        ``\\`` marker; read without making the DiffLines."""
        body = self._body
        if body.raw is None:
            body.raw = tuple(line.raw for line in self.lines)
        return body.raw

    def _counts(self) -> tuple[int, int, int]:
        body = self._body
        if body.counts is None:
            kinds = [line.kind for line in self.lines]
            body.counts = (kinds.count(LineKind.CONTEXT), kinds.count(LineKind.ADDED), kinds.count(LineKind.REMOVED))
        return body.counts

    @property
    def context_count(self) -> int:
        """How many context lines (the ``\\`` marker is none)."""
        return self._counts()[0]

    @property
    def added_count(self) -> int:
        """How many added lines (``len(self.added)``, without reading the lines)."""
        return self._counts()[1]

    @property
    def removed_count(self) -> int:
        """How many removed lines (``len(self.removed)``, without reading the lines)."""
        return self._counts()[2]

    @property
    def added(self) -> tuple[DiffLine, ...]:
        return tuple(line for line in self.lines if line.kind is LineKind.ADDED)

    @property
    def removed(self) -> tuple[DiffLine, ...]:
        return tuple(line for line in self.lines if line.kind is LineKind.REMOVED)

    def _key(self) -> tuple[Any, ...]:
        return (self.header, self.old_start, self.old_len, self.new_start, self.new_len, self.section, self.lines)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Hunk:
            return NotImplemented
        assert isinstance(other, Hunk)
        return self is other or self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Hunk(header={self.header!r}, old_start={self.old_start!r}, old_len={self.old_len!r}, "
            f"new_start={self.new_start!r}, new_len={self.new_len!r}, section={self.section!r}, lines={self.lines!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle: built again from its fields
        return (Hunk, self._key())


@dataclass(frozen=True)
class FileDiff:
    """The diff of one file. ``path`` is the new path (the old one for deletions)."""

    path: str
    old_path: str | None
    new_path: str | None
    hunks: tuple[Hunk, ...]
    status: Literal["modified", "added", "deleted", "renamed", "binary"] = "modified"
    header_input_line: int | None = None  # input line of "diff --git" / "---"

    @property
    def added_count(self) -> int:
        return sum(h.added_count for h in self.hunks)

    @property
    def removed_count(self) -> int:
        return sum(h.removed_count for h in self.hunks)


@dataclass(frozen=True)
class Trailer:
    """A commit trailer such as ``Signed-off-by: Ada <ada@example.org>``."""

    key: str
    value: str
    input_line: int | None = None


class ParseWarning(str):
    """A problem the parser tells a person about: the text (a ``str``, shown as it is) and its ``code``.

    ``code`` names the kind of problem (``"embedded-diff"``, ``"format-flowed"``...: the ``WARN_*``
    constants of :mod:`reviewbot.parse.patch`). A rule that reports that kind as a finding of its own
    lists the code in ``RuleMeta.claims``; the warning is then not repeated as a note beside the finding.
    """

    code: str

    def __new__(cls, text: str, code: str = "") -> "ParseWarning":
        self = super().__new__(cls, text)
        self.code = code
        return self


@dataclass(frozen=True)
class Patch:
    """A message split the way ``git am`` splits it.

    ``commit_message`` is the text before the ``---`` separator (subject not
    included), ``notes`` the text between ``---`` and the diff (diffstat
    included, also available as ``diffstat``), ``files`` the diff. A cover
    letter or a message without a diff has ``files == ()``.
    ``commit_start_line`` is the input line of the first commit-message line.
    ``warnings`` lists problems a person should hear about (format=flowed, an
    unindented diff in the commit message...), each with its code (:class:`ParseWarning`).
    """

    message: Message
    commit_message: str
    trailers: tuple[Trailer, ...] = ()
    notes: str = ""
    diffstat: str = ""
    files: tuple[FileDiff, ...] = ()
    commit_start_line: int = 1
    warnings: tuple[ParseWarning, ...] = ()

    @property
    def subject(self) -> Subject:
        return self.message.subject

    @property
    def message_id(self) -> str:
        return self.message.message_id

    @property
    def has_diff(self) -> bool:
        return bool(self.files)


# eq=False: a grouping of patches, never compared (its patches are); each generated method is compiled at every start
@dataclass(frozen=True, eq=False)
class Series:
    """Patches sent together: an optional cover letter and the numbered patches.

    ``patches`` are ordered by their index; ``missing`` lists indexes 1..total
    that were not found.
    """

    version: int
    total: int
    cover: Patch | None
    patches: tuple[Patch, ...]
    missing: tuple[int, ...] = ()


# --------------------------------------------------------------------- check


class Severity(str, enum.Enum):
    """Finding level, as checkpatch.pl prints it. CHECK is shown only with --strict."""

    ERROR = "ERROR"
    WARNING = "WARNING"
    CHECK = "CHECK"

    @property
    def rank(self) -> int:
        """2 for ERROR, 1 for WARNING, 0 for CHECK (for thresholds and sorting)."""
        return {"ERROR": 2, "WARNING": 1, "CHECK": 0}[self.value]


class FindingState(str, enum.Enum):
    """Where a finding stands in its thread.

    ``open``: nobody said it yet; ``raised``: someone in the thread already
    made the point; ``answered``: the author already answered it (numbers
    posted, comment added in a later version); ``dismissed`` by a person.
    """

    OPEN = "open"
    RAISED = "raised"
    ANSWERED = "answered"
    DISMISSED = "dismissed"


@dataclass(frozen=True)
class Finding:
    """What one rule found in one patch.

    ``path``/``line`` locate it on the new side of the diff (``path`` is None
    for commit-message findings, where ``line`` is then the input line of the
    commit message). ``lines`` are all new-side line numbers the finding is
    about (quoted in drafts); ``hunk`` is the hunk to quote. ``symbol`` names
    the struct, barrier or claim (used in the fingerprint). ``details`` holds
    rule-specific structured data (JSON-serialisable, stored and reported as it is);
    only the rule that wrote it reads it by key. What other modules need from it
    (the drafter, the thread check) they read through the typed properties
    :attr:`quote`, :attr:`subject_names`, :attr:`evidence_where` and
    :attr:`series_point`, which a rule feeds by setting the shared keys named in
    :data:`QUOTE_KEYS`, :data:`SUBJECT_KEYS`, :data:`SUBJECT_LIST_KEY`,
    :data:`EVIDENCE_WHERE_KEY`. ``fingerprint`` is stable across runs and series
    versions; the engine fills it.
    """

    rule_id: str
    rule_name: str
    severity: Severity
    message: str
    message_id: str = ""
    path: str | None = None
    line: int | None = None
    lines: tuple[int, ...] = ()
    input_line: int | None = None
    hunk: Hunk | None = None
    symbol: str = ""
    details: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    state: FindingState = FindingState.OPEN
    fingerprint: str = ""

    @property
    def quote(self) -> str:
        """The words of the changelog the finding is about (RB201's claim), which a draft quotes and
        finds again in a cover letter; "" when the finding is about code."""
        details = self.details or {}
        return next((str(details[k]) for k in QUOTE_KEYS if details.get(k)), "")

    @property
    def subject_names(self) -> tuple[str, ...]:
        """The identifiers the finding is about (barrier, struct, the other side's barrier, moved
        members): a reply naming one of them speaks about the finding."""
        details = self.details or {}
        names = [v for k in SUBJECT_KEYS if isinstance(v := details.get(k), str)]
        names += [v for v in details.get(SUBJECT_LIST_KEY) or () if isinstance(v, str)]
        return tuple(names)

    @property
    def evidence_where(self) -> str:
        """Where the evidence the rule asks for was found instead ("cover letter", ...); "" if nowhere."""
        return str((self.details or {}).get(EVIDENCE_WHERE_KEY) or "")

    @property
    def not_asked(self) -> str:
        """Why the rule would not ask this point in a draft (:data:`NOT_ASKED_KEY`), "" when it would."""
        return str((self.details or {}).get(NOT_ASKED_KEY) or "")

    @property
    def unsure(self) -> str:
        """Why the rule is not sure a careful reviewer would send this point (:data:`UNSURE_KEY`), "" when
        it is: ``draft`` writes only sure points, the rest stays a finding with this reason."""
        return str((self.details or {}).get(UNSURE_KEY) or "")

    @property
    def series_point(self) -> bool:
        """True for a finding lifted to a series' cover letter (:data:`SERIES_POINT_KEY`, set by the
        drafter): its places belong to another message, only what it says is kept."""
        return bool((self.details or {}).get(SERIES_POINT_KEY))


#: ``Finding.details`` keys read outside the rule that wrote them, through the Finding properties:
#: the changelog words a draft quotes (``quote``), in this order of preference ...
QUOTE_KEYS = ("claim", "text")
#: ... the names a thread reply may use for what the finding is about (``subject_names``) ...
SUBJECT_KEYS = ("barrier", "struct", "other")
SUBJECT_LIST_KEY = "members"
#: ... where the rule found the evidence instead (``evidence_where``) ...
EVIDENCE_WHERE_KEY = "evidence_source"
#: ... and the drafter's own mark of a finding lifted to the cover letter (``series_point``).
SERIES_POINT_KEY = "series_point"
#: Why a rule kept a finding but would not ask it in a draft (a gain that holds by construction): the
#: drafter records the skip ``not-asked`` with this reason (``not_asked``).
NOT_ASKED_KEY = "not_asked"
#: Why a rule is not sure a reviewer would send the point (a kind of point that readers of drafts on lists
#: the rule never saw would mostly not send): ``draft`` keeps it a finding, skip ``unsure-point``, unless
#: asked to draft those too (``draft --unsure``).
UNSURE_KEY = "unsure"


@dataclass(frozen=True)
class RuleFailure:
    """A rule that raised on one patch: recorded, kept out of drafts."""

    rule_id: str
    message_id: str
    error: str
    traceback: str = ""


@dataclass(frozen=True)
class CheckReport:
    """The engine's result for one patch: findings sorted by (path, line, rule)."""

    patch: Patch
    findings: tuple[Finding, ...]
    failures: tuple[RuleFailure, ...] = ()


# --------------------------------------------------------------------- respond


# eq=False: never compared (its rendered message is); repr=False: it would print the whole reply.
# Each generated method is compiled at every start.
@dataclass(frozen=True, eq=False, repr=False)
class Draft:
    """A reply ready to be rendered as an RFC 5322 message. Never sent by reviewbot.

    ``references`` are Message-IDs without brackets, oldest first, ending with
    ``in_reply_to``. ``recipients_complete`` is False when an obfuscated
    address could not be completed; it is left out and the body starts with a note naming it.
    """

    in_reply_to: str
    references: tuple[str, ...]
    subject: str
    from_addr: Address
    to: tuple[Address, ...]
    cc: tuple[Address, ...]
    body: str
    fingerprints: tuple[str, ...]
    recipients_complete: bool = True
    message_id: str = ""
    date: datetime | None = None
