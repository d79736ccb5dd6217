"""RB101's cache-line maps on the corpus's struct reorders, from a directory of type information (issue 25).

    python benchmarks/rb101_maps.py --btf DIR --out OUT [--mbox MBOX] [--ksrc TREE]

``DIR`` is what ``btf`` may name: a BTF blob, a vmlinux/.o with DWARF, or a directory of ``-g`` objects of
one kernel build (RB101 reads, per struct, the files that can hold it). ``MBOX`` defaults to
``$REVIEWBOT_SHARED/corpus/lkml-real.mbox`` (the mirror's mails; ``../shared`` by default). Every RB101 finding of ``check --strict`` is one
reorder; for each, ``OUT/NNN/`` gets:

* ``patch.eml``: the patch mail;
* ``draft.txt``: the reply body the drafter writes for that finding (``build_body``, whatever the thread
  says: a CHECK or a settled thread gets no draft from ``reviewbot draft``, but the text is what a map
  changes);
* ``layout.txt``: ``reviewbot layout STRUCT --btf DIR --patch patch.eml`` (before and after side by side,
  or why there is no map);
* with ``--ksrc`` (the kernel tree the objects were built from, configured and prepared): ``gcc.txt``, the
  check of the computed "after" layout against the compiler: the patch's hunks of that struct applied to
  the tree's struct (``patch -F0``: only where they apply as they are), the object rebuilt with ``make``,
  its DWARF read, every member's offset and size and the struct's size compared; the tree's file and
  object are put back afterwards.

``OUT/index.tsv``: n, Message-ID, subject, struct, severity, map (yes/no), why (no map: the struct is not in
the type information, the patch shows another version of it, members under ``#if``/``#else``, a type the
patch uses is not resolved; with a map: the type file it came from), gcc (agree / differ: ... / not
applied: ... / -), hunks_show (the whole struct, from its opening, to its closing, a window: outside what
the hunks show, the members are the type information's), tree_file (with ``--ksrc``: is the tree's file the
patch's pre-image, by the blob of its ``index`` line). Prints the counts.
Not a test: the kernel objects are not in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reviewbot.checking import load_check_rules, run_check  # noqa: E402
from reviewbot.config import Settings  # noqa: E402
from reviewbot.models import Address, RawMessage  # noqa: E402
from reviewbot.parse.mail import parse_message  # noqa: E402
from reviewbot.parse.patch import parse_patch  # noqa: E402

IDENTITY = Address("Zoë Reviewer", "zoe@example.com")
DEFAULT_MBOX = Path(os.environ.get("REVIEWBOT_SHARED") or ROOT.parent / "shared") / "corpus" / "lkml-real.mbox"


def why_no_map(reason: str, struct_known: bool) -> str:
    """The kind of reason, for the index: what a reader of the numbers needs."""
    if not struct_known:
        return "struct not in the type information"
    if "not in that order" in reason or "do not show" in reason or "does not change" in reason:
        return "another version of the struct"
    if "depends on the configuration" in reason:
        return "members under #if/#else"
    return "type unresolved"


def struct_hunks_diff(patch, struct: str, path: str) -> str:
    """The lines of the patch's hunks that are inside ``struct`` (its opening line to its closing ``}``, as
    the after-layout reads them), as a diff of ``path``: what is around the struct may differ in the tree."""
    from reviewbot.layout.plan import split_struct_name

    kind, name = split_struct_name(struct)
    opening = re.compile(rf"^[^;{{}}]*\b{kind}\s+(?:\w+(?:\s*\([^()]*\))?\s+)*{re.escape(name)}\s*\{{")
    out = [f"--- a/{path}", f"+++ b/{path}"]
    for fd in patch.files:
        for hunk in fd.hunks:
            lines = [line for line in hunk.lines if line.kind.value in " -+"]
            inside = bool(re.search(rf"\b{kind}\s+{re.escape(name)}\s*\{{", hunk.section or ""))
            start = 0
            if not inside:
                start = next((k for k, line in enumerate(lines) if opening.match(line.text)), -1)
                if start < 0:
                    continue
            end = next((k for k in range(start + 1, len(lines)) if lines[k].text.startswith("}")), len(lines) - 1)
            kept = lines[start : end + 1]
            old_skip = sum(1 for line in lines[:start] if line.kind.value in " -")
            new_skip = sum(1 for line in lines[:start] if line.kind.value in " +")
            old_len = sum(1 for line in kept if line.kind.value in " -")
            new_len = sum(1 for line in kept if line.kind.value in " +")
            out.append(f"@@ -{hunk.old_start + old_skip},{old_len} +{hunk.new_start + new_skip},{new_len} @@")
            out.extend(line.kind.value + line.text for line in kept)
    return "\n".join(out) + "\n" if len(out) > 2 else ""


def base_file(ksrc: Path | None, raw: bytes, path: str) -> str:
    """Is the tree's ``path`` the file the patch was made against? The ``index OLD..NEW`` line of its diff
    names the pre-image's git blob; ``git hash-object`` of the tree's file is compared with it."""
    if ksrc is None or not path:
        return "-"
    text = raw.decode("utf-8", "replace")
    at = text.find(f"diff --git a/{path} ")
    found = re.search(r"^index ([0-9a-f]{7,40})\.\.", text[at:], re.M) if at >= 0 else None
    if not (ksrc / path).is_file():
        return "not in the tree"
    if found is None:
        return "no index line"
    blob = subprocess.run(["git", "hash-object", str(ksrc / path)], capture_output=True, text=True).stdout.strip()
    return "same as the patch's base" if blob.startswith(found.group(1)) else "differs from the patch's base"


def hunks_show(patch, struct: str) -> str:
    """How much of the struct the patch's hunks show: the whole struct (its opening and closing lines), from
    its opening, to its closing, or a window (the members outside it are the type information's)."""
    from reviewbot.layout.plan import _struct_hunks, split_struct_name

    hunks = _struct_hunks(patch, *split_struct_name(struct))
    opening = any(h.shows_opening for h in hunks)
    closing = any(h.shows_closing for h in hunks)
    if opening and closing:
        return "whole struct" if len(hunks) == 1 else "whole struct (in several hunks)"
    return "from its opening" if opening else "to its closing" if closing else "a window"


def source_of_object(obj: Path) -> str | None:
    """The source file an object was compiled from (its first compilation unit's name), relative."""
    from elftools.elf.elffile import ELFFile

    with obj.open("rb") as fh:
        elf = ELFFile(fh)
        for cu in elf.get_dwarf_info().iter_CUs():
            name = cu.get_top_DIE().attributes.get("DW_AT_name")
            if name is not None:
                text = name.value.decode() if isinstance(name.value, bytes) else str(name.value)
                return text[2:] if text.startswith("./") else text
    return None


def file_defining(ksrc: Path, struct: str, hints: list[str]) -> str | None:
    """The tree's file (relative) that defines ``struct``: the hinted files first, then include/ and the
    hinted files' directories."""
    from reviewbot.layout.plan import split_struct_name

    kind, name = split_struct_name(struct)
    pattern = re.compile(rf"^{kind}\s+(?:\w+\s+)*{re.escape(name)}\s*\{{", re.M)
    seen: set[Path] = set()
    candidates = [ksrc / h for h in hints]
    for h in hints:
        candidates.extend(sorted((ksrc / h).parent.glob("*.h")))
    candidates.extend(sorted((ksrc / "include").rglob("*.h")))
    for c in candidates:
        if c in seen or not c.is_file():
            continue
        seen.add(c)
        if pattern.search(c.read_text(errors="replace")):
            return str(c.relative_to(ksrc))
    return None


def check_with_gcc(ksrc: Path, btf: Path, used: str, struct: str, patch, patch_path: str, after) -> str:
    """The computed ``after`` layout against gcc's for the patched struct of the tree (see the module)."""
    from reviewbot.layout.plan import layout_of
    from reviewbot.layout.source import load

    obj_file = btf / used.split("/", 1)[1] if btf.is_dir() else btf
    source = source_of_object(obj_file)
    if source is None:
        return "not checked: the object names no source file"
    obj_rel = str(Path(source).with_suffix(".o"))
    defining = file_defining(ksrc, struct, [patch_path, source])
    if defining is None:
        return "not checked: no file of the tree defines it"
    diff = struct_hunks_diff(patch, struct, defining)
    tree_file, tree_obj = ksrc / defining, ksrc / obj_rel
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        (tmpdir / "hunks.diff").write_text(diff)
        dry = subprocess.run(
            ["patch", "-p1", "-F0", "--dry-run", "-d", str(ksrc), "-i", str(tmpdir / "hunks.diff")],
            capture_output=True,
            text=True,
        )
        if dry.returncode:
            return f"not applied: the hunks do not apply to {defining} as they are"
        shutil.copy2(tree_file, tmpdir / "file.orig")
        had_obj = tree_obj.exists()
        if had_obj:
            shutil.copy2(tree_obj, tmpdir / "obj.orig")
        try:
            subprocess.run(["patch", "-p1", "-F0", "-s", "-d", str(ksrc), "-i", str(tmpdir / "hunks.diff")], check=True)
            built = subprocess.run(["make", "-j2", obj_rel], cwd=ksrc, capture_output=True, text=True)
            if built.returncode:
                return f"not compiled: {built.stderr.strip().splitlines()[-1] if built.stderr.strip() else '?'}"
            shutil.copy2(tree_obj, tmpdir / "patched.o")
        finally:
            shutil.copy2(tmpdir / "file.orig", tree_file)
            if had_obj:
                shutil.copy2(tmpdir / "obj.orig", tree_obj)
        gcc = layout_of(load(tmpdir / "patched.o"), struct, after.cacheline)
    return compare(after, gcc)


def compare(mine, gcc) -> str:
    """What differs, or "agree (N members, size S)"."""
    ours = {m.name: m for m in mine.flat()}
    theirs = {m.name: m for m in gcc.flat()}
    diffs = []
    if mine.size != gcc.size:
        diffs.append(f"size {mine.size} vs gcc {gcc.size}")
    for name in sorted(set(ours) | set(theirs)):
        a, b = ours.get(name), theirs.get(name)
        if a is None or b is None:
            diffs.append(f"{name} {'missing' if a is None else 'extra'} in the computed layout")
            continue
        if (a.offset, a.size, a.bit_offset) != (b.offset, b.size, b.bit_offset):
            diffs.append(f"{name} at {a.offset}/{a.size} vs gcc {b.offset}/{b.size}")
    if diffs:
        return "differ: " + "; ".join(diffs[:6]) + (f" and {len(diffs) - 6} more" if len(diffs) > 6 else "")
    return f"agree ({len(ours)} members, size {mine.size})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--btf", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--mbox", default=str(DEFAULT_MBOX))
    parser.add_argument("--ksrc", type=Path, default=None)
    args = parser.parse_args()
    from reviewbot.layout.plan import after_patch, layout_of
    from reviewbot.layout.review import ReorderMap, _types, reorder_map_or_reason
    from reviewbot.respond.draft import build_body

    t0 = time.perf_counter()
    settings = Settings().with_(strict=True, select=("RB101",), btf=args.btf)
    run = run_check([args.mbox], settings)
    if not run.patches:
        print(f"no patches read from {args.mbox}: {'; '.join(map(str, run.problems))}", file=sys.stderr)
        return 2
    rules = load_check_rules(select=("RB101",))
    t_check = time.perf_counter() - t0
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [("n", "message_id", "subject", "struct", "severity", "map", "why", "gcc", "hunks_show", "tree_file")]
    counts: Counter[str] = Counter()
    n = 0
    for checked in run.patches:
        found = [f for f in checked.report.findings if f.rule_id == "RB101"]
        if not found:
            continue
        raw = RawMessage(f"{args.mbox}:{checked.index}", "rfc822", checked.data)
        patch = parse_patch(parse_message(raw))
        for f in found:
            n += 1
            folder = args.out / f"{n:03d}"
            folder.mkdir(exist_ok=True)
            (folder / "patch.eml").write_bytes(checked.data)
            struct = f.details["struct"]
            named = tuple(n2 for m in f.details.get("members", ()) for n2 in m.replace(" ", "").split(","))
            got = reorder_map_or_reason(str(args.btf), struct, patch, named)
            has_map = bool(f.details.get("layout_map"))
            assert has_map == isinstance(got, ReorderMap), (n, struct)
            (folder / "draft.txt").write_text(build_body(patch, [f], rules, IDENTITY))
            shown = subprocess.run(
                [sys.executable, "-m", "reviewbot", "layout", struct, "--btf", str(args.btf), "--patch",
                 str(folder / "patch.eml")],
                capture_output=True, text=True,
            )  # fmt: skip
            (folder / "layout.txt").write_text(shown.stdout + shown.stderr)
            gcc = "-"
            if isinstance(got, ReorderMap):
                why = got.source
                counts["with map"] += 1
                counts["map of " + hunks_show(patch, struct)] += 1
                if args.ksrc is not None:
                    used = got.source
                    info_path = str(args.btf / used.split("/", 1)[1]) if args.btf.is_dir() else str(args.btf)
                    info = _types(info_path)
                    assert info is not None
                    before = layout_of(info, struct)
                    after = after_patch(before, info, patch)
                    gcc = check_with_gcc(args.ksrc, args.btf, used, struct, patch, f.path or "", after)
                    (folder / "gcc.txt").write_text(gcc + "\n")
                    counts["gcc " + gcc.split(" ", 1)[0].rstrip(":")] += 1
            else:
                why = why_no_map(got.reason, got.struct_known)
                counts["without map"] += 1
                counts["  " + why] += 1
                (folder / "no_map.txt").write_text(got.reason + "\n")
            rows.append(
                (
                    str(n),
                    f"<{checked.report.patch.message_id}>",
                    checked.report.patch.message.subject.raw or "",
                    struct,
                    f.severity.name,
                    "yes" if has_map else "no",
                    why,
                    gcc,
                    hunks_show(patch, struct),
                    base_file(args.ksrc, checked.data, f.path or ""),
                )
            )
    with (args.out / "index.tsv").open("w") as fh:
        for row in rows:
            fh.write("\t".join(c.replace("\t", " ").replace("\n", " ") for c in row) + "\n")
    print(f"type information: {args.btf}")
    print(f"reorders (RB101 findings, --strict): {n}   [check {t_check:.1f} s, all {time.perf_counter() - t0:.1f} s]")
    for key in ("with map", "without map"):
        print(f"  {key}: {counts[key]}")
        if key == "without map":
            for k, v in sorted(counts.items()):
                if k.startswith("  "):
                    print(f"  {k}: {v}")
    shown = {k: v for k, v in counts.items() if k.startswith("map of ")}
    if shown:
        print("  maps, by what the hunks show: " + ", ".join(f"{k[7:]} {v}" for k, v in sorted(shown.items())))
    gccs = {k: v for k, v in counts.items() if k.startswith("gcc ")}
    if gccs:
        print("  maps checked against gcc: " + ", ".join(f"{k[4:]} {v}" for k, v in sorted(gccs.items())))
    print(f"drafts, layouts and index.tsv in {args.out}")
    print(json.dumps({k.strip(): v for k, v in counts.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
