"""``reviewbot explain RB102`` (or a rule name): print a rule's documentation and its examples."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from reviewbot.errors import ReviewbotError
from reviewbot.status import ExitStatus


def explain_text(rule) -> str:
    """The rule's header line, docstring, metadata and example file names, as printed."""
    meta = rule.meta
    lines = [
        f"{meta.id} {meta.name} ({meta.severity.value}, scope {meta.scope.value}, since {meta.since})",
        meta.summary,
        "",
        rule.doc.strip("\n"),
        "",
    ]
    if meta.references:
        lines.append("Metadata references:")
        lines += [f"  {ref}" for ref in meta.references]
    if rule.examples_dir is not None:
        files = sorted(p.name for p in rule.examples_dir.iterdir() if p.is_file())
        lines.append(f"Examples ({rule.examples_dir}):")
        lines += [f"  {name}" for name in files]
    else:
        lines.append("Examples: none shipped")
    return "\n".join(lines)


@click.command("explain")
@click.argument("rule_ref")
@click.option("--rules-dir", "rules_dirs", multiple=True, type=click.Path(path_type=Path, file_okay=False),
              help="Also load every *.py rule module in DIR (repeatable).")
def command(rule_ref: str, rules_dirs) -> None:
    """Print the documentation of RULE_REF (an id such as RB102, or a name)."""
    from reviewbot.registry import load_rules

    try:
        rules = load_rules(rules_dirs=rules_dirs)
    except ReviewbotError as exc:
        click.echo(f"reviewbot explain: {exc}", err=True)
        sys.exit(ExitStatus.USAGE)
    ref = rule_ref.strip()
    match = [r for r in rules if r.id == ref.upper() or r.name == ref.lower()]
    if not match:
        known = ", ".join(f"{r.id} ({r.name})" for r in rules)
        click.echo(f"reviewbot explain: no rule {ref!r}; known rules: {known}", err=True)
        sys.exit(ExitStatus.USAGE)
    click.echo(explain_text(match[0]))
