"""``reviewbot dismiss FINGERPRINT|MSGID --reason TEXT``: a finding is wrong or not worth a reply, for good.

A dismissed finding is never drafted, on later runs nor on later revisions
of the patch (its fingerprint stays the same across versions, and a finding
on unchanged code of a new revision is matched to it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from reviewbot.commands import fail
from reviewbot.commands.draft import drafting_lock, settings_from


@click.command("dismiss")
@click.argument("key", metavar="FINGERPRINT|MSGID")
@click.option("--rule", metavar="ID", help="With a Message-ID: only that rule's findings.")
@click.option("--reason", required=True, help="Why (stored, shown by `show` and `findings`).")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), help="The database [config db-path].")
@click.option(
    "--maildir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The Maildir folder the drafts went to [config maildir]: a draft all of whose points are "
    "dismissed is taken out of it.",
)
def command(key: str, rule: str | None, reason: str, db: Path | None, maildir: Path | None) -> None:
    """Dismiss one finding (by fingerprint) or a patch's findings (by Message-ID or archive URL)."""
    from reviewbot.errors import ReviewbotError
    from reviewbot.store import Store

    if not reason.strip():
        fail("dismiss", "--reason must say why")
    try:
        settings = settings_from(db, None, maildir, None)
        from reviewbot.commands.draft import existing_db

        existing_db(settings.db_path)
        with drafting_lock(settings, command="dismiss"), Store(settings.db_path) as store:
            fingerprints: list[str] = []
            mid = None if "@" not in key and "/" not in key else store.message_id_for(key)
            if mid is not None:
                fingerprints = [
                    f.fingerprint for f in store.findings_for(mid) if rule is None or f.rule_id.upper() == rule.upper()
                ]
                if not fingerprints:
                    fail("dismiss", f"<{mid}>: no finding" + (f" of {rule}" if rule else ""))
            else:
                fingerprints = [key.strip()]
            done = [fp for fp in fingerprints if store.dismiss(fp, reason.strip())]
            said = _drafts_of_dismissed(store, done, settings.maildir)
    except ReviewbotError as exc:
        fail("dismiss", exc)
    if not done:
        fail("dismiss", f"{key}: no such finding or message in {settings.db_path}")
    for fp in done:
        click.echo(f"dismissed {fp}")
    for line in said:
        click.echo(line)


def _drafts_of_dismissed(store: Any, fingerprints: list[str], maildir: Path | None) -> list[str]:
    """Take the drafts whose every point is now dismissed out of the Maildir folder (where a mail client
    would offer to send them); what was done, one line each. A draft that still makes another point is
    left, and said so: it is to be edited by hand."""
    from reviewbot.models import FindingState
    from reviewbot.respond.render import remove_from_maildir
    from reviewbot.textsafe import shown

    out: list[str] = []
    drafts = {d.message_id: d for fp in fingerprints if (d := store.draft_for_fingerprint(fp)) is not None}
    for draft in drafts.values():
        covered = [store.finding(fp) for fp in draft.fingerprints]
        if any(f is not None and f.state is not FindingState.DISMISSED for f in covered):
            out.append(
                f"its draft {draft.path} also makes points not dismissed: left where it is, edit it before sending"
            )
            continue
        if not draft.maildir_key:
            continue
        if maildir is None:
            out.append(
                f"its draft <{draft.message_id}> is still in a Maildir folder; give --maildir (or the config's "
                "maildir) to take it out"
            )
        elif remove_from_maildir(maildir, draft.message_id):
            out.append(f"removed its draft <{draft.message_id}> from the Maildir {maildir} (the outbox copy stays)")
        else:
            out.append(f"its draft <{draft.message_id}> is no longer in the Maildir {maildir}")
    return [shown(line) for line in out]
