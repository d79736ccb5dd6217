"""The subcommands, one per module (imported only when run; see reviewbot.cli)."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from reviewbot.status import ExitStatus, exit_status_for


def fail(command: str, message: str | BaseException, status: ExitStatus | None = None) -> NoReturn:
    """Print ``reviewbot COMMAND: message`` on stderr and exit: every command ends a failed run here.

    ``message`` may be the exception that ended the command; its exit status then comes from
    :func:`reviewbot.status.exit_status_for` unless ``status`` is given (default: usage error, 2).
    """
    if status is None:
        status = exit_status_for(message) if isinstance(message, BaseException) else ExitStatus.USAGE
    click.echo(f"reviewbot {command}: {message}", err=True)
    sys.exit(int(status))
