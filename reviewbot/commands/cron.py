"""``reviewbot cron LIST``: the unattended job (scan from the stored cursor to today, then draft).

The scan goes day by day and moves the cursor after each final day, so a
long catch-up that is stopped resumes after the last finished day. Ctrl-C
exits with status 130 (``ExitStatus.INTERRUPTED``) and one line.

Quiet when there is nothing new (cron mails any output); a short summary
otherwise. A second run while one is running exits 0 with one line saying so.
Exit status 3 when some archive pages failed (they are retried next run).
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import click

from reviewbot.commands import fail
from reviewbot.commands.draft import (
    load_all_rules,
    lore_completer,
    lore_options,
    now_from_env,
    progress_printer,
    settings_from,
    summary_lines,
)
from reviewbot.status import ExitStatus, exit_status_for


CRONTAB_TIME = "17 * * * *"  # once an hour, off the full hour most jobs start at


def executable() -> list[str]:
    """How to start this install of reviewbot with no PATH: the ``reviewbot`` script beside the running
    Python (a venv's bin/), else that Python with ``-m reviewbot``."""
    import sys

    python = Path(sys.executable)
    script = python.parent / "reviewbot"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script.absolute())]
    return [str(python.absolute()), "-m", "reviewbot"]


def crontab_line(ctx: click.Context) -> str:
    """The crontab line that runs this very command from cron's bare environment (PATH=/usr/bin:/bin, no
    venv): the full path of the install, LIST and every option given (paths absolute), quoted for sh."""
    import shlex

    words = [*executable(), "cron", ctx.params["list_name"]]
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name in ("print_crontab", "verbose"):
            continue
        value = ctx.params.get(param.name or "")
        if value is None or value is False or value == () or value == param.default:
            continue
        flag = max(param.opts, key=len)
        if param.is_flag:
            words.append(flag)
            continue
        for item in value if param.multiple else (value,):
            words += [flag, str(Path(item).expanduser().absolute()) if isinstance(item, Path) else str(item)]
    # the settings this shell gave in the environment (REVIEWBOT_DB, REVIEWBOT_CONFIG, ...): cron's bare
    # environment has none of them, so the line sets them (paths absolute) or the job used another database
    env = [f"{var}={_env_value(var)}" for var in ENV_SETTINGS if os.environ.get(var)]
    # cron reads an unescaped % as the end of the command
    return f"{CRONTAB_TIME}  {shlex.join([*env, *words])}".replace("%", "\\%")


#: Environment variables that hold settings (reviewbot.config), carried into the crontab line.
ENV_SETTINGS = (
    "REVIEWBOT_CONFIG",
    "REVIEWBOT_DB",
    "REVIEWBOT_CACHE_DIR",
    "REVIEWBOT_CONTACT",
    "REVIEWBOT_BASE_URL",
    "REVIEWBOT_LORE_URL",
)


def _env_value(var: str) -> str:
    value = os.environ[var]
    if var in ("REVIEWBOT_CONFIG", "REVIEWBOT_DB", "REVIEWBOT_CACHE_DIR"):
        return str(Path(value).expanduser().absolute())
    return value


@click.command("cron")
@click.argument("list_name", metavar="LIST")
@click.option("--base-url", metavar="URL", help="Archive base URL [default: https://lists.openwall.net].")
@click.option("--since", metavar="YYYY-MM-DD", help="First day when there is no cursor yet [default: 7 days ago].")
@click.option("--outbox", type=click.Path(file_okay=False, path_type=Path), help="Folder for the .eml drafts.")
@click.option(
    "--maildir", type=click.Path(file_okay=False, path_type=Path), help="Also put drafts into this Maildir folder."
)
@click.option(
    "--maintainers",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A MAINTAINERS file to complete obfuscated addresses.",
)
@click.option(
    "--addresses-from",
    "addresses_from",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="Mail files (mbox, Maildir, .eml) whose full addresses may complete obfuscated ones (repeatable).",
)
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), help="The database [config db-path].")
@click.option(
    "--cache-dir",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Root of the archive host's cached pages [~/.cache/reviewbot/archive/HOST].",
)
@click.option(
    "--rate",
    default=None,
    type=click.FloatRange(min=0),
    metavar="N",
    help="Requests per second (0: no limit) [config rate, 1].",
)
@click.option("--offline", is_flag=True, help="Use the page cache only, no network.")
@click.option(
    "--source",
    type=click.Choice(["openwall", "lore"]),
    default="openwall",
    show_default=True,
    help="Follow the archive's pages (openwall) or the list's public-inbox git epochs (lore).",
)
@lore_options
@click.option("-v", "--verbose", count=True, help="Log more (-v: each request, -vv: debug); as `reviewbot -v`.")
@click.option(
    "--print-crontab",
    is_flag=True,
    help="Print the crontab line for this command instead of running it: this install's full path (cron's "
    "PATH has no venv) and the other options as given, paths made absolute.",
)
@click.pass_context
def command(
    ctx: click.Context,
    list_name: str,
    base_url: str | None,
    since: str | None,
    outbox: Path | None,
    maildir: Path | None,
    maintainers: Path | None,
    addresses_from: tuple[Path, ...],
    db: Path | None,
    cache_dir: Path | None,
    rate: float | None,
    offline: bool,
    source: str,
    lore_url: str | None,
    no_lore: bool,
    verbose: int,
    print_crontab: bool,
) -> None:
    """Scan LIST from the stored cursor to today, then draft replies (for crontab)."""
    if print_crontab:
        click.echo(crontab_line(ctx))
        return
    from reviewbot.cli import set_verbosity
    from reviewbot.cron import run_cron

    set_verbosity(max(verbose, int((ctx.obj or {}).get("verbose", 0))))
    from reviewbot.errors import ReviewbotError
    from reviewbot.fetch.openwall import validate_list_name
    from reviewbot.respond.draft import resolve_identity

    try:
        validate_list_name(list_name)
        start = date.fromisoformat(since) if since else None
    except ValueError:
        fail("cron", f"--since {since!r}: expected YYYY-MM-DD")
    except ReviewbotError as exc:
        fail("cron", exc)
    try:
        settings = settings_from(db, outbox, maildir, maintainers, base_url=base_url, list_name=list_name)
        settings = settings.with_(cache_dir=cache_dir, rate=rate)
        from reviewbot.config import require_cache_dir

        require_cache_dir(settings.cache_dir, offline, cache_dir)
        identity = resolve_identity(settings)
        rules = load_all_rules(settings)
        lore = lore_completer(settings, lore_url, no_lore)
        scan_fn = None
        if source == "lore":
            from reviewbot.fetch.lore import check_lore_url
            from reviewbot.scan_lore import scan_lore

            if lore_url:
                settings = settings.with_(lore_url=check_lore_url(lore_url))
            check_lore_url(settings.lore_url)

            def scan_fn(settings, list_name, start, _today, **kwargs):
                # up to the newest message: the epochs' cursors make every later run read only what arrived
                return scan_lore(settings, list_name, start, None, rules=rules, **kwargs)

        result = run_cron(
            settings,
            list_name,
            rules=rules,
            identity=identity,
            since=start,
            now=now_from_env(),
            offline=offline,
            addresses_from=addresses_from,
            real_headers=lore,
            scan_fn=scan_fn,
            draft_progress=progress_printer("cron"),
        )
    except KeyboardInterrupt as exc:
        fail(
            "cron",
            "interrupted; what was stored stays, the cursor is at the last finished "
            "day and the next run resumes after it",
            exit_status_for(exc),
        )
    except ReviewbotError as exc:
        fail("cron", exc)
    lore_lines = lore.lines(result.drafts.incomplete) if lore is not None else []
    if lore is not None:
        lore.close()
    if result.locked:
        click.echo(f"reviewbot cron: another run holds {settings.db_path.name}.lock; nothing done")
        return
    scan = result.scan
    failed = int(getattr(scan, "pages_failed", 0) or 0)
    if result.nothing_new and not failed:
        return
    # two counts of two sets, each named: the scan's are the findings on the patches of the days scanned now;
    # the drafting goes over every finding of the list in the database (a day scanned by `reviewbot scan`
    # or an earlier run included), those drafted or skipped by earlier runs among them
    findings = sum(getattr(scan, "findings_by_rule", {}).values()) if scan is not None else 0
    click.echo(
        f"reviewbot cron {list_name}: {result.since} .. {result.until}, "
        f"{getattr(scan, 'messages_stored', 0)} new message(s), {findings} finding(s) on the patches of these days"
    )
    for line in summary_lines(result.drafts, scope=f" of {list_name} in the database (every day, not only these)"):
        click.echo(line)
    for line in lore_lines:
        click.echo(line)
    if failed:
        click.echo(f"{failed} page(s) failed; they are retried on the next run")
        raise SystemExit(int(ExitStatus.PARTIAL_FAILURE))
