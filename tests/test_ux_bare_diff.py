"""A bare diff (`git diff`, `x.diff`, `git show`) is not encoded mail: findings carry `#N`, the input line."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from helpers import git
from reviewbot.cli import main

RULES = Path(__file__).resolve().parent.parent / "rules" / "examples"
# a real rule example: one dma_wmb() added without a comment (RB102)
EXAMPLE = RULES / "RB102" / "bad-device-barrier.patch"


def _diff_part() -> str:
    text = EXAMPLE.read_text()
    diff = text[text.index("diff --git ") :]
    return diff.split("\n-- \n")[0].rstrip("\n") + "\n"


def _input_line_of(text: str, needle: str) -> int:
    return text.splitlines().index(needle) + 1


def _check(args: list[str], stdin: str | None = None):
    return CliRunner().invoke(main, ["check", *args], input=stdin, catch_exceptions=False)


def test_diff_file_findings_carry_the_input_line(tmp_path: Path) -> None:
    diff = _diff_part()
    path = tmp_path / "x.diff"
    path.write_text(diff)
    want = _input_line_of(diff, "+\tdma_wmb();")
    res = _check([str(path)])
    assert res.exit_code == 1, res.output
    assert f"#{want}: FILE: drivers/net/baz/rx.c:" in res.output
    assert "encoded" not in res.output
    res = _check(["--format", "json", "-"], stdin=diff)
    report = json.loads(res.stdout)
    (patch,) = report["patches"]
    assert patch["notes"] == []
    (finding,) = report["findings"]
    assert finding["input_line"] == want


def test_git_show_output_findings_carry_the_input_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    src = repo / "rx.c"
    before = [ln[1:] for ln in _diff_part().splitlines() if ln[:1] in (" ", "-") and not ln.startswith("---")]
    src.write_text("".join(ln + "\n" for ln in before))
    ident = ["-c", "user.name=Ada", "-c", "user.email=ada@example.org"]
    git(repo, "add", "rx.c")
    git(repo, *ident, "commit", "-qm", "baz: first")
    after = before[:3] + ["\tdma_wmb();"] + before[3:]
    src.write_text("".join(ln + "\n" for ln in after))
    git(repo, *ident, "commit", "-qam", "baz: order the descriptor")
    for shown in (git(repo, "show", "HEAD").decode(), git(repo, "diff", "HEAD~1").decode()):
        want = _input_line_of(shown, "+\tdma_wmb();")
        res = _check(["-"], stdin=shown)
        assert res.exit_code == 1, res.output
        assert f"#{want}: FILE: rx.c:4:" in res.output
        assert "encoded" not in res.output
