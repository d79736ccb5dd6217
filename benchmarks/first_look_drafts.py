"""First-look drafts of a list-period: every draft next to what a reader needs to judge it.

    python benchmarks/first_look_drafts.py LIST_EPOCH_DIR --since YYYY-MM --until YYYY-MM --out DIR
        [--list NAME] [--list-address ADDR] [--grace-days 14]

``LIST_EPOCH_DIR`` is a local copy of the list's lore epochs (one bare epoch
such as a ``linux-mailinglist-archives/<list>.vger.kernel.org.N`` snapshot,
an inbox folder or a grokmirror tree: what ``scan --source lore --lore-url
DIR`` reads). Steps, with no network:

1. Store the messages dated ``--since`` .. ``--until`` plus ``--grace-days``
   more (replies to the period's last patches), in a new ``DIR/store.sqlite``.
2. Run the rules on the period's patches only (the grace days give replies,
   not patches to draft).
3. Draft as ``reviewbot draft --no-lore`` does, with a fixed reviewer
   (``Zoë Reviewer <zoe@example.com>``) and a fixed clock (the day after
   the grace days), into ``DIR/outbox``.
4. Write one folder per draft, ``DIR/drafts/NNN/``: ``draft.eml`` (the
   draft), ``patch.txt`` (the patch mail as text), ``cover.txt`` (its cover
   letter, when it has one), ``thread.txt`` (every message of the thread, in
   date order, with From/Date/Subject/Message-ID/In-Reply-To), and
   ``revisions.txt`` (earlier stored revisions of the patch, each with the
   replies of its thread). ``DIR/index.tsv`` lists them (number, rules,
   patch Message-ID, subject, thread size) with an empty ``verdict`` column
   (SEND / EDIT / NO) and ``why`` for the reader.
5. ``DIR/misses.tsv``: the reviewers' requests of the period that got no
   draft: replies by someone other than the patch's author asking for numbers
   or benchmarks, for what a barrier pairs with, or for a layout/cacheline
   comment, on a patch without a draft (the reply, who, the point, the
   sentence, the patch).

Prints the counts (messages, patches, findings, drafts, skips by state,
misses by point) and the seconds each step took.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reviewbot.config import Settings  # noqa: E402
from reviewbot.errors import ReviewbotError  # noqa: E402
from reviewbot.models import Address, Message  # noqa: E402
from reviewbot.store import Store  # noqa: E402

IDENTITY = Address("Zoë Reviewer", "zoe@example.com")

#: how a reviewer asks each point (lower case; looked for in the reply's own lines, not its quotes), and the
#: words that make such a line a request rather than a statement
ASKS = {
    "numbers": re.compile(
        r"(performance|perf|benchmark|some|any|real|hard) (numbers|data|results)|benchmark|measur(e|able|ement)s?\b|"
        r"quantif|how much (faster|slower|better|time|memory)|speed-? ?up|\bprofil(e|ing)\b"
    ),
    "pairing": re.compile(
        r"pair(s|ed|ing)? (with|barrier)|matching barrier|which barrier|what barrier|other side of|"
        r"(barrier|smp_[rw]?mb\(\)|acquire|release).{0,40}(comment|why|order)|(comment|why|order).{0,40}"
        r"(barrier|smp_[rw]?mb\(\))"
    ),
    "layout": re.compile(
        r"(cache ?line|cacheline|layout|false sharing|pahole|____cacheline).{0,60}(comment|why|explain|number)|"
        r"(comment|why|explain).{0,60}(cache ?line|cacheline|layout|false sharing)"
    ),
}
REQUEST = re.compile(r"\?|\bplease\b|could you|can you|would you|would be (good|nice|helpful)|\bshare\b")


def month(value: str, *, end: bool) -> date:
    """YYYY-MM (or YYYY-MM-DD) as the first or last day it names."""
    try:
        if len(value) == 7:
            first = date.fromisoformat(value + "-01")
            if not end:
                return first
            nxt = (first.replace(day=28) + timedelta(days=4)).replace(day=1)
            return nxt - timedelta(days=1)
        return date.fromisoformat(value)
    except ValueError:
        raise SystemExit(f"first_look_drafts: {value!r} is not YYYY-MM or YYYY-MM-DD") from None


def list_from_path(path: Path) -> str | None:
    """``linux-kbuild`` from ``.../linux-mailinglist-archives+linux-kbuild.vger.kernel.org.0/repo``."""
    for part in reversed(path.parts):
        m = re.search(r"(?:^|[+/])([a-z0-9][a-z0-9_-]*)\.(?:vger\.kernel\.org|lists\.[a-z.]+)\.\d+$", part)
        if m:
            return m.group(1)
    return None


def as_text(message: Message, title: str = "") -> str:
    """A message as a reader sees it in a mail client: a few headers, then the body."""
    head = [
        f"===== {title or 'message'} " + "=" * max(3, 60 - len(title or "message")),
        f"From: {message.from_addr or '?'}",
    ]
    head.append(f"Date: {message.date.isoformat() if message.date else message.date_raw}")
    head.append(f"Subject: {message.subject.raw}")
    head.append(f"Message-ID: <{message.message_id}>")
    if message.in_reply_to:
        head.append(f"In-Reply-To: <{message.in_reply_to}>")
    return "\n".join(head) + "\n\n" + message.body.rstrip("\n") + "\n"


def _when(m: Message) -> float:
    return m.date.timestamp() if m.date else 0.0


def own_lines(body: str) -> list[str]:
    """The lines a reply writes itself: no quotes, no attribution, nothing after a signature mark."""
    out = []
    for line in body.splitlines():
        if line.rstrip() == "--":
            break
        if line.lstrip().startswith(">") or re.search(r"\bwrote:\s*$", line):
            continue
        out.append(line)
    return out


def requests_in(body: str) -> list[tuple[str, str]]:
    """(point, sentence) of each request for numbers, a pairing comment or a layout comment a reply makes."""
    text = " ".join(" ".join(own_lines(body)).split())
    found = []
    for sentence in re.split(r"(?<=[.?!])\s+", text):
        low = sentence.lower()
        if not REQUEST.search(low):
            continue
        for point, pattern in ASKS.items():
            if pattern.search(low):
                found.append((point, sentence[:300]))
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("epochs", type=Path, help="local copy of the list's lore epochs")
    ap.add_argument("--since", required=True)
    ap.add_argument("--until", required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--list", dest="list_name", help="the list's name (default: from the folder's name)")
    ap.add_argument("--list-address", help="the list's address (default: LIST@vger.kernel.org)")
    ap.add_argument("--grace-days", type=int, default=14, help="days after --until read for replies (default 14)")
    ap.add_argument("--unsure", action="store_true", help="draft the unsure points too (draft --unsure)")
    args = ap.parse_args(argv)

    since, until = month(args.since, end=False), month(args.until, end=True)
    list_name = args.list_name or list_from_path(args.epochs.resolve())
    if not list_name:
        raise SystemExit("first_look_drafts: cannot tell the list from the folder's name; give --list NAME")
    list_address = args.list_address or f"{list_name}@vger.kernel.org"
    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"first_look_drafts: {out} is not empty; give a new folder")
    out.mkdir(parents=True, exist_ok=True)
    last_read = until + timedelta(days=args.grace_days)
    now = datetime.combine(last_read + timedelta(days=1), datetime.min.time(), timezone.utc)
    settings = Settings(lore_url=str(args.epochs.resolve()), db_path=out / "store.sqlite", list_name=list_name)
    times: dict[str, float] = {}

    from reviewbot.registry import load_rules
    from reviewbot.respond.runner import draft_pending
    from reviewbot.scan import review_range
    from reviewbot.scan_lore import scan_lore

    rules = load_rules()
    try:
        with Store(settings.db_path) as store:
            t0 = time.perf_counter()
            scanned = scan_lore(settings, list_name, since, last_read, store=store, rules=[], clock=lambda: now)
            times["store"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            checked, failures = review_range(settings, list_name, since, until, store=store, rules=rules)
            times["rules"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            summary = draft_pending(
                store,
                rules=rules,
                identity=IDENTITY,
                list_address=list_address,
                outbox=out / "outbox",
                list_name=list_name,
                since=since,
                clock=lambda: now,
                unsure=args.unsure,
            )
            times["draft"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            drafted = write_folders(store, summary.written, out)
            misses = write_misses(store, list_name, since, until, drafted, out)
            skips = Counter(
                state
                for _f, state in store.handled_findings_of([m for m, _t in store.patch_ids(list_name, since, until)])
            )
            times["write"] = time.perf_counter() - t0
    except ReviewbotError as exc:
        raise SystemExit(f"first_look_drafts: {exc}") from None

    print(f"{list_name} {since} .. {until} (replies read to {last_read}) from {args.epochs}")
    print(f"messages stored: {scanned.messages_stored}")
    print(f"patches checked: {checked} (rule failures: {failures})")
    print(f"findings: {summary.findings}")
    print(f"drafts: {summary.drafts - len(LEFT_OUT)} ({out / 'drafts'}, index {out / 'index.tsv'})")
    print(f"drafts left out, the patch addressed to an evaluation list: {len(LEFT_OUT)}")
    for state, n in sorted(skips.items()):
        print(f"findings {state}: {n}")
    for point, n in sorted(Counter(p for p, *_ in misses).items()):
        print(f"misses {point}: {n}")
    print(f"misses total: {len(misses)} ({out / 'misses.tsv'})")
    print("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in times.items()))
    return 0


#: The lists the project keeps for its own evaluation: never read, labelled or tuned on. A patch of the list being
#: read that is also addressed to one of them is left out of the reading (its folder and its misses), so no
#: reader's verdict on it can steer the rules.
EVALUATION_LISTS = (
    "linux-pm@", "linux-usb@", "linux-xfs@", "linux-pci@", "netfilter-devel@", "linux-s390@", "freedreno@",
    "ceph-devel@", "linux-cifs@", "alsa-devel@", "nvdimm@", "platform-driver-x86@", "ath10k@",
)  # fmt: skip


#: The drafts left out of a run's reading (their patches' Message-IDs), printed with the counts.
LEFT_OUT: list[str] = []


def kept_out(msg: Message) -> bool:
    """Whether the patch mail is addressed to one of :data:`EVALUATION_LISTS` (To or Cc)."""
    addresses = " ".join(a.email.lower() for a in (*msg.to, *msg.cc) if a and a.email)
    return any(name in addresses for name in EVALUATION_LISTS)


def write_folders(store: Store, written, out: Path) -> set[tuple[str, str]]:
    """One folder per draft with the draft, patch, cover, thread and earlier revisions; the index. Returns
    (thread, rule) of each drafted point."""
    root = out / "drafts"
    root.mkdir(exist_ok=True)
    index = ["n\trules\tpatch_message_id\tsubject\tthread_messages\tverdict\twhy"]
    drafted: set[tuple[str, str]] = set()
    n = 0
    for w in written:
        row = store.message_row(w.patch_message_id)
        if row is not None and kept_out(row.message):  # an evaluation list's patch: no reader sees it
            w.path.unlink(missing_ok=True)
            LEFT_OUT.append(w.patch_message_id)
            continue
        n += 1
        folder = root / f"{n:03d}"
        folder.mkdir()
        folder.joinpath("draft.eml").write_bytes(w.path.read_bytes())
        if row is None:
            continue
        patch = row.message
        folder.joinpath("patch.txt").write_text(as_text(patch, "the patch"))
        thread = thread_messages(store, row.thread_id, patch)
        cover = cover_of(store, patch, thread)
        if cover is not None:
            folder.joinpath("cover.txt").write_text(as_text(cover, "the cover letter"))
        folder.joinpath("thread.txt").write_text(
            "\n".join(as_text(m, "this patch" if m.message_id == patch.message_id else "") for m in thread)
        )
        earlier = [s for s in store.revisions_of(patch.message_id) if s.message_id != patch.message_id]
        if earlier:
            parts = []
            for sub in earlier:
                old = store.message_row(sub.message_id)
                if old is None:
                    continue
                parts.append(as_text(old.message, "an earlier revision"))
                for reply in thread_messages(store, old.thread_id, old.message):
                    if reply.in_reply_to == old.message.message_id:
                        parts.append(as_text(reply, "a reply to that revision"))
            folder.joinpath("revisions.txt").write_text("\n".join(parts))
        found = [f for f in (store.finding(fp) for fp in w.draft.fingerprints) if f is not None]
        rules = ",".join(sorted({f.rule_id for f in found}))
        drafted.update((row.thread_id or patch.message_id, f.rule_id) for f in found)
        subject = " ".join(patch.subject.raw.split()).replace("\t", " ")
        index.append(f"{n:03d}\t{rules}\t{patch.message_id}\t{subject}\t{len(thread)}\t\t")
    out.joinpath("index.tsv").write_text("\n".join(index) + "\n")
    return drafted


def thread_messages(store: Store, thread_id: str | None, message: Message) -> list[Message]:
    """Every stored message of the thread (the message itself included), by Date."""
    members = [m.message for m in store.thread_members(thread_id)] if thread_id else []
    if not any(m.message_id == message.message_id for m in members):
        members.append(message)
    return sorted(members, key=_when)


def cover_of(store: Store, patch: Message, thread: list[Message]) -> Message | None:
    """The cover letter the patch answers (a 0/N, or the thread's first patch mail the patch replies under)."""
    for mid in (patch.in_reply_to, *patch.references):
        if not mid or mid == patch.message_id:
            continue
        row = store.message_row(mid)
        if row is not None and row.message.subject.is_patch and row.message.subject.index in (0, None):
            if row.message.subject.index == 0 or mid == (patch.references[:1] or (None,))[0]:
                return row.message
    return None


#: the rule whose draft would have made each point
RULE_OF = {"numbers": "RB201", "pairing": "RB102", "layout": "RB101"}


def write_misses(
    store: Store, list_name: str, since: date, until: date, drafted: set[tuple[str, str]], out: Path
) -> list:
    """Requests for the points by someone other than the patch's author, in threads without a draft of the
    point's rule."""
    misses = []
    for row in store.messages(list_name, since, until):
        msg = row.message
        if msg.subject.is_patch or not msg.in_reply_to:
            continue
        asked = requests_in(msg.body)
        if not asked:
            continue
        patch = about(store, msg)
        if patch is None or kept_out(patch):
            continue
        if patch.from_addr and msg.from_addr and patch.from_addr.email.lower() == msg.from_addr.email.lower():
            continue
        thread = row.thread_id or patch.message_id
        for point, sentence in dict(asked).items():
            if (thread, RULE_OF[point]) in drafted:
                continue
            misses.append((point, msg.message_id, str(msg.from_addr), sentence, patch.message_id, patch.subject.raw))
    lines = ["point\treply_message_id\tfrom\tsentence\tpatch_message_id\tpatch_subject"]
    lines += ["\t".join(" ".join(str(v).split()) for v in m) for m in misses]
    out.joinpath("misses.tsv").write_text("\n".join(lines) + "\n")
    return misses


def about(store: Store, reply: Message) -> Message | None:
    """The patch mail a reply is about: the nearest patch among what it answers."""
    seen = 0
    mid = reply.in_reply_to
    while mid and seen < 30:
        row = store.message_row(mid)
        if row is None:
            return None
        if row.message.subject.is_patch:
            return row.message
        mid = row.message.in_reply_to
        seen += 1
    return None


if __name__ == "__main__":
    sys.exit(main())
