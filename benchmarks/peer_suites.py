"""How ``reviewbot check`` reads the test inputs of established tools (issue 12).

Runs the input reader of ``reviewbot check`` (mbox/mail/diff -> messages ->
patches, the path every check takes) over the test data of tools that read the
same things, and compares what it read with what the tool itself reads, asking
the tool (or git) on the spot instead of copying expected values:

* ``git`` t/t5100 (mailinfo samples), t/t4100, t/t4109, t/t4110 (git apply
  patches): oracle ``git mailsplit`` + ``git mailinfo`` (author, e-mail,
  title) + ``git apply --numstat`` (files, added and removed lines; an error
  means a corrupt diff);
* ``patchwork`` patchwork/tests/data/{mail,series,patches}: the same git
  oracle; patchwork/tests/data/fuzz: only "no crash" (patchwork's own
  WeirdMailTest asks no more);
* ``b4`` src/tests/samples (*.mbox, *.eml): the git oracle;
* ``python-unidiff`` tests/samples (*.diff): oracle unidiff's own full parse;
* ``public-inbox`` t/ (*.eml, *.patch: the mails and patches its tests read):
  the git oracle;
* CPython's email tests, Lib/test/test_email/data (msg_*.txt, *.mbox; any
  checkout holding that folder, e.g. a CPython or RustPython one): oracle the
  stdlib ``email`` package (policy.default) for Message-ID, Subject, From, the
  inline text parts and the attachment names, plus the git oracle for patches
  (none of these mails is one: reviewbot must refuse each with a clear error).

A reply (``Re:`` in the raw Subject, without an in-body header block) is not a
patch submission for reviewbot (C09), as for patchwork: git's patch is then
not expected. Usage (each path is a checkout or a bare git directory, e.g. one
made by ``git clone --bare``; nothing is fetched here)::

    python benchmarks/peer_suites.py --git PATH --patchwork PATH --b4 PATH --unidiff PATH \
        --public-inbox PATH --cpython PATH [-v]

Prints one row per suite: inputs, inputs read as the peer reads them, crashes
(an exception other than reviewbot's own errors), then each kind of
disagreement with its count (``-v`` names the inputs).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reviewbot.checking import _is_reply, check_messages, load_check_rules, read_input  # noqa: E402
from reviewbot.errors import ReviewbotError  # noqa: E402

GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}


# ------------------------------------------------------------------ getting the files


def extract(repo: Path, subdir: str, dest: Path) -> Path:
    """``subdir`` of a checkout (used as is) or of a git directory (``git archive`` into ``dest``)."""
    if (repo / subdir).is_dir():
        return repo / subdir
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    archive = subprocess.run(
        ["git", "--git-dir", str(git_dir), "archive", "HEAD", "--", subdir],
        capture_output=True,
        check=True,
        env=GIT_ENV,
    ).stdout
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest / subdir


# ------------------------------------------------------------------ the oracles


def git_messages(path: Path, work: Path) -> list[bytes]:
    """The messages ``git am`` would see: ``git mailsplit`` for an mbox, else the file as one mail."""
    data = path.read_bytes()
    out = work / "split"
    if out.exists():
        for f in out.iterdir():
            f.unlink()
    out.mkdir(exist_ok=True)
    proc = subprocess.run(["git", "mailsplit", f"-o{out}", str(path)], capture_output=True, env=GIT_ENV)
    if proc.returncode != 0:
        return [data]
    return [f.read_bytes() for f in sorted(out.iterdir())]


def git_mailinfo(mail: bytes, work: Path) -> tuple[dict[str, str], bytes] | None:
    msg, patch = work / "msg", work / "patch"
    proc = subprocess.run(["git", "mailinfo", str(msg), str(patch)], input=mail, capture_output=True, env=GIT_ENV)
    if proc.returncode != 0 and b"cannot convert from" in proc.stderr:
        # an unknown charset: patchwork falls back to other encodings (its test_invalid_charset
        # expects the diff); git mailinfo -n reads the mail without converting
        proc = subprocess.run(
            ["git", "mailinfo", "-n", str(msg), str(patch)], input=mail, capture_output=True, env=GIT_ENV
        )
    if proc.returncode != 0:
        return None
    info: dict[str, str] = {}
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(": ")
        info[key] = value
    return info, patch.read_bytes()


def git_numstat(patch: bytes) -> tuple[str, list[tuple[int, int, str]]]:
    """("ok", [(added, removed, path)]), ("empty", []) or ("corrupt", []) as ``git apply --numstat`` reads it."""
    if not patch.strip():
        return "empty", []
    with tempfile.TemporaryDirectory() as tmp:  # outside any repository: plain git apply rules
        proc = subprocess.run(
            ["git", "apply", "--numstat", "-"], input=patch, capture_output=True, cwd=tmp, env=GIT_ENV
        )
        if proc.returncode != 0 and b"lacks filename information" in proc.stderr:
            # a diff made with diff.noprefix ("diff --git f f"): git apply -p0 reads it
            proc = subprocess.run(
                ["git", "apply", "-p0", "--numstat", "-"], input=patch, capture_output=True, cwd=tmp, env=GIT_ENV
            )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        # "corrupt binary patch" is followed by "No valid patches": the corruption is what counts
        return ("empty" if "No valid patches" in err and "corrupt" not in err else "corrupt"), []
    rows = []
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        a, r, p = line.split("\t", 2)
        rows.append((0 if a == "-" else int(a), 0 if r == "-" else int(r), p))
    return "ok", rows


def unidiff_read(path: Path) -> tuple[str, list[tuple[int, int, str]]]:
    from unidiff import PatchSet

    try:
        text = path.read_bytes().decode("utf-8", "replace")
        ps = PatchSet(text.split("\n") and [line + "\n" for line in text.split("\n")[:-1]] + [text.split("\n")[-1]])
    except Exception:
        return "corrupt", []
    if not len(ps):
        return "empty", []
    return "ok", [(f.added, f.removed, f.path) for f in ps]


# ------------------------------------------------------------------ reviewbot


def ours(path: Path, rules) -> tuple[str, object, list]:
    """("ok", CheckRun, items) or ("crash", exception text, [])."""
    try:
        items = read_input(str(path))
    except ReviewbotError as exc:
        return "ok", exc, []
    except Exception as exc:  # noqa: BLE001 - a crash is what this counts
        return "crash", f"{exc.__class__.__name__}: {exc}", []
    try:
        return "ok", check_messages(items, rules), items
    except Exception as exc:  # noqa: BLE001
        return "crash", f"{exc.__class__.__name__}: {exc}", []


def _norm(text: str) -> str:
    return " ".join(text.split())


def _unquote(p: str) -> str:
    """A path as git quotes it (``"A \\303\\242 B.py"``) -> the name (both oracles print it quoted)."""
    if len(p) >= 2 and p[0] == p[-1] == '"':
        p = p[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode("utf-8")
    return p[2:] if p[:2] in ("a/", "b/") else p


def _path_of(p: str) -> str:
    """numstat's path, the new name of a rename (``a => b``, ``dir/{a => b}/f``), unquoted."""
    p = _unquote(p)
    if " => " not in p:
        return p
    m = re.match(r"(.*)\{(.*) => (.*)\}(.*)", p)
    if m:
        return (m.group(1) + m.group(3) + m.group(4)).replace("//", "/")
    return p.split(" => ", 1)[1]


def compare_diff(expected: tuple[str, list], got_files: list[str], added: int, removed: int) -> list[str]:
    status, rows = expected
    kinds = []
    want = sorted(_path_of(p) for _, _, p in rows)
    # git apply takes one leading directory off a non-git diff (-p1): "--- bfd/elf-bfd.h" is elf-bfd.h to it
    if want != sorted(got_files) and not (
        len(want) == len(got_files) and all(g == w or g.endswith("/" + w) for w, g in zip(want, sorted(got_files)))
    ):
        kinds.append("files")
    if (sum(a for a, _, _ in rows), sum(r for _, r, _ in rows)) != (added, removed):
        kinds.append("added/removed")
    return kinds


def patch_counts(cp) -> tuple[list[str], int, int]:
    added, removed = cp.line_counts()  # a check run keeps the counts, not the hunks
    return [fd.path for fd in cp.patch.files], added, removed


def check_mail_input(path: Path, rules, work: Path) -> tuple[list[str], bool]:
    """Disagreement kinds for one mail/mbox input (empty: read as git reads it) and whether it crashed."""
    state, run, items = ours(path, rules)
    if state == "crash":
        return [f"crash: {run}"], True
    mails = git_messages(path, work)
    if isinstance(run, ReviewbotError):
        # reviewbot read nothing: right only when git finds no patch in any message either
        wanted = [m for m in mails if (mi := git_mailinfo(m, work)) and git_numstat(mi[1])[0] == "ok"]
        return (["input refused, git reads a patch"] if wanted else []), False
    if len(items) != len(mails):
        return [f"messages split: {len(items)} vs git {len(mails)}"], False
    by_index = {(cp.input, cp.index): cp for cp in run.patches}
    problems = [str(p) for p in run.problems]
    kinds: list[str] = []
    for k, (item, mail) in enumerate(zip(items, mails)):
        cp = by_index.get((item.input, item.index))
        failed = any(f":{k + 1}" in p or (len(items) == 1 and p) for p in problems)
        mi = git_mailinfo(mail, work)
        if mi is None:
            if cp is not None:
                kinds.append("patch read where git mailinfo fails")
            continue
        info, patch = mi
        numstat = git_numstat(patch)
        reply = _is_reply(item)
        if numstat[0] == "corrupt":
            if cp is not None and not reply:
                kinds.append("corrupt diff accepted")
            continue
        if numstat[0] == "empty":
            if cp is not None:
                kinds.append("patch where git finds none")
            continue
        if reply:
            continue  # a reviewer's diff in a reply: not a submission (C09), as for patchwork
        if cp is None:
            kinds.append("error on a patch git reads" if failed else "patch git reads not found")
            continue
        files, added, removed = patch_counts(cp)
        kinds += compare_diff(numstat, files, added, removed)
        author = cp.patch.message.from_addr
        if author is None and not info.get("Email"):
            pass  # a bare diff: no author on either side
        elif author is None or author.email.lower() != info.get("Email", "").lower():
            kinds.append("author e-mail")
        elif _norm(author.name) != _norm(info.get("Author", "")) and info.get("Author") != info.get("Email"):
            kinds.append("author name")
        if _norm(cp.patch.subject.title) != _norm(info.get("Subject", "")):
            kinds.append("title")
    return kinds, False


def check_diff_input(path: Path, rules, expected: tuple[str, list]) -> tuple[list[str], bool]:
    """Disagreement kinds for one bare diff against the oracle's reading ``expected``."""
    state, run, _ = ours(path, rules)
    if state == "crash":
        return [f"crash: {run}"], True
    if isinstance(run, ReviewbotError):
        return (["input refused, the peer reads a diff"] if expected[0] == "ok" else []), False
    if expected[0] != "ok":
        return (["corrupt diff accepted"] if run.patches and not run.problems else []), False
    if not run.patches:
        return ["error on a diff the peer reads" if run.problems else "diff not found"], False
    if len(run.patches) != 1:
        return ["more than one patch"], False
    files, added, removed = patch_counts(run.patches[0])
    return compare_diff(expected, files, added, removed), False


def _stdlib_reading(mail: bytes):
    """(Message-ID, Subject, From address, inline texts, attachment names) as the stdlib reads the mail.

    None for a field the stdlib cannot read either (its own error): no verdict on it.
    """
    import email
    import email.policy

    em = email.message_from_bytes(mail, policy=email.policy.default)

    def field(get):
        try:
            return get()
        except Exception:  # noqa: BLE001 - the peer's own failure: nothing to compare
            return None

    msgid = field(lambda: str(em["Message-ID"]).strip().strip("<>").strip() if em["Message-ID"] else "")
    subject = field(lambda: _norm(str(em["Subject"] or "")))

    def first_sender():
        if not (em["From"] and em["From"].addresses):
            return None
        a = em["From"].addresses[0]
        return ("" if a.addr_spec == "<>" else a.addr_spec), a.display_name  # "<>": the null sender of a bounce

    sender = field(first_sender)
    texts, names = [], []
    for part in em.walk():
        if part.is_multipart():
            continue
        name = field(part.get_filename)
        if name:
            names.append(name)
        elif part.get_content_type() == "text/plain" and part.get_content_disposition() != "attachment":
            texts.append(field(part.get_content))
    return msgid, subject, sender, texts, sorted(names)


def check_email_input(path: Path, rules, work: Path) -> tuple[list[str], bool]:
    """The git oracle for patches, then the headers and parts of each message against the stdlib."""
    from reviewbot.parse.mail import parse_message

    kinds, crashed = check_mail_input(path, rules, work)
    if crashed:
        return kinds, True
    state, run, items = ours(path, rules)
    if isinstance(run, ReviewbotError):
        return kinds, False  # refused with a clear error
    if not run.patches and not run.problems and not run.notes:
        kinds.append("no patch, and no error saying so")
    for item in items:
        try:
            msg = parse_message(item.raw)
        except ReviewbotError:
            kinds.append("mail refused, the stdlib reads it")
            continue
        except Exception as exc:  # noqa: BLE001
            return [*kinds, f"crash: {exc.__class__.__name__}: {exc}"], True
        data = item.raw.data
        if data.startswith(b"From "):  # the mbox envelope line is no header for the stdlib
            data = data.split(b"\n", 1)[1] if b"\n" in data else b""
        msgid, subject, sender, texts, names = _stdlib_reading(data)
        if msgid and msg.message_id != msgid:
            kinds.append("Message-ID")
        if subject is not None and _norm(msg.subject.raw) != subject:
            kinds.append("Subject")
        if sender and (sender[0] or sender[1]):
            got = msg.from_addr
            if (
                got is None
                or got.email.lower() != sender[0].lower()
                or (not sender[0] and _norm(got.name) != _norm(sender[1]))
            ):
                kinds.append("From")
        body = _norm(msg.body)
        if any(t is not None and _norm(t) not in body for t in texts):
            kinds.append("body text part")
        if sorted(a.filename for a in msg.attachments if a.filename) != names:
            kinds.append("attachments")
    return kinds, False


# ------------------------------------------------------------------ suites


def suites(args, tmp: Path):
    if args.git:
        t = extract(Path(args.git), "t", tmp / "git")
        t5100 = sorted(
            p
            for p in (t / "t5100").iterdir()
            if re.fullmatch(r"msg\d{4}|.*\.mbox|.*\.in|0\d{3}mboxrd|nul-plain", p.name)
        )
        yield "git t/t5100", "mail", t5100
        applies = sorted(
            [*(t / "t4100").glob("*.patch"), *(t / "t4109").glob("*.patch"), *(t / "t4110").glob("*.patch")]
        )
        yield "git t/t4100,t4109,t4110", "git-apply", applies
    if args.patchwork:
        d = extract(Path(args.patchwork), "patchwork/tests/data", tmp / "patchwork")
        yield (
            "patchwork mail,series,patches",
            "mail",
            sorted(p for sub in ("mail", "series", "patches") for p in (d / sub).iterdir() if p.is_file()),
        )
        yield "patchwork fuzz (no crash)", "fuzz", sorted(p for p in (d / "fuzz").iterdir() if p.is_file())
    if args.b4:
        d = extract(Path(args.b4), "src/tests/samples", tmp / "b4")
        yield "b4 samples", "mail", sorted(p for p in d.rglob("*") if p.suffix in (".mbox", ".eml"))
    if args.unidiff:
        d = extract(Path(args.unidiff), "tests/samples", tmp / "unidiff")
        yield "python-unidiff samples", "unidiff", sorted(d.glob("*.diff"))
    if args.public_inbox:
        d = extract(Path(args.public_inbox), "t", tmp / "public-inbox")
        yield "public-inbox t/", "mail", sorted(p for p in d.rglob("*") if p.suffix in (".eml", ".patch"))
    if args.cpython:
        d = extract(Path(args.cpython), "Lib/test/test_email/data", tmp / "cpython")
        yield (
            "cpython test_email/data",
            "email",
            sorted(p for p in d.iterdir() if re.fullmatch(r"msg_\w+\.txt|.*\.mbox", p.name)),
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in ("git", "patchwork", "b4", "unidiff", "public-inbox", "cpython"):
        ap.add_argument(f"--{name}", metavar="PATH", help=f"checkout or git directory of {name}")
    ap.add_argument("-v", "--verbose", action="store_true", help="name the inputs of each disagreement")
    args = ap.parse_args(argv)
    rules = load_check_rules()
    total = Counter()
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        work = tmp / "work"
        work.mkdir()
        print(f"{'suite':32} {'inputs':>6} {'as peer':>7} {'crashes':>7}  disagreements")
        for label, kind, inputs in suites(args, tmp):
            agree = crashes = 0
            kinds: dict[str, list[str]] = defaultdict(list)
            for path in inputs:
                if kind == "mail":
                    found, crashed = check_mail_input(path, rules, work)
                elif kind == "email":
                    found, crashed = check_email_input(path, rules, work)
                elif kind == "fuzz":
                    found, crashed = check_diff_input(path, rules, ("any", []))
                    found = [k for k in found if k.startswith("crash")]
                elif kind == "git-apply":
                    found, crashed = check_diff_input(path, rules, git_numstat(path.read_bytes()))
                else:
                    found, crashed = check_diff_input(path, rules, unidiff_read(path))
                crashes += crashed
                agree += not found
                for k in dict.fromkeys(found):
                    kinds[k].append(path.name)
            summary = ", ".join(f"{k}: {len(v)}" for k, v in sorted(kinds.items())) or "-"
            print(f"{label:32} {len(inputs):6} {agree:7} {crashes:7}  {summary}")
            if args.verbose:
                for k, names in sorted(kinds.items()):
                    print(f"    {k}: {' '.join(names)}")
            total.update(inputs=len(inputs), agree=agree, crashes=crashes)
        if total["inputs"]:
            print(
                f"{'all':32} {total['inputs']:6} {total['agree']:7} {total['crashes']:7}  "
                f"({100 * total['agree'] / total['inputs']:.1f}% read as the peer reads them)"
            )
    return 1 if total["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
