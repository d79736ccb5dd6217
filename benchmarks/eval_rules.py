#!/usr/bin/env python3
"""Rules against the hand-checked labels of the real corpus: per-rule TP/FP/FN, precision, recall, speed.

Same logic as ``reviewbot eval`` (reviewbot/commands/evaluate.py); prints the
same report. Usage: ``python benchmarks/eval_rules.py [--mbox PATH] [--labels PATH] [--strict]``.
Exit status 1 when a rule is below 0.9 precision or recall, or any rule crashed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reviewbot.commands.evaluate import DEFAULT_SHARED, format_result, run_eval
from reviewbot.registry import load_rules


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mbox", type=Path, default=DEFAULT_SHARED / "lkml-real.mbox")
    ap.add_argument("--labels", type=Path, default=DEFAULT_SHARED / "labels.tsv")
    ap.add_argument("--strict", action="store_true")
    args = ap.parse_args(argv)
    rules = load_rules()
    result = run_eval(args.mbox, args.labels if args.labels.is_file() else None, rules, strict=args.strict)
    for line in format_result(result):
        print(line)
    bad = [r for r, s in result.scores.items() if s.precision < 0.9 or s.recall < 0.9]
    return 1 if bad or result.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
