"""``reviewbot check``: check patches before sending them, the way checkpatch.pl is run.

Exit status (``reviewbot.status.ExitStatus``): 0 clean, 1 a finding at or
above ``--fail-on`` (or a rule crashed), 2 usage error or an input that
cannot be read (the message names the file and what was wrong).

Only the standard library, click, the parser and the engine are imported on
this path: no HTTP, HTML or SQLite stack (a test watches ``sys.modules``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from reviewbot.report import FORMATS
from reviewbot.status import ExitStatus


def _split_ids(values: tuple[str, ...]) -> tuple[str, ...] | None:
    """``--select RB101,RB102 --select RB201`` -> ("RB101", "RB102", "RB201"); None when not given."""
    if not values:
        return None
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _fail(message: str, status: ExitStatus = ExitStatus.USAGE) -> NoReturn:
    click.echo(f"reviewbot check: {message}", err=True)
    sys.exit(int(status))


@click.command("check")
@click.argument("paths", nargs=-1, metavar="[PATHS]... [-]")
@click.option("--git", "git_range", metavar="REV-RANGE", help="Check `git format-patch --stdout REV-RANGE` (e.g. HEAD~3..).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: checkpatch layout; terse: one line per finding; json; sarif (2.1.0); b4 (per-patch check JSON).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "check"], case_sensitive=False),
    default=None,
    help="Lowest severity that makes the exit status 1 [config fail-on, default: warning].",
)
@click.option("--strict/--no-strict", default=None, help="Also report CHECK-level findings, as checkpatch --strict.")
@click.option("--select", multiple=True, metavar="IDS", help="Only these rules (ids or names, comma-separated).")
@click.option("--ignore", multiple=True, metavar="IDS", help="Not these rules (ids or names, comma-separated).")
@click.option(
    "--rules-dir",
    "rules_dirs",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Also load rule modules from DIR (repeatable).",
)
@click.option("-q", "--quiet", is_flag=True, help="No notes and verdicts; print nothing for a clean patch.")
def command(
    paths: tuple[str, ...],
    git_range: str | None,
    fmt: str,
    fail_on: str | None,
    strict: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    rules_dirs: tuple[Path, ...],
    quiet: bool,
) -> None:
    """Check patch files, a directory of them, an mbox series, stdin (-) or a git range.

    A saved lists.openwall.net message page (.html) is checked as the mail it
    shows; a reply (Re:) is not a patch: a note, exit status 0.

    \b
    Examples:
      git format-patch -3 -o out/ && reviewbot check out/
      git format-patch -1 --stdout | reviewbot check -
      reviewbot check --git origin/master..
      reviewbot check --format sarif 0001-*.patch > reviewbot.sarif

    Settings come from .reviewbot.toml or [tool.reviewbot] in pyproject.toml
    (found upward from the current directory) and the user config; flags win.

    Exit status: 0 clean, 1 a finding at or above --fail-on (or a rule
    crashed), 2 usage error or an input that cannot be read.
    """
    from reviewbot.checking import parse_threshold, run_check
    from reviewbot.config import load_settings
    from reviewbot.errors import ReviewbotError, RuleLoadError, UsageError
    from reviewbot.report import render

    if not paths and not git_range:
        _fail("nothing to check: give patch files, a directory, '-' for stdin, or --git REV-RANGE")
    try:
        settings = load_settings()
        settings = settings.with_(
            strict=strict,
            fail_on=fail_on.lower() if fail_on else None,
            select=_split_ids(select),
            ignore=_split_ids(ignore),
            rules_dirs=(*settings.rules_dirs, *rules_dirs) if rules_dirs else None,
        )
        threshold = parse_threshold(settings.fail_on)
        run = run_check(list(paths), settings, git_range=git_range, cwd=Path.cwd())
    except RuleLoadError as exc:
        _fail(f"cannot load rules: {exc}")
    except (UsageError, ReviewbotError) as exc:
        _fail(str(exc))

    output = render(run, fmt, quiet=quiet)
    if output:
        click.echo(output, nl=False)
    for problem in run.problems:
        click.echo(f"reviewbot check: {problem}", err=True)
    if run.problems:
        sys.exit(int(ExitStatus.USAGE))
    sys.exit(int(ExitStatus.FINDINGS if run.fails(threshold) else ExitStatus.OK))
