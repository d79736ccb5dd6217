"""Rebuild the in-project fixtures (tests/data/cases, openwall-mirror, mail) from ../shared.

Run from the checkout with ../shared beside it (or REVIEWBOT_SHARED=DIR):

    python tests/data/build_fixtures.py

Every file is copied byte for byte (pages, attachments, mbox entries, case
inputs); only ``manifest.tsv``, ``labels.tsv`` and the mbox are cut down to
the messages chosen here. What is chosen and why is in tests/data/README.md.
"""

from __future__ import annotations

import mailbox
import os
import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("REVIEWBOT_SHARED", HERE.parents[2] / "shared")).resolve()
LK = "linux-kernel"

# whole months: index page, every day page, every message page and attachment
MONTHS = ["2023/06", "2023/07", "2024/05"]
# single days (day page, its message pages and attachments): where the threads of MONTHS
# continue ([thread-next>] chains followed by scans in default mode) and the pages the
# page-parser tests name
DAYS = [
    "2023/08/01",
    "2023/08/02",
    "2023/08/03",
    "2023/08/04",
    "2023/08/05",
    "2023/08/07",
    "2023/08/08",
    "2023/08/10",
    "2023/08/29",
    "2023/09/28",
    "2024/06/01",
    "2024/06/03",
    "2024/06/04",
    "2024/06/06",
    "2024/06/11",
    "2024/07/31",
    "2023/08/17",  # text/x-patch attachment holding the patch
    "2019/08/23",  # signature attachment, folded Cc, thread-prev link
    "2019/06/24",  # "Content of type ... skipped"
    "2025/12/17",  # Message-ID folded onto the next line
]
# the mbox copies kept: every message of these months (the scan tests' oracle) ...
MBOX_MONTHS = ["2023/06", "2023/07"]
# ... and the corpus messages that check, draft and rule tests name
MBOX_EXTRA = [
    "d2b7b61c-4868-45c0-9060-4f9c73de9d7e@kernel.dk",  # struct request_queue reorder
    "760086647776a5aebfa77cfff728837d476a4fd8.1737718881.git.asml.silence@gmail.com",  # smp_mb() no comment
    "20240111155448.4097173-1-ming.lei@redhat.com",  # two commented smp_mb()
    "20240122235332.2299150-1-bvanassche@acm.org",  # speed claim without numbers
    "20260512-psi_impr-v1-2-2b7f10fdfad5@tencent.com",  # 72-character subject
]


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def build_cases(out: Path) -> None:
    for src in sorted((SHARED / "cases").iterdir()):
        _copy(src, out / "cases" / src.name)


def build_mirror(out: Path) -> set[str]:
    """Copy the chosen pages; returns the URL paths of the messages kept."""
    src_root = SHARED / "openwall-mirror"
    dst_root = out / "openwall-mirror"
    _copy(src_root / LK / "index.html", dst_root / LK / "index.html")
    for year in sorted(p for p in (src_root / LK).iterdir() if p.is_dir()):
        _copy(year / "index.html", dst_root / LK / year.name / "index.html")
    dirs = [src_root / LK / m for m in MONTHS] + [src_root / LK / d for d in DAYS]
    for top in dirs:
        for src in sorted(top.rglob("*")):
            if src.is_file():
                _copy(src, dst_root / src.relative_to(src_root))
    kept: set[str] = set()
    lines = (src_root / "manifest.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    rows = [lines[0]]
    for line in lines[1:]:
        path = line.split("\t")[1]
        if (dst_root / (path.lstrip("/") + ".html")).is_file():
            rows.append(line)
            kept.add(path)
    (dst_root / "manifest.tsv").write_text("".join(rows), encoding="utf-8")
    return kept


def _mid(value: str | None) -> str:
    return re.sub(r"\s+", "", value or "").strip("<>")


def build_mail(out: Path, kept: set[str]) -> None:
    manifest = (SHARED / "openwall-mirror" / "manifest.tsv").read_text(encoding="utf-8").splitlines()[1:]
    wanted = [
        row.split("\t")[0]
        for row in manifest
        if row.split("\t")[1] in kept and any(f"/{LK}/{m}/" in row for m in MBOX_MONTHS)
    ]
    wanted += MBOX_EXTRA
    want = set(wanted)
    entries: dict[str, bytes] = {}
    for path in (SHARED / "corpus" / "lkml-real.mbox", SHARED / "openwall-seeds.mbox"):
        box = mailbox.mbox(str(path), create=False)
        for key in box.iterkeys():
            data = box.get_bytes(key, from_=True)
            head = data.split(b"\n\n", 1)[0]
            m = re.search(rb"^Message-I[dD]:[ \t]*(.*(?:\n[ \t].*)*)", head, re.M | re.I)
            mid = _mid(m.group(1).decode("utf-8", "replace")) if m else ""
            if mid in want and mid not in entries:
                entries[mid] = data
        box.close()
    missing = want - set(entries)
    if missing:
        raise SystemExit(f"not found in the shared mbox files: {sorted(missing)}")
    dst = out / "mail"
    dst.mkdir(parents=True, exist_ok=True)
    # mailbox leaves out the empty line that separates an entry from the next "From " line
    blob = b"".join(entries[mid] + b"\n" for mid in wanted)
    (dst / "lkml-sample.mbox").write_bytes(blob)
    labels = (SHARED / "corpus" / "labels.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    rows = [labels[0]] + [ln for ln in labels[1:] if _mid(ln.split("\t")[0]) in want]
    (dst / "labels.tsv").write_text("".join(rows), encoding="utf-8")


def main() -> None:
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} not found; set REVIEWBOT_SHARED")
    for name in ("cases", "openwall-mirror", "mail"):
        shutil.rmtree(HERE / name, ignore_errors=True)
    build_cases(HERE)
    kept = build_mirror(HERE)
    build_mail(HERE, kept)
    size = sum(p.stat().st_size for p in HERE.rglob("*") if p.is_file())
    print(f"{len(kept)} message pages, {size / 1e6:.1f} MB in {HERE}")


if __name__ == "__main__":
    main()
