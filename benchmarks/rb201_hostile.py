"""RB201 on hostile changelogs: time grows linearly with the text (a benchmark, not a test).

For each kind of repetitive text (one 100 KB line of a claim word, of numbers,
of quotes, of dmesg time stamps...) it times finding the claim and grading the
evidence at 100 KB and at 200 KB and prints the ratio: about 2 means linear,
about 4 quadratic. Numbers are printed, never asserted.

Usage: python benchmarks/rb201_hostile.py
"""

from __future__ import annotations

import time

from reviewbot.registry import load_rules

RULES = {rule.id: rule for rule in load_rules(entry_points=False)}

# one unit of each hostile text, repeated to the wanted size
UNITS = {
    "claim word": "optimize ",
    "claim word, future cue at the end": "optimize ",
    "cache line": "cache line ",
    "hyphens": "a-",
    "numbers": "1.2 ",
    "ratios": "1x ",
    "quotes": '"a ',
    "one long word": "x",
    "verb without object": "reduce the ",
    "purpose words": "for the sake of ",
    "percent of": "1% of ",
    "dmesg lines": "[ 1.2] a\n",
    "table rows": "before 1 2 3\n",
}


def text_of(name: str, size: int) -> str:
    unit = UNITS[name]
    text = unit * (size // len(unit))
    return text + " later" if "future" in name else text


def seconds(mod, text: str) -> float:
    mod.ev._grade.cache_clear()
    start = time.perf_counter()
    mod.find_claim(text)
    mod.ev._grade(text)
    return time.perf_counter() - start


def main() -> None:
    import sys

    mod = sys.modules[RULES["RB201"].module_name]
    print(f"{'text':36} {'100 KB':>9} {'200 KB':>9}  ratio")
    worst = 0.0
    for name in UNITS:
        small = min(seconds(mod, text_of(name, 100_000)) for _ in range(3))
        large = min(seconds(mod, text_of(name, 200_000)) for _ in range(3))
        ratio = large / small if small > 0 else float("nan")
        worst = max(worst, large)
        print(f"{name:36} {small * 1000:7.0f} ms {large * 1000:7.0f} ms  {ratio:4.1f}")
    print(f"slowest 200 KB text: {worst * 1000:.0f} ms (a ratio near 2 everywhere means linear time)")


if __name__ == "__main__":
    main()
