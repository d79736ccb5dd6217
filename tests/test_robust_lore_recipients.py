"""Issue 24: lore's ``raw`` answer is taken only when it agrees with what the archive shows.

A real public-inbox server (tests/lore_server.py) holds forged copies of a June 2023 patch under the
patch's own Message-ID (public-inbox keeps a second mail that comes with the same Message-ID): another
sender, a Cc without the list, or thousands of recipients. The archived message is the openwall
mirror's page of that patch (tests/data), whose addresses are partly hidden.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
from pathlib import Path

import pytest
from lore_server import LoreServer, build_inbox

from reviewbot.config import Settings
from reviewbot.fetch import lore
from reviewbot.fetch.openwall import parse_message_page
from reviewbot.models import Address, Finding, Severity
from reviewbot.parse.mail import parse_message
from reviewbot.parse.patch import parse_patch
from reviewbot.respond.draft import MAX_DRAFT_RECIPIENTS, MISSING_NOTE, build_draft

PATCH_MID = "20230627120854.971475-3-chengming.zhou@linux.dev"
PATCH_PAGE = "linux-kernel/2023/06/27/3.html"
ME = Address("Zoë Reviewer", "zoe@example.com")


def _archived(data_dir: Path):
    page = data_dir / "openwall-mirror" / PATCH_PAGE
    url = "https://lists.openwall.net/" + PATCH_PAGE.removesuffix(".html")
    return parse_message(parse_message_page(page.read_bytes(), url, "linux-kernel"))


def _real_mail(lore_inbox) -> bytes:
    return next(m.data for m in lore_inbox.mails if m.message_id == PATCH_MID)


def _forged(data: bytes, **headers: str) -> bytes:
    """The real mail with some headers replaced (a forger's copy under the same Message-ID)."""
    msg = email.message_from_bytes(data, policy=email.policy.compat32)
    for name, value in headers.items():
        name = name.replace("_", "-")
        del msg[name]
        if value:
            msg[name] = value
    return msg.as_bytes()


def _serve(tmp_path: Path, mails: list[bytes]) -> LoreServer:
    home = tmp_path / "pi"
    build_inbox(home, "lkml", mails)
    return LoreServer(home).start()


def _completer(tmp_path: Path, url: str) -> lore.AddressCompleter:
    settings = Settings(lore_url=url, rate=0, retries=0, backoff=0, obey_robots=False, timeout=5)
    return lore.AddressCompleter(lore.RawLookup(settings, cache_root=tmp_path / "cache"))


def _finding(patch) -> Finding:
    fd = patch.files[0]
    line = next(dl.new_no for dl in fd.hunks[0].lines if dl.kind.value == "+")
    return Finding(
        rule_id="RB999",
        rule_name="test-note",
        severity=Severity.WARNING,
        message="a note",
        fingerprint="fp-test",
        path=fd.path,
        line=line,
        lines=(line,),
        hunk=fd.hunks[0],
    )


def _draft(archived, completer):
    patch = parse_patch(archived)
    return build_draft(
        patch,
        [_finding(patch)],
        {},
        identity=ME,
        list_address="linux-kernel@vger.kernel.org",
        real_headers=completer,
        sender=archived.from_addr,
    )


def _emails(addrs) -> set[str]:
    return {a.email.lower() for a in addrs}


@pytest.fixture
def real_from(lore_inbox) -> str:
    return email.utils.parseaddr(email.message_from_bytes(_real_mail(lore_inbox))["From"])[1]


def test_a_forged_first_copy_loses_to_the_copy_that_fits_the_archive(lore_inbox, data_dir, tmp_path, real_from) -> None:
    real = _real_mail(lore_inbox)
    forged = _forged(real, From="Chengming Zhou <eve@attacker.example>", Cc="eve-friend@attacker.example")
    with _serve(tmp_path, [forged, real]) as server:
        completer = _completer(tmp_path, server.url)
        assert len(completer.lookup.raw(PATCH_MID, "lkml")) == 2, "public-inbox serves both copies"
        archived = _archived(data_dir)
        draft = _draft(archived, completer)
    assert draft.to[0].email == real_from, completer.results
    everyone = _emails((*draft.to, *draft.cc))
    assert not any("attacker" in a for a in everyone)
    assert "linux-kernel@vger.kernel.org" in everyone
    assert completer.results == [lore.Completion(PATCH_MID, True)]


def test_a_copy_from_another_sender_is_refused_and_the_draft_says_why(lore_inbox, data_dir, tmp_path) -> None:
    forged = _forged(_real_mail(lore_inbox), From="Chengming Zhou <eve@attacker.example>")
    with _serve(tmp_path, [forged]) as server:
        completer = _completer(tmp_path, server.url)
        archived = _archived(data_dir)
        draft = _draft(archived, completer)
    assert not any("attacker" in a for a in _emails((*draft.to, *draft.cc)))
    assert not draft.recipients_complete
    result = completer.results[0]
    assert not result.completed and "eve@attacker.example" in result.reason
    assert draft.body.startswith(MISSING_NOTE)
    note = " ".join(draft.body.split("\n\n", 1)[0].split())
    assert "lore's copy" in note and "eve@attacker.example" in note
    assert any("real addresses for 0 of 1" in line for line in completer.lines())


def test_a_copy_that_drops_the_list_from_cc_is_refused(lore_inbox, data_dir, tmp_path) -> None:
    real = _real_mail(lore_inbox)
    head = email.message_from_bytes(real)
    cc = [f"{n} <{a}>" if n else a for n, a in email.utils.getaddresses(head.get_all("Cc", []))]
    kept = [c for c in cc if "vger.kernel.org" not in c]
    assert kept != cc, "the patch Cc's the list"
    with _serve(tmp_path, [_forged(real, Cc=", ".join(kept))]) as server:
        completer = _completer(tmp_path, server.url)
        archived = _archived(data_dir)
        done = completer(archived)
    assert done is archived
    assert "Cc has no address that fits" in completer.results[0].reason


def test_thousands_of_recipients_are_never_copied_in(lore_inbox, data_dir, tmp_path) -> None:
    real = _real_mail(lore_inbox)
    head = email.message_from_bytes(real)
    many = ", ".join(f"person{i}@many.example" for i in range(3000))
    forged = _forged(real, To=head["To"] + ", " + many)
    with _serve(tmp_path, [forged]) as server:
        completer = _completer(tmp_path, server.url)
        archived = _archived(data_dir)
        draft = _draft(archived, completer)
    assert len(draft.to) + len(draft.cc) <= MAX_DRAFT_RECIPIENTS
    assert not any("many.example" in a for a in _emails((*draft.to, *draft.cc)))
    assert "3" in completer.results[0].reason and "recipients" in completer.results[0].reason
    assert not draft.recipients_complete


def test_a_message_naming_thousands_is_drafted_to_a_bounded_few(data_dir) -> None:
    archived = _archived(data_dir)
    many = tuple(Address("", f"person{i}@many.example") for i in range(3000))
    import dataclasses

    lists = (Address("", "linux-kernel@vger.kernel.org"),)
    message = dataclasses.replace(archived, cc=many + lists, obfuscated=False, from_addr=Address("A", "a@example.org"))
    patch = dataclasses.replace(parse_patch(archived), message=message)
    draft = build_draft(patch, [_finding(patch)], {}, identity=ME, list_address="linux-kernel@vger.kernel.org")
    assert len(draft.to) + len(draft.cc) == MAX_DRAFT_RECIPIENTS
    assert not draft.recipients_complete
    # the author and 3,001 Cc (the obfuscated To of the archive is left out, named in the note)
    assert "2702 more recipients" in " ".join(draft.body.split())
    assert "linux-kernel@vger.kernel.org" in _emails(draft.cc)  # the list stays, the last people go
