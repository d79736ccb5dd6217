"""How fast is ``reviewbot check``? Prints single-patch wall time and batch throughput.

Usage::

    python benchmarks/check_speed.py [--mbox ../shared/corpus/lkml-real.mbox] [--runs 20]

On the real patches of the corpus mbox it prints:

* single: the median wall time of ``--runs`` whole-process runs of
  ``reviewbot check`` on one small patch, as a user runs it: from a wheel of
  this checkout installed in a fresh venv (``--dev-venv``: this venv's script,
  an editable install, whose import hook adds to every start); its target is
  relative: no slower than checkpatch.pl on the same patch (below);
* batch: patches per second in one process over every corpus patch (mbox
  split + ``check_messages``, timed inside ``--batch-runs`` fresh child
  processes so no cache is warm; best and median), then a breakdown into
  reading, mail decoding, diff parsing and each rule (target: >= 1,000/s);
* when ``--checkpatch PATH`` names a ``checkpatch.pl``, or Debian's ``linux-source`` tarball is
  installed (``/usr/src/linux-source-*.tar.*``; its checkpatch.pl is extracted once into
  ``~/.cache/reviewbot/``), the same figures for its ``scripts/checkpatch.pl --no-tree`` and the ratios; the single-patch
  comparison runs the two in turns (reviewbot, checkpatch.pl, reviewbot, ...), so a change in the
  machine's load falls on both sides, and gives the median of the pairs' ratios (target <= 1.00).

Numbers are printed, never asserted: a timed test would be flaky. The last
lines are a summary of the figures against their targets.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MBOX = Path(os.environ.get("REVIEWBOT_SHARED", ROOT.parent / "shared")) / "corpus" / "lkml-real.mbox"
CHECKPATCH_FILES = ("scripts/checkpatch.pl", "scripts/spelling.txt", "scripts/const_structs.checkpatch")


def _reviewbot_cmd() -> list[str]:
    """The installed console script beside this Python (not a pyenv shim), else ``python -m reviewbot``."""
    script = Path(sys.executable).parent / "reviewbot"
    if script.is_file():
        return [str(script)]
    exe = shutil.which("reviewbot")
    return [exe] if exe else [sys.executable, "-m", "reviewbot"]


def regular_install(tmp: Path) -> list[str] | None:
    """``reviewbot`` from a wheel of this checkout installed in a fresh venv under ``tmp``, or None.

    A development venv holds an editable install, whose import hook (a ``.pth``
    file and a finder) every Python start of that venv pays for; a user's
    ``pip install`` has none. The new venv reads the dependencies from this
    Python's site-packages (a ``.pth`` line), so nothing is downloaded but the
    wheel's build requirements.
    """
    import site
    import sysconfig

    dist = tmp / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "-q", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
    )
    wheels = sorted(dist.glob("reviewbot-*.whl"))
    if built.returncode != 0 or not wheels:
        print(
            f"regular install: building the wheel failed ({built.stderr.strip().splitlines()[-1:]}),"
            " measuring the development venv's script instead"
        )
        return None
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (purelib / "reviewbot-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(purelib),
            str(wheels[-1]),
        ],
        check=True,
    )
    script = venv / "bin" / "reviewbot"
    script.write_text(
        f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom reviewbot.cli import main\nsys.exit(main())\n", encoding="utf-8"
    )
    script.chmod(0o755)
    return [str(script)]


# Like a developer's machine: Python may write and read its bytecode cache
# (some sandboxes export PYTHONDONTWRITEBYTECODE=1, which recompiles every module on every run).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str], runs: int, cwd: Path) -> tuple[float, int]:
    """Median wall time (s) of ``runs`` runs of ``cmd`` and the last exit status."""
    times = []
    status = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, env=CHILD_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
        status = proc.returncode
    return statistics.median(times), status


def side_by_side(cmd_a: list[str], cmd_b: list[str], runs: int, cwd: Path) -> dict[str, float]:
    """``cmd_a`` and ``cmd_b`` run in turns (a, b, a, b, ...), ``runs`` times each: medians of wall and CPU time.

    Taking turns keeps a change in the machine's load (another VM on the host, a neighbour's build) from
    landing on one side only, as it can when ten runs of one follow ten of the other. CPU time (user + sys
    of the child, from ``getrusage``) is printed too: it does not count the time the child waited for a CPU.
    """
    import resource

    def one(cmd: list[str]) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=CHILD_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        elapsed = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    a_wall, a_cpu, b_wall, b_cpu, ratios = [], [], [], [], []
    for _ in range(runs):
        wa, ca = one(cmd_a)
        wb, cb = one(cmd_b)
        a_wall.append(wa)
        a_cpu.append(ca)
        b_wall.append(wb)
        b_cpu.append(cb)
        ratios.append(wa / wb)
    med = statistics.median
    return {
        "a_wall": med(a_wall),
        "a_cpu": med(a_cpu),
        "b_wall": med(b_wall),
        "b_cpu": med(b_cpu),
        "ratio": med(ratios),
    }


WATCHED = (
    "site",
    "click",
    "logging",
    "reviewbot.models",
    "reviewbot.report",
    "reviewbot.checking",
    "reviewbot.registry",
    "importlib.metadata",
    "hashlib",
    "reviewbot.parse.mail",
    "reviewbot.parse.patch",
    "unidiff",
    "reviewbot.fetch.mailfiles",
    "reviewbot.config",
    "reviewbot.cutil",
)


def import_profile(cmd: list[str], cwd: Path) -> str:
    """Cumulative import times of the watched modules (and each rule module) in one run of ``cmd``."""
    exe = cmd[0]
    argv = [sys.executable, "-X", "importtime", *(cmd if exe == sys.executable else [exe, *cmd[1:]])]
    proc = subprocess.run(argv, cwd=cwd, env=CHILD_ENV, capture_output=True, text=True)
    found: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        try:
            _, cumulative, name = line.split("|")
            cumulative_us = int(cumulative)
        except ValueError:
            continue
        name = name.strip()
        if name in WATCHED or name.startswith("reviewbot.rules.rb"):
            found.setdefault(name.replace("reviewbot.rules.", ""), cumulative_us)
    top = sorted(found.items(), key=lambda kv: -kv[1])
    return ", ".join(f"{name} {us / 1000:.1f}" for name, us in top)


def corpus_messages(mbox: Path):
    """(InputMessage list, seconds to split) for the corpus mbox."""
    from reviewbot.checking import messages_from_bytes

    blob = mbox.read_bytes()
    t0 = time.perf_counter()
    items = messages_from_bytes(blob, str(mbox))
    return items, time.perf_counter() - t0


def small_patch(items, limit: int = 4000):
    """The smallest single patch (one diff, not a reply) under ``limit`` bytes, or the smallest patch."""
    patches = [i for i in items if b"\ndiff --git " in i.raw.data and b"\nSubject: Re:" not in i.raw.data]
    fitting = [i for i in patches if len(i.raw.data) <= limit and i.raw.data.count(b"\ndiff --git ") == 1]
    pool = fitting or patches
    return sorted(pool, key=lambda i: len(i.raw.data))[len(pool) // 2 if fitting else 0]


def find_checkpatch() -> Path | None:
    """scripts/checkpatch.pl extracted once from Debian's linux-source tarball into the user cache."""
    tarballs = sorted(glob.glob("/usr/src/linux-source-*.tar.*"))
    if not tarballs:
        return None
    tarball = Path(tarballs[-1])
    top = tarball.name.split(".tar")[0]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "reviewbot" / top
    script = cache / "scripts" / "checkpatch.pl"
    if script.is_file():
        return script
    print(f"extracting checkpatch.pl from {tarball} (once) ...", flush=True)
    cache.mkdir(parents=True, exist_ok=True)
    wanted = {f"{top}/{name}" for name in CHECKPATCH_FILES}
    with tarfile.open(tarball) as tar:
        for member in tar:
            if member.name in wanted:
                member.name = member.name.split("/", 1)[1]
                tar.extract(member, cache, filter="data")
                wanted.discard(f"{top}/{member.name}")
                if not wanted:
                    break
    return script if script.is_file() else None


# One batch run in a fresh interpreter: what `reviewbot check corpus.mbox` does after start-up.
BATCH_CHILD = r"""
import json, sys, time
from pathlib import Path
from reviewbot.checking import check_messages, load_check_rules, messages_from_bytes
blob = Path(sys.argv[1]).read_bytes()
rules = load_check_rules()
t0 = time.perf_counter()
c0 = time.process_time()
items = messages_from_bytes(blob, sys.argv[1])
t1 = time.perf_counter()
run = check_messages(items, rules)
t2 = time.perf_counter()
c2 = time.process_time()
print(json.dumps({"split": t1 - t0, "check": t2 - t1, "cpu": c2 - c0, "patches": len(run.patches),
                  "findings": len(run.findings), "skipped": run.skipped, "problems": len(run.problems)}))
"""


def batch_runs(mbox: Path, runs: int, cwd: Path) -> list[dict]:
    """``runs`` whole batch checks of ``mbox``, each in a fresh child process (timed inside it)."""
    out = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-c", BATCH_CHILD, str(mbox)],
            cwd=cwd,
            env=CHILD_ENV,
            capture_output=True,
            text=True,
            check=True,
        )
        out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def batch_reviewbot(items) -> dict[str, float]:
    """Parse and check every message in this process (what ``reviewbot check corpus.mbox`` does).

    Then, for the breakdown, each stage again on its own: mail decoding,
    git-am split + diff parsing, and every rule's ``check`` over all patches
    (each rule with its own view of the patch: the shared per-hunk work is in every rule's figure).
    """
    from reviewbot.checking import _is_reply, check_messages, load_check_rules
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch
    from reviewbot.rule import RuleContext

    t0 = time.perf_counter()
    rules = load_check_rules()
    t_rules = time.perf_counter() - t0
    t0 = time.perf_counter()
    run = check_messages(items, rules)
    t_all = time.perf_counter() - t0

    t0 = time.perf_counter()
    kept = [i for i in items if not _is_reply(i)]
    t_filter = time.perf_counter() - t0
    t0 = time.perf_counter()
    messages = [parse_message(i.raw) for i in kept]
    t_mail = time.perf_counter() - t0
    t0 = time.perf_counter()
    patches = [p for p in (parse_patch(m) for m in messages) if p.has_diff]
    t_patch = time.perf_counter() - t0
    per_rule = {}
    ctx = RuleContext()
    for rule in rules:
        t0 = time.perf_counter()
        for p in patches:
            list(rule.check(p, ctx))
        per_rule[rule.id] = time.perf_counter() - t0
    return {
        "rules": len(rules),
        "t_rules": t_rules,
        "t_check_total": t_all,
        "t_filter": t_filter,
        "t_mail": t_mail,
        "t_patch": t_patch,
        "n_decoded": len(kept),
        "per_rule": per_rule,
        "patches": len(run.patches),
        "findings": len(run.findings),
        "skipped": run.skipped,
        "problems": len(run.problems),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--mbox", type=Path, default=DEFAULT_MBOX, help="the corpus (default: $REVIEWBOT_SHARED/corpus/lkml-real.mbox)"
    )
    ap.add_argument("--runs", type=int, default=20, help="whole-process runs for the single-patch median")
    ap.add_argument("--batch-runs", type=int, default=3, help="fresh processes for the batch figure (best, median)")
    ap.add_argument("--checkpatch-batch", type=int, default=100, help="corpus patches given to checkpatch.pl")
    ap.add_argument("--no-checkpatch", action="store_true")
    ap.add_argument("--checkpatch", type=Path, help="the checkpatch.pl to compare with (default: from linux-source)")
    ap.add_argument(
        "--dev-venv",
        action="store_true",
        help="time this venv's reviewbot script (an editable install) instead of a wheel in a fresh venv",
    )
    args = ap.parse_args(argv)
    if not args.mbox.is_file():
        print(
            f"check_speed: no corpus at {args.mbox}: give --mbox FILE, or set REVIEWBOT_SHARED to the shared data"
            " folder (the one holding corpus/lkml-real.mbox)",
            file=sys.stderr,
        )
        return 2
    if args.checkpatch is not None and not args.checkpatch.is_file():
        print(f"check_speed: --checkpatch {args.checkpatch}: no such file", file=sys.stderr)
        return 2

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cpus: {os.cpu_count()}  load average: {load:.2f}  python: {sys.version.split()[0]}  corpus: {args.mbox}")
    items, t_split = corpus_messages(args.mbox)
    with_diff = sum(1 for i in items if b"\ndiff --git " in i.raw.data)
    print(f"corpus: {len(items)} messages ({with_diff} with a diff), split in {t_split:.2f} s")

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        one = small_patch(items)
        patch_file = tmp / "one.patch"
        patch_file.write_bytes(one.raw.data)
        lines = one.raw.data.count(b"\n")
        installed = None if args.dev_venv else regular_install(tmp)
        cmd = [*(installed or _reviewbot_cmd()), "check", str(patch_file)]
        print(f"single patch measured with {cmd[0]} ({'a wheel in a fresh venv' if installed else 'this venv'})")
        subprocess.run(cmd, cwd=tmp, env=CHILD_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # warm caches
        python = str(Path(cmd[0]).parent / "python") if installed else sys.executable
        floor, _ = wall([python, "-c", "pass"], args.runs, tmp)
        print(f"python startup floor: median {floor:.3f} s (`python -c pass` of that venv)")
        single, status = wall(cmd, args.runs, tmp)
        print(
            f"single: median {single:.3f} s wall over {args.runs} runs of `reviewbot check <{lines}-line patch>`"
            f" (exit {status}; {single - floor:.3f} s above the interpreter floor)"
        )
        print("  slowest imports of one run (ms, cumulative, -X importtime): " + import_profile(cmd, tmp))

        runs = batch_runs(args.mbox, max(1, args.batch_runs), tmp)
        rates = sorted(r["patches"] / (r["split"] + r["check"]) for r in runs)
        rate = rates[-1]
        best = max(runs, key=lambda r: r["patches"] / (r["split"] + r["check"]))
        total = best["split"] + best["check"]
        print(
            f"batch: {best['patches']} patches checked ({best['findings']} findings, {best['skipped']} non-patches"
            f" skipped, {best['problems']} unparsable) in {total:.2f} s wall ({best['cpu']:.2f} s CPU) ="
            f" {rate:,.0f} patches/s, best of {len(runs)} fresh processes (median {statistics.median(rates):,.0f};"
            f" split {best['split']:.2f} s + check {best['check']:.2f} s; target >= 1,000)"
        )
        res = batch_reviewbot(items)
        print(
            f"  stages, in this process: split+locate {t_split:.2f} s; skip replies by Subject {res['t_filter']:.2f} s;"
            f" mail decoding {res['t_mail']:.2f} s ({res['n_decoded']} messages);"
            f" git-am split + diff parsing {res['t_patch']:.2f} s;"
            f" rules {sum(res['per_rule'].values()):.2f} s; rule loading {res['t_rules'] * 1000:.0f} ms"
        )
        print("  per rule: " + ", ".join(f"{rid} {t:.2f} s" for rid, t in res["per_rule"].items()))

        summary = [
            f"single patch: {single:.3f} s wall, median of {args.runs} whole-process runs"
            " (its target is against checkpatch.pl: see the side-by-side line)",
            f"batch: {rate:,.0f} patches/s in one process, best of {len(runs)}"
            f" (median {statistics.median(rates):,.0f}; target >= 1,000: {'met' if rate >= 1000 else 'NOT met'})",
        ]
        checkpatch = None if args.no_checkpatch else (args.checkpatch or find_checkpatch())
        if checkpatch is None:
            if not args.no_checkpatch:
                print("checkpatch.pl: not measured (apt-get install linux-source, or give --checkpatch PATH)")
            summary.append("checkpatch.pl: not measured")
            _print_summary(summary)
            return 0
        cp_cmd = ["perl", str(checkpatch), "--no-tree", "-q", str(patch_file)]
        pair = side_by_side(cmd, cp_cmd, args.runs, tmp)
        cp_single = pair["b_wall"]
        print(
            f"single, side by side (runs in turns, {args.runs} each): reviewbot {pair['a_wall']:.3f} s wall"
            f" ({pair['a_cpu']:.3f} s CPU), checkpatch.pl --no-tree {cp_single:.3f} s wall ({pair['b_cpu']:.3f} s CPU);"
            f" reviewbot/checkpatch = {pair['ratio']:.3f} (median of the {args.runs} pairs' ratios)"
        )
        sample = [i for i in items if b"\ndiff --git " in i.raw.data][: args.checkpatch_batch]
        files = []
        for n, item in enumerate(sample):
            f = tmp / f"p{n:04d}.patch"
            f.write_bytes(item.raw.data)
            files.append(str(f))
        t0 = time.perf_counter()
        subprocess.run(
            ["perl", str(checkpatch), "--no-tree", "-q", *files],
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        cp_elapsed = time.perf_counter() - t0
        cp_rate = len(files) / cp_elapsed
        print(
            f"checkpatch.pl --no-tree: batch {len(files)} patches in {cp_elapsed:.2f} s = {cp_rate:,.1f} patches/s;"
            f" reviewbot is {rate / cp_rate:,.0f}x faster per patch"
        )
        summary.append(
            f"checkpatch.pl --no-tree: single {cp_single:.3f} s; side by side reviewbot/checkpatch ="
            f" {pair['ratio']:.3f} (target <= 1.000: {'met' if pair['ratio'] <= 1.0 else 'NOT met'});"
            f" batch {cp_rate:,.1f} patches/s (reviewbot {rate / cp_rate:,.0f}x faster)"
        )
        _print_summary(summary)
    return 0


def _print_summary(lines: list[str]) -> None:
    print("summary:")
    for line in lines:
        print("  " + line)


if __name__ == "__main__":
    sys.exit(main())
