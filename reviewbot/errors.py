"""One error hierarchy for everything reviewbot raises on purpose.

Every error names *what* it is about (a URL, a Message-ID, a file, a rule) and
keeps the original exception as ``__cause__`` (raise ... from exc). The CLI maps
each class to an exit status (``reviewbot.status``); library code never exits.
"""

from __future__ import annotations


class ReviewbotError(Exception):
    """Base class. ``subject`` names the input (URL, Message-ID, path, rule id)."""

    def __init__(self, message: str, *, subject: str | None = None) -> None:
        self.message = message
        self.subject = subject
        super().__init__(f"{subject}: {message}" if subject else message)


class UsageError(ReviewbotError):
    """Bad command-line input or configuration (exit status 2)."""


class InputError(ReviewbotError):
    """An input file or stream cannot be read (missing, not a patch, bad mbox)."""


class FetchError(ReviewbotError):
    """A page could not be fetched: network, HTTP status, blists error page, robots.txt.

    ``url`` is the page; ``attempts`` how many requests were made for it.
    """

    def __init__(self, message: str, *, url: str, attempts: int = 1, status: int | None = None) -> None:
        self.url = url
        self.attempts = attempts
        self.status = status
        super().__init__(message, subject=url)


class HostUnreachable(FetchError):
    """The archive host cannot be reached at all (DNS, refused, no route)."""


class ParseError(ReviewbotError):
    """Input that cannot be parsed: a page, a mail, a subject or a diff.

    ``subject`` names the message (Message-ID, URL or file); ``line`` is the
    1-based line of the input where parsing failed, when known.
    """

    def __init__(self, message: str, *, subject: str | None = None, line: int | None = None) -> None:
        self.line = line
        where = f"{subject}:{line}" if subject and line else subject
        super().__init__(message, subject=where)


class RuleLoadError(ReviewbotError):
    """A rule module cannot be loaded or breaks the plugin contract; stops the run."""


class StoreError(ReviewbotError):
    """The SQLite store cannot be opened or has an unknown schema version."""
