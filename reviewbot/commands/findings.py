"""``reviewbot findings``: the stored findings, where they stand, and their draft files."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import click

from reviewbot.commands import fail
from reviewbot.commands.draft import settings_from, state_and_reason

from reviewbot.models import FindingState
from reviewbot.respond.runner import SKIP_STATES

#: every state the listing prints (the finding's own, drafted, and each a draft run records), so each
#: can be asked for
STATES = tuple(dict.fromkeys((*(s.value for s in FindingState), "drafted", *SKIP_STATES)))


@click.command("findings")
@click.option(
    "--state",
    type=click.Choice(STATES),
    help="Only findings in this state; `open` means the point still stands: not drafted yet, or "
    "drafted (the draft is in the outbox, maybe not sent) and not dismissed.",
)
@click.option("--rule", metavar="ID", help="Only findings of this rule (e.g. RB102).")
@click.option("--since", metavar="YYYY-MM-DD", help="Only patches that arrived on or after this day.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text writes Message-IDs as in mail headers (<id@host>); json gives the bare id@host.",
)
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), help="The database [config db-path].")
def command(state: str | None, rule: str | None, since: str | None, fmt: str, db: Path | None) -> None:
    """List findings: Message-ID, date, rule, subject, state, draft file (fingerprint for `dismiss`)."""
    from reviewbot.errors import ReviewbotError
    from reviewbot.store import Store

    try:
        day = date.fromisoformat(since) if since else None
    except ValueError:
        fail("findings", f"--since {since!r}: expected YYYY-MM-DD")
    try:
        settings = settings_from(db, None, None, None)
        with Store(settings.db_path) as store:
            rows = store.finding_rows(state=state, rule=rule, since=day)
    except ReviewbotError as exc:
        fail("findings", exc)
    keys = (
        "fingerprint",
        "message_id",
        "day",
        "rule_id",
        "severity",
        "subject",
        "message",
        "where",
        "status",
        "open",
        "skip_reason",
        "draft",
    )
    if fmt == "json":
        click.echo(json.dumps([{k: getattr(r, k) for k in keys} for r in rows], indent=1, ensure_ascii=False))
        return
    from reviewbot.textsafe import shown  # a subject or Message-ID is the mail author's text: no ESC, BEL

    width = max([10, *(len(r.status) for r in rows)])  # "unsure-point" is wider than "open": one column
    for r in rows:
        click.echo(
            shown(
                f"{r.day}  {r.rule_id}  {(r.severity or '').upper():<7}  {r.status:<{width}} <{r.message_id}>  "
                f"{r.fingerprint}"
            )
        )
        click.echo(shown(f"    {r.subject}  ({r.where})"))
        if r.draft:
            click.echo(shown(f"    draft: {r.draft}" + ("" if Path(r.draft).exists() else " (file deleted)")))
        if r.skip_reason and (not r.draft or r.status == "dismissed"):
            # why it gets no draft; a dismissal's reason also when a draft was written before it
            click.echo(shown(f"    {state_and_reason(r.skip_state or r.status, r.skip_reason)}"))
    click.echo(f"{len(rows)} finding(s)")
