"""Measure the drafts of a run: the counts issue 11 asks to bring to zero, from an outbox and its database.

    python benchmarks/draft_quality.py --db RUN.db --outbox OUTBOX [--json] [-v]

Counts (each a number of drafts unless said otherwise):

* ``repeats_reviewer``: a draft makes a point a person other than the patch's
  author already made in the patch's thread (or, for a point on the cover
  letter, in the series' thread) before our draft: the reply names the
  finding's member/barrier/struct, or comments right under a quoted line the
  finding is about, or asks the rule's question in one of the ways listed in
  ``QUESTIONS`` below (this judge is kept apart from the drafter's own thread
  check on purpose, so it can disagree with it);
* ``repeats_paragraph``: the draft holds one of its own (unquoted)
  paragraphs twice;
* ``lookalike_paragraphs``: the draft holds two own paragraphs that are the
  same text apart from a name or two (word-level similarity of at least 0.8),
  e.g. one paragraph per struct saying the same thing;
* ``repeated_hunk_headers``: the draft quotes one ``@@`` line twice;
* ``skipped_applied``, ``skipped_withdrawn``, ``skipped_backport``: findings
  (not drafts) the run left alone as the patch was applied, withdrawn by its
  author, or is a stable backport;
* ``bad_hunk_headers``: a quoted ``@@`` line is not a hunk header of the
  answered patch, and ``@@`` line counts do not match the quoted excerpt
  (``bad_hunk_lines`` counts the lines);
* ``titles_on_two_revisions``: patches drafted on two or more of their
  revisions, counted as a person would: two drafted messages are one patch
  when they have the same author (From address) and the same title without
  version tags or RESEND (``[PATCH v3] x``, ``[PATCH 02/10] x [ver #3]``,
  ``[PATCH RESEND] x``: :func:`reviewbot.revisions.normalised_title`), or when
  the store links them as revisions (:meth:`Store.revisions_of`: a subject
  renamed between versions with the same code); ``old_revision_drafts``:
  drafts answering a message that is not the newest stored revision;
* ``incomplete_recipients``: drafts silently incomplete: an address the
  archive hides could not be completed and the draft does not say so where
  the person sending it looks (the note on its top naming who is missing,
  :data:`reviewbot.respond.draft.MISSING_NOTE`; the ``X-Reviewbot-Recipients``
  header alone is not seen in a mail client); ``flagged_incomplete``: drafts
  incomplete with that note;
* ``to_patch_lists``: drafts whose To/Cc hold every mailing list the patch
  was sent to (list addresses as the archive shows them, matched by local
  part and visible domain tail), out of ``drafts``.

Prints one line per count (``--json``: one object); ``-v`` names the drafts
behind each count.
"""

from __future__ import annotations

import argparse
import email
import json
import re
import sys
from collections import defaultdict
from email import policy
from email.utils import getaddresses
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reviewbot.models import Finding, Message  # noqa: E402
from reviewbot.parse.threads import about_patch  # noqa: E402
from reviewbot.respond.draft import MISSING_NOTE  # noqa: E402
from reviewbot.revisions import normalised_title  # noqa: E402
from reviewbot.store import Store, patch_from_row  # noqa: E402

# how a reviewer asks each rule's question (lower case, searched in the reply's own text)
QUESTIONS = {
    "RB101": (
        "cache line",
        "cacheline",
        "cache-line",
        "layout",
        "false sharing",
        "randstruct",
        "randomize_layout",
        "comment",
        "hot field",
        "reorder",
    ),
    "RB102": (
        "pair with",
        "pairs with",
        "paired",
        "pairing",
        "what does this barrier",
        "which barrier",
        "what ordering",
        "why is this barrier",
        "barrier needed",
        "add a comment",
        "memory-barriers.txt",
        "in a comment",
        "explain this barrier",
        "a good comment",
        "against what",
    ),
    "RB201": (
        "numbers",
        "benchmark",
        "measure",
        "performance data",
        "perf data",
        "how much",
        "any data",
        "what is the gain",
        "improvement",
        "results",
        "cycles",
    ),
    "RB202": ("timing code", "debug code", "leftover", "left over", "measurement code", "get_cycles", "ktime"),
}
LIST_HOST_TAILS = (
    "r.kernel.org",
    "ts.infradead.org",
    "ts.linux.dev",
    "ts.ozlabs.org",
    "kvack.org",
    "ts.freedesktop.org",
    "ts.sourceforge.net",
    "ts.linuxfoundation.org",
    "ts.linaro.org",
    "ts.osuosl.org",
    "ts.xenproject.org",
    "ts.linux-foundation.org",
)


def own_paragraphs(body: str) -> list[str]:
    """Unquoted paragraphs of a draft body, without the attribution line and the closing."""
    paras: list[list[str]] = [[]]
    for line in body.split("\n"):
        if line.startswith(">") or not line.strip():
            if paras[-1]:
                paras.append([])
            continue
        paras[-1].append(line.strip())
    out = [" ".join(p) for p in paras if p]
    return [p for p in out if len(p) > 30 and not p.endswith(" wrote:")]


def own_lines(body: str) -> str:
    return "\n".join(line for line in body.split("\n") if not line.lstrip().startswith(">"))


def _under_quoted(body: str, texts: set[str], words: tuple[str, ...], names: set[str]) -> bool:
    """True when the reply writes its own text about the point (a rule word or a name) right after
    quoting one of ``texts`` (diff lines)."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith(">"):
            continue
        q = line.lstrip(">").strip()
        if q[:1] in "+-" and " ".join(q[1:].split()) in texts:
            j = i + 1
            while j < len(lines) and lines[j].startswith(">") and lines[j].lstrip(">").strip()[:1] in "+-":
                j += 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            own = []
            while j < len(lines) and lines[j].strip() and not lines[j].startswith(">"):
                own.append(lines[j])
                j += 1
            text = " ".join(own)
            if len(text) > 10 and (any(w in text.lower() for w in words) or any(n in text for n in names)):
                return True
    return False


def _names(finding: Finding) -> set[str]:
    details = finding.details
    names = set()
    for key in ("struct", "barrier", "other"):
        v = details.get(key)
        if isinstance(v, str) and len(v) > 3:
            names.add(v.replace("struct ", "").strip())
    for m in details.get("members", []) or []:
        if isinstance(m, str) and len(m) > 3:
            names.add(m)
    return names


def raised_by_human(store: Store, finding: Finding, patch, thread, author_email: str, identity: str) -> str | None:
    hunk_texts: set[str] = set()
    lines = set(finding.lines)
    for fd in patch.files:
        if finding.path not in (fd.path, fd.new_path, fd.old_path):
            continue
        for h in fd.hunks:
            for dl in h.lines:
                if dl.new_no in lines and dl.kind.value in "+-" and dl.text.strip():
                    hunk_texts.add(" ".join(dl.text.split()))
    names = _names(finding)
    questions = QUESTIONS.get(finding.rule_id, ())
    for msg in thread:
        frm = (msg.from_addr.email if msg.from_addr else "").lower()
        if not frm or frm == author_email or frm == identity:
            continue
        if msg.subject.is_patch:
            continue
        if patch.message.date and msg.date and msg.date < patch.message.date:
            continue
        if not about_patch(msg, patch):
            continue
        text = own_lines(msg.body)
        low = text.lower()
        if hunk_texts and _under_quoted(msg.body, hunk_texts, questions, names):
            return msg.message_id
        if any(n in text for n in names) and any(q in low for q in questions):
            return msg.message_id
        if finding.rule_id == "RB201" and any(q in low for q in questions) and "?" in text:
            return msg.message_id
    return None


def patch_list_addresses(message: Message) -> list[tuple[str, str]]:
    out = []
    for address in (*message.to, *message.cc):
        mail = address.email.lower()
        local, _, dom = mail.rpartition("@")
        dom = dom.lstrip(".")
        if any(dom.endswith(t) for t in LIST_HOST_TAILS):
            out.append((local, dom))
    return out


def measure(db: Path, outbox: Path, identity: str = "") -> dict:
    counts = {
        "drafts": 0,
        "repeats_reviewer": 0,
        "repeats_paragraph": 0,
        "lookalike_paragraphs": 0,
        "repeated_hunk_headers": 0,
        "bad_hunk_headers": 0,
        "bad_hunk_lines": 0,
        "titles_on_two_revisions": 0,
        "old_revision_drafts": 0,
        "incomplete_recipients": 0,
        "flagged_incomplete": 0,
        "to_patch_lists": 0,
    }
    which: dict[str, list[str]] = defaultdict(list)
    drafted: dict[str, str] = {}  # answered Message-ID -> its subject, for the revision count
    with Store(db) as store:
        for d in store.all_drafts():
            path = Path(d.path or "")
            if not path.is_file():
                path = outbox / path.name
            if not path.is_file():
                continue
            counts["drafts"] += 1
            name = path.name
            mail = email.message_from_bytes(path.read_bytes(), policy=policy.default)
            body = mail.get_content()
            ident = identity or (getaddresses([str(mail["From"])])[0][1].lower())
            stored = store.message_row(d.in_reply_to)
            if stored is None:
                continue
            message = stored.message
            patch = patch_from_row(stored)
            drafted[message.message_id] = message.subject.raw
            # paragraphs
            paras = own_paragraphs(body)
            if len(paras) != len(set(paras)):
                counts["repeats_paragraph"] += 1
                which["repeats_paragraph"].append(name)
            if _lookalike(paras):
                counts["lookalike_paragraphs"] += 1
                which["lookalike_paragraphs"].append(name)
            ats = [ln for ln in body.split("\n") if ln.startswith("> @@")]
            if len(ats) != len(set(ats)):
                counts["repeated_hunk_headers"] += 1
                which["repeated_hunk_headers"].append(name)
            # @@ lines
            headers = {h.header.strip() for fd in patch.files for h in fd.hunks}
            bad = [
                ln
                for ln in body.split("\n")
                if ln.startswith("> @@") and ln[2:].strip() not in headers and not _computed_ok(ln[2:], patch)
            ]
            if bad:
                counts["bad_hunk_headers"] += 1
                counts["bad_hunk_lines"] += len(bad)
                which["bad_hunk_headers"].append(f"{name}: {bad[0]}")
            # recipients
            if not d.recipients_complete or mail.get("X-Reviewbot-Recipients"):
                flagged = body.lstrip().startswith(MISSING_NOTE)
                key = "flagged_incomplete" if flagged else "incomplete_recipients"
                counts[key] += 1
                which[key].append(name)
            rcpt = [a.lower() for _, a in getaddresses([str(v) for k in ("To", "Cc") for v in mail.get_all(k, [])])]
            wanted = patch_list_addresses(message)
            if all(any(r.startswith(local + "@") and r.endswith(dom) for r in rcpt) for local, dom in wanted):
                counts["to_patch_lists"] += 1
            else:
                which["not_to_patch_lists"].append(f"{name}: {wanted}")
            # a human's point repeated
            findings = [store.finding(fp) for fp in d.fingerprints]
            thread = []
            if stored.thread_id:
                thread = [
                    m.message for m in store.thread_members(stored.thread_id) if m.message_id != message.message_id
                ]
            author = (message.from_addr.email if message.from_addr else "").lower()
            for finding in findings:
                if finding is None:
                    continue
                by = raised_by_human(store, finding, patch, thread, author, ident)
                if by:
                    counts["repeats_reviewer"] += 1
                    which["repeats_reviewer"].append(f"{name}: {finding.rule_id} raised in <{by}>")
                    break
        for group in revision_groups(store, list(drafted)):
            if len(group) > 1:
                counts["titles_on_two_revisions"] += 1
                which["titles_on_two_revisions"].append(" | ".join(drafted[m] for m in group))
        for mid in drafted:
            revs = store.revisions_of(mid)
            if revs and revs[-1].message_id != mid:
                counts["old_revision_drafts"] += 1
                which["old_revision_drafts"].append(f"{drafted[mid]} (newest: {revs[-1].subject})")
        skips = store.skip_counts()
        counts["skipped_applied"] = skips.get("applied", 0)
        counts["skipped_withdrawn"] = skips.get("withdrawn", 0)
        counts["skipped_backport"] = skips.get("stable-backport", 0)
    counts["which"] = dict(which)
    return counts


def _lookalike(paras: list[str]) -> bool:
    """Two of ``paras`` say the same words apart from a short stretch (similarity >= 0.8)."""
    import difflib

    words = [p.split() for p in paras if len(p.split()) >= 12]
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            if difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.8:
                return True
    return False


def revision_groups(store: Store, message_ids: list[str]) -> list[list[str]]:
    """The drafted messages grouped by patch: same author and same title without version tags/RESEND,
    or linked by the store as revisions; each group in posting order (union-find over both links)."""
    parent = {m: m for m in message_ids}

    def find(m: str) -> str:
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    def union(a: str, b: str) -> None:
        parent[find(a)] = find(b)

    by_title: dict[tuple[str, str], str] = {}
    for mid in message_ids:
        stored = store.message_row(mid)
        prow = store.patch_row(mid)
        sender = stored.message.from_addr if stored else None
        title = normalised_title((prow.title if prow else "") or (stored.message.subject.title if stored else ""))
        key = ((sender.email or sender.name if sender else "").lower(), title)
        if key in by_title:
            union(mid, by_title[key])
        else:
            by_title[key] = mid
        for r in store.revisions_of(mid):
            if r.message_id in parent:
                union(mid, r.message_id)
    groups: dict[str, list[str]] = defaultdict(list)
    for mid in message_ids:
        groups[find(mid)].append(mid)
    return list(groups.values())


_AT_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _computed_ok(line: str, patch) -> bool:
    """A computed ``@@`` line for an excerpt: its ranges lie inside one hunk of the patch."""
    m = _AT_RE.match(line.strip())
    if not m:
        return False
    o, ol, n, nl = int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1)
    for fd in patch.files:
        for h in fd.hunks:
            if (
                h.old_start <= o
                and o + ol <= h.old_start + h.old_len
                and h.new_start <= n
                and n + nl <= h.new_start + h.new_len
            ):
                return True
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--outbox", type=Path, required=True)
    ap.add_argument("--identity", default="", help="our e-mail address [the drafts' From]")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    counts = measure(args.db, args.outbox, args.identity.lower())
    which = counts.pop("which")
    if args.json:
        print(json.dumps(counts, indent=1))
    else:
        for key, value in counts.items():
            print(f"{key:24} {value}")
    if args.verbose:
        for key, items in which.items():
            print(f"\n{key}:")
            for item in items:
                print(f"  {item}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
