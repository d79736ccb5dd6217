"""The on-disk archive cache: one archive host's pages in the mirror layout.

Layout (the same as ``shared/openwall-mirror``, so a mirror can be used as a
read-only cache)::

    LIST/index.html                  /LIST/
    LIST/YYYY/index.html             /LIST/YYYY/
    LIST/YYYY/MM/index.html          /LIST/YYYY/MM/
    LIST/YYYY/MM/DD/index.html       /LIST/YYYY/MM/DD/
    LIST/YYYY/MM/DD/N.html           /LIST/YYYY/MM/DD/N
    LIST/YYYY/MM/DD/N/A              /LIST/YYYY/MM/DD/N/A   (+ N/A.headers)

:meth:`ArchiveCache.path_for` is the one function that maps URLs to files. It
accepts only URLs of the cache's own base URL whose path matches the archive
scheme, and builds the file path from the parsed numbers and the validated list
name (never from the raw path), so ``..``, absolute paths, percent-encoding,
backslashes, NUL bytes and other hosts cannot reach the file system.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Iterable
from urllib.parse import urlsplit

from reviewbot.fetch.openwall import ArchiveURL, BadArchiveURL, classify_url

log = logging.getLogger(__name__)

__all__ = ["ArchiveCache"]

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme, 0)
    except ValueError:
        port = -1
    return scheme, (parts.hostname or "").lower(), port


class ArchiveCache:
    """Pages of one archive host on disk, in the mirror layout.

    ``root``: the directory (created on the first write). ``base_url``: the host
    whose pages these are (``https://lists.openwall.net``); URLs of any other
    scheme/host/port are refused. ``readonly``: never write (``put`` is a no-op),
    e.g. for ``--offline --cache-dir ../shared/openwall-mirror``. ``fallbacks``:
    more read-only roots, consulted after ``root`` (the pages shipped in
    ``archive_cache/``; see :meth:`is_fallback`).
    """

    def __init__(
        self,
        root: Path | str,
        *,
        base_url: str = "https://lists.openwall.net",
        readonly: bool = False,
        fallbacks: Iterable[Path | str] = (),
    ) -> None:
        self.root = Path(root)
        self.base_url = base_url.rstrip("/")
        self.readonly = readonly
        self.fallbacks = tuple(Path(p) for p in fallbacks if p is not None)
        self._origin = _origin(self.base_url)
        base_path = urlsplit(self.base_url).path
        if base_path not in ("", "/"):
            raise ValueError(f"{base_url}: the base URL must not have a path")

    # -- mapping
    def info(self, url: str) -> ArchiveURL:
        """Classify ``url`` after checking it belongs to this cache's host.

        Raises BadArchiveURL (a FetchError and ValueError) naming the URL.
        """
        if not isinstance(url, str) or any(c in url for c in "\\\x00\r\n\t "):
            raise BadArchiveURL("odd characters in URL", url=repr(url))
        if _origin(url) != self._origin:
            raise BadArchiveURL(f"not on the archive host {self.base_url}", url=url)
        if urlsplit(url).username or urlsplit(url).password:
            raise BadArchiveURL("user info in URL", url=url)
        return classify_url(url)

    def relpath_for(self, url: str) -> Path:
        """The path of ``url``'s file relative to a cache root (see the module doc)."""
        info = self.info(url)
        parts: list[str] = [info.list_name]
        if info.year is not None:
            parts.append(f"{info.year:04d}")
        if info.month is not None:
            parts.append(f"{info.month:02d}")
        if info.day is not None:
            parts.append(f"{info.day:02d}")
        if info.kind == "message":
            parts.append(f"{info.number}.html")
        elif info.kind == "attachment":
            parts.extend([str(info.number), str(info.attachment)])
        else:
            parts.append("index.html")
        rel = Path(*parts)
        if rel.is_absolute() or ".." in rel.parts:  # cannot happen; defence in depth
            raise BadArchiveURL("unsafe cache path", url=url)
        return rel

    def path_for(self, url: str, root: Path | None = None) -> Path:
        """The file for ``url`` under ``root`` (default: the main root).

        The one URL -> file mapping. Raises BadArchiveURL for other hosts,
        paths outside the archive scheme, ``..``, ``%2e%2e``, ``//evil``,
        backslashes, NUL and the like.
        """
        base = Path(root) if root is not None else self.root
        path = base / self.relpath_for(url)
        base_resolved = os.path.abspath(base)
        if os.path.commonpath([base_resolved, os.path.abspath(path)]) != base_resolved:
            raise BadArchiveURL("cache path escapes the cache root", url=url)
        return path

    # -- reading and writing
    def _roots(self, fallbacks: bool) -> tuple[Path, ...]:
        return (self.root, *self.fallbacks) if fallbacks else (self.root,)

    def locate(self, url: str, *, fallbacks: bool = True) -> Path | None:
        """The existing file holding ``url`` (main root first, then fallbacks), or None."""
        rel = self.relpath_for(url)
        for root in self._roots(fallbacks):
            path = root / rel
            if path.is_file():
                return path
        return None

    def is_fallback(self, path: Path) -> bool:
        """True when ``path`` (from :meth:`locate`) lies in a fallback root (the shipped copy), not the main root."""
        here = os.path.abspath(path)
        for root in self.fallbacks:
            top = os.path.abspath(root)
            if os.path.commonpath([top, here]) == top:
                return True
        return False

    def get(self, url: str, *, fallbacks: bool = True) -> bytes | None:
        """The cached bytes of ``url``, or None when no root has it."""
        path = self.locate(url, fallbacks=fallbacks)
        if path is None:
            return None
        try:
            return path.read_bytes()
        except OSError as exc:
            log.warning("%s: cannot read cached page %s: %s", url, path, exc.strerror)
            return None

    def headers(self, url: str) -> dict[str, str]:
        """The HTTP headers stored beside an attachment (``N/A.headers``), if any."""
        path = self.locate(url)
        if path is None:
            return {}
        meta = path.with_name(path.name + ".headers")
        out: dict[str, str] = {}
        if meta.is_file():
            for line in meta.read_text(encoding="utf-8", errors="replace").splitlines():
                if ":" in line:
                    key, value = line.split(":", 1)
                    out[key.strip()] = value.strip()
        return out

    def mtime(self, url: str) -> float | None:
        """When the main root's copy of ``url`` was written (seconds since the epoch), or None."""
        try:
            return self.path_for(url).stat().st_mtime
        except OSError:
            return None

    def put(
        self, url: str, body: bytes, *, headers: dict[str, str] | None = None, mtime: float | None = None
    ) -> Path | None:
        """Store ``body`` for ``url`` atomically (temp file in the same dir, then ``os.replace``).

        ``headers`` (attachments) go to ``N/A.headers`` the same way; ``mtime``
        (seconds since the epoch) records when the page was fetched. No-op
        returning None when read-only. Raises BadArchiveURL for unsafe URLs and
        OSError when the disk refuses.
        """
        path = self.path_for(url)
        if self.readonly:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent.joinpath(path.name).is_dir():
            raise BadArchiveURL("cache path is a directory", url=url)
        self._atomic_write(path, body, mtime)
        if headers:
            text = "".join(
                f"{k}: {v}\n"
                for k, v in headers.items()
                if k.lower() in ("content-type", "content-disposition", "content-length")
            )
            self._atomic_write(path.with_name(path.name + ".headers"), text.encode(), mtime)
        return path

    def discard(self, url: str) -> bool:
        """Remove the main root's copy of ``url`` (a page that proved unusable, fetched again next time).

        Fallback roots are never touched; no-op when read-only. True when a file was removed.
        """
        if self.readonly:
            return False
        try:
            self.path_for(url).unlink()
        except OSError:
            return False
        return True

    @staticmethod
    def _atomic_write(path: Path, data: bytes, mtime: float | None) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            if mtime is not None:
                os.utime(tmp, (mtime, mtime))
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
