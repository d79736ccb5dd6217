"""``reviewbot scan LIST --since YYYY-MM[-DD]``: the main job.

Walks the lists.openwall.net archive (or a mirror given with ``--base-url``,
or only the cache with ``--offline``), stores messages and patches in the
SQLite database, runs the review rules and prints a summary table.
``--source lore`` reads the list from lore.kernel.org's git epochs instead
(or the public-inbox host of ``--lore-url``; see :mod:`reviewbot.scan_lore`).

Exit status (``reviewbot.status.ExitStatus``): 0 everything fetched, 3 some
pages failed (recorded in the database and retried first by the next run),
2 usage error or an unusable database/rule set, 130 interrupted (whatever was
stored so far stays; the next run resumes).
"""

from __future__ import annotations

import calendar
import re
import sys
from datetime import date
from pathlib import Path
from typing import NoReturn

import click

from reviewbot.commands import fail
from reviewbot.status import ExitStatus, exit_status_for

_DAY_RE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")


def parse_day(value: str, *, end: bool) -> date:
    """``YYYY-MM`` or ``YYYY-MM-DD`` -> a date (a month means its first day, or its last when ``end``).

    Raises click.BadParameter on anything else.
    """
    m = _DAY_RE.match(value.strip())
    if not m:
        raise click.BadParameter(f"{value!r} is not YYYY-MM or YYYY-MM-DD")
    year, month = int(m.group(1)), int(m.group(2))
    try:
        if m.group(3):
            return date(year, month, int(m.group(3)))
        day = calendar.monthrange(year, month)[1] if end else 1
        return date(year, month, day)
    except (ValueError, calendar.IllegalMonthError) as exc:
        raise click.BadParameter(f"{value!r}: {exc}") from exc


def _split_ids(values: tuple[str, ...]) -> tuple[str, ...] | None:
    if not values:
        return None
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _fail(message: str | BaseException, status: ExitStatus | None = None) -> NoReturn:
    fail("scan", message, status)


@click.command("scan")
@click.argument("list_name", metavar="LIST")
@click.option("--since", required=True, metavar="YYYY-MM[-DD]", help="First arrival day (a month: its first day).")
@click.option("--until", default=None, metavar="YYYY-MM[-DD]", help="Last arrival day (a month: its last day) [today].")
@click.option(
    "--base-url", default=None, metavar="URL", help="Archive host [config base-url, https://lists.openwall.net]."
)
@click.option(
    "--db",
    "db_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="SQLite database [config db-path, $REVIEWBOT_DB, ~/.local/share/reviewbot/reviewbot.db].",
)
@click.option(
    "--cache-dir",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Root of the archive host's cached pages [~/.cache/reviewbot/archive/HOST].",
)
@click.option("--offline", is_flag=True, help="Never use the network: read pages from the cache only.")
@click.option(
    "--rate",
    default=None,
    type=click.FloatRange(min=0),
    metavar="N",
    help="Requests per second (0: no limit) [config rate, 1].",
)
@click.option(
    "--all",
    "fetch_all",
    is_flag=True,
    help="Fetch every message (default: patches, and the replies of threads with findings).",
)
@click.option("--select", multiple=True, metavar="IDS", help="Only these rules (ids or names, comma-separated).")
@click.option("--ignore", multiple=True, metavar="IDS", help="Not these rules (ids or names, comma-separated).")
@click.option(
    "--source",
    type=click.Choice(["openwall", "lore"]),
    default="openwall",
    show_default=True,
    help="Read the archive's pages (openwall) or the list's public-inbox git epochs (lore).",
)
@click.option(
    "--lore-url",
    default=None,
    metavar="URL",
    help="public-inbox host for --source lore [config lore-url, https://lore.kernel.org].",
)
@click.option("-v", "--verbose", count=True, help="Log more (-v: each request, -vv: debug); as `reviewbot -v`.")
@click.pass_context
def command(
    ctx: click.Context,
    list_name: str,
    since: str,
    until: str | None,
    base_url: str | None,
    db_path: Path | None,
    cache_dir: Path | None,
    offline: bool,
    rate: float | None,
    fetch_all: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    source: str,
    lore_url: str | None,
    verbose: int,
) -> None:
    """Scan LIST of the archive for a range of days: store messages and patches, run the rules.

    Pages that cannot change any more (messages, attachments, days older
    than two days) come from the cache and are never fetched twice; a
    re-run of a finished range makes no request. Prints how many requests
    were made and a summary; exits 3 when some pages failed.
    """
    from reviewbot.cli import set_verbosity
    from reviewbot.config import load_settings, require_cache_dir
    from reviewbot.context import clock_from_env
    from reviewbot.errors import ReviewbotError, UsageError

    set_verbosity(max(verbose, int((ctx.obj or {}).get("verbose", 0))))
    try:
        clock = clock_from_env()
        first = parse_day(since, end=False)
        last = parse_day(until, end=True) if until else clock().date()
        settings = load_settings().with_(
            base_url=base_url,
            db_path=db_path,
            cache_dir=cache_dir,
            rate=rate,
            select=_split_ids(select),
            ignore=_split_ids(ignore),
            list_name=list_name,
            lore_url=lore_url.rstrip("/") if lore_url else None,
        )
        require_cache_dir(settings.cache_dir, offline, cache_dir)
        if source == "lore":
            _scan_lore(
                settings, list_name, first, parse_day(until, end=True) if until else None, offline=offline, clock=clock
            )
            return
        from reviewbot.fetch.lists import check_list_name

        check_list_name(settings, list_name, offline=offline)  # a typo is refused, not queued as failed pages
    except click.BadParameter as exc:
        _fail(exc.format_message())
    except UsageError as exc:
        _fail(exc)

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from reviewbot.cli import console
    from reviewbot.scan import scan

    err = console(stderr=True)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[day]}"),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
        transient=False,
    )
    task = progress.add_task(f"scan {list_name}", total=None, day="")

    def on_day(done: int, total: int, day: str) -> None:
        progress.update(task, completed=done, total=total, day=day)

    from reviewbot.cron import lock_path, run_lock

    try:
        with run_lock(lock_path(settings)) as held, progress:
            if not held:  # one run at a time per database, as for cron
                _fail(f"another scan or cron run holds {lock_path(settings)}; nothing done, run again when it ends")
            summary = scan(
                settings, list_name, first, last, fetch_all=fetch_all, offline=offline, progress=on_day, clock=clock
            )
    except KeyboardInterrupt as exc:
        _fail("interrupted; what was stored stays, the next run resumes", exit_status_for(exc))
    except ReviewbotError as exc:
        _fail(exc)

    _print_summary(summary, settings)
    if not summary.ok:
        click.echo(
            f"reviewbot scan: {summary.pages_failed} page(s) failed; they are recorded in "
            f"{settings.db_path} and retried first by the next run",
            err=True,
        )
        sys.exit(int(ExitStatus.PARTIAL_FAILURE))


def _scan_lore(settings, list_name: str, first: date, last: date | None, *, offline: bool, clock) -> None:
    """``--source lore``: read the list's git epochs (see reviewbot.scan_lore), print what was done."""
    from reviewbot.errors import ReviewbotError
    from reviewbot.scan_lore import scan_lore

    from reviewbot.fetch.lore import lore_enabled

    if not lore_enabled(settings):
        _fail(f"--source lore needs a lore URL (--lore-url or config lore-url; it is {settings.lore_url!r})")
    try:
        summary = scan_lore(settings, list_name, first, last, offline=offline, clock=clock)
    except KeyboardInterrupt as exc:
        _fail("interrupted; what was stored stays, the next run resumes", exit_status_for(exc))
    except ReviewbotError as exc:
        _fail(exc)
    for line in lore_summary_lines(summary):
        click.echo(line)
    if not summary.ok:
        click.echo(
            f"reviewbot scan: {summary.pages_failed} epoch(s) could not be brought up to date; "
            "the next run tries again",
            err=True,
        )
        sys.exit(int(ExitStatus.PARTIAL_FAILURE))


def lore_summary_lines(summary) -> list[str]:
    """Plain lines for a :class:`reviewbot.scan_lore.LoreScanSummary`."""
    until = summary.until.isoformat() if summary.until else "newest"
    out = [
        f"{summary.list_name} from {summary.lore_url}/{summary.inbox}/ (git epochs) {summary.since} .. {until}",
        f"  epochs read: {summary.epochs}",
        f"  git clones/fetches/probes over the network: {summary.git_operations} "
        f"({summary.git_new_objects} brought new objects)",
        f"  HTTP requests (manifest, robots.txt): {summary.http_requests}",
        f"  messages read from the clones: {summary.commits_read}",
        f"  messages stored (new): {summary.messages_stored}",
        f"  messages already stored: {summary.messages_skipped}",
        f"  patches checked: {summary.patches}",
    ]
    for rule_id, n in sorted(summary.findings_by_rule.items()):
        out.append(f"  findings {rule_id}: {n}")
    out.append(f"  findings total: {summary.findings}")
    if summary.rule_failures:
        out.append(f"  rule failures: {summary.rule_failures}")
    if summary.host_unreachable:
        out.append(f"note: {summary.lore_url} could not be reached; the clones already here were read")
    for what, why in summary.errors:
        out.append(f"error: {what}: {why}")
    for what, why in getattr(summary, "passed", ()):
        out.append(f"passed: {what}: {why}")
    return out


def _print_summary(summary, settings) -> None:
    from rich.table import Table

    from reviewbot.cli import console

    out = console(soft_wrap=True)
    mode = "all messages" if summary.fetch_all else "patches + replies of threads with findings"
    table = Table(title=f"{summary.list_name} {summary.since} .. {summary.until} ({mode})", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_row("days with mail", str(summary.days))
    table.add_row("pages fetched", str(summary.pages_fetched))
    table.add_row("pages from cache", str(summary.pages_from_cache))
    table.add_row("pages failed", str(summary.pages_failed))
    table.add_row("HTTP requests made", str(summary.requests))
    table.add_row("messages stored (new)", str(summary.messages_stored))
    table.add_row("messages already stored", str(summary.messages_skipped))
    table.add_row("patches checked", str(summary.patches))
    if summary.pages_recovered:
        table.add_row("pages recovered from the last run", str(summary.pages_recovered))
    if not summary.fetch_all:
        table.add_row("threads followed for replies", str(summary.threads_followed))
    for rule_id, n in sorted(summary.findings_by_rule.items()):
        table.add_row(f"findings {rule_id}", str(n))
    table.add_row("findings total", str(summary.findings))
    if summary.rule_failures:
        table.add_row("rule failures", str(summary.rule_failures))
    out.print(table)
    if summary.findings:
        from reviewbot.store import Store

        with Store(settings.db_path) as store:
            _print_findings(out, store.findings_in_range(summary.list_name, summary.since, summary.until))
    # an unreachable host is said once, by the warning when it was found ("... continuing from the cache
    # only"); the pages it left unread are counted in one line below (error_lines)
    if summary.pages_from_shipped:
        why = "host unreachable" if summary.host_unreachable else "offline"
        out.print(
            f"note: {summary.pages_from_shipped} of the pages from cache were read ({why}) from the copy of "
            "lists.openwall.net shipped with reviewbot in archive_cache/ (real June 2023 mail in blists pages, see its "
            f"README.md); their messages and findings are in {settings.db_path} like any others, marked as "
            "read from that copy",
            highlight=False,
            soft_wrap=True,
        )
    for line in error_lines(summary.errors):
        out.print(line, highlight=False, soft_wrap=True)
    out.print(f"{summary.requests} HTTP requests; database {settings.db_path}", highlight=False)


MAX_LISTED_FINDINGS = 30
MAX_LISTED_ERRORS = 20

#: errors of pages that were never tried because nothing could be read -> the compact reason
_NOT_CACHED = {
    "not in the cache (host unreachable)": "host unreachable and not cached",
    "not in the cache (offline)": "offline and not cached",
}


def error_lines(errors) -> list[str]:
    """Lines for the summary's failed pages: one compact line per "not cached" reason, then the others.

    ``errors``: (url, error) pairs. Pages missing because the host is down (or
    ``--offline``) all fail for one reason; they are said once with their count
    and URLs (a few, then how many more), not one line each.
    """
    lines: list[str] = []
    grouped: dict[str, list[str]] = {}
    other: list[tuple[str, str]] = []
    for url, error in errors:
        if error in _NOT_CACHED:
            grouped.setdefault(_NOT_CACHED[error], []).append(url)
        else:
            other.append((url, error))
    for reason, urls in grouped.items():
        shown = ", ".join(urls[:5]) + (f" and {len(urls) - 5} more" if len(urls) > 5 else "")
        noun = "page" if len(urls) == 1 else "pages"
        lines.append(f"{len(urls)} {noun} could not be read: {reason} ({shown})")
    for url, error in other[:MAX_LISTED_ERRORS]:
        lines.append(f"error: {url}: {error}")
    if len(other) > MAX_LISTED_ERRORS:
        lines.append(f"... and {len(other) - MAX_LISTED_ERRORS} more errors (see the pages table)")
    return lines


#: The scan's word for a finding no ``reviewbot draft`` run has decided yet (``reviewbot findings``: ``open``):
#: the scan has not run the drafter's checks of the thread, so it does not say the point stands.
UNDRAFTED = "undrafted"
UNDRAFTED_NOTE = (
    f"{UNDRAFTED}: no `reviewbot draft` run has looked at these yet (`reviewbot findings` lists them as open); "
    "draft writes a reply, or skips the point when the thread shows it already raised or answered or the "
    "patch applied, when a newer revision is stored, or keeps it a finding when the rule is not sure a "
    "reviewer would send it (unsure-point: a pairing-comment request, a speed claim; `draft --unsure` drafts "
    "those; `reviewbot draft --dry-run` says which)"
)


def scan_state(row) -> str:
    """What the scan's list says of a finding: where it stands as ``reviewbot findings`` says it (dismissed,
    drafted, or what a draft run or the rules decided: raised, answered, applied, superseded, ...), but
    :data:`UNDRAFTED` rather than ``open`` for one that no draft run has decided yet."""
    status = row.status or row.state
    return UNDRAFTED if status == "open" else status


def _print_findings(out, rows, title: str = "findings") -> None:
    """List findings (rule, state, subject, place, message), at most MAX_LISTED_FINDINGS.

    ``rows``: FindingLine values, as ``Store.findings_in_range`` gives them; the state is
    :func:`scan_state`'s, with a line saying what :data:`UNDRAFTED` means when one is listed.
    """
    if not rows:
        return
    listed = rows[:MAX_LISTED_FINDINGS]
    more = (
        f"... and {len(rows) - MAX_LISTED_FINDINGS} more; `reviewbot show MSGID` prints one patch's findings"
        if len(rows) > MAX_LISTED_FINDINGS
        else None
    )
    note = UNDRAFTED_NOTE if any(scan_state(row) == UNDRAFTED for row in listed) else None
    from rich.text import Text

    from reviewbot.textsafe import shown

    def cells(row) -> tuple[str, ...]:
        # a subject is the mail author's text: no ESC or BEL reaches the terminal, no [markup] is obeyed
        subject = shown(row.subject or row.message_id)
        return (f"{row.rule_id} {row.severity}", scan_state(row), subject, shown(row.where), shown(row.message))

    if not out.is_terminal:
        # pipes, files, cron mail: one plain line per finding, never wrapped or split inside words
        for row in listed:
            rule, state, subject, where, message = cells(row)
            click.echo(f"{rule} {state}  {subject}  {where}  {message}")
        for line in (more, note):
            if line:
                click.echo(line)
        return
    # a terminal: one finding per paragraph, wrapped between words (a table of five columns in 80 left each
    # a few characters and broke words and paths mid-way)
    out.print(Text(title, style="bold"))
    for row in listed:
        rule, state, subject, where, message = cells(row)
        out.print(Text(f"{rule} {state}  {subject}"))
        out.print(Text(f"    {where}: {message}"))
    for line in (more, note):
        if line:
            out.print(Text(line))
