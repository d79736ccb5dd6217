"""``reviewbot check`` end to end: real corpus patches, own patches in a throwaway git repo, exit codes, config.

Inputs are real files: messages cut out of tests/data/mail/lkml-sample.mbox
(a byte-exact excerpt of ../shared/corpus/lkml-real.mbox; written to tmp_path) and ``git format-patch`` output of
commits made in a fresh repository. The command runs in-process through
click's runner, and as a real process where a pipe or b4 is involved.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import CORPUS
from reviewbot.cli import main
from helpers import COMMENTED, UNCOMMENTED, corpus_message, git, validate_json_report, validate_sarif

MBOX = CORPUS / "lkml-real.mbox"  # the whole corpus (../shared)


def line_of(data: bytes, needle: bytes, after: int = 0, prefix: bytes = b"") -> int:
    """1-based number of the first line of ``data`` (after line ``after``) starting with ``prefix`` holding ``needle``."""
    for n, line in enumerate(data.split(b"\n"), start=1):
        if n > after and line.startswith(prefix) and needle in line:
            return n
    raise AssertionError(f"{needle!r} not found")


def run(args: list[str], stdin: bytes | None = None):
    result = CliRunner().invoke(main, ["check", *args], input=stdin, catch_exceptions=False)
    return result


def reviewbot_exe() -> list[str]:
    exe = shutil.which("reviewbot")
    return [exe] if exe else [sys.executable, "-m", "reviewbot"]


# ------------------------------------------------------------------ a throwaway git repo

FOO_C = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/sched.h>

struct waiter {
	int ready;
	int data;
};

void publish(struct waiter *w, int v)
{
	w->data = v;
	WRITE_ONCE(w->ready, 1);
}

int consume(struct waiter *w)
{
	if (!READ_ONCE(w->ready))
		return -1;
	return w->data;
}
"""


def commit(repo: Path, path: str, text: str, subject: str, body: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", subject, "-m", body, "-m", "Signed-off-by: Ada Lovelace <ada@example.org>")


@pytest.fixture
def repo(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repo whose last three commits are: a rename (clean), an uncommented smp_mb(), a commented one."""
    r = isolated_env / "linux"
    r.mkdir()
    (isolated_env / "home").mkdir()
    git(r, "init", "-q", "-b", "master")
    git(r, "config", "user.name", "Ada Lovelace")
    git(r, "config", "user.email", "ada@example.org")
    commit(r, "kernel/foo.c", FOO_C, "foo: add the waiter", "The waiter hands one value to a consumer.")
    renamed = FOO_C.replace("int data;", "int value;").replace("w->data", "w->value")
    commit(r, "kernel/foo.c", renamed, "foo: rename data to value", "The field holds a value, name it so.")
    barrier = renamed.replace("\tw->value = v;\n", "\tw->value = v;\n\tsmp_mb();\n")
    commit(
        r, "kernel/foo.c", barrier, "foo: order the value before ready", "The consumer may see ready before the value."
    )
    commented = barrier.replace(
        "\tif (!READ_ONCE(w->ready))\n\t\treturn -1;\n",
        "\tif (!READ_ONCE(w->ready))\n\t\treturn -1;\n\t/* Pairs with smp_mb() in publish(): ready before value. */\n\tsmp_rmb();\n",
    )
    commit(r, "kernel/foo.c", commented, "foo: order the reader side", "Read the value only after ready.")
    monkeypatch.chdir(r)
    return r


def test_format_patch_piped_to_stdin(repo: Path) -> None:
    """`git format-patch -1 --stdout | reviewbot check -` as a real shell pipe."""
    patch = git(repo, "format-patch", "-1", "--stdout", "HEAD~1")
    cmd = f"git format-patch -1 --stdout HEAD~1 | {' '.join(reviewbot_exe())} check -"
    proc = subprocess.run(cmd, shell=True, cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    n = line_of(patch, b"+\tsmp_mb();")
    new_line = FOO_C.count("\n", 0, FOO_C.index("\tw->data = v;")) + 2  # the line after the store
    assert "WARNING:RB102: " in proc.stdout
    assert f"#{n}: FILE: kernel/foo.c:{new_line}:\n+\tsmp_mb();\n" in proc.stdout
    assert proc.stdout.rstrip().endswith("Your patch has review findings, please look at them before sending.")
    assert "total: 0 errors, 1 warning, 0 checks" in proc.stdout


def test_git_range(repo: Path) -> None:
    res = run(["--git", "HEAD~3..", "--format", "json"])
    assert res.exit_code == 1, res.stdout
    doc = json.loads(res.stdout)
    validate_json_report(doc)
    assert [p["subject"] for p in doc["patches"]] == [
        "[PATCH 1/3] foo: rename data to value",
        "[PATCH 2/3] foo: order the value before ready",
        "[PATCH 3/3] foo: order the reader side",
    ]
    rb102 = [f for f in doc["findings"] if f["rule"] == "RB102"]
    assert [(f["file"], f["subject"], f["input"]) for f in rb102] == [
        ("kernel/foo.c", "[PATCH 2/3] foo: order the value before ready", "git:HEAD~3..")
    ]
    # the input line counts in the whole `git format-patch --stdout` output
    blob = git(repo, "format-patch", "--stdout", "HEAD~3..")
    assert blob.split(b"\n")[rb102[0]["input_line"] - 1] == b"+\tsmp_mb();"
    validate_sarif(json.loads(run(["--git", "HEAD~3..", "--format", "sarif"]).stdout))
    text = run(["--git", "HEAD~3.."]).stdout
    short = {
        t: git(repo, "rev-parse", "--short=12", r).decode().strip()
        for t, r in (("rename", "HEAD~2"), ("order", "HEAD~1"))
    }
    assert f'Commit {short["rename"]} ("foo: rename data to value") has no obvious review findings' in text
    assert f'Commit {short["order"]} ("foo: order the value before ready") has review findings' in text
    assert [p["commit"] for p in doc["patches"]] == [
        {"hash": git(repo, "rev-parse", "--short=12", rev).decode().strip(), "title": title}
        for rev, title in (
            ("HEAD~2", "foo: rename data to value"),
            ("HEAD~1", "foo: order the value before ready"),
            ("HEAD", "foo: order the reader side"),
        )
    ]
    assert [p["counter"] for p in doc["patches"]] == [[1, 3], [2, 3], [3, 3]]


@pytest.mark.parametrize(
    "rev,titles",
    [
        ("HEAD", ["foo: order the reader side"]),
        ("HEAD~1", ["foo: order the value before ready"]),
        ("-1", ["foo: order the reader side"]),
        ("-3", ["foo: rename data to value", "foo: order the value before ready", "foo: order the reader side"]),
        ("HEAD~1-2", ["foo: rename data to value", "foo: order the value before ready"]),
        ("HEAD^!", ["foo: order the reader side"]),
        ("HEAD~2..HEAD~1", ["foo: order the value before ready"]),
    ],
)
def test_git_takes_what_format_patch_and_checkpatch_take(repo: Path, rev: str, titles: list[str]) -> None:
    """A single commit is that commit (checkpatch --git HEAD), -N the last N, REV-N the N ending at REV."""
    res = run(["--git", rev, "--format", "json"])
    doc = json.loads(res.stdout)
    validate_json_report(doc)
    assert doc["problems"] == []
    assert [p["title"] for p in doc["patches"]] == titles
    assert [p["commit"]["title"] for p in doc["patches"]] == titles
    assert all(len(p["commit"]["hash"]) == 12 for p in doc["patches"])
    assert res.exit_code == (1 if "foo: order the value before ready" in titles else 0)


def test_git_refuses_other_options(repo: Path) -> None:
    res = run(["--git", "--output=/tmp/x"])
    assert res.exit_code == 2
    assert res.stderr == "reviewbot check: --output=/tmp/x: not a revision range (a commit, A..B, -N or REV-N)\n"


def test_git_range_error_shows_gits_reason(repo: Path) -> None:
    """git's own ``fatal:`` line is the message, not the usage hint git prints after it."""
    res = run(["--git", "nosuchref.."])
    assert res.exit_code == 2
    assert res.stderr == (
        "reviewbot check: nosuchref..: git format-patch failed: fatal: ambiguous argument 'nosuchref..': "
        "unknown revision or path not in the working tree.\n"
    )
    assert "git <command>" not in res.stderr


def test_clean_patch_exits_0(repo: Path) -> None:
    out = repo.parent / "out"
    git(repo, "format-patch", "-q", "-o", str(out), "-1", "HEAD~2")
    (patch,) = sorted(out.iterdir())
    res = run([str(patch)])
    assert res.exit_code == 0, res.stdout
    assert res.stdout.endswith(f"{patch} has no obvious review findings and is ready for submission.\n")
    assert run(["-q", str(patch)]).stdout == ""


def test_directory_of_patches_with_cover_letter(repo: Path) -> None:
    out = repo.parent / "series"
    git(repo, "format-patch", "-q", "--cover-letter", "-o", str(out), "HEAD~3..")
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "0000-cover-letter.patch" and len(names) == 4
    res = run(["--format", "terse", str(out)])
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{out / names[2]}:")
    assert ": WARNING:RB102: " in lines[0]
    doc = json.loads(run(["--format", "json", str(out)]).stdout)
    assert doc["summary"]["patches"] == 3  # the cover letter is context, not a patch


def test_fail_on_threshold(repo: Path) -> None:
    blob = git(repo, "format-patch", "-1", "--stdout", "HEAD~1")
    assert run(["-"], stdin=blob).exit_code == 1
    assert run(["--fail-on", "error", "-"], stdin=blob).exit_code == 0
    assert run(["--fail-on", "check", "-"], stdin=blob).exit_code == 1
    assert run(["--ignore", "RB102", "-"], stdin=blob).exit_code == 0
    assert run(["--select", "RB2", "-"], stdin=blob).exit_code == 0


# ------------------------------------------------------------------ exit status 2


def test_unreadable_inputs_exit_2(isolated_env: Path) -> None:
    res = CliRunner().invoke(main, ["check", "nope.patch"])
    assert res.exit_code == 2
    assert res.stderr == "reviewbot check: nope.patch: no such file\n"

    (isolated_env / "empty.patch").write_bytes(b"")
    res = CliRunner().invoke(main, ["check", "empty.patch"])
    assert (res.exit_code, res.stderr) == (2, "reviewbot check: empty.patch: empty input: no patch to check\n")

    (isolated_env / "notes.txt").write_bytes(b"Subject: shopping\n\nmilk, eggs\n")
    res = CliRunner().invoke(main, ["check", "notes.txt"])
    assert res.exit_code == 2
    assert "notes.txt: no patch found: no message with a diff" in res.stderr

    (isolated_env / "emptydir").mkdir()
    res = CliRunner().invoke(main, ["check", "emptydir"])
    (isolated_env / "emptydir" / "README").write_text("not a patch\n")
    res = run(["emptydir"])
    assert res.exit_code == 2
    assert res.stderr == (
        "reviewbot check: emptydir: directory holds no patch files (*.patch, *.eml, *.mbox, *.diff, *.mail)\n"
    )


def test_usage_errors_exit_2(isolated_env: Path) -> None:
    assert run([]).exit_code == 2
    assert run(["--format", "xml", "x.patch"]).exit_code == 2
    res = CliRunner().invoke(main, ["check", "--select", "RB999", "x.patch"])
    assert res.exit_code == 2 and "RB999" in res.stderr


def test_one_bad_input_does_not_hide_the_others(isolated_env: Path) -> None:
    good = isolated_env / "good.patch"
    good.write_bytes(corpus_message(UNCOMMENTED))
    res = CliRunner().invoke(main, ["check", "--format", "terse", "missing.patch", str(good)])
    assert res.exit_code == 2
    assert "RB102" in res.stdout and "missing.patch: no such file" in res.stderr


# ------------------------------------------------------------------ real corpus patches, every format


@pytest.fixture
def real_patches(isolated_env: Path) -> dict[str, Path]:
    out = {}
    for key, mid in (("uncommented", UNCOMMENTED), ("commented", COMMENTED)):
        p = isolated_env / f"{key}.patch"
        p.write_bytes(corpus_message(mid))
        out[key] = p
    return out


def test_real_patch_text_and_terse(real_patches: dict[str, Path]) -> None:
    path = real_patches["uncommented"]
    data = path.read_bytes()
    n = line_of(data, b"smp_mb();", prefix=b"+")
    res = run([str(path)])
    assert res.exit_code == 1
    assert f"#{n}: FILE: io_uring/" in res.stdout
    assert f"#{n}: FILE: io_uring/io_uring.c:" in res.stdout or f"#{n}: FILE: io_uring/" in res.stdout
    block = res.stdout.split("WARNING:RB102: ", 1)[1]
    assert block.splitlines()[2] == "+\t\tsmp_mb();"
    terse = run(["--format", "terse", str(path)]).stdout.splitlines()
    assert f"{path}:{n}: WARNING:RB102: " in "\n".join(terse)


def test_real_patch_json_sarif_b4(real_patches: dict[str, Path]) -> None:
    path = real_patches["uncommented"]
    n = line_of(path.read_bytes(), b"smp_mb();", prefix=b"+")
    doc = json.loads(run(["--format", "json", str(path)]).stdout)
    validate_json_report(doc)
    (f,) = [f for f in doc["findings"] if f["rule"] == "RB102"]
    assert (f["input"], f["input_line"], f["message_id"]) == (str(path), n, UNCOMMENTED)
    assert f["subject"] == "[PATCH stable-6.1 1/1] io_uring: fix waiters missing wake ups"
    assert f["file"].startswith("io_uring/") and f["severity"] == "warning"

    sarif = json.loads(run(["--format", "sarif", str(path)]).stdout)
    validate_sarif(sarif)
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "RB102"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == f["file"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == f["line"]
    assert {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]} >= {"RB101", "RB102", "RB201"}

    (b4,) = json.loads(run(["--format", "b4", "-"], stdin=path.read_bytes()).stdout)
    assert b4["tool"] == "reviewbot" and b4["status"] == "warn"
    assert any(d["description"].startswith("WARNING:RB102: ") for d in json.loads(b4["details"]))


def test_commented_barriers_pass_rb102(real_patches: dict[str, Path]) -> None:
    doc = json.loads(run(["--format", "json", str(real_patches["commented"])]).stdout)
    assert [f for f in doc["findings"] if f["rule"] == "RB102"] == []
    validate_sarif(json.loads(run(["--format", "sarif", str(real_patches["commented"])]).stdout))


def test_mbox_with_several_messages_counts_lines_in_the_file(isolated_env: Path) -> None:
    mbox = isolated_env / "two.mbox"
    first, second = corpus_message(COMMENTED), corpus_message(UNCOMMENTED)
    mbox.write_bytes(first + second)
    doc = json.loads(run(["--format", "json", str(mbox)]).stdout)
    validate_json_report(doc)
    assert len(doc["patches"]) == 2
    (f,) = [f for f in doc["findings"] if f["rule"] == "RB102"]
    lines = mbox.read_bytes().split(b"\n")
    assert f["input_line"] > first.count(b"\n")
    assert lines[f["input_line"] - 1] == b"+\t\tsmp_mb();"
    text = run([str(mbox)]).stdout
    assert '("[PATCH stable-6.1 1/1] io_uring: fix waiters missing wake ups") has review findings' in text


def test_every_format_on_own_patch(repo: Path) -> None:
    blob = git(repo, "format-patch", "-1", "--stdout", "HEAD~1")
    outputs = {fmt: run(["--format", fmt, "-"], stdin=blob) for fmt in ("text", "terse", "json", "sarif", "b4")}
    assert {fmt: r.exit_code for fmt, r in outputs.items()} == dict.fromkeys(outputs, 1)
    n = line_of(blob, b"+\tsmp_mb();")
    assert outputs["terse"].stdout.startswith(f"-:{n}: WARNING:RB102: ")
    validate_sarif(json.loads(outputs["sarif"].stdout))
    sarif_result = json.loads(outputs["sarif"].stdout)["runs"][0]["results"][0]
    assert sarif_result["properties"]["input"] == "-" and sarif_result["properties"]["inputLine"] == n
    assert json.loads(outputs["b4"].stdout)[0]["summary"] == "1 warning"


# ------------------------------------------------------------------ configuration


def test_config_select_ignore_strict_per_path(repo: Path) -> None:
    blob = git(repo, "format-patch", "-1", "--stdout", "HEAD~1")
    cfg = repo / ".reviewbot.toml"

    cfg.write_text('ignore = ["RB102"]\n')
    assert run(["-"], stdin=blob).exit_code == 0
    # a flag replaces the configured list
    assert run(["--ignore", "RB201", "-"], stdin=blob).exit_code == 1

    cfg.write_text('select = ["RB2"]\n')
    assert run(["-"], stdin=blob).exit_code == 0
    assert run(["--select", "RB102", "-"], stdin=blob).exit_code == 1

    cfg.write_text('[per-path-ignores]\n"kernel/*" = ["barrier-without-pairing-comment"]\n')
    assert run(["-"], stdin=blob).exit_code == 0
    cfg.write_text('[per-path-ignores]\n"drivers/*" = ["RB102"]\n')
    assert run(["-"], stdin=blob).exit_code == 1

    cfg.write_text('fail-on = "error"\n')
    assert run(["-"], stdin=blob).exit_code == 0
    assert run(["--fail-on", "warning", "-"], stdin=blob).exit_code == 1

    cfg.write_text("strict = true\n")
    doc = json.loads(run(["--format", "json", "-"], stdin=blob).stdout)
    assert doc["summary"]["strict"] is True
    assert json.loads(run(["--no-strict", "--format", "json", "-"], stdin=blob).stdout)["summary"]["strict"] is False

    cfg.write_text("strict = 5\n")
    res = CliRunner().invoke(main, ["check", "-"], input=blob)
    assert res.exit_code == 2 and ".reviewbot.toml" in res.stderr and "strict = 5" in res.stderr


def test_pyproject_table_is_read(repo: Path) -> None:
    blob = git(repo, "format-patch", "-1", "--stdout", "HEAD~1")
    (repo / "pyproject.toml").write_text('[tool.reviewbot]\nignore = ["RB102"]\n')
    sub = repo / "kernel"
    os.chdir(sub)  # found upward from the current directory
    assert run(["-"], stdin=blob).exit_code == 0


# ------------------------------------------------------------------ speed: nothing heavy on this path


def _check_in_child(patch: Path, args: list[str], modules: tuple[str, ...]) -> str:
    """Run ``reviewbot check ARGS PATCH`` in a fresh interpreter; its exit status and which of ``modules``
    it loaded, as printed there ("1 []": findings, none loaded)."""
    code = (
        "import sys\n"
        "from reviewbot.cli import main\n"
        "try:\n"
        f"    main(['check', *{args!r}, {str(patch)!r}])\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        f"print(status, sorted(m for m in {modules!r} if m in sys.modules), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=patch.parent)
    return proc.stderr.strip().splitlines()[-1]


def test_no_heavy_imports(real_patches: dict[str, Path]) -> None:
    heavy = (
        "requests",
        "urllib3",
        "bs4",
        "lxml",
        "sqlite3",
        "_sqlite3",
        "sqlite_utils",
        "rich",
        "http.client",
        "jsonschema",
    )
    assert _check_in_child(real_patches["uncommented"], ["--format", "sarif"], heavy) == "1 []"


def test_check_that_logs_nothing_never_loads_logging(real_patches: dict[str, Path]) -> None:
    """Modules on the check path log through reviewbot.lazylog: a run with findings but no log record
    leaves logging (and the traceback module it loads) unimported."""
    assert _check_in_child(real_patches["uncommented"], [], ("logging", "traceback")) == "1 []"


@pytest.mark.parametrize("args", [["check", "-vv"], ["-vv", "check"]])
def test_check_vv_logs_debug_either_side_of_the_subcommand(real_patches: dict[str, Path], args: list[str]) -> None:
    """`reviewbot check -vv` (which the internal-error line tells users to run) works like `reviewbot -vv check`:
    the debug configuration made by the subcommand is not undone by the one `check` leaves waiting."""
    proc = subprocess.run(
        [sys.executable, "-m", "reviewbot", *args, str(real_patches["uncommented"])],
        capture_output=True,
        text=True,
        cwd=real_patches["uncommented"].parent,
    )
    assert proc.returncode == 1, proc.stderr
    assert " DEBUG reviewbot.registry: loaded " in proc.stderr


# ------------------------------------------------------------------ series: the cover letter counts


def _perf_series(repo: Path, out: Path, cover_text: str, *extra: str) -> list[Path]:
    text = (repo / "kernel/foo.c").read_text().replace("int consume(", "static inline int consume(")
    commit(repo, "kernel/foo.c", text, "foo: inline consume()", "This makes the consumer loop faster.")
    git(repo, "format-patch", "-q", "--cover-letter", *extra, "-o", str(out), "HEAD~2..")
    cover = out / "0000-cover-letter.patch"
    cover.write_bytes(cover.read_bytes().replace(b"*** BLURB HERE ***", cover_text.encode()))
    return sorted(out.iterdir())


@pytest.mark.parametrize("threading", [(), ("--thread",)], ids=["unthreaded", "threaded"])
def test_cover_letter_numbers_count_as_evidence(repo: Path, threading: tuple[str, ...]) -> None:
    files = _perf_series(repo, repo.parent / "s1", "Lookup loop: 120 ns before, 80 ns after (-33%).", *threading)
    alone = json.loads(run(["--format", "json", "--select", "RB201", str(files[2])]).stdout)
    assert [f["rule"] for f in alone["findings"]] == ["RB201"]
    (f,) = alone["findings"]
    assert f["file"] is None
    assert files[2].read_bytes().split(b"\n")[f["input_line"] - 1] == b"This makes the consumer loop faster."
    series = run(["--format", "json", "--select", "RB201", *map(str, files)])
    assert series.exit_code == 0 and json.loads(series.stdout)["findings"] == []
    strict = json.loads(run(["--strict", "--format", "json", "--select", "RB201", *map(str, files)]).stdout)
    assert [(f["rule"], f["severity"]) for f in strict["findings"]] == [("RB201", "check")]
    assert "cover letter" in strict["findings"][0]["message"]


def test_cover_letter_without_numbers_is_no_evidence(repo: Path) -> None:
    files = _perf_series(repo, repo.parent / "s2", "Two small cleanups.")
    res = run(["--format", "terse", "--select", "RB201", *map(str, files)])
    assert res.exit_code == 1 and ": WARNING:RB201: " in res.stdout


# ------------------------------------------------------------------ --rules-dir

OWN_RULE = '''"""RB901 todo-without-owner: a TODO added without a name.

What it does
    Flags added lines with a bare TODO.

Why it matters
    Nobody knows who will do it.

Example
    /* TODO fix */

Use instead
    /* TODO(ada): fix */

Known limits
    Only C comments.

References
    Documentation/process/coding-style.rst
"""

from reviewbot.models import LineKind
from reviewbot.rule import RuleMeta, Scope, Severity

RULE = RuleMeta(id="RB901", name="todo-without-owner", summary="TODO without an owner",
                severity=Severity.ERROR, scope=Scope.HUNK)


def check(patch, ctx):
    for fd in patch.files:
        for hunk in fd.hunks:
            for dl in hunk.lines:
                if dl.kind is LineKind.ADDED and "TODO " in dl.text:
                    yield RULE.finding(patch, "TODO without an owner", path=fd.path, line=dl.new_no,
                                       input_line=dl.input_line, hunk=hunk)


def reply(findings, patch):
    return "Who will do this?"
'''


def test_rules_dir_flag_and_config(repo: Path) -> None:
    rules = repo.parent / "myrules"
    rules.mkdir()
    (rules / "rb901_todo.py").write_text(OWN_RULE)
    text = (repo / "kernel/foo.c").read_text().replace("\tw->value = v;\n", "\t/* TODO check v */\n\tw->value = v;\n")
    commit(repo, "kernel/foo.c", text, "foo: note a check", "Remember the check.")
    blob = git(repo, "format-patch", "-1", "--stdout", "HEAD")
    res = run(["--rules-dir", str(rules), "--format", "terse", "-"], stdin=blob)
    n = line_of(blob, b"TODO check v", prefix=b"+")
    assert res.exit_code == 1 and res.stdout == f"-:{n}: ERROR:RB901: TODO without an owner\n"
    user = repo.parent / "xdg_config_home" / "reviewbot" / "config.toml"  # rules (code) come from your own config
    user.parent.mkdir(parents=True)
    user.write_text(f'rules-dirs = ["{rules}"]\n')
    assert "RB901" in run(["--format", "terse", "-"], stdin=blob).stdout
    (rules / "rb902_broken.py").write_text("RULE = 1\n")
    res = run(["-"], stdin=blob)
    assert res.exit_code == 2 and "cannot load rules" in res.stderr and "rb902_broken.py" in res.stderr


# ------------------------------------------------------------------ encoded bodies, replies


def test_quoted_printable_patch_has_no_input_line(isolated_env: Path) -> None:
    """A QP body's lines are not the file's: the finding keeps path:line and drops #N (terse N = 0)."""
    import quopri
    import re

    head, body = corpus_message(UNCOMMENTED).split(b"\n\n", 1)
    head = re.sub(rb"(?mi)^Content-Transfer-Encoding:.*\n?", b"", head).rstrip(b"\n")
    path = isolated_env / "qp.patch"
    path.write_bytes(head + b"\nContent-Transfer-Encoding: quoted-printable\n\n" + quopri.encodestring(body))
    res = run([str(path)])
    assert res.exit_code == 1
    assert "NOTE: the mail body is encoded" in res.stdout
    assert "\nFILE: io_uring/io_uring.c:596:\n+\t\tsmp_mb();\n" in res.stdout
    assert run(["--format", "terse", str(path)]).stdout.startswith(f"{path}:0: WARNING:RB102: ")
    doc = json.loads(run(["--format", "json", str(path)]).stdout)
    assert [(f["rule"], f["input_line"], f["line"]) for f in doc["findings"]] == [("RB102", None, 596)]


def test_encoded_body_note_is_its_patchs_own_and_names_the_source_file(isolated_env: Path) -> None:
    """Two patches, the second quoted-printable: its note comes inside its own block, between its total and
    its verdict (at the top of the block it followed the first patch's verdict and read as that one's), and
    says which line numbers are meant: the patched source file's, not the mail's."""
    import quopri
    import re

    plain = corpus_message(UNCOMMENTED)
    head, body = plain.split(b"\n\n", 1)
    head = re.sub(rb"(?mi)^Content-Transfer-Encoding:.*\n?", b"", head).rstrip(b"\n")
    (isolated_env / "1-plain.patch").write_bytes(plain)
    (isolated_env / "2-qp.patch").write_bytes(
        head + b"\nContent-Transfer-Encoding: quoted-printable\n\n" + quopri.encodestring(body)
    )
    res = run([str(isolated_env / "1-plain.patch"), str(isolated_env / "2-qp.patch")])
    assert res.exit_code == 1
    first, second = res.stdout.split("please look at them before sending.\n\n")
    assert "NOTE:" not in first
    note = (
        "NOTE: the mail body is encoded (quoted-printable, base64, multipart or format=flowed), so the line "
        "numbers given are those of the patched source file (FILE: path:line), not of the mail, and no #N is given"
    )
    lines = second.splitlines()
    at = lines.index(note)
    assert lines[at - 2].startswith("total: 0 errors, 1 warning, ") and lines[at - 1 : at + 2 : 2] == ["", ""]
    assert lines[at + 2].startswith(f"{isolated_env / '2-qp.patch'} has review findings")
    assert "\nFILE: io_uring/io_uring.c:596:\n" in second and "#" not in second.split("\nFILE:")[0]
    doc = json.loads(run(["--format", "json", str(isolated_env / "2-qp.patch")]).stdout)
    assert doc["patches"][0]["notes"] == [note.removeprefix("NOTE: ")]


def test_reply_only_input_is_not_a_patch(isolated_env: Path) -> None:
    """A reply is readable mail that is not a submission: a note and exit 0, not 'unreadable input' (2)."""
    from conftest import CASES

    res = run([str(CASES / "C09.eml")])
    assert (res.exit_code, res.stderr) == (0, "")
    assert res.stdout == f"NOTE: {CASES / 'C09.eml'}: a reply, not a patch submission: nothing to check\n"


def test_subject_finding_points_at_the_subject_line(repo: Path) -> None:
    text = (repo / "kernel/foo.c").read_text().replace("int consume(", "static int consume(")
    commit(repo, "kernel/foo.c", text, "foo: speed up consume()", "Make it static.")
    blob = git(repo, "format-patch", "-1", "--stdout", "HEAD")
    res = run(["--select", "RB201", "--format", "terse", "-"], stdin=blob)
    n = line_of(blob, b"Subject: [PATCH] foo: speed up consume()")
    assert res.stdout.startswith(f"-:{n}: WARNING:RB201: the subject claims a speed-up")
    text_out = run(["--select", "RB201", "-"], stdin=blob).stdout
    assert f"#{n}: \nSubject: [PATCH] foo: speed up consume()\n" in text_out


def _crashing_rule(repo: Path) -> tuple[Path, bytes]:
    """A rules folder whose one rule (RB903) raises on any patch, and a clean patch of ``repo`` to give it."""
    rules = repo.parent / "crashrules"
    rules.mkdir()
    crash = OWN_RULE.replace("RB901", "RB903").replace("todo-without-owner", "crash-on-any-patch")
    crash = crash.replace("    for fd in patch.files:", "    raise RuntimeError('boom')\n    for fd in patch.files:")
    (rules / "rb903_crash.py").write_text(crash)
    return rules, git(repo, "format-patch", "-1", "--stdout", "HEAD~2")


def test_crashing_rule_is_reported_and_fails(repo: Path) -> None:
    rules, blob = _crashing_rule(repo)
    res = run(["--rules-dir", str(rules), "-"], stdin=blob)
    assert res.exit_code == 1
    assert "ERROR:RB903: rule crashed on this patch: RuntimeError: boom\n" in res.stdout
    assert "total: 1 error, 0 warnings, 0 checks" in res.stdout
    doc = json.loads(run(["--rules-dir", str(rules), "--format", "json", "-"], stdin=blob).stdout)
    assert [(x["rule"], x["error"]) for x in doc["failures"]] == [("RB903", "RuntimeError: boom")]
    sarif = json.loads(run(["--rules-dir", str(rules), "--format", "sarif", "-"], stdin=blob).stdout)
    validate_sarif(sarif)
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    (b4,) = json.loads(run(["--rules-dir", str(rules), "--format", "b4", "-"], stdin=blob).stdout)
    assert (b4["status"], b4["summary"]) == ("fail", "1 error")


def test_crash_line_in_the_log_format_when_logging_waited(repo: Path) -> None:
    """`check` configures logging at its first record (cli.LAZY_LOGGING): that record is still a line of
    reviewbot's (`reviewbot: error: ...`, no timestamp or logger name without -v), not the bare text of an
    unconfigured logging."""
    import re

    rules, blob = _crashing_rule(repo)
    proc = subprocess.run(
        [*reviewbot_exe(), "check", "--rules-dir", str(rules), "-"], input=blob, capture_output=True, cwd=repo
    )
    assert proc.returncode == 1
    line = r"reviewbot: error: rule RB903 crashed on .*: RuntimeError: boom"
    assert re.fullmatch(line, proc.stderr.decode().strip())


def test_maildir_input(isolated_env: Path) -> None:
    box = isolated_env / "Mail"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    mail = box / "new" / "1700000000.1.host"
    mail.write_bytes(corpus_message(UNCOMMENTED).split(b"\n", 1)[1])
    res = run(["--format", "json", str(box)])
    assert res.exit_code == 1
    (f,) = [f for f in json.loads(res.stdout)["findings"] if f["rule"] == "RB102"]
    assert (f["input"], f["file"]) == (str(mail), "io_uring/io_uring.c")
    assert mail.read_bytes().split(b"\n")[f["input_line"] - 1] == b"+\t\tsmp_mb();"


@pytest.mark.slow
@pytest.mark.shared
def test_whole_corpus_json_and_sarif_validate(isolated_env: Path) -> None:
    """Every real patch of the corpus mbox in one run: both machine formats stay valid."""
    from reviewbot.checking import run_check
    from reviewbot.config import load_settings
    from reviewbot.report import render

    result = run_check([str(MBOX)], load_settings())
    assert result.problems == ()
    assert len(result.patches) > 1400 and result.skipped > 2000
    doc = json.loads(render(result, "json"))
    validate_json_report(doc)
    lines = MBOX.read_bytes().split(b"\n")
    located = [f for f in doc["findings"] if f["input_line"] is not None and f["rule"] == "RB102"]
    assert len(located) > 100
    assert all(lines[f["input_line"] - 1].startswith(b"+") for f in located)
    validate_sarif(json.loads(render(result, "sarif")))


# ------------------------------------------------------------------ issue 12: flags, strict, crashes


def test_select_flag_beats_configured_ignore(repo: Path) -> None:
    blob = git(repo, "format-patch", "-1", "--stdout", "HEAD~1")
    (repo / ".reviewbot.toml").write_text('ignore = ["RB102"]\n')
    assert run(["-"], stdin=blob).exit_code == 0
    res = run(["--select", "RB102", "--format", "json", "-"], stdin=blob)
    assert res.exit_code == 1
    assert [f["rule"] for f in json.loads(res.stdout)["findings"]] == ["RB102"]
    # both flags: the command line says it all
    assert run(["--select", "RB102", "--ignore", "RB102", "-"], stdin=blob).exit_code == 0


def test_strict_exits_by_the_findings_it_prints(repo: Path) -> None:
    """A cover letter's numbers answer RB201: without --strict nothing is printed (0); with --strict the
    finding is printed as CHECK, and the exit status says so (1), unless --fail-on says otherwise."""
    files = _perf_series(repo, repo.parent / "s3", "Lookup loop: 120 ns before, 80 ns after (-33%).")
    args = ["--select", "RB201", *map(str, files)]
    assert run(args).exit_code == 0
    strict = run(["--strict", *args])
    assert "CHECK:RB201: " in strict.stdout
    assert strict.exit_code == 1
    assert run(["--strict", "--fail-on", "warning", *args]).exit_code == 0


def test_an_internal_error_is_exit_2_with_one_line(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any exception the command did not expect: one line asking for a report, exit 2 (never 1, findings)."""
    import reviewbot.checking

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(reviewbot.checking, "run_check", broken)
    res = run(["--git", "HEAD"])
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == (
        "reviewbot check: internal error (KeyError: 'boom'); this is a bug in reviewbot, please report it with the "
        "input that caused it (run with -vv for the traceback)\n"
    )


@pytest.mark.parametrize("command", [["show", "<x@example.org>"], ["draft"]])
def test_commands_that_read_a_database_refuse_a_missing_one(
    isolated_env: Path, command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mistyped --db is an error naming it, and no empty database is created in its place; also on a
    machine where git knows no identity (a new user's: draft named the identity first)."""
    empty = isolated_env / "empty.gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(isolated_env)
    missing = isolated_env / "reviewbot-typo.db"
    res = CliRunner().invoke(
        main,
        [*command, "--db", str(missing), "--outbox", str(isolated_env / "out")]
        if command == ["draft"]
        else [*command, "--db", str(missing)],
    )
    assert res.exit_code == 2
    assert f"{missing}: no such database" in res.stderr
    assert not missing.exists()


def test_a_hunk_header_counting_too_many_lines_is_named_plainly(repo: Path) -> None:
    """A new user's cut-off hunk: the @@ header counts more lines than the hunk holds, so the parser reads on into
    the signature. The error says so (not only unidiff's "longer than expected") and names the patch by its
    subject: a format-patch file has no Message-ID, and the one made up for it means nothing to its author."""
    patch = git(repo, "format-patch", "-1", "--stdout", "HEAD~1").decode()
    header = next(line for line in patch.split("\n") if line.startswith("@@ "))
    old, new = header.split(" ")[1:3]
    start, count = new[1:].split(",")
    cut = patch.replace(header, header.replace(f"{old} {new}", f"{old} +{start},{int(count) + 2}"), 1)
    (repo / "cut.patch").write_text(cut)
    res = run(["cut.patch"])
    assert res.exit_code == 2
    assert "patch '[PATCH] foo: order the value before ready': malformed diff in kernel/foo.c:" in res.stderr
    assert "its @@ header counts more lines than the hunk holds" in res.stderr
    assert "reviewbot.invalid" not in res.stderr
