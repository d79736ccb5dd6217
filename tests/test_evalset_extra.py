"""Structure of the hand-labelled development set in tests/data/evalset-extra.

The set is read by the same code as ../shared/evalset (labels.tsv + mail/ID.eml + mail/ID.cover.eml),
so a broken row would silently drop out of a measurement. These checks keep every row usable and keep
messages of the lists kept for evaluation out of the set.
"""

from __future__ import annotations

import csv
import email
import re
from email import policy
from pathlib import Path

import pytest

SET = Path(__file__).resolve().parent / "data" / "evalset-extra"
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

# Lists whose messages must never be read or labelled for development (evaluation lists and the
# eight lists of ../shared/evalset): a message sent or copied to any of them is left out.
KEPT_OUT_LISTS = (
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


def _rows() -> list[dict[str, str]]:
    with open(SET / "labels.tsv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _message(path: Path) -> email.message.EmailMessage:
    return email.message_from_bytes(path.read_bytes(), policy=policy.compat32)


def _addresses(msg) -> str:
    return " ".join(str(msg[h] or "") for h in ("To", "Cc")).lower()


def test_header_is_the_evalset_layout():
    with open(SET / "labels.tsv", encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
    assert header == COLUMNS


def test_ids_are_consecutive_and_unique():
    ids = [r["id"] for r in _rows()]
    assert ids == [f"DX{n:03d}" for n in range(1, len(ids) + 1)]
    assert len(ids) >= 40


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["id"])
def test_row_is_complete(row):
    assert None not in row.values(), f"{row['id']}: wrong number of columns"
    for rule in RULES:
        assert row[rule] in LABELS, f"{row['id']} {rule}={row[rule]!r}"
    assert re.fullmatch(r"[0-9a-f]{40}", row["commit"]), row["commit"]
    assert row["list"].startswith("linux-mailinglist-archives/")
    assert not any(f"/{name}." in row["list"] for name in KEPT_OUT_LISTS), row["list"]
    # every decision that is not trivially 0 carries a reason naming the rule
    for rule in RULES:
        if row[rule] != "0":
            assert rule in row["reason"], f"{row['id']}: {rule}={row[rule]} without a reason"


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["id"])
def test_mail_file_is_the_labelled_message(row):
    path = SET / "mail" / f"{row['id']}.eml"
    assert path.is_file(), f"missing {path.name}"
    msg = _message(path)
    assert " ".join(str(msg["Message-ID"]).split()) == row["message_id"]
    assert "\ndiff --git " in path.read_bytes().decode("utf-8", "replace"), f"{row['id']} has no patch"
    assert not any(f"{name}@" in _addresses(msg) for name in KEPT_OUT_LISTS), row["id"]


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["id"])
def test_cover_letter_present_exactly_when_named(row):
    cover = SET / "mail" / f"{row['id']}.cover.eml"
    if row["cover_commit"] == "-":
        assert not cover.exists(), f"{cover.name} exists but cover_commit is '-'"
        return
    assert re.fullmatch(r"[0-9a-f]{40}", row["cover_commit"])
    assert cover.is_file(), f"missing {cover.name}"
    cover_msg = _message(cover)
    patch_msg = _message(SET / "mail" / f"{row['id']}.eml")
    threading = f"{patch_msg['References'] or ''} {patch_msg['In-Reply-To'] or ''}"
    assert str(cover_msg["Message-ID"]).strip() in threading, f"{row['id']}: cover is not the thread root"
    assert re.search(r"\b0+/\d+\]", str(cover_msg["Subject"])), cover_msg["Subject"]
    assert not any(f"{name}@" in _addresses(cover_msg) for name in KEPT_OUT_LISTS), row["id"]


def test_no_stray_mail_files():
    ids = {r["id"] for r in _rows()}
    for path in (SET / "mail").iterdir():
        stem = path.name.split(".", 1)[0]
        assert stem in ids and path.name.endswith((".eml",)), f"stray file {path.name}"


def test_readme_counts_match_labels():
    readme = (SET / "README.md").read_text(encoding="utf-8")
    rows = _rows()
    assert f"{len(rows)} patch mails" in readme
    for rule in RULES:
        counts = " / ".join(str(sum(r[rule] == v for r in rows)) for v in ("1", "0", "?"))
        assert f"{rule} {counts}" in readme, f"README counts for {rule} should read '{rule} {counts}'"
