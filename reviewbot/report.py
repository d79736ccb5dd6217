"""Output of ``reviewbot check``: checkpatch-style text and terse, versioned JSON, SARIF 2.1.0, b4.

Every formatter takes a :class:`reviewbot.checking.CheckRun` and returns the
whole output as one ``str`` (the command prints it). Nothing here reads files
or imports more than the standard library.

``text`` (default), shaped like ``checkpatch.pl``::

    WARNING:RB102: smp_mb() without a comment naming the barrier it pairs with
    #23: FILE: kernel/sched/core.c:42:
    +	smp_mb();

    total: 0 errors, 1 warnings, 0 checks, 57 lines checked

    0001-sched-fix.patch has review findings, please look at them before sending.

``#N`` is the line of the input (file, stdin or mbox) the finding points at.

``terse``: one line per finding, ``INPUT:N: LEVEL:RULE: message``
(``checkpatch --terse``; ``N`` is 0 when the finding has no input line).
Nothing else is printed, so b4's ``prep-perpatch-check-cmd`` and
``am-perpatch-check-cmd`` (which read one finding per output line, ``ERROR:``
meaning fail) can run ``reviewbot check --format terse -`` directly.

``json``: schema version 2 (a change that removes or renames a key bumps it;
:data:`JSON_SCHEMA` is the machine-readable JSON Schema of it, shipped as
``reviewbot/check-report.schema.json`` too)::

    {
      "version": 2,
      "tool": {"name": "reviewbot", "version": "..."},  # reviewbot.__version__
      "summary": {"errors": 0, "warnings": 1, "checks": 0, "patches": 1,
                  "lines": 57, "skipped": 0, "strict": false},
                  # lines: hunk lines checked (checkpatch's count); skipped: replies
                  # and other messages without a patch
      "patches": [{"input": "0001-x.patch", "index": 0, "message_id": "...",
                   "subject": "[PATCH v2 1/3] sched: ...",
                   # how the mail was read (version 2): in-body From:/Subject: win
                   "author": {"name": "Ada", "email": "ada@example.org"},  # null: bare diff
                   "title": "sched: ...",   # null for a bare diff
                   "version": 2, "counter": [1, 3],   # counter null without n/N
                   "files": ["kernel/sched/core.c"], "added": 3, "removed": 1,
                   "commit": {"hash": "1a2b3c4d5e6f", "title": "sched: ..."},  # --git only, else null
                   "errors": 0, "warnings": 1,
                   "checks": 0, "lines": 57, "notes": ["..."]}],
      "findings": [{
          "rule": "RB102", "name": "barrier-without-comment",
          "severity": "warning",            # "error" | "warning" | "check"
          "message": "...",
          "file": "kernel/sched/core.c",    # null for commit-message findings
          "line": 42,                       # new-side line in file; for a commit-message
                  # finding (file null) the line in the mail (its first line is 1; in an
                  # encoded body, the line of the decoded body), null for the Subject
          "lines": [42],                    # every new-side line it is about
          "input": "0001-x.patch",          # the input as given ("-" = stdin)
          "input_line": 23,                 # line in that input, or null
          "message_id": "...", "subject": "[PATCH] ...",
          "fingerprint": "...", "details": {...}}],
      "failures": [{"rule": "RB101", "message_id": "...", "input": "...", "error": "..."}],
      "problems": [{"input": "x.patch", "error": "x.patch: no such file"}],
      "notes": ["C09.eml: a reply, not a patch submission: nothing to check"]
                  # about whole inputs (added in 1, optional: older output lacks it)
    }

``sarif``: one SARIF 2.1.0 log (``tool.driver.rules`` carries every rule
that ran with its summary, documentation and ``helpUri``; ERROR, WARNING and
CHECK map to the levels ``error``, ``warning`` and ``note``). A finding in
the diff is located in the source tree (``kernel/sched/core.c`` line 42,
what code-scanning UIs show); a commit-message finding in the input file.
The input position is always kept in ``properties``.

``b4``: the JSON array b4 0.16's review check runner reads from a per-patch
check command (``review-perpatch-check-cmd``), ``[]`` when there is nothing
to report; its one result has ``tool``, ``status`` (``pass``/``warn``/
``fail``), ``summary``, ``url`` and ``details`` (a JSON string: a list of
``{"status", "description", "srcline"}``, which b4 shows one per line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from reviewbot import __version__
from reviewbot.models import Finding, LineKind, Severity
from reviewbot.textsafe import shown

if TYPE_CHECKING:  # pragma: no cover - typing only
    from reviewbot.checking import CheckedPatch, CheckRun
    from reviewbot.registry import LoadedRule

JSON_SCHEMA_VERSION = 2
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL_NAME = "reviewbot"
KERNEL_TREE_URL = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/"
MAX_SHOWN_LINES = 8  # offending lines printed under one text finding

FORMATS = ("text", "terse", "json", "sarif", "b4")

_NULLABLE_INT = {"type": ["integer", "null"]}
#: JSON Schema (draft 2020-12) of ``--format json``, version 2; the tests validate every run against it.
JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "reviewbot check report, version 2",
    "type": "object",
    "required": ["version", "tool", "summary", "patches", "findings", "failures", "problems"],
    "properties": {
        "version": {"const": 2},
        "tool": {
            "type": "object",
            "required": ["name", "version"],
            "properties": {"name": {"const": "reviewbot"}, "version": {"type": "string"}},
        },
        "summary": {
            "type": "object",
            "required": ["errors", "warnings", "checks", "patches", "lines", "skipped", "strict"],
            "properties": {
                **{
                    k: {"type": "integer", "minimum": 0}
                    for k in ("errors", "warnings", "checks", "patches", "lines", "skipped")
                },
                "strict": {"type": "boolean"},
            },
        },
        "patches": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "input",
                    "index",
                    "message_id",
                    "subject",
                    "author",
                    "title",
                    "version",
                    "counter",
                    "files",
                    "added",
                    "removed",
                    "commit",
                    "errors",
                    "warnings",
                    "checks",
                    "lines",
                    "notes",
                ],
                "additionalProperties": False,
                "properties": {
                    "input": {"type": "string"},
                    "index": {"type": "integer", "minimum": 0},
                    "message_id": {"type": "string"},
                    "subject": {"type": "string"},
                    # how the mail was read (in-body From:/Subject: win, as with git am); null for a bare diff
                    "author": {
                        "type": ["object", "null"],
                        "required": ["name", "email"],
                        "additionalProperties": False,
                        "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
                    },
                    "title": {"type": ["string", "null"]},
                    "version": {"type": "integer", "minimum": 0},
                    "counter": {
                        "type": ["array", "null"],
                        "items": {"type": "integer", "minimum": 0},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    "files": {"type": "array", "items": {"type": "string"}},
                    "added": {"type": "integer", "minimum": 0},
                    "removed": {"type": "integer", "minimum": 0},
                    # the commit a --git patch was made from; null for other inputs
                    "commit": {
                        "type": ["object", "null"],
                        "required": ["hash", "title"],
                        "additionalProperties": False,
                        "properties": {"hash": {"type": "string"}, "title": {"type": "string"}},
                    },
                    **{k: {"type": "integer", "minimum": 0} for k in ("errors", "warnings", "checks", "lines")},
                    "notes": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "rule",
                    "name",
                    "severity",
                    "message",
                    "file",
                    "line",
                    "lines",
                    "input",
                    "input_line",
                    "message_id",
                    "subject",
                    "fingerprint",
                    "details",
                ],
                "additionalProperties": False,
                "properties": {
                    "rule": {"type": "string", "pattern": "^RB[0-9]{3}$"},
                    "name": {"type": "string"},
                    "severity": {"enum": ["error", "warning", "check"]},
                    "message": {"type": "string"},
                    "file": {"type": ["string", "null"]},
                    "line": _NULLABLE_INT,
                    "lines": {"type": "array", "items": {"type": "integer"}},
                    "input": {"type": "string"},
                    "input_line": _NULLABLE_INT,
                    "message_id": {"type": "string"},
                    "subject": {"type": "string"},
                    "fingerprint": {"type": "string"},
                    "details": {"type": "object"},
                },
            },
        },
        "failures": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["rule", "message_id", "input", "error"],
                "properties": {k: {"type": "string"} for k in ("rule", "message_id", "input", "error")},
            },
        },
        "problems": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["input", "error"],
                "properties": {"input": {"type": ["string", "null"]}, "error": {"type": "string"}},
            },
        },
        "notes": {"type": "array", "items": {"type": "string"}},
    },
}
SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.CHECK: "note"}
B4_STATUS = {Severity.ERROR: "fail", Severity.WARNING: "warn", Severity.CHECK: "warn"}


# ------------------------------------------------------------------ helpers


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def display_name(input_name: str) -> str:
    """How an input is named in a verdict: ``Your patch`` for stdin, as checkpatch does."""
    return "Your patch" if input_name == "-" else input_name


def patch_name(cp: "CheckedPatch", run: "CheckRun") -> str:
    """The verdict's name for a patch: its input, plus its subject when the input holds several;
    a commit of ``--git`` as checkpatch names it: ``Commit 1a2b3c4d5e6f ("title")``."""
    commit = getattr(cp, "commit", None)
    if commit:
        return f'Commit {commit[0]} ("{commit[1]}")'
    name = display_name(cp.input)
    several = sum(1 for other in run.patches if other.input == cp.input) > 1
    if several:
        return f'{name} ("{cp.patch.subject.raw}")'
    return name


def offending_lines(finding: Finding, cp: "CheckedPatch") -> list[str]:
    """The input lines a finding is about, as checkpatch prints them under ``#N:``.

    Diff findings show the hunk's lines (``+``/``-``/`` `` prefix kept) for every
    line of ``finding.lines`` (at most :data:`MAX_SHOWN_LINES`); otherwise the input
    line ``input_line`` itself, taken from the message bytes.
    """
    wanted = set(finding.lines or ((finding.line,) if finding.line is not None else ()))
    shown: list[str] = []
    if finding.hunk is not None and wanted:
        for dl in finding.hunk.lines:
            if dl.kind is not LineKind.REMOVED and dl.new_no in wanted:
                shown.append(dl.raw)
                if len(shown) >= MAX_SHOWN_LINES:
                    break
        if shown:
            return shown
    if finding.input_line is not None and cp.data:
        msg_line = finding.input_line - (cp.offset or 0)
        if msg_line >= 1:
            lines = cp.data.split(b"\n")
            if msg_line <= len(lines):
                return [lines[msg_line - 1].rstrip(b"\r").decode("utf-8", "replace")]
    return shown


def reference_url(reference: str) -> str | None:
    """A URL for a rule reference: itself when it is one, a kernel tree link for ``Documentation/...``."""
    ref = reference.strip()
    if ref.startswith(("https://", "http://")):
        return ref.split()[0]
    if ref.startswith("Documentation/"):
        path = ref.split()[0].split("#")[0].rstrip(":,;")
        return KERNEL_TREE_URL + path
    return None


def rule_help_uri(rule: "LoadedRule") -> str | None:
    """The first reference of a rule that can be linked (SARIF ``helpUri``, b4 ``url``)."""
    for ref in rule.meta.references:
        url = reference_url(ref)
        if url:
            return url
    return None


def _rules_by_id(run: "CheckRun") -> dict[str, "LoadedRule"]:
    return {r.meta.id: r for r in run.rules}


# ------------------------------------------------------------------ text / terse


def _where(finding: Finding, cp: "CheckedPatch") -> str:
    n = finding.input_line
    head = f"#{n}: " if n is not None else ""
    if finding.path:
        loc = f"{finding.path}:{finding.line}:" if finding.line is not None else f"{finding.path}:"
        return f"{head}FILE: {loc}"
    return head  # checkpatch prints "#N: " (with the space) before a commit-message line


def format_text(run: "CheckRun", *, quiet: bool = False) -> str:
    """checkpatch's layout: findings with ``#N: FILE: path:line:`` and lines, a total and a verdict per patch.

    A patch's notes come between its total and its verdict (where checkpatch puts its NOTE lines), so they
    read as that patch's own: at the top of its block they followed the previous patch's verdict.
    ``quiet`` (``-q``): no notes, no verdict, and nothing at all for a clean patch.
    """
    out: list[str] = []
    for cp in run.patches:
        block: list[str] = []
        for f in cp.findings:
            block.append(f"{f.severity.value}:{f.rule_id}: {f.message}")
            where = _where(f, cp)
            if where:
                block.append(where)
            block.extend(offending_lines(f, cp))
            if f.details.get("layout_map"):  # RB101's cache lines that change (issue 25)
                block.append(f"cache lines ({f.details.get('layout_source')}) that change:")
                block.extend(f.details["layout_map"])
            block.append("")
        for fail in cp.failures:
            block.append(f"ERROR:{fail.rule_id}: rule crashed on this patch: {fail.error}")
            block.append("")
        c = cp.counts()
        clean = not cp.findings and not cp.failures
        if clean and quiet:
            continue
        errors = c[Severity.ERROR] + len(cp.failures)
        block.append(
            f"total: {_plural(errors, 'error')}, {_plural(c[Severity.WARNING], 'warning')}, "
            f"{_plural(c[Severity.CHECK], 'check')}, {cp.lines_checked} lines checked"
        )
        if not quiet:
            block.append("")
            for note in cp.notes:
                block.append(f"NOTE: {note}")
            if cp.notes:
                block.append("")
            name = patch_name(cp, run)
            if clean:
                block.append(f"{name} has no obvious review findings and is ready for submission.")
            else:
                block.append(f"{name} has review findings, please look at them before sending.")
        out.append("\n".join(block))
    if not quiet:
        out.extend(f"NOTE: {note}" for note in run.notes)
        line = skipped_line(run)
        if line:
            out.append(line)
    # subjects, messages and diff lines are the patch author's text: no ESC, BEL or bidi override reaches
    # the terminal (tabs of the diff lines kept)
    return shown("\n\n".join(out) + ("\n" if out else ""), keep="\n\t")


def skipped_line(run: "CheckRun") -> str:
    """The tally of the messages that were not all patches: ``(1 patch checked; 1 reply skipped)``,
    ``(3 patches checked; 1 cover letter read with its series)``, or "" when every message was a patch.

    Every message of the input is accounted for: checked (a patch), read as its
    series' cover letter, skipped, or named in a note (a diff that is no patch
    submission) or a problem. Replies are named as such (a reviewer's reply may
    well carry a diff of its own); messages a note about their input already
    speaks for are not counted.
    """
    rest = run.skipped - run.explained
    replies = max(0, min(run.replies - run.explained, rest))
    others = rest - replies
    parts = []
    if replies:
        parts.append("1 reply" if replies == 1 else f"{replies} replies")
    if others:
        parts.append(f"{_plural(others, 'message')} without a diff")
    if run.unsubmitted:
        parts.append(f"{_plural(run.unsubmitted, 'diff')} that {'is' if run.unsubmitted == 1 else 'are'} no submission")
    said = []
    if run.covers:
        said.append(f"{_plural(run.covers, 'cover letter')} read with {'its' if run.covers == 1 else 'their'} series")
    if parts:
        said.append(f"{', '.join(parts[:-1])}{' and ' if len(parts) > 1 else ''}{parts[-1]} skipped")
    if not said:
        return ""
    checked = "1 patch" if len(run.patches) == 1 else f"{len(run.patches)} patches"
    return f"({checked} checked; {'; '.join(said)})"


def format_terse(run: "CheckRun", *, quiet: bool = False) -> str:
    """One line per finding: ``INPUT:N: LEVEL:RULE: message`` (N = 0 without an input line)."""
    lines: list[str] = []
    for cp in run.patches:
        for f in cp.findings:
            n = f.input_line if f.input_line is not None else 0
            lines.append(f"{cp.input}:{n}: {f.severity.value}:{f.rule_id}: {f.message}")
        for fail in cp.failures:
            lines.append(f"{cp.input}:0: ERROR:{fail.rule_id}: rule crashed on this patch: {fail.error}")
    return "".join(shown(line, keep="\t") + "\n" for line in lines)


# ------------------------------------------------------------------ json


def finding_dict(finding: Finding, cp: "CheckedPatch") -> dict[str, Any]:
    """One finding in JSON schema version 1 (see the module docstring)."""
    return {
        "rule": finding.rule_id,
        "name": finding.rule_name,
        "severity": finding.severity.value.lower(),
        "message": finding.message,
        "file": finding.path,
        "line": finding.line,
        "lines": list(finding.lines),
        "input": cp.input,
        "input_line": finding.input_line,
        "message_id": finding.message_id or cp.patch.message_id,
        "subject": cp.patch.subject.raw,
        "fingerprint": finding.fingerprint,
        "details": _jsonable(finding.details),
    }


def patch_identity(cp: "CheckedPatch") -> dict[str, Any]:
    """How a patch mail was read: author, title, version, counter, files, added/removed lines, commit.

    A bare diff (no mail headers) has no author and no title: null, never invented.
    """
    patch = cp.patch
    message = patch.message
    subj = patch.subject
    bare = getattr(message, "bare_diff", False)
    author = message.from_addr
    added, removed = cp.line_counts()  # the run keeps the counts, not the hunks
    commit = getattr(cp, "commit", None)
    return {
        "author": {"name": author.name, "email": author.email} if author is not None else None,
        "title": None if bare else subj.title,
        "version": subj.version,
        "counter": [subj.index, subj.total] if subj.index is not None and subj.total is not None else None,
        "files": [fd.path for fd in patch.files],
        "added": added,
        "removed": removed,
        "commit": {"hash": commit[0], "title": commit[1]} if commit else None,
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def format_json(run: "CheckRun", *, quiet: bool = False) -> str:
    """The whole run as JSON schema version 1 (documented in the module docstring and README)."""
    import json  # not on the text path

    c = run.counts()
    patches = []
    for cp in run.patches:
        pc = cp.counts()
        patches.append(
            {
                "input": cp.input,
                "index": cp.index,
                "message_id": cp.patch.message_id,
                "subject": cp.patch.subject.raw,
                **patch_identity(cp),
                "errors": pc[Severity.ERROR],
                "warnings": pc[Severity.WARNING],
                "checks": pc[Severity.CHECK],
                "lines": cp.lines_checked,
                "notes": list(cp.notes),
            }
        )
    doc = {
        "version": JSON_SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "summary": {
            "errors": c[Severity.ERROR],
            "warnings": c[Severity.WARNING],
            "checks": c[Severity.CHECK],
            "patches": len(run.patches),
            "lines": sum(cp.lines_checked for cp in run.patches),
            "skipped": run.skipped,
            "strict": run.strict,
        },
        "patches": patches,
        "findings": [finding_dict(f, cp) for cp in run.patches for f in cp.findings],
        "failures": [
            {"rule": x.rule_id, "message_id": x.message_id, "input": cp.input, "error": x.error}
            for cp in run.patches
            for x in cp.failures
        ],
        "problems": [{"input": p.subject, "error": str(p)} for p in run.problems],
        "notes": list(run.notes),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ sarif


def _first_paragraph(doc: str) -> str:
    for para in doc.strip().split("\n\n"):
        text = " ".join(line.strip() for line in para.splitlines()).strip()
        if text and not text.startswith("#"):
            return text
    return ""


def _doc_section(doc: str, heading: str) -> str:
    """The text under ``heading`` of a rule docstring, on one line (registry.doc_sections splits it)."""
    from reviewbot.registry import doc_sections

    return " ".join(doc_sections(doc).get(heading, "").split())


def sarif_rule(rule: "LoadedRule") -> dict[str, Any]:
    """``reportingDescriptor`` for one rule: id, name, descriptions, helpUri, help, default level."""
    doc = rule.doc or ""
    full = _doc_section(doc, "What it does") or _first_paragraph(doc) or rule.meta.summary
    why = _doc_section(doc, "Why it matters")
    if why:
        full = f"{full} {why}"
    desc: dict[str, Any] = {
        "id": rule.meta.id,
        "name": rule.meta.name,
        "shortDescription": {"text": rule.meta.summary},
        "fullDescription": {"text": full},
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.meta.severity]},
        "properties": {"scope": getattr(rule.meta.scope, "value", str(rule.meta.scope))},
    }
    if doc.strip():
        desc["help"] = {"text": doc.strip()}
    uri = rule_help_uri(rule)
    if uri:
        desc["helpUri"] = uri
    return desc


def _uri(path: str) -> str:
    from urllib.parse import quote

    return quote(path.replace("\\", "/"), safe="/:@!$&'()*+,;=-._~")


def _input_uri(name: str) -> str:
    """An input file as a SARIF artifact URI: ``file://`` for an absolute path, else relative."""
    from pathlib import PurePath

    if name.startswith("git:"):
        return _uri(name[4:] or "HEAD")
    path = PurePath(name)
    return path.as_uri() if path.is_absolute() else _uri(name)


def sarif_result(finding: Finding, cp: "CheckedPatch", rule_index: int | None) -> dict[str, Any]:
    """``result`` for one finding: ruleId, level, message, one location, fingerprints, input position."""
    if finding.path:
        location: dict[str, Any] = {"artifactLocation": {"uri": _uri(finding.path)}}
        if finding.line is not None and finding.line >= 1:
            location["region"] = {"startLine": finding.line}
    else:
        input_uri = "stdin" if cp.input == "-" else _input_uri(cp.input)
        location = {"artifactLocation": {"uri": input_uri}}
        if finding.input_line is not None and finding.input_line >= 1:
            location["region"] = {"startLine": finding.input_line}
    result: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "level": SARIF_LEVEL[finding.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": location}],
        "properties": {
            "input": cp.input,
            "inputLine": finding.input_line,
            "messageId": finding.message_id or cp.patch.message_id,
            "subject": cp.patch.subject.raw,
            "ruleName": finding.rule_name,
        },
    }
    if rule_index is not None:
        result["ruleIndex"] = rule_index
    if finding.fingerprint:
        result["partialFingerprints"] = {"reviewbotFingerprint/v1": finding.fingerprint}
    return result


def format_sarif(run: "CheckRun", *, quiet: bool = False) -> str:
    """The run as a SARIF 2.1.0 log with one run (validated against the OASIS schema in the tests)."""
    import json  # not on the text path

    index = {r.meta.id: i for i, r in enumerate(run.rules)}
    notifications: list[dict[str, Any]] = []
    for cp in run.patches:
        for note in cp.notes:
            notifications.append({"level": "note", "message": {"text": f"{cp.input}: {note}"}})
        for fail in cp.failures:
            notifications.append(
                {
                    "level": "error",
                    "message": {"text": f"rule {fail.rule_id} crashed on {fail.message_id}: {fail.error}"},
                    "associatedRule": {"id": fail.rule_id},
                }
            )
    for note in run.notes:
        notifications.append({"level": "note", "message": {"text": note}})
    for problem in run.problems:
        notifications.append({"level": "error", "message": {"text": str(problem)}})
    invocation: dict[str, Any] = {
        "executionSuccessful": not run.problems and not any(cp.failures for cp in run.patches)
    }
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    log = {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [sarif_rule(r) for r in run.rules],
                    }
                },
                "invocations": [invocation],
                "results": [sarif_result(f, cp, index.get(f.rule_id)) for cp in run.patches for f in cp.findings],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ b4


def b4_result(run: "CheckRun") -> dict[str, str]:
    """The one check result b4 reads from a per-patch check command (``tool``, ``status``...).

    ``status`` is ``fail`` with an ERROR (or a crashed rule or unreadable
    input), ``warn`` with a WARNING or CHECK, ``pass`` otherwise.
    """
    entries: list[dict[str, str]] = []
    worst = "pass"
    order = {"pass": 0, "warn": 1, "fail": 2}
    counts = run.counts()
    rules = _rules_by_id(run)
    url = ""
    for cp in run.patches:
        for f in cp.findings:
            status = B4_STATUS[f.severity]
            where = f" ({f.path}:{f.line})" if f.path and f.line is not None else f" ({f.path})" if f.path else ""
            entry = {"status": status, "description": f"{f.severity.value}:{f.rule_id}: {f.message}{where}"}
            shown = offending_lines(f, cp)
            if shown:
                entry["srcline"] = shown[0].rstrip()
            entries.append(entry)
            if order[status] > order[worst]:
                worst = status
            if not url and f.rule_id in rules:
                url = rule_help_uri(rules[f.rule_id]) or ""
        for fail in cp.failures:
            entries.append({"status": "fail", "description": f"rule {fail.rule_id} crashed: {fail.error}"})
            worst = "fail"
        for note in cp.notes:
            entries.append({"status": "pass", "description": f"note: {note}"})
    for problem in run.problems:
        entries.append({"status": "fail", "description": str(problem)})
        worst = "fail"
    failures = sum(len(cp.failures) for cp in run.patches)
    parts = []
    if counts[Severity.ERROR] + failures:
        parts.append(_plural(counts[Severity.ERROR] + failures, "error"))
    if counts[Severity.WARNING]:
        parts.append(_plural(counts[Severity.WARNING], "warning"))
    if counts[Severity.CHECK]:
        parts.append(_plural(counts[Severity.CHECK], "check"))
    if run.problems:
        parts.append(_plural(len(run.problems), "unreadable input"))
    if parts:
        summary = ", ".join(parts)
    elif run.patches:
        summary = "passed all checks"
    elif run.notes:
        summary = "; ".join(run.notes)
    else:
        summary = "no diff in this message, nothing to check"
    result = {"tool": TOOL_NAME, "status": worst, "summary": summary, "url": url, "details": ""}
    if entries:
        import json

        result["details"] = json.dumps(entries, ensure_ascii=False)
    return result


def b4_results(run: "CheckRun") -> list[dict[str, str]]:
    """What b4 0.16's review check runner reads from ``review-perpatch-check-cmd``: a JSON array of
    results, ``[]`` when there is nothing to report (a reply, a message without a diff)."""
    if not run.patches and not run.problems:
        return []
    return [b4_result(run)]


def format_b4(run: "CheckRun", *, quiet: bool = False) -> str:
    """:func:`b4_results` as one JSON array on one line."""
    import json  # not on the text path

    return json.dumps(b4_results(run), ensure_ascii=False) + "\n"


FORMATTERS: dict[str, Callable[..., str]] = {
    "text": format_text,
    "terse": format_terse,
    "json": format_json,
    "sarif": format_sarif,
    "b4": format_b4,
}


def render(run: "CheckRun", fmt: str, *, quiet: bool = False) -> str:
    """The run in format ``fmt`` (one of :data:`FORMATS`). Raises KeyError for an unknown format."""
    return FORMATTERS[fmt](run, quiet=quiet)
