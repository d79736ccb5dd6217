"""The archive's list index: which list names lists.openwall.net has, so ``scan`` can refuse a typo.

The root page (``https://lists.openwall.net/``) links every list as
``<a href="linux-kernel/">`` (relative, one path segment and a slash). Its
names are cached in the host's cache directory (``list-index.txt``, one name
a line) for :data:`MAX_AGE` seconds, so a scan asks for the page at most once
a week. When the page cannot be had or lists nothing (a mirror holding one
list, the host down), nothing is refused: the scan goes on as before. With
``--offline`` and no cached index, the lists the cache holds (its list
directories; a mirror given as ``--cache-dir``) are the known names.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from reviewbot.errors import FetchError, UsageError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.config import Settings

log = logging.getLogger(__name__)

__all__ = ["parse_list_index", "known_lists", "check_list_name", "INDEX_FILE", "MAX_AGE"]

INDEX_FILE = "list-index.txt"
MAX_AGE = 7 * 24 * 3600

# a relative link to a list page: href="linux-kernel/" or href="/linux-kernel/"
_LIST_LINK = re.compile(r"""<a\s[^>]*?href=["']/?([a-z0-9][a-z0-9-]{0,63})/["']""", re.IGNORECASE)


def parse_list_index(body: bytes | str) -> tuple[str, ...]:
    """The list names the root page links, sorted, each once (an error page gives none)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    return tuple(sorted({m.group(1).lower() for m in _LIST_LINK.finditer(text)}))


def _cache_path(settings: "Settings") -> Path:
    return settings.host_cache_dir() / INDEX_FILE


def _read_cache(path: Path) -> tuple[tuple[str, ...], float]:
    try:
        text = path.read_text("utf-8")
        age = time.time() - path.stat().st_mtime
    except OSError:
        return (), float("inf")
    return tuple(line.strip() for line in text.splitlines() if line.strip()), age


def known_lists(
    settings: "Settings", *, offline: bool = False, get: Callable[[str], bytes] | None = None
) -> tuple[str, ...]:
    """The archive's list names: from the cache while fresh, else from the root page (then cached).

    ``get`` fetches a URL's body (default: a polite session of ``settings``).
    Returns () when they cannot be known.
    """
    path = _cache_path(settings)
    cached, age = _read_cache(path)
    if cached and (offline or age < MAX_AGE):
        return cached
    if offline:
        return cached or cached_lists(settings)
    url = settings.base_url.rstrip("/") + "/"
    try:
        if get is None:
            from reviewbot.fetch.http import PoliteSession

            body = PoliteSession(settings).get(url).body
        else:
            body = get(url)
    except FetchError as exc:
        log.info("%s: list index not read (%s); list names are not checked", url, exc.message)
        return cached
    names = parse_list_index(body)
    if names:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(n + "\n" for n in names), "utf-8")
        except OSError as exc:
            log.warning("%s: could not cache the list index: %s", path, exc)
    return names or cached


_LIST_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_YEAR = re.compile(r"(19|20)\d\d")


def cached_lists(settings: "Settings") -> tuple[str, ...]:
    """The lists whose pages the cache (or a mirror given as ``--cache-dir``) holds: its directories named
    like a list with a year directory inside (``linux-kernel/2024/``), sorted; () when there are none."""
    root = settings.host_cache_dir()
    try:
        found = [
            d.name
            for d in root.iterdir()
            if d.is_dir()
            and _LIST_NAME.fullmatch(d.name)
            and any(y.is_dir() and _YEAR.fullmatch(y.name) for y in d.iterdir())
        ]
    except OSError:
        return ()
    return tuple(sorted(found))


def check_list_name(
    settings: "Settings", name: str, *, offline: bool = False, get: Callable[[str], bytes] | None = None
) -> None:
    """Raise UsageError naming ``name`` and the known lists when the archive's index lacks it."""
    names = known_lists(settings, offline=offline, get=get)
    if names and name not in names:
        where = "the archive's list index"
        if offline and not _read_cache(_cache_path(settings))[0]:
            where = f"the cache {settings.host_cache_dir()} (--offline)"
        raise UsageError(f"no such list in {where}; known lists: {', '.join(names)}", subject=repr(name))
