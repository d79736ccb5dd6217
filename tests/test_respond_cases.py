"""The reply side of the shared cases (C04, C07, C12, C14, C17), read byte-exact from ../shared/cases,
plus the pure parts of drafting: subject, identity, recipients, wrapping, rendering, Maildir."""

from __future__ import annotations

import email
import mailbox
import subprocess
from datetime import datetime, timezone
from email import policy
from pathlib import Path

import pytest

from conftest import CASES
from reviewbot.config import Settings
from reviewbot.rule import RuleContext
from reviewbot.engine import check_patch
from reviewbot.errors import InputError, UsageError
from reviewbot.fetch.openwall import parse_message_page
from reviewbot.models import Address, Finding, Severity
from reviewbot.parse.mail import parse_message, parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.draft import (
    build_draft,
    complete_address,
    msgids,
    parse_maintainers,
    reply_subject,
    resolve_identity,
    wrap_paragraphs,
)
from reviewbot.respond.quote import quote_finding
from reviewbot.respond.render import add_to_maildir, outbox_filename, render_message, write_outbox

NOW = datetime(2025, 3, 20, 8, 30, tzinfo=timezone.utc)
ME = Address("Zoë Reviewer", "zoe@example.com")
LIST = "linux-kernel@vger.kernel.org"


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def draft_of(patch, findings, rules, **kw):
    kw.setdefault("identity", ME)
    kw.setdefault("list_address", LIST)
    return build_draft(patch, findings, rules, clock=lambda: NOW, make_msgid=lambda d: f"fixed-1@{d}", **kw)


def note(rule_id: str = "RB999", **kw) -> Finding:
    return Finding(
        rule_id=rule_id,
        rule_name="test-note",
        severity=Severity.WARNING,
        message="a note",
        fingerprint=kw.pop("fingerprint", "fp-test"),
        **kw,
    )


def headers_of(data: bytes) -> str:
    return data.split(b"\n\n", 1)[0].decode("ascii") + "\n"


# --------------------------------------------------------------------- C04


def test_c04_marker_quoted_verbatim_in_place(rules) -> None:
    msg = parse_rfc822((CASES / "C04.patch").read_bytes(), "C04.patch")
    patch = parse_patch(msg)
    report = check_patch(patch, rules, RuleContext(strict=True))  # the unexplained swap is a CHECK
    assert [(f.rule_id, f.lines) for f in report.findings] == [("RB101", (7, 8))]
    body = draft_of(patch, report.findings, rules).body
    assert "> -};\n> \\ No newline at end of file\n> +\tu32 drops;\n" in body
    assert "> --- a/drivers/foo/foo_stats.h\n> +++ b/drivers/foo/foo_stats.h\n> @@ -5,5 +5,6 @@\n" in body
    assert "drops" in body.split("> +};", 1)[1] and "errors" in body.split("> +};", 1)[1]
    # the other file is not quoted
    assert "stats.c" not in body


# --------------------------------------------------------------------- C07


def test_c07_utf8_reply_and_rfc2047_names() -> None:
    msg = parse_rfc822((CASES / "C07.eml").read_bytes(), "C07.eml")
    patch = parse_patch(msg)
    finding = note(details={"text": "Reported-by: Jürgen"})
    draft = draft_of(patch, [finding], {"RB999": lambda fs, p: "Is there a link to Jürgen's report?"})
    assert "> Reported-by: Jürgen Beispiel <juergen@example.de>" in draft.body
    data = render_message(draft)
    head = headers_of(data)
    assert "Content-Type: text/plain; charset=utf-8\n" in head
    assert "Content-Transfer-Encoding: 8bit\n" in head
    assert "=?utf-8?q?J=C3=BCrgen_Beispiel?= <juergen@example.de>" in head
    assert "From: =?utf-8?q?Zo=C3=AB_Reviewer?= <zoe@example.com>\n" in head
    assert "> Reported-by: Jürgen Beispiel".encode("utf-8") in data
    back = email.message_from_bytes(data, policy=policy.default)
    assert [a.display_name for a in back["Cc"].addresses] == ["", "Jürgen Beispiel"]
    assert back["From"].addresses[0].display_name == "Zoë Reviewer"
    assert back.get_content() == draft.body


# --------------------------------------------------------------------- C12


def test_c12_references_are_msgids_only() -> None:
    raw = (CASES / "C12.mbox").read_bytes()
    dan_raw = b"From dan@" + raw.split(b"\nFrom dan@", 1)[1]
    dan = parse_rfc822(dan_raw, "C12.mbox:2")
    patch = parse_patch(dan)
    draft = draft_of(patch, [note()], {})
    assert draft.in_reply_to == "87a5b3c2d1.fsf@example.net"
    assert draft.references == ("20250317080000.5050-1-ada@example.org", "87a5b3c2d1.fsf@example.net")
    head = headers_of(render_message(draft)).replace("\n ", " ")  # unfold
    assert "In-Reply-To: <87a5b3c2d1.fsf@example.net>\n" in head
    assert "References: <20250317080000.5050-1-ada@example.org> <87a5b3c2d1.fsf@example.net>\n" in head
    assert "message from" not in head
    assert draft.subject == "Re: [PATCH] foo: drop the unused FOO_Q_STALE flag"


def test_msgids_drop_comments() -> None:
    assert msgids("<a@b> (message from Ada\n Example on Mon)") == ["a@b"]
    assert msgids(["<a@b>", "c@d", "junk words"]) == ["a@b", "c@d"]


# --------------------------------------------------------------------- C14


def test_c14_reply_quotes_the_barrier_lines(rules) -> None:
    msg = parse_rfc822((CASES / "C14.patch").read_bytes(), "C14.patch")
    patch = parse_patch(msg)
    report = check_patch(patch, rules)
    assert [f.line for f in report.findings] == [37, 40, 43]
    body = draft_of(patch, report.findings, rules).body
    quoted = [line for line in body.split("\n") if line.startswith(">")]
    assert "> +\tr->kicks++;" in quoted and "> +\tsmp_mb();" in quoted
    assert quoted.count("> +\tsmp_wmb();") == 2  # lines 37 and 43
    assert "> +\twritel(r->tail, r->db);" in quoted
    assert not any("FOO_PUBLISH" in line for line in quoted)  # the macro at :15 is fine, not quoted
    assert "> [...]" in quoted
    assert "smp_mb()" in body and "smp_wmb()" in body


def test_quote_single_finding_per_line(rules) -> None:
    msg = parse_rfc822((CASES / "C14.patch").read_bytes(), "C14.patch")
    patch = parse_patch(msg)
    report = check_patch(patch, rules)
    only40 = quote_finding(patch, report.findings[1]).split("\n")
    assert only40[:3] == ["> --- a/drivers/foo/ring.c", "> +++ b/drivers/foo/ring.c", "> @@ -10,5 +10,40 @@"]
    assert only40[3] == "> [...]" and only40[-1] == "> [...]"
    assert "> +\tsmp_mb();" in only40
    # the excerpt (3 context lines each side) starts with the first line of its function, 4 lines up
    assert only40[4] == "> +static void foo_ring_kick(struct foo_ring *r)"
    assert len(only40) == 3 + 1 + 4 + 7 + 1


# --------------------------------------------------------------------- C17


@pytest.fixture
def c17_patch():
    page = (CASES / "C17.html").read_bytes()
    raw = parse_message_page(page, "https://lists.openwall.net/linux-kernel/2025/03/19/5", "linux-kernel")
    return parse_patch(parse_message(raw))


def _makefile_finding(patch) -> Finding:
    fd = next(f for f in patch.files if f.path.endswith("Makefile"))
    return note(path=fd.path, line=8, lines=(8,), hunk=fd.hunks[0])


def test_c17_incomplete_recipients_go_to_the_list(c17_patch) -> None:
    draft = draft_of(c17_patch, [_makefile_finding(c17_patch)], {})
    assert draft.recipients_complete is False
    assert draft.to == (Address("", LIST),) and draft.cc == ()
    assert draft.in_reply_to == "20250319100000.7171-1-ada@example.org"
    data = render_message(draft)
    head = headers_of(data)
    assert "@..." not in head
    assert "X-Reviewbot-Recipients: incomplete\n" in head
    assert "To: linux-kernel@vger.kernel.org\n" in head
    # the altered line is quoted as the archive shows it, never "fixed"
    assert "> +      cmd_fwtab = $(src)/gen-fwtab.sh $< > $@...p && mv $@...p $@" in draft.body


def test_c17_completed_from_store_addresses(c17_patch) -> None:
    known = [
        Address("Ada Example", "ada@example.org"),
        Address("Bob Sample", "bob@kernel.example"),
        Address("Carol Test", "carol@example.net"),
    ]
    draft = draft_of(c17_patch, [_makefile_finding(c17_patch)], {}, store_addresses=known)
    assert draft.recipients_complete is True
    assert draft.to == (Address("Ada Example", "ada@example.org"),)
    assert [a.email for a in draft.cc] == [LIST, "bob@kernel.example", "carol@example.net"]
    head = headers_of(render_message(draft))
    assert "@..." not in head and "X-Reviewbot-Recipients" not in head


def test_c17_completed_from_maintainers_file(c17_patch, tmp_path: Path) -> None:
    maint = tmp_path / "MAINTAINERS"
    maint.write_text(
        "FOO DEVICE DRIVER\nM:\tBob Sample <bob@kernel.example>\nR:\tCarol Test <carol@example.net>\n"
        "M:\tAda Example <ada@example.org>\nL:\tlinux-kernel@vger.kernel.org\nS:\tMaintained\n"
    )
    assert len(parse_maintainers(maint)) == 3
    draft = draft_of(c17_patch, [_makefile_finding(c17_patch)], {}, maintainers=maint)
    assert draft.recipients_complete is True
    assert draft.to[0].email == "ada@example.org"


def test_c17_ambiguous_completion_stays_incomplete(c17_patch) -> None:
    known = [
        Address("", "ada@example.org"),
        Address("", "ada@axample.org"),
        Address("", "bob@kernel.example"),
        Address("", "carol@example.net"),
    ]
    assert complete_address(Address("Ada", "ada@...mple.org", True), known) is None
    draft = draft_of(c17_patch, [_makefile_finding(c17_patch)], {}, store_addresses=known)
    assert draft.recipients_complete is False and draft.to == (Address("", LIST),)


def test_complete_address_needs_exactly_three_dropped() -> None:
    known = [Address("", "ada@mple.org"), Address("", "ada@xexample.org")]
    assert complete_address(Address("", "ada@...mple.org", True), known) is None
    assert (
        complete_address(Address("", "ada@...mple.org", True), [Address("A", "ADA@example.org")]).email
        == "ADA@example.org"
    )


def test_render_refuses_obfuscated_header() -> None:
    from reviewbot.models import Draft

    bad = Draft(
        in_reply_to="a@b",
        references=("a@b",),
        subject="Re: x",
        from_addr=ME,
        to=(Address("", "ada@...mple.org", True),),
        cc=(),
        body="x\n",
        fingerprints=(),
        message_id="m@e",
    )
    with pytest.raises(InputError):
        render_message(bad)


# --------------------------------------------------------------------- pure parts


@pytest.mark.parametrize(
    "subject, expected",
    [
        ("[PATCH] foo: bar", "Re: [PATCH] foo: bar"),
        ("Re: [PATCH] foo: bar", "Re: [PATCH] foo: bar"),
        ("RE: Re: AW: [PATCH v2 1/3] foo:\n bar", "Re: [PATCH v2 1/3] foo: bar"),
        ("re[2]: x", "Re: x"),
    ],
)
def test_reply_subject_has_one_re(subject: str, expected: str) -> None:
    assert reply_subject(subject) == expected


def test_wrap_keeps_code_and_drops_tags() -> None:
    text = (
        ("word " * 40).strip()
        + "\n\n\tcode line that is very long "
        + "x" * 80
        + "\n\nReviewed-by: Zoë <zoe@example.com>\n"
    )
    out = wrap_paragraphs(text)
    lines = out.split("\n")
    assert all(len(line) <= 72 for line in lines if not line.startswith("\t"))
    assert "\tcode line that is very long " + "x" * 80 in lines
    assert "Reviewed-by" not in out and "Acked-by" not in wrap_paragraphs("Acked-by: x <x@y>")


def test_no_review_tags_ever_in_golden_like_drafts(rules) -> None:
    msg = parse_rfc822((CASES / "C04.patch").read_bytes(), "C04.patch")
    patch = parse_patch(msg)
    report = check_patch(patch, rules, RuleContext(strict=True))
    body = draft_of(
        patch, report.findings, {"RB101": lambda fs, p: "Looks good.\n\nReviewed-by: Zoë <zoe@example.com>"}
    ).body
    assert "Reviewed-by" not in body and "Acked-by" not in body
    assert body.endswith("Thanks,\nZoë\n")
    assert body.startswith("On Wed, 12 Mar 2025 16:00:00 +0100, Ada Example wrote:\n> ")


def _git_home(tmp_path: Path, monkeypatch, **config: str) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    for key, value in config.items():
        subprocess.run(["git", "config", "--global", key.replace("_", "."), value], check=True)
    monkeypatch.chdir(tmp_path)
    return home


def test_identity_order(tmp_path: Path, monkeypatch) -> None:
    _git_home(tmp_path, monkeypatch, user_name="Git User", user_email="git@example.org")
    assert resolve_identity(Settings()) == Address("Git User", "git@example.org")
    subprocess.run(["git", "config", "--global", "sendemail.from", "Send Er <send@example.org>"], check=True)
    assert resolve_identity(Settings()) == Address("Send Er", "send@example.org")
    configured = Settings(identity_name="Zoë Reviewer", identity_email="zoe@example.com")
    assert resolve_identity(configured) == ME


def test_identity_missing_is_a_usage_error(tmp_path: Path, monkeypatch) -> None:
    _git_home(tmp_path, monkeypatch)
    with pytest.raises(UsageError, match="identity"):
        resolve_identity(Settings())


def test_outbox_name_and_atomic_rewrite(tmp_path: Path, c17_patch) -> None:
    draft = draft_of(c17_patch, [_makefile_finding(c17_patch)], {})
    name = outbox_filename(draft, "linux-kernel")
    assert name.startswith("2025-03-20-linux-kernel-foo-") and name.endswith(".eml")
    first = write_outbox(draft, tmp_path / "out", "linux-kernel")
    second = write_outbox(draft, tmp_path / "out", "linux-kernel")
    assert first == second and [p.name for p in (tmp_path / "out").iterdir()] == [name]


def test_maildir_draft_flag(tmp_path: Path, c17_patch) -> None:
    draft = draft_of(c17_patch, [_makefile_finding(c17_patch)], {})
    key = add_to_maildir(draft, tmp_path / "Drafts")
    assert add_to_maildir(draft, tmp_path / "Drafts") == key  # not twice
    box = mailbox.Maildir(str(tmp_path / "Drafts"), factory=None, create=False)
    assert len(box) == 1
    msg = box[key]
    assert "D" in msg.get_flags() and msg.get_subdir() == "cur"
    assert msg["Message-ID"] == "<fixed-1@example.com>"
    assert msg["In-Reply-To"] == "<20250319100000.7171-1-ada@example.org>"


def test_long_address_lists_parse_back_exactly() -> None:
    from email.utils import getaddresses

    from reviewbot.models import Draft

    cc = tuple(Address(f"Person Number {n}", f"p{n}@example.org") for n in range(20)) + (
        Address("Michal Koutný", "mkoutny@suse.com"),
        Address("Liam R. Howlett", "liam@infradead.org"),
    )
    draft = Draft(
        in_reply_to="a@b",
        references=("a@b",),
        subject="Re: x " + "y" * 100,
        from_addr=ME,
        to=(Address("Ada", "ada@example.org"),),
        cc=cc,
        body="x\n",
        fingerprints=(),
        message_id="m@e",
    )
    data = render_message(draft)
    head = data.split(b"\n\n", 1)[0].decode("ascii")
    assert all(len(line) <= 998 for line in head.split("\n"))
    assert "=2C" not in head  # no comma turned into an encoded word
    back = email.message_from_bytes(data, policy=policy.default)
    got = [(a.display_name, a.addr_spec) for a in back["Cc"].addresses]
    assert got == [(a.name, a.email) for a in cc]
    assert getaddresses([str(back["From"])]) == [("Zoë Reviewer", "zoe@example.com")]
    assert back["Subject"] == draft.subject
