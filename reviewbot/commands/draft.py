"""``reviewbot draft``: write one reply draft per patch that has open findings and no draft yet.

Drafts go to the outbox (``.eml`` files) and optionally a Maildir folder
(Draft flag). Findings someone in the thread already raised, or the author
already answered, get no draft; the reason is stored (``reviewbot show``).
Prints one line per draft and a summary; nothing is ever sent.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import click

from reviewbot.commands import fail


def existing_db(path: Path) -> Path:
    """``path`` when a database is there; a command that only reads one never creates it (a mistyped
    ``--db`` would otherwise give an empty new database and "nothing found")."""
    from reviewbot.errors import UsageError

    if not Path(path).is_file():
        raise UsageError(
            "no such database (run `reviewbot scan` first, or give --db the right file)", subject=str(path)
        )
    return path


def settings_from(
    db: Path | None,
    outbox: Path | None,
    maildir: Path | None,
    maintainers: Path | None,
    base_url: str | None = None,
    list_name: str | None = None,
) -> Any:
    """Settings from config files and environment, then these flags (None: unchanged)."""
    from reviewbot.config import load_settings

    settings = load_settings()
    return settings.with_(
        db_path=db,
        outbox_dir=outbox,
        maildir=maildir,
        maintainers=maintainers,
        base_url=base_url.rstrip("/") if base_url else None,
        list_name=list_name,
    )


def now_from_env() -> Any:
    """The fixed "now" of ``$REVIEWBOT_NOW`` or the system time (UTC)."""
    from reviewbot.context import clock_from_env

    return clock_from_env()()


def load_all_rules(settings: Any) -> Any:
    """The rules selected by the settings (``select``/``ignore``/``rules_dirs``)."""
    from reviewbot.registry import load_rules

    return load_rules(rules_dirs=settings.rules_dirs, select=settings.select, ignore=settings.ignore)


def _missing_count(draft: Any) -> str:
    """``"1 address"``/``"3 addresses"``: how many the note on top of an incomplete draft names."""
    from reviewbot.respond.draft import MISSING_NOTE

    note = draft.body.split("\n\n", 1)[0] if draft.body.startswith(MISSING_NOTE) else ""
    n = max(1, note.count("@...") + note.count("has no e-mail address") + note.count("has no From"))
    return f"{n} address" if n == 1 else f"{n} addresses"


def summary_lines(summary: Any, scope: str = "") -> list[str]:
    """Human lines for a :class:`reviewbot.respond.runner.DraftRunSummary`.

    One ``draft: PATH`` line per draft written, then a line of finding counts
    (the parts add up to the first number) and a line of draft counts, then
    one ``error:`` line per error. Dismissed and failed findings are shown
    only when there are some. ``scope`` follows the first number and says which
    findings it counts (``" of linux-kernel in the database ..."``).
    """
    out = []
    for w in summary.written:
        mark = (
            ""
            if w.draft.recipients_complete
            else f"  [recipients incomplete: {_missing_count(w.draft)} to add by hand, named at the top of the draft]"
        )
        points = f" ({'; '.join(w.points)})" if getattr(w, "points", ()) else ""
        out.append(f"draft: {w.path}{points}{mark}")
    parts = [
        f"{summary.drafted} drafted now",
        f"{summary.raised} skipped as already raised in the thread",
        f"{summary.answered} skipped as already answered by the author",
        f"{summary.applied} skipped as the patch is already applied",
    ]
    if summary.withdrawn:
        parts.append(f"{summary.withdrawn} skipped as the author withdrew the patch")
    if getattr(summary, "rejected", 0):
        parts.append(f"{summary.rejected} skipped as a maintainer or reviewer rejected the patch")
    if getattr(summary, "unsure", 0):
        parts.append(f"{summary.unsure} kept, not drafted: the thread may be settled (the reason is in `show`)")
    if getattr(summary, "moot", 0):
        parts.append(f"{summary.moot} skipped as the thread says it is already fixed elsewhere")
    if getattr(summary, "reviewed", 0):
        parts.append(f"{summary.reviewed} skipped as another person already reviewed the patch")
    if summary.backports:
        parts.append(f"{summary.backports} skipped as stable backports (they must match upstream)")
    if summary.not_for_merge:
        parts.append(f"{summary.not_for_merge} skipped on patches not meant to be merged ([DEBUG PATCH], [DNM])")
    if summary.superseded:
        parts.append(f"{summary.superseded} left to a newer revision or handled on an earlier one")
    if summary.dismissed:
        parts.append(f"{summary.dismissed} skipped as dismissed")
    if summary.not_asked:
        parts.append(f"{summary.not_asked} not asked (the rule says why, or a sibling patch has the same point)")
    if getattr(summary, "unsure_points", 0):
        parts.append(
            f"{summary.unsure_points} kept as findings: not sure a reviewer would send them (why: `show`; "
            "`draft --unsure` drafts them)"
        )
    if getattr(summary, "has_draft", 0):
        parts.append(f"{summary.has_draft} kept: the patch has a draft already (`draft --again ID` writes it anew)")
    if getattr(summary, "unusable", 0):
        parts.append(f"{summary.unusable} skipped as the patch's Message-ID cannot be used in a reply")
    if summary.failed:
        parts.append(f"{summary.failed} left for the next run after errors")
    parts.append(f"{summary.before} drafted or skipped by earlier runs")
    out.append(f"{summary.total} finding(s){scope}: " + ", ".join(parts))
    out.append(
        f"{summary.drafts} draft(s) written for the {summary.drafted} finding(s) drafted now, "
        f"{summary.incomplete} with incomplete recipients"
    )
    if getattr(summary, "sent", 0):
        out.append(
            f"{summary.sent} drafted finding(s) marked sent: your reply to the patch is in the thread "
            "(`reviewbot findings --state sent`)"
        )
    for err in summary.errors:
        out.append(f"error: {err}")
    # page text (subjects, Message-IDs in errors) must not reach the terminal as control characters
    from reviewbot.textsafe import shown

    return [shown(line) for line in out]


def finding_label(f: Any) -> str:
    """``RB102 drivers/foo/ring.c:45`` (``commit message`` for a finding on the changelog)."""
    where = f.path or "commit message"
    if f.path and f.line is not None:
        where += f":{f.line}"
    return f"{f.rule_id} {where}"


def state_and_reason(state: str, reason: str | None) -> str:
    """``raised: already asked in <...>``; a reason that starts with its state says it once
    (a dismissal is stored as ``dismissed: <why>``)."""
    reason = (reason or "").strip()
    if not reason:
        return state
    return reason if reason.startswith(f"{state}:") else f"{state}: {reason}"


def decision_lines(decisions: Any) -> list[str]:
    """--dry-run: one line per finding, what a real run would decide and why."""
    out = []
    for f, state, reason in decisions:
        what = f"would be drafted ({reason})" if state == "drafted" else f"no draft, {state_and_reason(state, reason)}"
        out.append(f"<{f.message_id}>: {finding_label(f)}: {what}")
    return out


def _dismissed(finding: Any, skip: Any) -> bool:
    from reviewbot.models import FindingState

    return finding.state is FindingState.DISMISSED or (skip is not None and skip.state == FindingState.DISMISSED.value)


def _again_has_findings(store: Any, message_id: str) -> bool:
    """True when ``draft --again`` has something to draft anew for the patch: a finding not dismissed."""
    return any(not _dismissed(f, store.skip_for(f.fingerprint)) for f in store.findings_for(message_id))


def why_no_draft(
    db_path: Path, message_id: str, named: str, *, show_file: bool = False, fallback: bool = True
) -> list[str]:
    """Why ``draft --msgid`` has nothing to draft for one patch, and what to do: its drafts (the file,
    printed when ``show_file`` and it exists) and ``--again`` (not when every finding is dismissed), or
    each skipped finding's state and reason. ``fallback``: say so when there is nothing of either."""
    from reviewbot.store import Store

    out: list[str] = []
    with Store(db_path) as store:
        drafts = store.drafts_for(message_id)
        skips = [(f, store.skip_for(f.fingerprint)) for f in store.findings_for(message_id)]
    live = [f for f, skip in skips if not _dismissed(f, skip)]
    arg = named if named.startswith(("http://", "https://")) else f"'<{message_id}>'"
    for d in drafts:
        path = Path(d.path or "")
        there = path.is_file()
        out.append(
            f"<{message_id}>: already drafted on {(d.created or '')[:10]}: {path}"
            + ("" if there else " (file deleted)")
        )
        if show_file and there:
            out.append(path.read_text(encoding="utf-8", errors="replace"))
    if drafts and live:
        out.append(
            f"nothing new to draft for it; `reviewbot draft --again {arg}` writes the draft anew "
            "(e.g. after its file was deleted)"
        )
    elif drafts:
        out.append(
            "nothing to draft for it: its findings are dismissed; delete the draft file by hand "
            "if it should not be sent"
        )
    for f, skip in skips:
        if skip is not None and skip.state:
            out.append(f"<{message_id}>: {finding_label(f)}: no draft, {state_and_reason(skip.state, skip.reason)}")
    if not out and fallback:
        out.append(f"<{message_id}>: no finding to draft (see `reviewbot show {arg}`)")
    from reviewbot.textsafe import shown

    return [shown(line, keep="\n\t") for line in out]  # a draft file printed whole keeps its lines


def summary_lines_dry(summary: Any) -> list[str]:
    """--dry-run: each finding's decision, then the errors (nothing is recorded)."""
    lines = decision_lines(summary.decisions) + [f"error: {err}" for err in summary.errors]
    from reviewbot.textsafe import shown

    return [shown(line) for line in lines]


def lore_options(func: Any) -> Any:
    """``--lore-url URL`` and ``--no-lore``: where the drafts' real addresses come from (draft and cron)."""
    func = click.option(
        "--no-lore",
        is_flag=True,
        help="Never ask lore for real addresses (obfuscated ones not completed otherwise are left out and named in the draft).",
    )(func)
    return click.option(
        "--lore-url",
        metavar="URL",
        help="public-inbox host giving the real headers of archived messages "
        "[config lore-url, https://lore.kernel.org].",
    )(func)


def lore_completer(settings: Any, lore_url: str | None, no_lore: bool) -> Any:
    """The drafter's lore hook for these flags (None: lookups off)."""
    from reviewbot.fetch.lore import AddressCompleter, check_lore_url, lore_enabled

    if no_lore:
        return None
    if lore_url:
        settings = settings.with_(lore_url=check_lore_url(lore_url))
    elif lore_enabled(settings):
        check_lore_url(settings.lore_url)
    return AddressCompleter.from_settings(settings)


def _check_rule_ids(rule_ids: tuple[str, ...], rules: Any) -> None:
    """``--rule`` names loaded rules: an unknown id (a typo) drafted nothing and exited 0."""
    from reviewbot.errors import UsageError

    known = sorted({r.meta.id for r in rules})
    for rule_id in rule_ids:
        if rule_id.upper() not in known:
            raise UsageError(
                f"no such rule (the rules: {', '.join(known)}; `reviewbot rules` lists them)",
                subject=f"--rule {rule_id}",
            )


def progress_printer(command: str) -> Any:
    """Lines on stderr saying what drafting is doing while it works, when a person watches (stderr is a
    terminal); None under cron and in pipes, where output is mailed or read as the result."""
    import sys

    if not sys.stderr.isatty():
        return None
    from reviewbot.textsafe import shown

    return lambda line: click.echo(f"reviewbot {command}: {shown(line)}", err=True)


def drafting_lock(settings: Any, dry_run: bool = False, command: str = "draft") -> Any:
    """The database's run lock while drafts are written or removed (none for --dry-run, which writes
    nothing): a cron run or another draft holding it is waited for, saying so, so no two runs write the
    same drafts."""
    import contextlib

    if dry_run:
        return contextlib.nullcontext(True)
    from reviewbot.cron import lock_path, run_lock

    lock = lock_path(settings)

    def waiting() -> None:
        click.echo(
            f"reviewbot {command}: another scan, cron or draft run holds {lock}; waiting for it to end "
            "(Ctrl-C to stop)",
            err=True,
        )

    return run_lock(lock, on_wait=waiting)


def _date(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        fail("draft", f"--since {value!r}: expected YYYY-MM-DD")


@click.command("draft")
@click.option("--list", "list_name", metavar="LIST", help="Only patches of this list (e.g. linux-kernel).")
@click.option("--since", metavar="YYYY-MM-DD", help="Only patches that arrived on or after this day.")
@click.option(
    "--outbox", type=click.Path(file_okay=False, path_type=Path), help="Folder for the .eml drafts [config outbox-dir]."
)
@click.option(
    "--maildir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also put drafts into this Maildir folder (Draft flag).",
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
@click.option("--msgid", metavar="ID", help="Draft only this patch (Message-ID or archive URL).")
@click.option("--rule", "rule_ids", multiple=True, metavar="ID", help="Only findings of this rule (repeatable).")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the drafts instead of writing them and, per finding, what a real run would decide and why (drafted, raised or answered in <Message-ID>, applied, dismissed); nothing is written or recorded.",
)
@click.option("--again", metavar="ID", help="Write the draft for this patch anew (e.g. its file was deleted).")
@click.option(
    "--unsure",
    is_flag=True,
    help="Also draft the points a rule is not sure a reviewer would send (a speed claim without numbers, a request "
    "for a pairing comment, a reorder with no cache-line map); by default they stay findings [config draft-unsure]. "
    "Read each before sending.",
)
@lore_options
def command(
    list_name: str | None,
    since: str | None,
    outbox: Path | None,
    maildir: Path | None,
    maintainers: Path | None,
    addresses_from: tuple[Path, ...],
    db: Path | None,
    msgid: str | None,
    rule_ids: tuple[str, ...],
    dry_run: bool,
    again: str | None,
    unsure: bool,
    lore_url: str | None,
    no_lore: bool,
) -> None:
    """Draft replies for patches with open findings (one per patch; never sends mail)."""
    from reviewbot.errors import ReviewbotError
    from reviewbot.config import user_config_path
    from reviewbot.respond.draft import resolve_identity
    from reviewbot.respond.runner import draft_pending
    from reviewbot.store import Store

    if again is not None and dry_run:
        fail("draft", "--again writes the draft anew; preview a patch's pending draft with --msgid ID --dry-run")
    try:
        settings = settings_from(db, outbox, maildir, maintainers)
        if list_name is not None:
            from reviewbot.fetch.openwall import validate_list_name

            validate_list_name(list_name)
        db_path = existing_db(settings.db_path)  # a mistyped --db is named before a missing identity
        try:
            identity = resolve_identity(settings)
        except ReviewbotError:
            if not dry_run:
                raise
            # a preview writes no mail: show it with a stand-in sender rather than refuse (a new user
            # looks before configuring); the note says what a real run needs
            from reviewbot.models import Address

            identity = Address("Your Name", "you@example.invalid")
            click.echo(
                "reviewbot draft: note: no identity for drafts yet: the preview's From is a stand-in; set "
                f"[identity] name/email in {user_config_path()}, or git config user.name + user.email",
                err=True,
            )
        rules = load_all_rules(settings)
        _check_rule_ids(rule_ids, rules)
        now = now_from_env()
        lore = lore_completer(settings, lore_url, no_lore)
        with drafting_lock(settings, dry_run), Store(db_path) as store:
            only = None
            for key in (again, msgid):
                if key is None:
                    continue
                only = store.message_id_for(key)
                if only is None:
                    fail("draft", f"{key}: no such message in {settings.db_path}")
            if again is not None and only is not None:
                if not _again_has_findings(store, only):
                    # every finding is dismissed: nothing would be drafted anew, so the draft record
                    # (and its file) is kept, not forgotten while the .eml stays in the outbox
                    for line in why_no_draft(settings.db_path, only, again):
                        click.echo(line)
                    return
                store.forget_drafts_of(only)
            summary = draft_pending(
                store,
                rules=rules,
                identity=identity,
                list_address=settings.list_address,
                outbox=settings.outbox_dir,
                list_name=list_name,
                since=_date(since),
                maildir=settings.maildir,
                maintainers=settings.maintainers,
                clock=lambda: now,
                addresses_from=addresses_from,
                only=only,
                rule_ids=rule_ids,
                dry_run=dry_run,
                real_headers=lore,
                progress=progress_printer("draft"),
                unsure=unsure or settings.draft_unsure,
            )
    except ReviewbotError as exc:
        fail("draft", exc)
    if dry_run:
        for data in summary.previews:
            click.echo(data.decode("utf-8", errors="replace"))
        for line in summary_lines_dry(summary):
            click.echo(line)
        if only is not None:  # what earlier runs decided for it (its draft file, skips, dismissals)
            for line in why_no_draft(
                settings.db_path, only, msgid or only, show_file=not summary.previews, fallback=not summary.decisions
            ):
                click.echo(line)
        click.echo(f"{len(summary.previews)} draft(s) shown, nothing written (--dry-run)")
        return
    if only is not None and not summary.written and not summary.findings:  # nothing pending for it: say why
        for line in why_no_draft(settings.db_path, only, msgid or again or only):
            click.echo(line)
        return
    for line in summary_lines(summary):
        click.echo(line)
    if lore is not None:
        for line in lore.lines(summary.incomplete):
            click.echo(line)
        lore.close()
