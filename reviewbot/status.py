"""Exit statuses of the ``reviewbot`` command, in one place (cf. httpie's ExitStatus)."""

from __future__ import annotations

import enum


class ExitStatus(enum.IntEnum):
    """Process exit codes.

    ``check`` follows checkpatch.pl: 0 clean, 1 findings at or above the
    threshold, 2 usage error or unreadable input. ``scan`` exits 3 when some
    pages failed (recorded in the fetch log and retried on the next run).
    """

    OK = 0
    FINDINGS = 1
    USAGE = 2
    PARTIAL_FAILURE = 3
    INTERRUPTED = 130
