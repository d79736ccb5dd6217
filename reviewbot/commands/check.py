"""``reviewbot check``: check patches before sending them, the way checkpatch.pl is run.

Exit status (``reviewbot.status.ExitStatus``): 0 clean, 1 a finding at or
above ``--fail-on`` (or a rule crashed; with ``--strict`` any finding it
prints), 2 usage error, an input that cannot be read (the message names the
file and what was wrong) or an internal error (one line asking for a report,
never a traceback and never 1, which CI reads as findings).

Only the standard library, click, the parser and the engine are imported on
this path: no HTTP, HTML or SQLite stack (a test watches ``sys.modules``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from reviewbot.report import FORMATS
from reviewbot.commands import fail
from reviewbot.status import ExitStatus, exit_status_for


def _split_ids(values: tuple[str, ...]) -> tuple[str, ...] | None:
    """``--select RB101,RB102 --select RB201`` -> ("RB101", "RB102", "RB201"); None when not given."""
    if not values:
        return None
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _one_line(message: str) -> str:
    """``message`` with control characters (a NUL, a vertical tab or CR from a hostile input) escaped,
    so every problem stays one line on the terminal."""
    from reviewbot.textsafe import shown

    return shown(message)


def _fail(message: str, status: ExitStatus | None = None) -> NoReturn:
    fail("check", _one_line(message), status)


@click.command("check")
@click.argument("paths", nargs=-1, metavar="[PATHS]... [-]")
@click.option(
    "--git", "git_range", metavar="REV-RANGE", help="Check `git format-patch --stdout REV-RANGE` (e.g. HEAD~3..)."
)
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
@click.option(
    "--strict/--no-strict",
    default=None,
    help="Also report CHECK-level findings, as checkpatch --strict (and exit 1 on them).",
)
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
@click.option(
    "--btf",
    type=click.Path(path_type=Path),
    default=None,
    help="Type information (BTF blob, vmlinux/.o, or a directory of -g objects of one build) for RB101's "
    "cache-line maps [config btf; default: no map].",
)
@click.option(
    "-v", "--verbose", count=True, help="Log more (-vv: debug, and an internal error's traceback); as `reviewbot -v`."
)
@click.pass_context
def command(
    ctx: click.Context,
    paths: tuple[str, ...],
    git_range: str | None,
    fmt: str,
    fail_on: str | None,
    strict: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    rules_dirs: tuple[Path, ...],
    quiet: bool,
    btf: Path | None,
    verbose: int,
) -> None:
    """Check patch files, a directory of them, an mbox series, stdin (-) or a git range.

    A saved lists.openwall.net message page (.html) is checked as the mail it
    shows; a reply (Re:) or a saved index page of the archive is not a patch:
    a note, exit status 0.

    \b
    Examples:
      git format-patch -3 -o out/ && reviewbot check out/
      git format-patch -1 --stdout | reviewbot check -
      reviewbot check --git origin/master..
      reviewbot check --format sarif 0001-*.patch > reviewbot.sarif

    Settings come from .reviewbot.toml or [tool.reviewbot] in pyproject.toml
    (found upward from the current directory) and the user config; flags win.

    A bare diff (git diff, git show, diff -u output) is checked as
    checkpatch.pl checks it: the diff rules run, the commit-message rules do not.

    Exit status: 0 clean, 1 a finding at or above --fail-on (or a rule
    crashed; with --strict, any finding printed), 2 usage error, an input
    that cannot be read, or an internal error.
    """
    if verbose:  # `reviewbot check -vv` as `reviewbot -vv check` (the error below tells users to run it so)
        from reviewbot.cli import set_verbosity

        set_verbosity(max(verbose, int((ctx.obj or {}).get("verbose", 0))))
    if not paths and not git_range:
        _fail("nothing to check: give patch files, a directory, '-' for stdin, or --git REV-RANGE")
    try:
        _check(paths, git_range, fmt, fail_on, strict, select, ignore, rules_dirs, quiet, btf)
    except (SystemExit, KeyboardInterrupt, click.exceptions.Exit, click.ClickException):
        raise
    except BrokenPipeError:  # `reviewbot check ... | head`: the reader left; reviewbot.cli ends it quietly
        raise
    except Exception as exc:  # a bug: exit 2 (1 means findings), one line, never a traceback
        from reviewbot.lazylog import get_logger

        get_logger(__name__).debug("internal error", exc_info=True)
        _fail(
            f"internal error ({exc.__class__.__name__}: {str(exc)[:200]}); this is a bug in reviewbot, please "
            "report it with the input that caused it (run with -vv for the traceback)",
            exit_status_for(exc),
        )


def _check(
    paths: tuple[str, ...],
    git_range: str | None,
    fmt: str,
    fail_on: str | None,
    strict: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    rules_dirs: tuple[Path, ...],
    quiet: bool,
    btf: Path | None = None,
) -> None:
    from reviewbot.checking import parse_threshold, run_check
    from reviewbot.config import load_settings
    from reviewbot.errors import ReviewbotError, RuleLoadError, UsageError
    from reviewbot.report import render

    try:
        settings = load_settings(project=True)  # the checked repository's own select/ignore/strict
        selected = _split_ids(select)
        ignored = _split_ids(ignore)
        if selected is not None and ignored is None:
            ignored = ()  # flags beat config files: --select is not cut down by a configured ignore
        settings = settings.with_(
            strict=strict,
            fail_on=fail_on.lower() if fail_on else None,
            select=selected,
            ignore=ignored,
            rules_dirs=(*settings.rules_dirs, *rules_dirs) if rules_dirs else None,
            btf=btf,
        )
        if settings.btf is not None and not (settings.btf.is_file() or settings.btf.is_dir()):  # RB101's maps
            raise UsageError(
                f"btf = {str(settings.btf)!r}: no such file (a BTF blob, a vmlinux/.o, or a directory of .o files)"
            )
        threshold = parse_threshold(settings.fail_on)
        if settings.strict and fail_on is None and settings.fail_on == "warning":
            # --strict prints CHECK findings too; the exit status follows what is printed
            threshold = parse_threshold("check")
        run = run_check(list(paths), settings, git_range=git_range, cwd=Path.cwd())
    except RuleLoadError as exc:
        _fail(f"cannot load rules: {exc}")
    except (UsageError, ReviewbotError) as exc:
        _fail(str(exc))

    output = render(run, fmt, quiet=quiet)
    if output:
        click.echo(output, nl=False)
    for problem in run.problems:
        click.echo(f"reviewbot check: {_one_line(str(problem))}", err=True)
    if run.problems:
        sys.exit(int(ExitStatus.USAGE))
    sys.exit(int(ExitStatus.FINDINGS if run.fails(threshold) else ExitStatus.OK))
