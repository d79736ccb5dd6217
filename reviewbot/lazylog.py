"""Loggers that leave :mod:`logging` unloaded until a record is kept.

``reviewbot check`` of one patch logs nothing at the default verbosity, and loading and
configuring :mod:`logging` (with the ``traceback`` and ``string`` modules it imports) cost
about 4% of such a run. The modules on that path take their logger from :func:`get_logger`
instead of ``logging.getLogger``:

* while nothing has imported :mod:`logging`, nothing can have configured it, so the level is
  Python's default (WARNING) and a DEBUG or INFO record would be dropped: such a call returns
  at once;
* a WARNING or above, or any call once :mod:`logging` is loaded, goes to the real logger of the
  same name, after the configuration :func:`reviewbot.cli.set_verbosity` left waiting
  (:func:`configure_on_first_record`) is applied, so the line looks as it always did.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover - typing only
    import logging

__all__ = ["LazyLogger", "get_logger", "configure_on_first_record", "drop_waiting"]

_WARNING = 30  # logging.WARNING, the default level of the root logger

#: The logging configuration to apply before the first record is handed to :mod:`logging`.
_waiting: list[Callable[[], None]] = []


def configure_on_first_record(configure: Callable[[], None]) -> None:
    """Run ``configure`` (it sets up :mod:`logging`) just before the first record reaches a real logger."""
    _waiting.append(configure)


def drop_waiting() -> None:
    """Forget the configuration left waiting: one made now (``reviewbot check -vv``) replaces it."""
    _waiting.clear()


def _apply_waiting() -> None:
    while _waiting:
        _waiting.pop(0)()


class LazyLogger:
    """The logger named ``name`` with the methods reviewbot uses, importing :mod:`logging` on demand."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: logging.Logger | None = None

    def _real(self) -> logging.Logger:
        if self._logger is None:
            import logging

            _apply_waiting()
            self._logger = logging.getLogger(self.name)
        return self._logger

    def _dropped(self, level: int) -> bool:
        """True when a record at ``level`` would be dropped by a :mod:`logging` nobody has loaded yet."""
        return level < _WARNING and self._logger is None and "logging" not in sys.modules

    # stacklevel=2: the record names the caller of these methods, as a logging.Logger's would
    def debug(self, msg: object, *args: object, **kwargs: Any) -> None:
        if not self._dropped(10):
            self._real().debug(msg, *args, stacklevel=2, **kwargs)

    def info(self, msg: object, *args: object, **kwargs: Any) -> None:
        if not self._dropped(20):
            self._real().info(msg, *args, stacklevel=2, **kwargs)

    def warning(self, msg: object, *args: object, **kwargs: Any) -> None:
        self._real().warning(msg, *args, stacklevel=2, **kwargs)

    def error(self, msg: object, *args: object, **kwargs: Any) -> None:
        self._real().error(msg, *args, stacklevel=2, **kwargs)


def get_logger(name: str) -> LazyLogger:
    """A :class:`LazyLogger` for ``name`` (``get_logger(__name__)``, like ``logging.getLogger``)."""
    return LazyLogger(name)
