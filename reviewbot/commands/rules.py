"""``reviewbot rules``: list the loaded review rules (id, name, severity, summary)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import click

from reviewbot.errors import ReviewbotError
from reviewbot.commands import fail


def rule_rows(rules) -> list[tuple[str, str, str, str, str]]:
    """(id, name, severity, origin, summary) per rule, in id order."""
    return [(r.id, r.name, r.meta.severity.value, r.origin, r.meta.summary) for r in rules]


def format_table(rows: Sequence[tuple[str, ...]], headers: tuple[str, ...]) -> list[str]:
    """Plain-text columns (the last column is not padded)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    out = []
    for row in (headers, *rows):
        cells = [c.ljust(widths[i]) for i, c in enumerate(row[:-1])] + [row[-1]]
        out.append("  ".join(cells).rstrip())
    return out


@click.command("rules")
@click.option(
    "--rules-dir",
    "rules_dirs",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Also load every *.py rule module in DIR (repeatable).",
)
@click.option("--select", multiple=True, help="Only these rules (ids, id prefixes such as RB1, or names).")
@click.option("--ignore", multiple=True, help="Leave these rules out (ids, prefixes or names).")
@click.option("--no-entry-points", is_flag=True, help="Do not load third-party rules from installed packages.")
def command(rules_dirs, select, ignore, no_entry_points: bool) -> None:
    """List the review rules: id, name, severity, where it comes from, summary."""
    from reviewbot.registry import load_rules

    try:
        rules = load_rules(rules_dirs=rules_dirs, select=select, ignore=ignore, entry_points=not no_entry_points)
    except ReviewbotError as exc:
        fail("rules", exc)
    rows = rule_rows(rules)
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table("id", "name", "severity", "origin", "summary")
        for row in rows:
            table.add_row(*row)
        Console().print(table)
        return
    for line in format_table(rows, ("ID", "NAME", "SEVERITY", "ORIGIN", "SUMMARY")):
        click.echo(line)
