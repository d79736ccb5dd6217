"""The run's clock: the system clock, or a fixed "now" from ``$REVIEWBOT_NOW``, passed around instead of a global."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any, Callable

from reviewbot.errors import UsageError

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
