"""Work per patch against the patch's size, for every rule (issue 24: quadratic work on one input).

Each shape of patch is built at n and 2n units and checked by each rule on its own (the rule's caches
cleared); the script prints both times and their ratio. Linear work doubles (ratio about 2); quadratic
work quadruples. Before issue 24: one added line of many ``/* */`` comments after a barrier took RB102
21 s at 1 MB and 82 s at 2 MB (the line was searched for ``//`` again after every comment), and a patch
whose files each add a barrier 8 s at 10,000 files and 43 s at 20,000 (each barrier went over every
file of the patch).

Usage: python benchmarks/rules_linear.py [--scale K]   (K multiplies every size; default 1)
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable

from reviewbot.engine import check_patch
from reviewbot.models import Patch
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.rule import RuleContext

HEAD = (
    "From: Ada Example <ada@example.org>\nMessage-ID: <big@example.org>\nSubject: [PATCH] foo: many\n"
    "Date: Wed, 12 Mar 2025 10:00:00 +0100\n\nMove the hot members into one cache line; it makes the loop 20% faster.\n\nSigned-off-by: Ada Example <ada@example.org>\n---\n"
)


def _file(i: int, added: str) -> str:
    """File d<i>.c: two context lines around the ``added`` lines (each starting with ``+``)."""
    new = 2 + added.count("\n")
    return f"diff --git a/d{i}.c b/d{i}.c\n--- a/d{i}.c\n+++ b/d{i}.c\n@@ -1,2 +1,{new} @@\n int a;\n{added} int c;\n"


def comment_line(n: int) -> str:
    """One added line: a barrier, then n bytes of ``/* c */`` comments."""
    unit = "/* c */ "
    return HEAD + _file(0, "+\tsmp_mb(); " + (unit * (n // len(unit) + 1))[:n] + "\n")


def quoted_comment_line(n: int) -> str:
    """The same with a string literal first (the token loop, not the plain comment search)."""
    unit = "/* c */ "
    return HEAD + _file(0, '+\tsmp_mb(); s = "x"; ' + (unit * (n // len(unit) + 1))[:n] + "\n")


def barrier_files(n: int) -> str:
    """n files, each adding ``smp_mb()``."""
    return HEAD + "".join(_file(i, "+\tsmp_mb();\n") for i in range(n))


def wmb_store_files(n: int) -> str:
    """n files, each adding ``smp_wmb()`` and a store to a field named only there."""
    return HEAD + "".join(_file(i, f"+\tsmp_wmb();\n+\tf->flag{i} = 1;\n") for i in range(n))


def release_files(n: int) -> str:
    """n files, each adding ``smp_store_release()`` to its own field, with a comment naming a pair."""
    return HEAD + "".join(
        _file(i, f"+\t/* pairs with the acquire in r{i}() */\n+\tsmp_store_release(&f->s{i}, 1);\n") for i in range(n)
    )


def struct_files(n: int) -> str:
    """n files, each moving a struct member (reordered for the cache line, no layout comment)."""
    out = [HEAD]
    for i in range(n):
        out.append(
            f"diff --git a/s{i}.h b/s{i}.h\n--- a/s{i}.h\n+++ b/s{i}.h\n@@ -1,5 +1,5 @@\n struct s{i} {{\n"
            f"-\tint a{i};\n \tlong b{i};\n+\tint a{i};\n \tchar c{i};\n }};\n"
        )
    return "".join(out)


def hunks_one_file(n: int) -> str:
    """One file of n hunks, each adding a barrier."""
    out = [HEAD, "diff --git a/big.c b/big.c\n--- a/big.c\n+++ b/big.c\n"]
    for i in range(n):
        out.append(f"@@ -{10 * i + 1},2 +{11 * i + 1},3 @@ void f{i}(void)\n \tx{i} = 1;\n+\tsmp_mb();\n \ty{i} = 1;\n")
    return "".join(out)


#: (name, builder, n): each built at n and 2n
SHAPES: list[tuple[str, Callable[[int], str], int]] = [
    ("comments on one line (bytes)", comment_line, 256_000),
    ("comments after a literal (bytes)", quoted_comment_line, 256_000),
    ("files adding smp_mb()", barrier_files, 2_000),
    ("files adding smp_wmb() + a store", wmb_store_files, 2_000),
    ("files adding a release", release_files, 2_000),
    ("files moving a member", struct_files, 2_000),
    ("hunks of one file", hunks_one_file, 2_000),
]


def build(builder: Callable[[int], str], n: int) -> Patch:
    return parse_patch(parse_rfc822(builder(n).encode(), "bench"))


def clear_caches(rule) -> None:
    module = sys.modules.get(rule.module_name)
    for value in vars(module).values() if module is not None else ():
        if callable(getattr(value, "cache_clear", None)):
            value.cache_clear()


def timed(patch: Patch, rule, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        clear_caches(rule)
        t = time.perf_counter()
        check_patch(patch, [rule], RuleContext())
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args()
    rules = load_rules(entry_points=False)
    print(f"{'shape':36} {'n':>8} {'rule':6} {'t(n)':>8} {'t(2n)':>8} {'ratio':>6}")
    for name, builder, n in SHAPES:
        n = max(1, int(n * args.scale))
        small, big = build(builder, n), build(builder, 2 * n)
        for rule in rules:
            t1, t2 = timed(small, rule), timed(big, rule)
            ratio = t2 / t1 if t1 > 0 else float("nan")
            print(f"{name:36} {n:>8} {rule.meta.id:6} {t1:8.3f} {t2:8.3f} {ratio:6.2f}", flush=True)


if __name__ == "__main__":
    main()
