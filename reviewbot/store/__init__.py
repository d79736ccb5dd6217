"""The SQLite store: schema, idempotent upserts and the queries the other stages need.

This package is the only place that holds SQL. Tables are created with sqlite-utils;
writes go through parameterised ``INSERT ... ON CONFLICT`` statements so that
running the same scan twice adds nothing and changes no row. Every write of
one page (a message, its patch, its findings) happens in one transaction
(``with store.transaction():``); the database runs in WAL mode so a process
killed with SIGKILL leaves either the whole page or nothing.

Tables (schema version :data:`SCHEMA_VERSION`, kept in ``meta``):

* ``messages``: one row per Message-ID (first archive URL wins for duplicates).
* ``message_urls``: every archive URL seen -> Message-ID (resume, thread walks).
* ``patches``: the ``git am`` split of a message (summary of the diff as JSON).
* ``findings``: one row per finding fingerprint, with its state.
* ``rule_failures``: rules that crashed on a patch.
* ``pages``: the fetch log of pages that failed (a page that later succeeds is
  removed, so a recovered scan ends with the same rows as a clean one).
* ``cursor``: per list, the last day scanned completely (for cron).
* ``drafts``, ``draft_findings``, ``draft_skips``: reply drafts written, the
  fingerprints each covers, and why a finding got no draft.

The modules, one job each: :mod:`~reviewbot.store.schema` (tables, named
migrations), :mod:`~reviewbot.store.base` (connection, transactions),
:mod:`~reviewbot.store.rows` (rows <-> frozen values), and the queries of
:mod:`~reviewbot.store.messages`, :mod:`~reviewbot.store.patches`,
:mod:`~reviewbot.store.findings`, :mod:`~reviewbot.store.drafts` and
:mod:`~reviewbot.store.scanstate`; :class:`Store` is all of them.
"""

from __future__ import annotations

from reviewbot.store.base import BUSY_TIMEOUT, StoreBase
from reviewbot.store.drafts import OPEN_STATUSES, DraftStore
from reviewbot.store.findings import FindingStore
from reviewbot.store.messages import MessageStore
from reviewbot.store.patches import PatchStore
from reviewbot.store.rows import (
    ChangedFile,
    DraftRecord,
    DraftSkip,
    FailedPage,
    FindingLine,
    FindingStatus,
    StoredMessage,
    StoredPatch,
    Submission,
    finding_from_row,
    hunk_from_json,
    hunk_to_json,
    message_from_row,
    patch_from_row,
)
from reviewbot.store.scanstate import ScanStateStore
from reviewbot.store.schema import MIGRATIONS, SCHEMA_VERSION, VOLATILE_COLUMNS

__all__ = [
    "BUSY_TIMEOUT",
    "ChangedFile",
    "DraftRecord",
    "DraftSkip",
    "FailedPage",
    "FindingLine",
    "FindingStatus",
    "MIGRATIONS",
    "OPEN_STATUSES",
    "SCHEMA_VERSION",
    "VOLATILE_COLUMNS",
    "Store",
    "StoreBase",
    "StoredMessage",
    "StoredPatch",
    "Submission",
    "finding_from_row",
    "hunk_from_json",
    "hunk_to_json",
    "message_from_row",
    "patch_from_row",
]


class Store(PatchStore, MessageStore, DraftStore, FindingStore, ScanStateStore):
    """The reviewbot database at ``path`` (created with its parent folder when missing).

    Raises StoreError naming the file when it cannot be opened, is not a
    database, or was written by a newer reviewbot (unknown schema version).
    Use as a context manager or call :meth:`close`.
    """
