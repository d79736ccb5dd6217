"""The ``reviewbot`` command line: the only module (with reviewbot.commands.*) that prints or exits.

Subcommands live one per module in ``reviewbot.commands`` and are imported only
when invoked, so ``reviewbot check`` never pays for the HTTP, HTML or SQLite
stacks that ``scan`` needs.
"""

from __future__ import annotations

import errno
import functools
import importlib
import sys
from typing import Any

import click

from reviewbot import __version__, lazylog
from reviewbot.status import exit_status_for

# command name -> module in reviewbot.commands that defines `command`
COMMANDS: dict[str, str] = {
    "scan": "scan",
    "cron": "cron",
    "draft": "draft",
    "show": "show",
    "findings": "findings",
    "dismiss": "dismiss",
    "check": "check",
    "rules": "rules",
    "explain": "explain",
    "eval": "evaluate",
    "layout": "layout",
}


def terminal_safe(text: str, keep: str = "") -> str:
    """``text`` with control characters (ESC, BEL, CR...) shown escaped (``\\x1b``), for printing
    archive text to a terminal: a page must not move the cursor or change colours. ``keep``: characters
    left as they are (``"\\n\\t"`` for a message body)."""
    from reviewbot.textsafe import shown

    return shown(text, keep)


def environment_error(exc: BaseException) -> str | None:
    """One line for a failure of the machine rather than of reviewbot (database locked by another
    program past the wait, disk full), or None for anything else."""
    import errno
    import sys

    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is not None and isinstance(exc, sqlite3.OperationalError):
        text = str(exc)
        if "locked" in text or "busy" in text:
            return (
                "the database is locked by another program and stayed locked past the wait; "
                "nothing more was written, try again when it is done"
            )
        if "full" in text:
            return "the disk is full: the database cannot grow; what was stored stays, free some space and run again"
        if "disk I/O" in text:
            return (
                "the database could not be written (disk I/O error: the disk is full or failing); "
                "what was stored stays, free some space and run again"
            )
        return f"the database failed: {text}"
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        where = f" ({exc.filename})" if exc.filename else ""
        return f"the disk is full{where}; what was stored stays, free some space and run again"
    return None


def _stdout_to_devnull() -> None:
    """Point standard output at /dev/null: what is still buffered for a reader that left (a closed pipe)
    is dropped at exit instead of raising again there ("Exception ignored ... BrokenPipeError")."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a test runner's capture): nothing to redirect
        pass


@functools.cache
def _console_class() -> type:
    from rich.console import Console

    class PipeConsole(Console):
        """A rich Console whose closed pipe ends the command like any other write to it: rich's own
        handling exits with status 1; this raises BrokenPipeError, which :class:`LazyGroup` maps."""

        def on_broken_pipe(self) -> None:
            self.quiet = True  # nothing more is written
            raise BrokenPipeError(errno.EPIPE, "the reader of the output left")

    return PipeConsole


def console(**kwargs: Any) -> Any:
    """A ``rich.console.Console(**kwargs)`` for a command's output (rich is imported here, on first use):
    when the reader leaves (``reviewbot scan ... | head``) the command ends as every command does,
    quietly with the status :data:`reviewbot.status.EXIT_STATUS_OF` gives a closed pipe."""
    return _console_class()(**kwargs)


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when it runs.

    A locked database or a full disk ends the command with one line (exit status 2), not a traceback;
    a closed output pipe (``reviewbot ... | head -1``) ends it without a word, exit status 0.
    """

    def invoke(self, ctx: click.Context):
        try:
            try:
                return super().invoke(ctx)
            finally:
                if not sys.stdout.closed:
                    sys.stdout.flush()  # output still buffered meets a closed pipe here, not at exit
        except BrokenPipeError as exc:  # `reviewbot ... | head`: the reader left; end quietly, as `cat` does
            _stdout_to_devnull()
            ctx.exit(int(exit_status_for(exc)))
        except Exception as exc:
            message = environment_error(exc)
            if message is None:
                raise
            click.echo(f"reviewbot {ctx.invoked_subcommand or ''}: {message}".replace("  ", " "), err=True)
            ctx.exit(int(exit_status_for(exc)))

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any):
        try:  # `reviewbot --help` and `--version` print while the arguments are read, before invoke()
            return super().make_context(info_name, args, parent=parent, **extra)
        except BrokenPipeError as exc:
            _stdout_to_devnull()
            sys.exit(int(exit_status_for(exc)))

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = COMMANDS.get(cmd_name)
        if module_name is None:
            return None
        module = importlib.import_module(f"reviewbot.commands.{module_name}")
        return module.command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reviewbot")
@click.option("-v", "--verbose", count=True, help="Log more (-v: each request, -vv: debug).")
@click.pass_context
def main(ctx: click.Context, verbose: int) -> None:
    """Patch-review assistant for the Linux kernel mailing list.

    Scans the lists.openwall.net archive, checks patches with review rules,
    and drafts the replies a careful reviewer would send (never sends them).
    """
    set_verbosity(verbose, lazily=ctx.invoked_subcommand in LAZY_LOGGING)
    ctx.ensure_object(dict)
    ctx.obj["verbose"] = verbose


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # -v and -vv: when and where, for debugging
PLAIN_FORMAT = "reviewbot: %(levelname)s: %(message)s"  # the default: a warning is a line for a person


class _PlainFormatter:
    """``reviewbot: warning: ...``: the level in lower case, like every other line reviewbot prints."""

    def __init__(self) -> None:
        import logging

        self._inner = logging.Formatter("%(message)s")

    def format(self, record: Any) -> str:
        return f"reviewbot: {record.levelname.lower()}: {self._inner.format(record)}"


#: Subcommands that log only through :mod:`reviewbot.lazylog` and load no library that logs (a test
#: watches ``sys.modules`` for ``check``): at the default verbosity their logging is configured when
#: the first record at WARNING or above comes, so a clean ``reviewbot check`` never loads logging.
LAZY_LOGGING = frozenset({"check"})


def set_verbosity(verbose: int, *, lazily: bool = False) -> None:
    """Configure logging for ``verbose`` (0: warnings, 1: info such as each request, 2+: debug).

    At the default verbosity a warning is one plain line (``reviewbot: warning: ...``); with ``-v``
    lines carry a local timestamp with milliseconds and the logger's name (so a request rate can be
    checked from ``-v`` output). Subcommands that take ``-v`` themselves call this again
    with the larger of the two counts. ``lazily`` (see :data:`LAZY_LOGGING`): at verbosity 0,
    while nothing has loaded logging, leave the configuration to the first record kept.
    """
    if lazily and verbose <= 0 and "logging" not in sys.modules:
        lazylog.configure_on_first_record(lambda: set_verbosity(verbose))
        return
    lazylog.drop_waiting()  # configured now: a configuration left waiting must not undo this one
    import logging  # here: `reviewbot --help` and `--version` log nothing

    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=level, format=LOG_FORMAT)
        root.handlers[0].reviewbot = True  # type: ignore[attr-defined]  # ours: its format follows -v
    for handler in root.handlers:
        if getattr(handler, "reviewbot", False):
            handler.setFormatter(
                logging.Formatter(LOG_FORMAT) if verbose > 0 else _PlainFormatter()  # type: ignore[arg-type]
            )
    root.setLevel(level)
    # urllib3 logs each retry of a dead host as a raw WARNING; our own messages say it better
    logging.getLogger("urllib3").setLevel(logging.DEBUG if verbose >= 2 else logging.ERROR)
