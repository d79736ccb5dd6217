#!/usr/bin/env python3
"""Every labelled set the project has, per rule and per list: the figure a rule change must not lower anywhere.

Runs ``reviewbot eval``'s scoring on the corpus labels (``../shared/corpus``)
and on every set in the evalset layout: ``../shared/evalset``,
``../shared/evalset-fresh`` and each ``tests/data/evalset-*`` folder holding a
``labels.tsv`` (the first-look batches join there once measured). Prints one
table per set, then one line per list and rule over all sets, and marks the
lists where RB201 has at least 3 positives and precision under 0.85 (the bar
of issue 23). ``--shared DIR`` names the shared folder (default ``../shared``
or ``$REVIEWBOT_SHARED``). Exit status 1 when a marked list exists.

Usage: ``python benchmarks/eval_sets.py [--shared DIR] [--rule RB201]``
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from reviewbot.commands.evaluate import RuleScore, format_set, run_eval, run_set
from reviewbot.registry import load_rules

ROOT = Path(__file__).resolve().parent.parent
#: A list is held to the bar when RB201 has at least this many positives there ...
MIN_POSITIVES = 3
#: ... and its RB201 precision must then be at least this.
MIN_PRECISION = 0.85


def labelled_sets(shared: Path) -> list[Path]:
    """The sets in the evalset layout that exist here, shared ones first."""
    found = [shared / "evalset", shared / "evalset-fresh"]
    found += sorted(p.parent for p in (ROOT / "tests" / "data").glob("evalset-*/labels.tsv"))
    return [p for p in found if (p / "labels.tsv").is_file()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_shared = Path(os.environ.get("REVIEWBOT_SHARED") or ROOT.parent / "shared")
    ap.add_argument("--shared", type=Path, default=default_shared)
    ap.add_argument("--rule", default="RB201", help="the rule whose per-list precision is held to the bar")
    args = ap.parse_args(argv)
    rules = load_rules()
    totals: dict[str, dict[str, RuleScore]] = {}
    corpus = args.shared / "corpus"
    if (corpus / "labels.tsv").is_file():
        result = run_eval(corpus / "lkml-real.mbox", corpus / "labels.tsv", rules)
        print(f"== corpus labels ({result.labelled_found} labelled messages, linux-kernel)")
        for rule_id, s in result.scores.items():
            print(f"{rule_id:6} {s.tp:3d} {s.fp:3d} {s.fn:3d}  precision {s.precision:.2f}  recall {s.recall:.2f}")
        totals["linux-kernel (corpus)"] = dict(result.scores)
    for path in labelled_sets(args.shared):
        result = run_set(path, rules)
        print(f"== {path}")
        for line in format_set(result):
            if line.startswith("disagreements"):
                break
            print(line)
        for name, scores in result.by_list.items():
            merged = totals.setdefault(name, {})
            for rule_id, s in scores.items():
                m = merged.setdefault(rule_id, RuleScore())
                m.tp, m.fp, m.fn, m.tn = m.tp + s.tp, m.fp + s.fp, m.fn + s.fn, m.tn + s.tn
    print("== per list, all sets")
    print(f"{'list':28} {'rule':6} {'TP':>3} {'FP':>3} {'FN':>3} {'prec':>5} {'recall':>6}")
    marked = []
    for name in sorted(totals):
        for rule_id, s in sorted(totals[name].items()):
            if not (s.tp or s.fp or s.fn):
                continue
            prec = f"{s.precision:5.2f}" if s.tp + s.fp else f"{'-':>5}"
            rec = f"{s.recall:6.2f}" if s.tp + s.fn else f"{'-':>6}"
            low = rule_id == args.rule and s.tp + s.fn >= MIN_POSITIVES and s.precision < MIN_PRECISION
            if low:
                marked.append(name)
            print(
                f"{name:28} {rule_id:6} {s.tp:3d} {s.fp:3d} {s.fn:3d} {prec} {rec}{'  <- below the bar' if low else ''}"
            )
    print(
        f"{args.rule}: {len(marked)} list(s) with >= {MIN_POSITIVES} positives under precision {MIN_PRECISION}"
        + (f": {', '.join(marked)}" if marked else "")
    )
    return 1 if marked else 0


if __name__ == "__main__":
    sys.exit(main())
