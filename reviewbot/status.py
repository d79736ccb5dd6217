"""Exit statuses of the ``reviewbot`` command, and which exception ends a command with which, in one place."""

from __future__ import annotations

import enum

from reviewbot.errors import ReviewbotError


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


#: The exception that ends a command -> its exit status; the first class that matches decides.
#: Commands print one line naming what went wrong and exit with this status (never a traceback).
EXIT_STATUS_OF: tuple[tuple[type[BaseException], ExitStatus], ...] = (
    (KeyboardInterrupt, ExitStatus.INTERRUPTED),  # Ctrl-C: what was stored stays
    (BrokenPipeError, ExitStatus.OK),  # the reader of the output left (`reviewbot check ... | head`)
    (ReviewbotError, ExitStatus.USAGE),  # bad input, configuration, database, rules: named in the line
    # a failure of the machine (database locked, disk full) or a bug: never 1, which CI reads as findings
    (Exception, ExitStatus.USAGE),
)


def exit_status_for(exc: BaseException) -> ExitStatus:
    """The exit status of a command ended by ``exc`` (:data:`EXIT_STATUS_OF`)."""
    return next((status for kind, status in EXIT_STATUS_OF if isinstance(exc, kind)), ExitStatus.USAGE)
