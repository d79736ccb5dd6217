"""Parse-stage throughput and linear-time figures (issue 5 item 4; a benchmark, not a test).

Prints:
* the time to parse + split a ~10 MB mail (a patch with one huge hunk) and a
  100,000-line patch, plus hostile inputs (megabyte lines, endless bracket
  groups and ``Re:`` chains, a million ``>`` quote marks, format=flowed soft
  breaks on every line, a QP body) that would show quadratic behaviour;
* parse throughput over the real corpus (../shared/corpus/lkml-real.mbox):
  mbox split, mail decoding, git-am split + diff, messages per second.

Usage: python benchmarks/parse_linear.py [--corpus PATH]
"""

from __future__ import annotations

import argparse
import base64
import quopri
import sys
import time
from pathlib import Path

from reviewbot.fetch.mailfiles import read_path, split_mbox_bytes
from reviewbot.parse.mail import parse_message, parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.subject import parse_subject

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "lkml-real.mbox"

HEAD = (
    "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
    "From: Ada Example <ada@example.org>\nDate: Mon, 3 Mar 2025 10:00:00 +0100\n"
    "Subject: [PATCH] big: a very large change\nMessage-ID: <big@example.org>\n{extra}\n"
    "Explain.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
)


def big_patch(n_lines: int, line_len: int = 60, extra: str = "") -> bytes:
    """A format-patch with one file and hunks of 50 lines (25 removed, 25 added)."""
    out = [HEAD.format(extra=extra), "diff --git a/big.c b/big.c\nindex 1..2 100644\n--- a/big.c\n+++ b/big.c\n"]
    pad = "x" * max(0, line_len - 20)
    old = new = 1
    done = 0
    while done < n_lines:
        out.append(f"@@ -{old},25 +{new},25 @@ int f(void)\n")
        for i in range(25):
            out.append(f"-\told_{done + i} = {pad};\n")
        for i in range(25):
            out.append(f"+\tnew_{done + i} = {pad};\n")
        old += 25
        new += 25
        done += 50
    return "".join(out).encode()


def timed(label: str, fn, *args) -> object:
    t0 = time.perf_counter()
    result = fn(*args)
    dt = time.perf_counter() - t0
    print(f"{label:<58} {dt:8.3f} s")
    return result


def parse_all(data: bytes, source: str):
    return parse_patch(parse_rfc822(data, source))


def linear_figures() -> None:
    print("== linear-time figures")
    ten_mb = big_patch(160_000, line_len=62)
    nl = ten_mb.count(b"\n")
    p = timed(f"10 MB patch mail ({len(ten_mb) / 1e6:.1f} MB, {nl} lines) parse+split", parse_all, ten_mb, "10mb")
    assert sum(f.added_count for f in p.files) == 80_000
    lines100k = big_patch(100_000)
    p = timed(f"100,000-line patch ({len(lines100k) / 1e6:.1f} MB) parse+split", parse_all, lines100k, "100k")
    assert sum(f.added_count + f.removed_count for f in p.files) == 100_000
    long_line = (
        HEAD.format(extra="") + "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+" + "x" * 10_000_000 + "\n"
    ).encode()
    timed("one 10 MB diff line", parse_all, long_line, "longline")
    prose = (HEAD.format(extra="").replace("---\n", "") + ("word " * 2_000_000) + "\n").encode()
    timed("10 MB single prose line, no diff", parse_all, prose, "prose")
    dashes = (HEAD.format(extra="") + "--- a\n" * 500_000 + "+++ b\n").encode()
    timed("500,000 '--- ' lines (diff-start detection)", parse_all, dashes, "dashes")
    plain = big_patch(100_000)
    head, body = plain.split(b"\n\n", 1)
    qp = head + b"\nContent-Transfer-Encoding: quoted-printable\n\n" + quopri.encodestring(body)
    p = timed(f"quoted-printable 100,000-line patch ({len(qp) / 1e6:.1f} MB) parse+split", parse_all, qp, "qp")
    assert sum(f.added_count + f.removed_count for f in p.files) == 100_000
    flowed_body = "\n".join("flowed words that go on " for _ in range(200_000)).encode()
    flowed = head + b"\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\n\n" + flowed_body
    timed(f"format=flowed, 200,000 soft breaks ({len(flowed) / 1e6:.1f} MB)", parse_rfc822, flowed, "flowed")
    b64 = head + b"\nContent-Transfer-Encoding: base64\n\n" + base64.encodebytes(body)
    p = timed(f"base64 100,000-line patch ({len(b64) / 1e6:.1f} MB) parse+split", parse_all, b64, "b64")
    assert sum(f.added_count + f.removed_count for f in p.files) == 100_000
    timed("subject: 1,000,000 '[' characters", parse_subject, "[" * 1_000_000)
    timed("subject: 200,000 'Re: ' prefixes", parse_subject, "Re: " * 200_000 + "x")
    quotes = head + b"\nContent-Type: text/plain; format=flowed\n\n" + (">" * 1_000_000 + " \n" * 3).encode()
    timed("1,000,000 quote marks on one flowed line", parse_rfc822, quotes, "quotes")
    mbox = b"".join(
        b"From a@b Fri Mar 14 10:00:00 2025\nFrom: a@b.cd\nSubject: s\n\n>From x\n\n" for _ in range(100_000)
    )
    raws = timed(f"mbox split, 100,000 small messages ({len(mbox) / 1e6:.1f} MB)", split_mbox_bytes, mbox, "m")
    assert len(raws) == 100_000


def corpus_figures(path: Path) -> None:
    print(f"== corpus throughput ({path})")
    if not path.exists():
        print("corpus not found, skipped")
        return
    c0 = time.process_time()
    t0 = time.perf_counter()
    raws = list(read_path(path))
    t1 = time.perf_counter()
    messages = [parse_message(r) for r in raws]
    t2 = time.perf_counter()
    patches = [parse_patch(m) for m in messages]
    t3 = time.perf_counter()
    c3 = time.process_time()
    with_diff = [p for p in patches if p.has_diff]
    t4 = time.perf_counter()
    for p in with_diff:
        parse_patch(parse_message(RAW_BY_ID[p.message_id]))
    t5 = time.perf_counter()
    size = path.stat().st_size
    n = len(raws)
    print(
        f"messages: {n}, with a diff: {len(with_diff)}, diff lines: "
        f"{sum(len(h.lines) for p in with_diff for f in p.files for h in f.hunks)}"
    )
    print(f"mbox split            {t1 - t0:7.3f} s   ({size / 1e6 / (t1 - t0):.0f} MB/s)")
    print(f"mail decoding         {t2 - t1:7.3f} s   ({n / (t2 - t1):.0f} msg/s)")
    print(f"git-am split + diff   {t3 - t2:7.3f} s   ({n / (t3 - t2):.0f} msg/s)")
    print(
        f"end to end            {t3 - t0:7.3f} s   ({n / (t3 - t0):.0f} msg/s; CPU {c3 - c0:.3f} s, {n / (c3 - c0):.0f} msg/s)"
    )
    print(
        f"patches with a diff, mail+patch parse: {len(with_diff) / (t5 - t4):.0f} patches/s "
        f"({(t5 - t4) / len(with_diff) * 1000:.2f} ms each)"
    )


RAW_BY_ID: dict = {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--skip-linear", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    import reviewbot.parse.patch  # noqa: F401  (import cost of the parse stage)

    print(f"python {sys.version.split()[0]}")
    if not args.skip_linear:
        linear_figures()
    if args.corpus.exists():
        for r in read_path(args.corpus):
            RAW_BY_ID[parse_message(r).message_id] = r
    corpus_figures(args.corpus)
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
