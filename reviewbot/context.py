"""The explicit run context: settings, clock, archive and store, passed around instead of globals."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable

from reviewbot.config import Settings
from reviewbot.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from reviewbot.store import Store

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


def clock_from_env(environ: Any = None) -> Clock:
    """``$REVIEWBOT_NOW`` (ISO 8601, UTC when no offset) as a fixed clock, else the system clock.

    Lets tests and reproducible runs pin "now" (which decides what pages are
    final and the ``first_seen`` stamps). Raises UsageError on a bad value.
    """
    env = os.environ if environ is None else environ
    value = env.get("REVIEWBOT_NOW")
    if not value:
        return system_clock
    try:
        fixed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise UsageError(f"not an ISO 8601 time: {value!r}", subject="REVIEWBOT_NOW") from exc
    if fixed.tzinfo is None:
        fixed = fixed.replace(tzinfo=timezone.utc)
    fixed = fixed.astimezone(timezone.utc)
    return lambda: fixed


@dataclass
class Context:
    """What one command run works with: ``settings``, ``clock`` (UTC), the ``archive`` and the ``store``.

    ``archive`` is a :class:`reviewbot.fetch.archive.Archive` (or None for
    commands that never fetch); ``store`` a :class:`reviewbot.store.Store`.
    """

    settings: Settings
    clock: Clock = system_clock
    archive: Any = None
    store: "Store | None" = None

    def now(self) -> datetime:
        """The context's current time (UTC)."""
        return self.clock()

    def close(self) -> None:
        """Close the store, if open."""
        if self.store is not None:
            self.store.close()
