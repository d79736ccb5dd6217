"""tests/data stays what its README says: small, complete for its tests, and byte for byte from ../shared."""

from __future__ import annotations

import mailbox
import re

import pytest

from conftest import CASES, DATA, DATA_MAIL, DATA_MIRROR, SHARED


def _mid(value: str) -> str:
    return re.sub(r"\s+", "", value).strip("<>")


def _sample_ids() -> list[str]:
    box = mailbox.mbox(str(DATA_MAIL / "lkml-sample.mbox"), create=False)
    try:
        return [_mid(msg["Message-ID"] or "") for msg in box]
    finally:
        box.close()


def test_the_fixture_set_stays_small() -> None:
    labelled = [p for p in DATA.glob("evalset-*/**/*") if p.is_file()]
    rest = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file()) - sum(p.stat().st_size for p in labelled)
    # about 5 MB of archive pages, mails and cases: still a small clone; whole archives belong in ../shared
    assert rest < 8_000_000, (
        f"tests/data is {rest / 1e6:.1f} MB without its labelled sets; whole archives go in ../shared"
    )
    # the hand-labelled development sets (evalset-extra, evalset-replies, the first-look batches of issue 23, each
    # 1-5.5 MB): kept with the project so every measurement can be repeated from a clone. Batches labelled from
    # lists never read are how the project measures its rules (issue 23), so the limit grows with them: the sets
    # need 26.0 MB with first7 (2.7 MB), the batch the 27 MB limit was left room for; the next batch does not fit,
    # and that is a decision to take (keep the sets elsewhere), not a number to bump unnoticed
    size = sum(p.stat().st_size for p in labelled)
    assert size < 27_000_000, f"the labelled sets in tests/data are {size / 1e6:.1f} MB"


def test_every_message_of_the_oracle_months_has_its_mbox_copy() -> None:
    rows = [line.split("\t") for line in (DATA_MIRROR / "manifest.tsv").read_text().splitlines()[1:]]
    oracle = {mid for mid, path, *_ in rows if path.startswith(("/linux-kernel/2023/06/", "/linux-kernel/2023/07/"))}
    ids = _sample_ids()
    assert len(oracle) > 150
    assert oracle <= set(ids)
    assert len(ids) == len(set(ids))


@pytest.mark.shared
def test_pages_and_cases_are_byte_copies_of_shared() -> None:
    compared = 0
    for root, rel_root in ((DATA_MIRROR, SHARED / "openwall-mirror"), (CASES, SHARED / "cases")):
        for path in root.rglob("*"):
            if path.is_file() and path.name != "manifest.tsv":
                rel = path.relative_to(root)
                assert path.read_bytes() == (rel_root / rel).read_bytes(), rel
                compared += 1
    assert compared > 450
    assert {p.name for p in CASES.iterdir()} == {p.name for p in (SHARED / "cases").iterdir()}


@pytest.mark.shared
def test_manifest_labels_and_mails_are_excerpts_of_shared() -> None:
    shared_rows = set((SHARED / "openwall-mirror/manifest.tsv").read_text().splitlines())
    assert set((DATA_MIRROR / "manifest.tsv").read_text().splitlines()) <= shared_rows
    shared_labels = set((SHARED / "corpus/labels.tsv").read_text().splitlines())
    labels = (DATA_MAIL / "labels.tsv").read_text().splitlines()
    assert len(labels) > 1 and set(labels) <= shared_labels
    blob = (SHARED / "corpus/lkml-real.mbox").read_bytes() + (SHARED / "openwall-seeds.mbox").read_bytes()
    box = mailbox.mbox(str(DATA_MAIL / "lkml-sample.mbox"), create=False)
    try:
        for key in box.iterkeys():
            assert box.get_bytes(key, from_=True) in blob, key
    finally:
        box.close()
