"""lore as a second source, against a real public-inbox server on 127.0.0.1 (tests/lore_server.py).

The server holds inbox ``lkml`` built with public-inbox-mda from the corpus
messages dated 2023-05-25 .. 2023-07-05; the openwall mirror is served by
mirror_server. Covered: raw lookup and address completion, drafts of the
mirror's June 2023 with real addresses, a month read from the git epochs,
incremental runs, and the fallbacks (unknown Message-ID, server stopped,
subject that does not match).
"""

from __future__ import annotations

import dataclasses
import email
import email.utils
import os
import subprocess
import sys
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from lore_server import INBOX_FIRST, INBOX_LAST, LoreServer, copy_inbox, corpus_mails, deliver

from reviewbot.config import Settings
from reviewbot.fetch import lore
from reviewbot.fetch.openwall import parse_message_page
from reviewbot.parse.mail import parse_message
from reviewbot.scan_lore import scan_lore
from reviewbot.store import Store

JUNE = (date(2023, 6, 1), date(2023, 6, 30))
# a patch of June 2023 present on both sources (the mirror page and the fixture inbox)
PATCH_MID = "20230627120854.971475-3-chengming.zhou@linux.dev"
PATCH_PAGE = "linux-kernel/2023/06/27/3.html"


def settings_for(tmp_path: Path, url: str) -> Settings:
    return Settings(
        lore_url=url, db_path=tmp_path / "db.sqlite", rate=0, retries=1, backoff=0, obey_robots=False, timeout=5
    )


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def mirror_message(data_dir: Path, page: str = PATCH_PAGE):
    """The archived (obfuscated) Message of one mirror page."""
    path = data_dir / "openwall-mirror" / page
    url = "https://lists.openwall.net/" + page.removesuffix(".html")
    return parse_message(parse_message_page(path.read_bytes(), url, "linux-kernel"))


def corpus_headers(lore_inbox, message_id: str) -> email.message.Message:
    data = next(m.data for m in lore_inbox.mails if m.message_id == message_id)
    return email.message_from_bytes(data)


# ---------------------------------------------------------------------- small pieces


def test_inbox_names() -> None:
    assert lore.inbox_for("linux-kernel") == "lkml"
    assert lore.inbox_for("linux-block") == "linux-block"


def test_raw_url_escapes_slashes_in_message_ids() -> None:
    url = lore.raw_url("https://lore.kernel.org", "lkml", "ZJu8DQgug3/UjpUJ@ovpn-8-21.pek2.redhat.com")
    assert url == "https://lore.kernel.org/lkml/ZJu8DQgug3%2FUjpUJ@ovpn-8-21.pek2.redhat.com/raw"


def test_split_mboxrd_undoes_one_level_of_from_quoting() -> None:
    data = (
        b"From mboxrd@z Thu Jan  1 00:00:00 1970\nSubject: a\n\n>From here\n>>From there\n\n"
        b"From mboxrd@z Thu Jan  1 00:00:00 1970\nSubject: b\n\nbody\n"
    )
    assert lore.split_mboxrd(data) == [b"Subject: a\n\nFrom here\n>From there\n", b"Subject: b\n\nbody\n"]


def test_subject_match_allows_the_archives_obfuscation_only() -> None:
    assert lore._subject_matches("Re: [PATCH] fix  it", "Re: [PATCH] fix it")
    assert lore._subject_matches("Re: mail from ada@...mple.org", "Re: mail from ada@example.org")
    assert not lore._subject_matches("Re: mail from ada@...mple.org", "Re: mail from ada@exam.org")
    assert not lore._subject_matches("[PATCH] one", "[PATCH] two")


def test_pick_epochs_leaves_out_epochs_that_cannot_hold_the_range() -> None:
    def ts(y: int, m: int, d: int) -> int:
        return int(datetime(y, m, d, tzinfo=timezone.utc).timestamp())

    epochs = [
        lore.Epoch(0, "u0", ts(2021, 1, 1)),
        lore.Epoch(1, "u1", ts(2022, 6, 1)),
        lore.Epoch(2, "u2", ts(2023, 9, 1)),
        lore.Epoch(3, "u3", ts(2024, 12, 1)),
        lore.Epoch(4, "u4", ts(2026, 1, 1)),
    ]
    assert [e.number for e in lore.pick_epochs(epochs, *JUNE)] == [2]
    # the first days of an epoch's successor, and an open end
    assert [e.number for e in lore.pick_epochs(epochs, date(2023, 8, 30), None)] == [2, 3, 4]
    assert [e.number for e in lore.pick_epochs([lore.Epoch(0, "u")], *JUNE)] == [0]


# ---------------------------------------------------------------------- raw lookup, completion


def test_raw_lookup_gives_the_real_message_and_keeps_it(lore_server, lore_inbox, tmp_path, cache_home) -> None:
    lookup = lore.RawLookup(settings_for(tmp_path, lore_server.url))
    found = lookup.raw(PATCH_MID, "lkml")
    assert len(found) == 1
    head = email.message_from_bytes(found[0])
    assert head["Message-ID"].strip() == f"<{PATCH_MID}>"
    assert head["From"] == corpus_headers(lore_inbox, PATCH_MID)["From"]
    made = lookup.requests
    assert made == 1
    again = lore.RawLookup(settings_for(tmp_path, lore_server.url))  # a later run: from the cache
    assert again.raw(PATCH_MID, "lkml") == found
    assert again.requests == 0 and again.from_cache == 1
    assert lookup.cache_path("lkml", PATCH_MID).is_file()


def test_completion_takes_the_real_headers_when_id_and_subject_match(
    lore_server, lore_inbox, data_dir, tmp_path, cache_home
) -> None:
    archived = mirror_message(data_dir)
    assert archived.message_id == PATCH_MID and "@..." in archived.from_addr.email
    completer = lore.AddressCompleter(lore.RawLookup(settings_for(tmp_path, lore_server.url)))
    done = completer(archived)
    real = corpus_headers(lore_inbox, PATCH_MID)
    assert done.from_addr.email == email.utils.parseaddr(real["From"])[1]
    real_cc = {a.lower() for _n, a in email.utils.getaddresses(real.get_all("Cc", []))}
    assert {a.email.lower() for a in done.cc} == real_cc
    assert not any("@..." in a.email for a in (done.from_addr, *done.to, *done.cc))
    assert done.references and done.references[-1] == done.in_reply_to
    assert done.body == archived.body and done.subject == archived.subject
    assert completer.results == [lore.Completion(PATCH_MID, True)]


def test_unknown_message_id_keeps_the_message_and_says_why(lore_server, data_dir, tmp_path, cache_home) -> None:
    archived = dataclasses.replace(mirror_message(data_dir), message_id="no-such-message@example.org")
    completer = lore.AddressCompleter(lore.RawLookup(settings_for(tmp_path, lore_server.url)))
    assert completer(archived) is archived
    assert completer.results[0].reason == "not archived on lore"
    assert completer.lookup.requests == 2  # the list's inbox, then /all/
    assert any("not archived on lore" in line for line in completer.lines())


def test_subject_that_does_not_match_keeps_the_message(lore_server, data_dir, tmp_path, cache_home) -> None:
    archived = mirror_message(data_dir)
    other = dataclasses.replace(archived, subject=dataclasses.replace(archived.subject, raw="[PATCH] something else"))
    completer = lore.AddressCompleter(lore.RawLookup(settings_for(tmp_path, lore_server.url)))
    assert completer(other) is other
    assert "another subject" in completer.results[0].reason


def test_stopped_server_keeps_the_message_and_stops_asking(lore_inbox, data_dir, tmp_path, cache_home) -> None:
    server = LoreServer(lore_inbox.home).start()
    url = server.url
    server.stop()
    completer = lore.AddressCompleter(lore.RawLookup(settings_for(tmp_path, url)))
    archived = mirror_message(data_dir)
    assert completer(archived) is archived
    assert completer.unreachable and "cannot connect" in completer.unreachable
    second = mirror_message(data_dir, "linux-kernel/2023/06/27/2.html")
    assert completer(second) is second
    assert completer.lookup.requests == 0
    assert any("could not be reached" in line for line in completer.lines())


# ---------------------------------------------------------------------- drafts of the mirror's June 2023


def _run(env, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reviewbot", *args], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_drafts_of_the_mirrors_june_carry_real_addresses(lore_server, lore_inbox, mirror_server, tmp_path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'rate = 0\nobey-robots = false\ndraft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n',
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        REVIEWBOT_CONFIG=str(config),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        REVIEWBOT_NOW="2023-07-10T00:00:00",
    )
    db = str(tmp_path / "db.sqlite")
    scanned = _run(
        env,
        "scan",
        "linux-kernel",
        "--base-url",
        mirror_server.base_url,
        "--since",
        "2023-06",
        "--until",
        "2023-06",
        "--db",
        db,
    )
    assert scanned.returncode == 0, scanned.stderr
    (tmp_path / "db2.sqlite").write_bytes(Path(db).read_bytes())
    drafted = _run(env, "draft", "--db", db, "--outbox", str(tmp_path / "outbox"), "--lore-url", lore_server.url)
    assert drafted.returncode == 0, drafted.stderr
    files = sorted((tmp_path / "outbox").glob("*.eml"))
    assert files, drafted.stdout
    assert "0 with incomplete recipients" in drafted.stdout
    for path in files:
        draft = email.message_from_bytes(path.read_bytes())
        assert draft["X-Reviewbot-Recipients"] is None, path.name
        patch_mid = draft["In-Reply-To"].strip("<> ")
        author = email.utils.parseaddr(corpus_headers(lore_inbox, patch_mid)["From"])[1]
        assert author in [a for _n, a in email.utils.getaddresses(draft.get_all("To", []))], path.name

    # the same drafts while lore is down: today's fallback, and the command says why
    down = LoreServer(lore_inbox.home).start()
    dead_url = down.url
    down.stop()
    fallback = _run(
        env,
        "draft",
        "--db",
        str(tmp_path / "db2.sqlite"),
        "--outbox",
        str(tmp_path / "outbox2"),
        "--lore-url",
        dead_url,
    )
    assert fallback.returncode == 0, fallback.stderr
    assert f"{len(files)} with incomplete recipients" in fallback.stdout
    assert "lore could not be reached" in fallback.stdout and "cannot connect" in fallback.stdout
    for path in sorted((tmp_path / "outbox2").glob("*.eml")):
        draft = email.message_from_bytes(path.read_bytes())
        # Without lore the people stay unknown: the draft goes to the patch's own lists only.
        assert draft["X-Reviewbot-Recipients"] == "incomplete", path.name
        recipients = [a for _n, a in email.utils.getaddresses(draft.get_all("To", []) + draft.get_all("Cc", []))]
        assert recipients and all(a.endswith("@vger.kernel.org") for a in recipients), recipients


# ---------------------------------------------------------------------- scanning the epochs


def _stored(db: Path) -> dict[str, str]:
    with Store(db) as store:
        return {r.message_id: r.day for r in store.messages("linux-kernel")}


def test_a_month_from_the_epochs_holds_exactly_that_months_messages(
    lore_server, lore_inbox, tmp_path, cache_home
) -> None:
    settings = settings_for(tmp_path, lore_server.url)
    first = scan_lore(settings, "linux-kernel", *JUNE)
    june = {m.message_id for m in lore_inbox.mails if JUNE[0] <= m.day <= JUNE[1]}
    assert len(june) > 30 and len(lore_inbox.mails) > len(june)
    stored = _stored(settings.db_path)
    assert set(stored) == june
    assert all("2023-06-01" <= day <= "2023-06-30" for day in stored.values())
    assert first.messages_stored == len(june) and first.commits_read == len(june)
    assert first.git_new_objects == 1 and first.ok
    with Store(settings.db_path) as store:
        reply = store.message_row("87352w3bsg.fsf@suse.de")  # a reply in a patch's thread, real headers
        assert reply is not None and reply.message.from_addr is not None
        assert reply.message.in_reply_to and reply.thread_id == "20230609183125.673140-1-axboe@kernel.dk"
        assert "@..." not in reply.message.from_addr.email and not reply.message.obfuscated
        assert store.findings_in_range("linux-kernel", *JUNE)  # reviewed as a scan reviews

    second = scan_lore(settings, "linux-kernel", *JUNE)
    assert second.git_operations == 0 and second.git_new_objects == 0  # the manifest says nothing changed
    assert second.commits_read == 0 and second.messages_stored == 0
    assert _stored(settings.db_path) == stored


def test_a_message_added_after_a_run_is_found_by_the_next(lore_inbox, data_dir, tmp_path, cache_home) -> None:
    inbox = copy_inbox(lore_inbox, tmp_path / "lore-home")
    later = corpus_mails(data_dir / "mail" / "lkml-sample.mbox", date(2023, 7, 6), date(2023, 7, 31))
    assert later, "the corpus has messages after the fixture's range"
    with LoreServer(inbox.home) as server:
        settings = settings_for(tmp_path, server.url)
        open_end = scan_lore(settings, "linux-kernel", date(2023, 6, 1), None)
        assert open_end.messages_stored == sum(1 for m in inbox.mails if m.day >= date(2023, 6, 1))
        june = scan_lore(settings, "linux-kernel", *JUNE)  # inside the covered days: nothing to read
        assert june.commits_read == 0
        deliver(inbox.home, later[0].data)
        again = scan_lore(settings, "linux-kernel", date(2023, 6, 1), None)
        assert again.git_new_objects == 1 and again.commits_read == 1 and again.messages_stored == 1
        assert later[0].message_id in _stored(settings.db_path)
        quiet = scan_lore(settings, "linux-kernel", date(2023, 6, 1), None)
        assert quiet.git_operations == 0 and quiet.commits_read == 0


def test_stopped_server_reads_the_clones_already_here(lore_inbox, tmp_path, cache_home) -> None:
    server = LoreServer(lore_inbox.home).start()
    settings = settings_for(tmp_path, server.url)
    scan_lore(dataclasses.replace(settings, db_path=tmp_path / "first.sqlite"), "linux-kernel", *JUNE)
    server.stop()
    summary = scan_lore(settings, "linux-kernel", *JUNE)
    assert summary.host_unreachable and not summary.ok
    assert "cannot connect" in summary.errors[0][1]
    assert summary.messages_stored == len(_stored(tmp_path / "first.sqlite"))


def test_scan_command_with_source_lore(lore_server, lore_inbox, tmp_path, cache_home) -> None:
    env = dict(
        os.environ,
        XDG_CACHE_HOME=str(cache_home),
        XDG_CONFIG_HOME=str(tmp_path / "cfg"),
        XDG_DATA_HOME=str(tmp_path / "data"),
    )
    db = str(tmp_path / "db.sqlite")
    args = (
        "scan",
        "linux-kernel",
        "--source",
        "lore",
        "--lore-url",
        lore_server.url,
        "--since",
        "2023-06",
        "--until",
        "2023-06",
        "--db",
        db,
        "--rate",
        "0",
    )
    first = _run(env, *args)
    assert first.returncode == 0, first.stderr
    june = {m.message_id for m in lore_inbox.mails if JUNE[0] <= m.day <= JUNE[1]}
    assert f"messages stored (new): {len(june)}" in first.stdout
    second = _run(env, *args)
    assert "git clones/fetches/probes over the network: 0 (0 brought new objects)" in second.stdout
    assert "messages stored (new): 0" in second.stdout


def test_scan_command_says_why_when_lore_is_off(tmp_path) -> None:
    env = dict(os.environ, REVIEWBOT_LORE_URL="off", XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    done = _run(
        env, "scan", "linux-kernel", "--source", "lore", "--since", "2023-06", "--db", str(tmp_path / "db.sqlite")
    )
    assert done.returncode == 2 and "needs a lore URL" in done.stderr and "Traceback" not in done.stderr


def test_cron_follows_a_list_through_lore(lore_inbox, data_dir, tmp_path) -> None:
    inbox = copy_inbox(lore_inbox, tmp_path / "lore-home")
    config = tmp_path / "config.toml"
    config.write_text(
        'rate = 0\nobey-robots = false\ndraft-unsure = true\n[identity]\nname = "Zoë Reviewer"\nemail = "zoe@example.com"\n',
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        REVIEWBOT_CONFIG=str(config),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        REVIEWBOT_NOW="2023-07-06T00:00:00",
    )
    with LoreServer(inbox.home) as server:
        args = (
            "cron",
            "linux-kernel",
            "--source",
            "lore",
            "--lore-url",
            server.url,
            "--since",
            "2023-06-01",
            "--db",
            str(tmp_path / "db.sqlite"),
            "--outbox",
            str(tmp_path / "outbox"),
        )
        first = _run(env, *args)
        assert first.returncode == 0, first.stderr
        assert "0 with incomplete recipients" in first.stdout and "draft:" in first.stdout
        second = _run(env, *args)
        assert second.returncode == 0 and second.stdout == ""  # nothing new: quiet, as cron wants
    stored = _stored(tmp_path / "db.sqlite")
    assert set(stored) == {m.message_id for m in inbox.mails if m.day >= date(2023, 6, 1)}
    assert (INBOX_FIRST, INBOX_LAST) == (date(2023, 5, 25), date(2023, 7, 5))


def test_an_obfuscated_copy_never_replaces_lores_real_one(lore_inbox, data_dir, tmp_path) -> None:
    """Scanning openwall after lore keeps lore's real addresses in the store."""
    from reviewbot.parse.mail import parse_rfc822

    data = next(m.data for m in lore_inbox.mails if m.message_id == PATCH_MID)
    real = dataclasses.replace(
        parse_rfc822(data, "lore"),
        list_name="linux-kernel",
        source=lore.message_url("https://lore.kernel.org", "lkml", PATCH_MID),
    )
    archived = mirror_message(data_dir)
    with Store(tmp_path / "db.sqlite") as store:
        store.put_message(real, day=date(2023, 6, 27), seq=1)
        store.put_message(archived)
        row = store.message_row(PATCH_MID)
    assert row is not None and row.message.from_addr is not None
    assert row.message.from_addr.email == real.from_addr.email and not row.message.obfuscated
