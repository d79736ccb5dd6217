"""One struct's cache-line map, including reading the running kernel's BTF (issue 25; target <= 0.5 s).

Prints, for a few structs of the running kernel (list_head, block_device, sk_buff, task_struct), the best of
N runs of: reading /sys/kernel/btf/vmlinux, indexing its types, finding the struct and laying it out as text
(a fresh reader each run: nothing cached between runs). Baselines measured in the same run: reading the
file's bytes alone, and one Python pass over its type records that only unpacks each 12-byte header
(struct.iter_unpack over the section: the least any reader in Python does). And the whole command in its
own process (`reviewbot layout task_struct`) against `python -c pass`.

Usage: python benchmarks/layout_map.py [--btf PATH] [--runs N]
"""

from __future__ import annotations

import argparse
import struct
import subprocess
import sys
import time
from pathlib import Path

from reviewbot.layout import RUNNING_KERNEL_BTF
from reviewbot.layout.plan import layout_of
from reviewbot.layout.render import to_text
from reviewbot.layout.source import load

STRUCTS = ("list_head", "block_device", "sk_buff", "task_struct")


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--btf", default=RUNNING_KERNEL_BTF)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    path = Path(args.btf)
    if not path.exists():
        print(f"{path}: not found (this machine's kernel publishes no BTF); name one with --btf")
        return 2

    read = best(path.read_bytes, args.runs)

    def header_pass() -> int:
        data = path.read_bytes()
        hdr_len, type_off, type_len = struct.unpack_from("<4xIII", data)
        types = data[hdr_len + type_off : hdr_len + type_off + type_len]
        # not a real walk (records have kind-specific tails): the cost of unpacking as many headers
        return sum(1 for _ in struct.iter_unpack("<III", types[: len(types) // 12 * 12]))

    floor = best(header_pass, args.runs)
    print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")
    print(f"baseline read bytes:                 {read * 1000:7.1f} ms")
    print(f"baseline unpack every 12-byte word:  {floor * 1000:7.1f} ms")
    for name in STRUCTS:
        lines = []

        def one_map(name: str = name, lines: list[str] = lines) -> None:
            lines.append(to_text(layout_of(load(path), name)))

        t = best(one_map, args.runs)
        members = lines[-1].count(";") - 1
        verdict = "ok" if t <= 0.5 else "OVER 0.5 s"
        print(
            f"map of struct {name:<13} {t * 1000:7.1f} ms  ({t / floor:4.1f}x the unpack baseline, "
            f"{members} lines of members)  target <= 500 ms: {verdict}"
        )

    exe = Path(sys.executable).with_name("reviewbot")
    python_start = best(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.runs)
    whole = best(
        lambda: subprocess.run([exe, "layout", "--btf", str(path), "task_struct"], check=True, capture_output=True),
        args.runs,
    )
    print(f"baseline python -c pass:             {python_start * 1000:7.1f} ms")
    print(
        f"reviewbot layout task_struct:        {whole * 1000:7.1f} ms  ({whole / python_start:4.1f}x python start-up)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
