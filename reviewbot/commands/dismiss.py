"""``reviewbot dismiss FINGERPRINT|MSGID --reason TEXT``: a finding is wrong or not worth a reply, for good.

A dismissed finding is never drafted, on later runs nor on later revisions
of the patch (its fingerprint stays the same across versions, and a finding
on unchanged code of a new revision is matched to it).
"""

from __future__ import annotations

from pathlib import Path

import click

from reviewbot.commands import fail
from reviewbot.commands.draft import settings_from


@click.command("dismiss")
@click.argument("key", metavar="FINGERPRINT|MSGID")
@click.option("--rule", metavar="ID", help="With a Message-ID: only that rule's findings.")
@click.option("--reason", required=True, help="Why (stored, shown by `show` and `findings`).")
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), help="The database [config db-path].")
def command(key: str, rule: str | None, reason: str, db: Path | None) -> None:
    """Dismiss one finding (by fingerprint) or a patch's findings (by Message-ID or archive URL)."""
    from reviewbot.errors import ReviewbotError
    from reviewbot.store import Store

    if not reason.strip():
        fail("dismiss", "--reason must say why")
    try:
        settings = settings_from(db, None, None, None)
        with Store(settings.db_path) as store:
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
    except ReviewbotError as exc:
        fail("dismiss", exc)
    if not done:
        fail("dismiss", f"{key}: no such finding or message in {settings.db_path}")
    for fp in done:
        click.echo(f"dismissed {fp}")
