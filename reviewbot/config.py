"""Settings: every default in one place, then config files, then environment, then flags.

Order of precedence (later wins):

1. the defaults of :class:`Settings` below;
2. the user config ``$XDG_CONFIG_HOME/reviewbot/config.toml`` (or the file
   named by ``$REVIEWBOT_CONFIG``);
3. for ``reviewbot check`` only, the project config of the repository being checked:
   ``.reviewbot.toml``, or the ``[tool.reviewbot]`` table of ``pyproject.toml``, found upward from
   the current directory up to the repository's top (the folder holding ``.git``), never above it.
   Anyone can leave such a file in a tree (a clone, a shared /tmp), so it may only say how the tree's
   own patches are checked (:data:`PROJECT_KEYS`); any other key (rules-dirs would run its Python;
   identity, hosts and paths would send drafts and data elsewhere) is named in a warning and not obeyed;
4. environment variables ``REVIEWBOT_DB``, ``REVIEWBOT_CACHE_DIR``,
   ``REVIEWBOT_CONTACT``, ``REVIEWBOT_BASE_URL``, ``REVIEWBOT_LORE_URL`` (``off``: no lore);
5. command-line flags (applied by the commands with :func:`dataclasses.replace`).

Config keys are the field names below, with ``-`` or ``_`` (``base-url`` or
``base_url``). ``[identity]`` may hold ``name`` and ``email``; ``[per-path-ignores]``
maps a glob to a list of rule ids or names. A value of the wrong type is an error naming
the file and the key; an unknown key is a warning naming both (a newer version's key, or a typo).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from reviewbot.errors import UsageError

DEFAULT_BASE_URL = "https://lists.openwall.net"
DEFAULT_CONTACT = "reviewbot-maintainers@users.noreply.example"
DEFAULT_LORE_URL = "https://lore.kernel.org"


def _xdg(var: str, fallback: str) -> Path:
    value = os.environ.get(var)
    return Path(value) if value else Path.home() / fallback


def user_config_path() -> Path:
    """The user config file: ``$REVIEWBOT_CONFIG`` or ``$XDG_CONFIG_HOME/reviewbot/config.toml``."""
    explicit = os.environ.get("REVIEWBOT_CONFIG")
    if explicit:
        return Path(explicit)
    return _xdg("XDG_CONFIG_HOME", ".config") / "reviewbot" / "config.toml"


def default_data_dir() -> Path:
    """Where the SQLite database and drafts live by default (XDG data dir)."""
    return _xdg("XDG_DATA_HOME", ".local/share") / "reviewbot"


def default_cache_root() -> Path:
    """Parent of the per-host archive caches (XDG cache dir), e.g. ``~/.cache/reviewbot/archive``."""
    return _xdg("XDG_CACHE_HOME", ".cache") / "reviewbot" / "archive"


def shipped_cache_dir() -> Path | None:
    """The read-only copy of archive pages shipped with reviewbot (``archive_cache/``), if present.

    Real pages of lists.openwall.net (June 2023, see ``archive_cache/README.md``): when the host cannot be
    reached they stand in like any cache, so a fresh machine without network still scans that month. In a
    checkout (or an editable install) the folder beside the package; in an installed wheel, the copy inside
    the package (``reviewbot/archive_cache``, see pyproject.toml).
    """
    package = Path(__file__).resolve().parent
    for here in (package.parent / "archive_cache", package / "archive_cache"):
        if (here / "lists.openwall.net").is_dir():
            return here
    return None


def require_cache_dir(cache_dir: Path | None, offline: bool, flag: Path | None = None) -> None:
    """Offline, pages come from the cache alone: a cache folder that is named but not there (a typo) is
    an error naming it, not a scan whose every page is recorded as failed. ``flag``: the ``--cache-dir``
    given, if any; else the folder came from the config file or the environment, and the error says so (a new
    user who never typed ``--cache-dir`` was told about it). UsageError."""
    if offline and cache_dir is not None and not cache_dir.is_dir():
        where = (
            f"--cache-dir {cache_dir}"
            if flag is not None
            else f"cache-dir = {str(cache_dir)!r} (from {user_config_path()} or $REVIEWBOT_CACHE_DIR)"
        )
        raise UsageError(
            "no such folder; offline, the pages come from it alone (the folder holding LIST/YYYY/...)",
            subject=where,
        )


# eq=False: never compared (nor hashable by value: per_path_ignores is a dict); the generated __eq__ and
# __hash__ of 25 fields are compiled at every start
@dataclass(frozen=True, eq=False)
class Settings:
    """All of reviewbot's knobs with their defaults (units in the names or comments).

    ``cache_dir`` is the root of one archive host's pages (None: the default
    per-host folder under :func:`default_cache_root`). ``rate`` is requests
    per second (0 disables the limit). ``contact`` goes into the User-Agent.
    """

    base_url: str = DEFAULT_BASE_URL
    list_name: str = "linux-kernel"
    db_path: Path = field(default_factory=lambda: default_data_dir() / "reviewbot.db")
    cache_dir: Path | None = None
    rate: float = 1.0  # requests per second
    timeout: float = 30.0  # seconds, connect and read
    retries: int = 4  # extra attempts on 429/5xx/connection errors
    backoff: float = 2.0  # seconds, urllib3 backoff_factor
    max_retry_after: float = 300.0  # seconds; a longer Retry-After fails the page
    contact: str = DEFAULT_CONTACT
    obey_robots: bool = True
    mutable_days: int = 2  # day pages younger than this many days (UTC) are re-fetched
    identity_name: str | None = None
    identity_email: str | None = None
    list_address: str = "linux-kernel@vger.kernel.org"
    outbox_dir: Path = field(default_factory=lambda: default_data_dir() / "outbox")
    maildir: Path | None = None
    maintainers: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    strict: bool = False
    fail_on: str = "warning"
    per_path_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    rules_dirs: tuple[Path, ...] = ()
    lore_url: str = DEFAULT_LORE_URL  # public-inbox host for real addresses and --source lore ("": off)
    btf: Path | None = None  # type information for RB101's cache-line maps (a BTF blob or vmlinux/.o); None: no map
    draft_unsure: bool = False  # draft also the points a rule is not sure a reviewer would send (draft --unsure)

    @property
    def user_agent(self) -> str:
        """``reviewbot/VERSION (+contact)``: identifies us to the volunteer-run archive."""
        from reviewbot import __version__

        return f"reviewbot/{__version__} (patch-review bot; +mailto:{self.contact})"

    def host_cache_dir(self) -> Path:
        """The cache root for ``base_url``'s host (``cache_dir`` when given)."""
        if self.cache_dir is not None:
            return self.cache_dir
        from urllib.parse import urlsplit

        parts = urlsplit(self.base_url)
        host = parts.hostname or "unknown-host"
        if parts.port:
            host = f"{host}_{parts.port}"
        return default_cache_root() / host

    def with_(self, **changes: Any) -> "Settings":
        """A copy with the non-None values of ``changes`` applied (for CLI flags), range-checked.

        Raises UsageError naming the flag for a value out of range (``--rate 1e-300``).
        """
        given = {k: v for k, v in changes.items() if v is not None}
        for key, value in given.items():
            if key in _RANGES:
                given[key] = _checked(key, value, "command line", flag=True)
            elif key == "base_url":
                given[key] = _check_base_url(value, "command line")
        return replace(self, **given)


# field -> (type, lowest, highest, what the unit is); values outside are refused with a clear line.
_RANGES: dict[str, tuple[type, float, float, str]] = {
    "rate": (float, 0.0, 1000.0, "requests per second; 0 = no limit, else at least 0.001"),
    "timeout": (float, 0.1, 3600.0, "seconds"),
    "retries": (int, 0, 20, "extra attempts"),
    "backoff": (float, 0.0, 600.0, "seconds"),
    "max_retry_after": (float, 0.0, 86400.0, "seconds"),
    "mutable_days": (int, 0, 366, "days"),
}
_BOOL_FIELDS = {"obey_robots", "strict", "draft_unsure"}
_STR_FIELDS = {"base_url", "list_name", "contact", "list_address", "identity_name", "identity_email", "lore_url"}

#: The keys a project config may set: how the repository's own patches are checked, nothing that
#: runs code, names who the drafts come from, which hosts are asked or where files are written.
PROJECT_KEYS = frozenset({"select", "ignore", "strict", "fail_on", "per_path_ignores"})
_FAIL_ON = ("error", "warning", "check")


def _name(key: str, flag: bool) -> str:
    return f"--{key.replace('_', '-')}" if flag else key.replace("_", "-")


def _checked(key: str, value: Any, origin: str, *, flag: bool = False) -> Any:
    """``value`` of setting ``key`` as its type, or UsageError naming the setting and ``origin``."""
    kind, low, high, unit = _RANGES[key]
    where = f"{_name(key, flag)} = {value!r}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise UsageError(
            f"{where}: expected {'a whole number' if kind is int else 'a number'} ({unit})", subject=origin
        )
    number = kind(value)
    if number != number or not (low <= number <= high) or (key == "rate" and 0 < number < 0.001):
        raise UsageError(f"{where}: out of range {low:g}..{high:g} ({unit})", subject=origin)
    return number


def _check_base_url(value: str, origin: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(value.rstrip("/"))
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query or parts.fragment:
        raise UsageError(f"base-url = {value!r}: expected http(s)://host[:port] with no path", subject=origin)
    try:
        _ = parts.port  # urlsplit checks the port only when it is read
    except ValueError as exc:
        raise UsageError(f"base-url = {value!r}: bad port", subject=origin) from exc
    return value.rstrip("/")


def _str_list(key: str, value: Any, origin: str) -> tuple[str, ...]:
    """A list of strings, or one string (one item, or comma-separated for select/ignore)."""
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip()) if key in ("select", "ignore") else (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise UsageError(f"{key.replace('_', '-')} = {value!r}: expected a list of strings", subject=origin)


_PATH_FIELDS = {"db_path", "cache_dir", "outbox_dir", "maildir", "maintainers", "btf"}
_TUPLE_FIELDS = {"select", "ignore"}


def _warn(origin: str, message: str) -> None:
    from reviewbot.lazylog import get_logger  # lazily: `reviewbot check` loads no logging for a clean run

    get_logger(__name__).warning("%s: %s", origin, message)


def _project_only(table: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """The keys of a project config it may set (:data:`PROJECT_KEYS`); a warning names each other key."""
    allowed = ", ".join(sorted(k.replace("_", "-") for k in PROJECT_KEYS))
    kept: dict[str, Any] = {}
    for raw_key, value in table.items():
        if raw_key.replace("-", "_") in PROJECT_KEYS:
            kept[raw_key] = value
        elif raw_key.replace("-", "_") not in {f.name for f in fields(Settings)} | {"identity", "rules_dirs"}:
            _warn(origin, f"unknown setting {raw_key!r} ignored")  # a typo or a newer version's key: nowhere to move it
        else:
            _warn(
                origin,
                f"{raw_key!r} not obeyed: a project config may only say how its patches are checked "
                f"({allowed}); set it in your own config ({user_config_path()}), the environment or a flag",
            )
    return kept


def _apply(settings: Settings, table: Mapping[str, Any], origin: str) -> Settings:
    known = {f.name for f in fields(Settings)}
    changes: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key == "identity":
            if not isinstance(value, Mapping):
                raise UsageError(f"{raw_key} = {value!r}: expected a table of name and email", subject=origin)
            for part, part_value in value.items():
                if part not in ("name", "email"):
                    _warn(origin, f"unknown setting 'identity.{part}' ignored (identity has name and email)")
                    continue
                if not isinstance(part_value, str):
                    raise UsageError(f"identity.{part} = {part_value!r}: expected a string", subject=origin)
                changes[f"identity_{part}"] = part_value
            continue
        if key == "per_path_ignores":
            if not isinstance(value, Mapping):
                raise UsageError(f"{raw_key} = {value!r}: expected a table of glob = [rule ids]", subject=origin)
            changes[key] = {str(k): _str_list(key, v, origin) for k, v in value.items()}
            continue
        if key == "rules_dirs":
            changes[key] = tuple(Path(p).expanduser() for p in _str_list(key, value, origin))
            continue
        if key not in known:
            _warn(origin, f"unknown setting {raw_key!r} ignored")
            continue
        if key in _RANGES:
            value = _checked(key, value, origin)
        elif key in _BOOL_FIELDS:
            if not isinstance(value, bool):
                raise UsageError(f"{raw_key} = {value!r}: expected true or false", subject=origin)
        elif key in _STR_FIELDS or key == "fail_on":
            if not isinstance(value, str):
                raise UsageError(f"{raw_key} = {value!r}: expected a string", subject=origin)
            if key == "base_url":
                value = _check_base_url(value, origin)
            if key == "fail_on" and value.lower() not in _FAIL_ON:
                raise UsageError(f"{raw_key} = {value!r}: expected one of {', '.join(_FAIL_ON)}", subject=origin)
        elif key in _PATH_FIELDS:
            if not isinstance(value, str):
                raise UsageError(f"{raw_key} = {value!r}: expected a path (a string)", subject=origin)
            value = Path(value).expanduser()
        elif key in _TUPLE_FIELDS:
            value = _str_list(key, value, origin)
        changes[key] = value
    return replace(settings, **changes)


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # here: most runs read no config file

    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"invalid TOML: {exc}", subject=str(path)) from exc
    except UnicodeDecodeError as exc:  # a binary file
        raise UsageError("invalid TOML: not UTF-8 text", subject=str(path)) from exc
    except OSError as exc:
        raise UsageError(f"cannot read config: {exc.strerror}", subject=str(path)) from exc


def repository_top(start: Path | None = None) -> Path | None:
    """The top of the git repository holding ``start`` (the nearest folder with a ``.git``), or None."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():  # a folder, or a file in a worktree or submodule
            return directory
    return None


def find_project_config(start: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """Find ``.reviewbot.toml`` or ``pyproject.toml`` with ``[tool.reviewbot]``, upward from ``start``
    to the top of its git repository (a file above the repository, or outside any, is not its own).

    Returns (path, table) or None.
    """
    here = (start or Path.cwd()).resolve()
    top = repository_top(here)
    if top is None:
        return None
    for directory in (here, *here.parents):
        if directory != top and top not in directory.parents:
            break
        dotfile = directory / ".reviewbot.toml"
        if dotfile.is_file():
            return dotfile, _read_toml(dotfile)
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            tool = _read_toml(pyproject).get("tool")
            table = tool.get("reviewbot") if isinstance(tool, dict) else None
            if isinstance(table, dict):
                return pyproject, table
    return None


def load_settings(
    start: Path | None = None, environ: Mapping[str, str] | None = None, *, project: bool = False
) -> Settings:
    """Build Settings from defaults, user config, project config (``project``: ``reviewbot check``
    only, and only :data:`PROJECT_KEYS`) and environment.

    Raises UsageError naming the file for unreadable settings or values of the wrong type.
    """
    env = os.environ if environ is None else environ
    settings = Settings()
    user = user_config_path()
    if user.is_file():
        settings = _apply(settings, _read_toml(user), str(user))
    elif env.get("REVIEWBOT_CONFIG"):  # named on purpose, and not there: say so rather than run on defaults
        _warn(str(user), "no such config file (named by REVIEWBOT_CONFIG): the defaults are used")
    found = find_project_config(start) if project else None
    if found:
        settings = _apply(settings, _project_only(found[1], str(found[0])), str(found[0]))
    env_map = {
        "REVIEWBOT_DB": "db_path",
        "REVIEWBOT_CACHE_DIR": "cache_dir",
        "REVIEWBOT_CONTACT": "contact",
        "REVIEWBOT_BASE_URL": "base_url",
        "REVIEWBOT_LORE_URL": "lore_url",
    }
    from_env = {key: env[var] for var, key in env_map.items() if env.get(var)}
    if from_env:
        settings = _apply(settings, from_env, "environment")
    return settings
