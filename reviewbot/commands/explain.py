"""``reviewbot explain RB102`` (or a rule name): print a rule's documentation and its example patches.

The documentation is the rule module's docstring with its reStructuredText
markup made readable in a terminal (````x```` -> ```x```, a paragraph's
trailing ``::`` -> ``:``). Then the names of the shipped examples, and one bad
and one good example: for a hunk-scoped rule the hunks of its diff (file
header, ``@@`` lines, the changed lines: not the whole mail), for a rule that
reads the whole patch mail its Subject and commit message, where such rules
look; the bad example also with what reviewbot reports on it (``.expected``).
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from reviewbot.errors import ReviewbotError
from reviewbot.commands import fail

EXAMPLE_LINES = 40  # lines of one example printed at most (then "[...]")
INDENT = "    "

_LITERAL_RE = re.compile(r"``(.+?)``")


def rst_to_text(doc: str) -> str:
    """The docstring ``doc`` with its RST-ish markup readable as plain text.

    ````x```` becomes ```x```; a line ending in ``::`` ends in ``:`` (a
    paragraph introducing a literal block), a line that is only ``::`` is
    dropped; runs of blank lines are collapsed to one.
    """
    out: list[str] = []
    for line in doc.split("\n"):
        line = _LITERAL_RE.sub(r"`\1`", line.rstrip())
        if line.strip() == "::":
            continue
        if line.endswith("::"):
            line = line[:-2].rstrip() + ":"
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return "\n".join(out).strip("\n")


def _pick_examples(examples_dir: Path) -> tuple[Path | None, Path | None]:
    """One bad and one good example patch: a same-named pair (``bad-X``/``good-X``) first."""
    patches = sorted(p for p in examples_dir.iterdir() if p.is_file() and p.suffix == ".patch")
    bad = {p.stem[len("bad-") :]: p for p in patches if p.stem.startswith("bad-")}
    good = {p.stem[len("good-") :]: p for p in patches if p.stem.startswith("good-")}
    for stem in sorted(bad):
        if stem in good:
            return bad[stem], good[stem]
    first = lambda d: d[sorted(d)[0]] if d else None  # noqa: E731
    return first(bad), first(good)


def _limit(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    if len(lines) > EXAMPLE_LINES:
        lines = lines[:EXAMPLE_LINES] + ["[...]"]
    return lines


def example_excerpt(path: Path, *, whole_message: bool) -> list[str]:
    """The part of the example patch ``path`` a reader needs: its hunks (``whole_message`` False:
    file headers, ``@@`` lines and diff lines) or its Subject and commit message (True).

    Parsed with reviewbot's own mail and patch readers; raises ReviewbotError
    (InputError/ParseError naming the file) when the example cannot be read.
    """
    from reviewbot.fetch.mailfiles import read_path
    from reviewbot.parse.mail import parse_message
    from reviewbot.parse.patch import parse_patch
    from reviewbot.respond.quote import file_header

    raw = next(iter(read_path(path)))
    patch = parse_patch(parse_message(raw))
    if whole_message:
        lines = [f"Subject: {' '.join(patch.subject.raw.split())}", ""]
        lines += patch.commit_message.strip("\n").split("\n")
        return _limit(lines)
    lines = []
    for fd in patch.files:
        lines += file_header(fd, fd.path)
        for hunk in fd.hunks:
            lines.append(hunk.header)
            lines += [line.raw for line in hunk.lines]
    return _limit(lines)


def _example_block(label: str, path: Path, *, whole_message: bool) -> list[str]:
    out = [f"{label} ({path.name}):", ""]
    try:
        out += [f"{INDENT}{line}".rstrip() for line in example_excerpt(path, whole_message=whole_message)]
    except ReviewbotError as exc:
        out.append(f"{INDENT}(cannot be shown: {exc})")
    expected = path.with_suffix(".expected")
    if expected.is_file():
        reports = [line for line in expected.read_text(encoding="utf-8").splitlines() if line.strip()]
        if reports:
            out += ["", "  reviewbot reports:"] + [f"{INDENT}{line}" for line in reports]
    out.append("")
    return out


def explain_text(rule) -> str:
    """What ``reviewbot explain`` prints: header line, summary, readable documentation, metadata
    references, the example file names, then one bad and one good example (see the module doc)."""
    meta = rule.meta
    lines = [
        f"{meta.id} {meta.name} ({meta.severity.value}, scope {meta.scope.value}, since {meta.since})",
        meta.summary,
        "",
        rst_to_text(rule.doc),
        "",
    ]
    if meta.references:
        lines.append("Metadata references:")
        lines += [f"  {ref}" for ref in meta.references]
        lines.append("")
    if rule.examples_dir is None:
        lines.append("Examples: none shipped")
        return "\n".join(lines)
    files = sorted(p.name for p in rule.examples_dir.iterdir() if p.is_file())
    lines.append(f"Examples ({rule.examples_dir}):")
    lines += [f"  {name}" for name in files]
    lines.append("")
    whole = meta.scope.value != "hunk"  # patch/series rules read the subject and commit message
    bad, good = _pick_examples(rule.examples_dir)
    if bad is not None:
        lines += _example_block("Bad example, reported", bad, whole_message=whole)
    if good is not None:
        lines += _example_block("Good example, not reported", good, whole_message=whole)
    return "\n".join(lines).rstrip("\n")


@click.command("explain")
@click.argument("rule_ref")
@click.option(
    "--rules-dir",
    "rules_dirs",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Also load every *.py rule module in DIR (repeatable).",
)
def command(rule_ref: str, rules_dirs) -> None:
    """Print the documentation and example patches of RULE_REF (an id such as RB102, or a name)."""
    from reviewbot.registry import load_rules

    try:
        rules = load_rules(rules_dirs=rules_dirs)
    except ReviewbotError as exc:
        fail("explain", exc)
    ref = rule_ref.strip()
    match = [r for r in rules if r.id == ref.upper() or r.name == ref.lower()]
    if not match:
        known = ", ".join(f"{r.id} ({r.name})" for r in rules)
        fail("explain", f"no rule {ref!r}; known rules: {known}")
    click.echo(explain_text(match[0]))
