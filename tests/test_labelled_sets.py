"""Structure of the hand-labelled sets the project carries: tests/data/evalset-* (development data).

Each set is read by the same code as ../shared/evalset (labels.tsv + mail/ID.eml + mail/ID.cover.eml
+ mail/ID.replyN.eml), so a broken row would silently drop out of a measurement. These checks keep every
row usable and keep messages of the lists kept for evaluation out of every set. evalset-extra was the
first; the first-look batches of issue 23 (evalset-first*) joined it after their first-look figure was
recorded.
"""

from __future__ import annotations

import codecs
import csv
import email
import re
from email import policy
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
#: Every labelled set in tests/data with the id prefix its rows carry (evalset-replies is a test fixture of
#: ``eval --set``'s reply reading, with a ``replies`` column of its own: not a labelling batch).
SETS = {
    p.parent.name: p.parent for p in sorted(DATA.glob("evalset-*/labels.tsv")) if p.parent.name != "evalset-replies"
}
COLUMNS = [
    "id",
    "list",
    "commit",
    "message_id",
    "date",
    "subject",
    "RB101",
    "RB102",
    "RB201",
    "RB202",
    "cover_commit",
    "reason",
]
RULES = ("RB101", "RB102", "RB201", "RB202")
LABELS = {"0", "1", "?"}
#: RB101 may also be ``c``: a packing or layout change, CHECK level at most.
RB101_LABELS = LABELS | {"c"}

# Lists whose messages must never be read or labelled for development (evaluation lists and the
# eight lists of ../shared/evalset): a message sent or copied to any of them is left out.
KEPT_OUT_LISTS = (
    "freedreno",
    "ceph-devel",
    "linux-cifs",
    "alsa-devel",
    "nvdimm",
    "platform-driver-x86",
    "ath10k",
    "intel-wired-lan",
    "linux-rdma",
    "virtualization",
    "linux-pm",
    "linux-usb",
    "linux-xfs",
    "linux-pci",
    "netfilter-devel",
    "linux-s390",
    "cgroups",
    "io-uring",
    "linux-arch",
    "linux-block",
    "linux-nfs",
    "linux-scsi",
    "linux-btrfs",
    "linux-ext4",
    "linux-hyperv",
    "dm-devel",
    "linux-crypto",
    "linux-wireless",
)


def _rows(root: Path) -> list[dict[str, str]]:
    with open(root / "labels.tsv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _all_rows() -> list[tuple[Path, dict[str, str]]]:
    return [(root, row) for root in SETS.values() for row in _rows(root)]


def _row_id(item: tuple[Path, dict[str, str]]) -> str:
    return f"{item[0].name}:{item[1]['id']}"


def _message(path: Path) -> email.message.EmailMessage:
    return email.message_from_bytes(path.read_bytes(), policy=policy.compat32)


def _codec(charset: str | None) -> str:
    """The codec of a declared charset; an unknown name (first7's F7B069 declares ``charset=n``) read as UTF-8,
    as reviewbot's mail parser reads it."""
    try:
        return codecs.lookup(charset or "utf-8").name
    except LookupError:
        return "utf-8"


def _addresses(msg) -> str:
    return " ".join(str(msg[h] or "") for h in ("To", "Cc")).lower()


@pytest.mark.parametrize("root", SETS.values(), ids=SETS.keys())
def test_header_is_the_evalset_layout(root: Path) -> None:
    with open(root / "labels.tsv", encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
    assert header == COLUMNS


@pytest.mark.parametrize("root", SETS.values(), ids=SETS.keys())
def test_ids_are_consecutive_and_unique_per_prefix(root: Path) -> None:
    by_prefix: dict[str, list[int]] = {}
    for row in _rows(root):
        # a letter prefix (FG, DX) or, from evalset-first4 on, the batch number inside it (F4A, F4B)
        m = re.fullmatch(r"([A-Z][A-Z0-9]*[A-Z])(\d{3})", row["id"])
        assert m, row["id"]
        by_prefix.setdefault(m.group(1), []).append(int(m.group(2)))
    # an id left out after labelling (a mail found to be copied to a list kept out) stays unused, named in the README
    readme = (root / "README.md").read_text(encoding="utf-8")
    for prefix, numbers in by_prefix.items():
        assert numbers == sorted(set(numbers)), prefix
        gaps = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
        assert all(f"{prefix}{n:03d} " in readme and "left out" in readme for n in gaps), (prefix, gaps)
    assert sum(map(len, by_prefix.values())) >= 40


def test_no_message_is_labelled_twice() -> None:
    seen: dict[str, str] = {}
    for root, row in _all_rows():
        assert row["message_id"] not in seen, f"{root.name}:{row['id']} is {seen.get(row['message_id'])}"
        seen[row["message_id"]] = f"{root.name}:{row['id']}"


@pytest.mark.parametrize("item", _all_rows(), ids=_row_id)
def test_row_is_complete(item: tuple[Path, dict[str, str]]) -> None:
    _, row = item
    assert None not in row.values(), f"{row['id']}: wrong number of columns"
    for rule in RULES:
        assert row[rule] in (RB101_LABELS if rule == "RB101" else LABELS), f"{row['id']} {rule}={row[rule]!r}"
    # the mirror commit, or (evalset-first1: mirrors over the fetch limit, read through the search index) the
    # index's id of the same file ``m``
    assert re.fullmatch(r"[0-9a-f]{40}|idx:\d+", row["commit"]), row["commit"]
    assert row["list"].startswith("linux-mailinglist-archives/")
    assert not any(f"/{name}." in row["list"] for name in KEPT_OUT_LISTS), row["list"]
    # every decision that is not trivially 0 carries a reason naming the rule
    for rule in RULES:
        if row[rule] != "0":
            assert rule in row["reason"], f"{row['id']}: {rule}={row[rule]} without a reason"


@pytest.mark.parametrize("item", _all_rows(), ids=_row_id)
def test_mail_file_is_the_labelled_message(item: tuple[Path, dict[str, str]]) -> None:
    root, row = item
    path = root / "mail" / f"{row['id']}.eml"
    assert path.is_file(), f"missing {path.name}"
    msg = _message(path)
    assert " ".join(str(msg["Message-ID"]).split()) == row["message_id"]
    # the decoded text parts (a base64 body in big5 or utf-8 holds its diff encoded)
    text = "\n".join(
        part.get_payload(decode=True).decode(_codec(part.get_content_charset()), "replace")
        for part in msg.walk()
        if part.get_content_maintype() == "text" and part.get_payload(decode=True) is not None
    )
    # git's "diff --git" header, or a plain unified diff (quilt and Xen's tools send "--- a/x" "+++ b/x" alone)
    assert "\ndiff --git " in text or re.search(r"\n--- \S+.*\n\+\+\+ \S+", text), f"{row['id']} has no patch"
    assert not any(f"{name}@" in _addresses(msg) for name in KEPT_OUT_LISTS), row["id"]


@pytest.mark.parametrize("item", _all_rows(), ids=_row_id)
def test_cover_letter_present_exactly_when_named(item: tuple[Path, dict[str, str]]) -> None:
    root, row = item
    cover = root / "mail" / f"{row['id']}.cover.eml"
    if row["cover_commit"] == "-":
        assert not cover.exists(), f"{cover.name} exists but cover_commit is '-'"
        return
    assert re.fullmatch(r"[0-9a-f]{40}|idx:\d+", row["cover_commit"])
    assert cover.is_file(), f"missing {cover.name}"
    cover_msg = _message(cover)
    patch_msg = _message(root / "mail" / f"{row['id']}.eml")
    threading = f"{patch_msg['References'] or ''} {patch_msg['In-Reply-To'] or ''}"
    # the thread root (a 0/N, or a one-patch series' covering mail: "[PING PATCH v6] ..."), or
    # (unthreaded git send-email) a 0/N of the same author
    root = str(cover_msg["Message-ID"]).strip() in threading
    assert root or cover_msg["From"] == patch_msg["From"], row["id"]
    assert root or re.search(r"\b0+/\d+\]", str(cover_msg["Subject"])), cover_msg["Subject"]
    assert not any(f"{name}@" in _addresses(cover_msg) for name in KEPT_OUT_LISTS), row["id"]


@pytest.mark.parametrize("root", SETS.values(), ids=SETS.keys())
def test_no_stray_mail_files(root: Path) -> None:
    ids = {r["id"] for r in _rows(root)}
    for path in (root / "mail").iterdir():
        stem = path.name.split(".", 1)[0]
        assert stem in ids and path.name.endswith((".eml",)), f"stray file {path.name}"


@pytest.mark.parametrize("root", SETS.values(), ids=SETS.keys())
def test_readme_counts_match_labels(root: Path) -> None:
    readme = (root / "README.md").read_text(encoding="utf-8")
    rows = _rows(root)
    assert f"{len(rows)} patch mails" in readme
    for rule in RULES:
        values = ("1", "0", "?", "c") if any(r[rule] == "c" for r in rows) else ("1", "0", "?")
        counts = " / ".join(str(sum(r[rule] == v for r in rows)) for v in values)
        assert f"{rule} {counts}" in readme, f"README counts for {rule} should read '{rule} {counts}'"
