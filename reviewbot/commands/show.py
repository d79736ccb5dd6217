"""``reviewbot show MSGID``: one stored message, its findings, their state and the draft path."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from reviewbot.commands import fail
from reviewbot.commands.draft import existing_db, settings_from, state_and_reason

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.store import DraftRecord


@click.command("show")
@click.argument("msgid")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), help="The database [config db-path].")
@click.option("--body/--no-body", default=False, help="Also print the message body (not printed without it).")
def command(msgid: str, db: Path | None, body: bool) -> None:
    """Print the headers of message MSGID (with or without <>, or its archive URL), its findings, their state and
    draft; the body only with --body."""
    from reviewbot.errors import ReviewbotError
    from reviewbot.store import Store

    key = msgid.strip().strip("<>")
    try:
        settings = settings_from(db, None, None, None)
        with Store(existing_db(settings.db_path)) as store:
            key = store.message_id_for(msgid) or key
            stored = store.message_row(key)
            if stored is None:
                shown = key if "://" in key else f"<{key}>"  # an archive URL as given, a Message-ID in <>
                fail("show", f"{shown}: no such message in {settings.db_path}")
            findings = store.findings_for(key)
            drafts = store.drafts_for(key)
            skips = {f.fingerprint: store.skip_for(f.fingerprint) for f in findings}
            covering = {f.fingerprint: store.draft_for_fingerprint(f.fingerprint) for f in findings}
    except ReviewbotError as exc:
        fail("show", exc)
    from reviewbot.cli import terminal_safe as safe

    message = stored.message
    sender = safe(message.from_addr.name if message.from_addr else "")
    email = safe(message.from_addr.email if message.from_addr else "")
    click.echo(f"Message-ID: <{safe(key)}>")
    click.echo(f"Subject: {safe(message.subject.raw)}")
    click.echo(f"From: {sender} <{email}>" if sender else f"From: {email}")
    click.echo(f"Date: {safe(message.date_raw or (message.date.isoformat() if message.date else ''))}")
    if message.archive_url:
        click.echo(f"Archive: {safe(message.archive_url)}")
    if stored.shipped:
        click.echo("Read from: archive_cache/, the copy of real archive pages shipped with reviewbot (offline)")
    if stored.thread_id:
        click.echo(f"Thread: {safe(stored.thread_id)}")
    click.echo("")
    if not findings:
        click.echo("No findings.")
    for f in findings:
        where = f"{f.path}:{f.line}" if f.path else "commit message"
        state = f.state.value
        skip = skips.get(f.fingerprint)
        if skip is not None:
            state = state_and_reason(skip.state, skip.reason)
        click.echo(safe(f"{f.rule_id} {f.severity.value} {where}: {f.message}"))  # the finding quotes the mail
        draft = covering.get(f.fingerprint)
        if draft is not None and skip is None and f.state.value == "open":
            state = "drafted"  # as `reviewbot findings` says: a draft covers it
        click.echo(f"  state: {safe(state)}")
        if draft is not None:
            click.echo(f"  draft: {draft.path}{_gone(draft)}")
    undecided = [
        f
        for f in findings
        if f.state.value == "open" and skips.get(f.fingerprint) is None and covering.get(f.fingerprint) is None
    ]
    if undecided:  # the thread may still settle them: say where to see what a draft run would decide
        click.echo(
            f"open: no draft run has decided {'it' if len(undecided) == 1 else 'them'} yet; "
            f"`reviewbot draft --msgid '<{safe(key)}>' --dry-run` says whether a run drafts or skips "
            f"{'it' if len(undecided) == 1 else 'each'} and why"
        )
    for d in drafts:
        extra = "" if d.recipients_complete else " (recipients incomplete: see the note on top of the draft)"
        extra += _gone(d)
        click.echo(f"Draft <{d.message_id}>: {d.path}{extra}")
    if body:
        click.echo("")
        click.echo(safe(message.body, keep="\n\t"))


def _gone(draft: "DraftRecord") -> str:
    """A note when the draft's file was deleted by hand."""
    path = draft.path
    if path and not Path(path).exists():
        return f" (file deleted; `reviewbot draft --again '<{draft.in_reply_to}>'` writes it anew)"
    return ""
