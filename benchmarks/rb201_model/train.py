#!/usr/bin/env python3
"""RB201's small model: a logistic regression on words a kernel developer can read, trained on the labels only.

Issue 23 allows "a small statistical model ... trained only on the development labels, its training script and
data in the project, shipped as plain data". This script is that experiment, stdlib only (no numpy).

Data: every labelled set of the project in the evalset layout (``../shared/evalset``, ``../shared/evalset-fresh``,
``tests/data/evalset-*``), the RB201 column (``1``/``0``; ``?`` left out), each patch checked with its cover letter
and the author's replies exactly as ``reviewbot eval --set`` checks it (``run_set``). A Message-ID seen twice is
kept once (its first set).

Features (all 0/1, each named so a reader can tell what it is):

* ``subj:w`` / ``subj:w1 w2``: words and word pairs of the subject title, its ``subsys:`` prefix left out;
* ``log:w`` / ``log:w1 w2``: words and word pairs of the changelog's prose (quotes, trailers, code and output
  blanked by the rule's own ``_prose``); a word or pair is kept only when it is in at least ``MIN_DOCS`` training
  patches from at least ``MIN_LISTS`` lists (chosen per training fold, so nothing of a held-out list leaks);
* ``units:changelog|notes|cover|reply=0|1|2+``: numbers with a time, rate or percent unit (the rule's
  ``_NUMBER_UNIT_RE`` / ``_unit``); ``grade:changelog|cover|reply=measured|claim-only|none`` (the rule's
  ``_grade``); ``has:cover``, ``has:author_reply``;
* ``rule:*``: the hand rule's decision and step outcomes: ``rule:fires`` (WARNING), ``rule:check`` (CHECK only),
  ``rule:silent``, ``rule:where=subject|changelog|notes``, ``rule:state=...``, ``rule:not_asked``,
  ``rule:evidence=...``, ``claim:w`` (the claim's words), ``step:subject_claim``, ``step:changelog_claim``,
  ``step:may_claim``, ``step:not_kernel_speed``.

Model: L2-regularised logistic regression fitted by AdaGrad SGD (fixed seed, fixed epochs).

Usage::

    python benchmarks/rb201_model/train.py cv                 # leave-one-list-out (a) rule (b) model (c) veto
    python benchmarks/rb201_model/train.py fit                # all development data -> weights.json
    python benchmarks/rb201_model/train.py score DIR [DIR..]  # frozen weights.json on labelled sets, merged

``--shared DIR`` names the shared folder (default ``$REVIEWBOT_SHARED`` or ``../shared``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from reviewbot.checking import check_messages
from reviewbot.commands.evaluate import read_set, row_messages
from reviewbot.models import Severity
from reviewbot.registry import load_rules
from reviewbot.rules import _rb201_evidence as ev
from reviewbot.rules import rb201_perf_claim as rb

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WEIGHTS = HERE / "weights.json"

#: a word feature is kept when this many training patches ...
MIN_DOCS = 3
#: ... from this many lists hold it (a word of one list only says which list, not whether it claims)
MIN_LISTS = 2
#: L2 strength (per example), epochs and learning rate of the SGD fit; fixed before any figure was seen
L2 = 1e-3
EPOCHS = 30
RATE = 0.3
SEED = 23
#: the model says "claim without numbers" at or above this probability; the veto keeps the rule's finding there
THRESHOLD = 0.5

_WORD_RE = re.compile(r"[a-z][a-z0-9_'-]*[a-z0-9]|[a-z]")


@dataclass
class Example:
    set_name: str
    id: str
    message_id: str
    list: str
    label: int
    rule_fires: bool
    feats: set[str] = field(default_factory=set)
    group: str = ""


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def _grams(words: list[str], prefix: str) -> set[str]:
    out = {f"{prefix}:{w}" for w in words}
    out.update(f"{prefix}:{a} {b}" for a, b in zip(words, words[1:]))
    return out


def _units(text: str) -> int:
    n = 0
    for m in ev._NUMBER_UNIT_RE.finditer(text):
        if ev._unit(m.group(1), m.group(2)) in ("time", "rate", "percent"):
            n += 1
    return n


def _bucket(n: int) -> str:
    return "0" if n == 0 else "1" if n == 1 else "2+"


def features(patch, ctx, finding) -> set[str]:
    """The named 0/1 features of one patch (``finding``: RB201's finding on it, or None)."""
    f: set[str] = set()
    title = patch.subject.title
    f |= _grams(_words(title.rpartition(": ")[2]), "subj")
    own_body = "\n".join(ev._own_lines(patch.commit_message))
    prose = ev._prose(own_body)
    f |= _grams(_words(prose), "log")
    cover_text = ctx.cover.commit_message + "\n" + ctx.cover.notes if ctx.cover is not None else ""
    replies = [
        "\n".join(ev._own_lines(m.body))
        for m in ctx.thread
        if m.message_id != patch.message_id
        and (ctx.cover is None or m.message_id != ctx.cover.message_id)
        and ev._same_person(m, patch)
    ]
    texts = {"changelog": own_body, "notes": patch.notes, "cover": cover_text, "reply": "\n".join(replies)}
    for where, text in texts.items():
        f.add(f"units:{where}={_bucket(_units(text))}")
        if where != "notes":
            f.add(f"grade:{where}={ev._grade(text) if text.strip() else 'none'}")
    if ctx.cover is not None:
        f.add("has:cover")
    if replies:
        f.add("has:author_reply")
    # the hand rule's steps, each on its own
    if rb.find_subject_claim(title) is not None:
        f.add("step:subject_claim")
    if rb.find_claim(own_body, title=title) is not None:
        f.add("step:changelog_claim")
    if rb._may_claim(patch.commit_message):
        f.add("step:may_claim")
    if rb._not_the_kernels_speed(patch):
        f.add("step:not_kernel_speed")
    # the hand rule's decision
    if finding is None:
        f.add("rule:silent")
    else:
        f.add("rule:check" if finding.severity is Severity.CHECK else "rule:fires")
        msg = finding.message
        f.add(
            "rule:where="
            + ("subject" if msg.startswith("the subject") else "notes" if "the notes" in msg[:20] else "changelog")
        )
        f.add(f"rule:state={getattr(finding.state, 'value', finding.state)}")
        d = finding.details or {}
        f.add(f"rule:evidence={d.get('evidence')}")
        if d.get(rb.NOT_ASKED_KEY):
            f.add("rule:not_asked")
        f |= {f"claim:{w}" for w in _words(str(d.get("claim") or ""))}
    return f


def _rb201():
    (rule,) = load_rules(select=["RB201"])
    return rule


def examples_of(root: Path, rule, seen: set[str]) -> tuple[list[Example], list[str]]:
    """The labelled RB201 examples of one set (a Message-ID in ``seen`` is skipped), and the problems met."""
    out: list[Example] = []
    problems: list[str] = []
    captured: dict[str, tuple] = {}

    def check(patch, ctx):
        found = list(rule.check(patch, ctx))
        captured[patch.message_id.strip("<>")] = (patch, ctx)
        return found

    wrapped = rule._replace(check=check)
    for row in read_set(root):
        label = row.labels.get("RB201", "?")
        if label not in ("0", "1") or row.message_id in seen:
            continue
        try:
            items = row_messages(root, row)
        except Exception as exc:  # noqa: BLE001 - a row that cannot be read is left out, named
            problems.append(f"{row.id}: {exc}")
            continue
        captured.clear()
        run = check_messages(items, [wrapped], strict=True)
        if row.message_id not in captured:
            # as ``eval --set``: a patch that does not parse is still counted, the rule silent on it
            problems.append(
                f"{row.id}: not parsed, scored from its subject ({'; '.join(map(str, run.problems))[:160]})"
            )
            seen.add(row.message_id)
            title = re.sub(r"^\s*\[[^]]*\]\s*", "", row.subject)
            feats = _grams(_words(title.rpartition(": ")[2]), "subj") | {"rule:silent", "unparsed"}
            out.append(Example(root.name, row.id, row.message_id, row.list, int(label), False, feats))
            continue
        mine = [x for x in run.findings if x.message_id.strip("<>") == row.message_id]
        warn = next((x for x in mine if x.severity is not Severity.CHECK), None)
        finding = warn or (mine[0] if mine else None)
        patch, ctx = captured[row.message_id]
        seen.add(row.message_id)
        ex = Example(root.name, row.id, row.message_id, row.list, int(label), warn is not None)
        ex.feats = features(patch, ctx, finding)
        cover_id = ctx.cover.message_id.strip("<>") if ctx.cover is not None else ""
        ex.group = cover_id  # joined with the list below: a series is never in two folds
        out.append(ex)
    return out, problems


def dev_sets(shared: Path) -> list[Path]:
    found = [shared / "evalset", shared / "evalset-fresh"]
    found += sorted(p.parent for p in (ROOT / "tests" / "data").glob("evalset-*/labels.tsv"))
    return [p for p in found if (p / "labels.tsv").is_file()]


def load(paths: list[Path]) -> list[Example]:
    rule = _rb201()
    seen: set[str] = set()
    data: list[Example] = []
    for p in paths:
        exs, problems = examples_of(p, rule, seen)
        for pr in problems:
            print(f"  problem: {p.name}: {pr}", file=sys.stderr)
        data += exs
    return data


def cv_groups(data: list[Example]) -> None:
    """Each example's fold: its list, lists joined when they share a cover letter (union-find)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for ex in data:
        find("list:" + ex.list)
        if ex.group:
            parent[find("cover:" + ex.group)] = find("list:" + ex.list)
    for ex in data:
        ex.group = find("list:" + ex.list).removeprefix("list:")


# ---------------------------------------------------------------- the model


def vocabulary(train: list[Example]) -> set[str]:
    """The features a fit may use: words kept by MIN_DOCS / MIN_LISTS, every non-word feature."""
    docs: Counter[str] = Counter()
    lists: dict[str, set[str]] = defaultdict(set)
    for ex in train:
        for name in ex.feats:
            docs[name] += 1
            lists[name].add(ex.list)
    keep = set()
    for name, n in docs.items():
        wordy = name.startswith(("subj:", "log:", "claim:"))
        if not wordy or (n >= MIN_DOCS and len(lists[name]) >= MIN_LISTS):
            keep.add(name)
    return keep


def fit(train: list[Example], l2: float = L2) -> tuple[dict[str, float], float]:
    vocab = vocabulary(train)
    w: dict[str, float] = dict.fromkeys(vocab, 0.0)
    g2: dict[str, float] = dict.fromkeys(vocab, 1e-8)
    bias, gb2 = 0.0, 1e-8
    rows = [([n for n in ex.feats if n in vocab], ex.label) for ex in train]
    rng = random.Random(SEED)
    for _ in range(EPOCHS):
        rng.shuffle(rows)
        for names, y in rows:
            z = bias + sum(w[n] for n in names)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            err = p - y
            gb2 += err * err
            bias -= RATE * err / math.sqrt(gb2)
            for n in names:
                g = err + l2 * w[n]
                g2[n] += g * g
                w[n] -= RATE * g / math.sqrt(g2[n])
    return {n: v for n, v in w.items() if abs(v) > 1e-4}, bias


def prob(weights: dict[str, float], bias: float, feats: set[str]) -> float:
    z = bias + sum(weights.get(n, 0.0) for n in feats)
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


# ---------------------------------------------------------------- scoring


def prf(pairs: list[tuple[bool, int]]) -> str:
    tp = sum(1 for f, y in pairs if f and y)
    fp = sum(1 for f, y in pairs if f and not y)
    fn = sum(1 for f, y in pairs if not f and y)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return f"{tp:3d}/{fp:3d}/{fn:3d}  P {p:.2f}  R {r:.2f}"


def report(data: list[Example], probs: list[float], threshold: float, title: str) -> None:
    print(f"== {title}: {len(data)} patches, {sum(e.label for e in data)} positives, threshold {threshold}")
    print(f"(a) rule alone          {prf([(e.rule_fires, e.label) for e in data])}")
    print(f"(b) model alone         {prf([(p >= threshold, e.label) for e, p in zip(data, probs)])}")
    print(f"(c) rule, model's veto  {prf([(e.rule_fires and p >= threshold, e.label) for e, p in zip(data, probs)])}")


def sweep(data: list[Example], probs: list[float]) -> None:
    print("threshold sweep (b) model / (c) veto:")
    for t in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        b = prf([(p >= t, e.label) for e, p in zip(data, probs)])
        c = prf([(e.rule_fires and p >= t, e.label) for e, p in zip(data, probs)])
        print(f"  {t:.1f}  (b) {b}   (c) {c}")


def top(weights: dict[str, float], k: int = 25) -> None:
    ranked = sorted(weights.items(), key=lambda kv: kv[1])
    print(f"top {k} features for a claim without numbers:")
    for n, v in reversed(ranked[-k:]):
        print(f"  {v:+.2f}  {n}")
    print(f"top {k} features against:")
    for n, v in ranked[:k]:
        print(f"  {v:+.2f}  {n}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("cv", "fit", "score", "split"))
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--shared", type=Path, default=Path(os.environ.get("REVIEWBOT_SHARED") or ROOT.parent / "shared"))
    ap.add_argument("--l2", type=float, default=L2)
    ap.add_argument("--without-rule", action="store_true", help="leave the rule:/step:/claim: features out")
    ap.add_argument("--list-errors", action="store_true")
    args = ap.parse_args(argv)

    def strip(data: list[Example]) -> None:
        if args.without_rule:
            for ex in data:
                ex.feats = {n for n in ex.feats if not n.startswith(("rule:", "step:", "claim:"))}

    if args.what == "score":
        model = json.loads(WEIGHTS.read_text())
        data = load(args.dirs)
        probs = [prob(model["weights"], model["bias"], ex.feats) for ex in data]
        report(data, probs, model["threshold"], "frozen model on " + " + ".join(str(d) for d in args.dirs))
        if args.list_errors:
            for ex, p in zip(data, probs):
                if ex.rule_fires or p >= model["threshold"] or ex.label:
                    print(f"  {ex.id:8} {ex.list:18} y={ex.label} rule={int(ex.rule_fires)} p={p:.2f}")
        return 0
    if args.what == "split":  # train on all dirs but the last, score the last: a batch after the sets before it
        train, test = load(args.dirs[:-1]), load(args.dirs[-1:])
        strip(train)
        strip(test)
        weights, bias = fit(train, args.l2)
        probs = [prob(weights, bias, ex.feats) for ex in test]
        report(
            test,
            probs,
            THRESHOLD,
            f"trained on {len(train)} patches of {len(args.dirs) - 1} sets, scored on {args.dirs[-1]}",
        )
        sweep(test, probs)
        if args.list_errors:
            for ex, p in zip(test, probs):
                if ex.rule_fires or p >= THRESHOLD or ex.label:
                    print(f"  {ex.id:8} {ex.list:18} y={ex.label} rule={int(ex.rule_fires)} p={p:.2f}")
        return 0
    sets = dev_sets(args.shared)
    data = load(sets)
    strip(data)
    cv_groups(data)
    groups = sorted({e.group for e in data})
    print(f"{len(data)} labelled patches from {len(sets)} sets, {len(groups)} CV groups (lists)")
    if args.what == "fit":
        weights, bias = fit(data, args.l2)
        model = {
            "about": "RB201 model: logistic regression, benchmarks/rb201_model/train.py; p = 1/(1+exp(-(bias + sum "
            "of the weights of the features present)))",
            "trained_on": [
                str(p.relative_to(args.shared.parent) if p.is_relative_to(args.shared.parent) else p) for p in sets
            ],
            "examples": len(data),
            "positives": sum(e.label for e in data),
            "threshold": THRESHOLD,
            "l2": args.l2,
            "min_docs": MIN_DOCS,
            "min_lists": MIN_LISTS,
            "bias": round(bias, 4),
            "weights": {n: round(v, 4) for n, v in sorted(weights.items())},
        }
        WEIGHTS.write_text(json.dumps(model, indent=0, sort_keys=False) + "\n")
        print(f"wrote {WEIGHTS}: {len(weights)} weights")
        report(data, [prob(weights, bias, e.feats) for e in data], THRESHOLD, "training data (not a quality figure)")
        top(weights)
        return 0
    probs = [0.0] * len(data)
    for g in groups:
        train = [e for e in data if e.group != g]
        weights, bias = fit(train, args.l2)
        for i, e in enumerate(data):
            if e.group == g:
                probs[i] = prob(weights, bias, e.feats)
    report(data, probs, THRESHOLD, "leave-one-list-out")
    sweep(data, probs)
    by_set: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(data):
        by_set[e.set_name].append(i)
    for name, idx in by_set.items():
        report([data[i] for i in idx], [probs[i] for i in idx], THRESHOLD, f"  {name}")
    if args.list_errors:
        for e, p in zip(data, probs):
            if (e.rule_fires or p >= THRESHOLD) != bool(e.label) or (e.rule_fires and p < THRESHOLD and e.label):
                print(f"  {e.set_name:16} {e.id:8} {e.list:18} y={e.label} rule={int(e.rule_fires)} p={p:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
