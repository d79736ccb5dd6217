"""Issue 24: a Message-ID holding a quote (``<a"b>c@host>``) is stored and threaded whole.

Read only up to its first ``>``, the id became ``a"b``: the patch was stored under another
message's Message-ID and the draft answered that one. Real mail files are written, read with the
mail parser, stored in a real SQLite database, threaded, reviewed by the real rules and drafted.
"""

from __future__ import annotations

import email
from pathlib import Path

from reviewbot.parse.mail import msgid_list, normalize_msgid, parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.parse.threads import assign_threads
from reviewbot.registry import load_rules
from reviewbot.store import Store
from helpers import draft_fixed, load_thread

QUOTED = 'a"b>c@host'

PATCH = f"""\
From: Ada Author <ada@example.org>
To: linux-kernel@vger.kernel.org
Message-ID: <{QUOTED}>
Subject: [PATCH] foo: publish the flag after the data
Date: Tue, 07 Jan 2025 14:19:00 +0000

Write the data before the flag.

Signed-off-by: Ada Author <ada@example.org>
---
 foo.c | 1 +

diff --git a/foo.c b/foo.c
--- a/foo.c
+++ b/foo.c
@@ -10,3 +10,4 @@ void foo_publish(struct foo *f)
 	f->data = 1;
+	smp_wmb();
 	f->flag = 1;
 }}
"""

# the message the cut id named: a patch of its own, by someone else
DECOY = """\
From: Bob Other <bob@example.org>
To: linux-kernel@vger.kernel.org
Message-ID: <a"b>
Subject: [PATCH] bar: something else
Date: Tue, 07 Jan 2025 10:00:00 +0000

Another change.
"""

REPLY = f"""\
From: Carl Reader <carl@example.org>
To: linux-kernel@vger.kernel.org
Message-ID: <reply-1@example.org>
In-Reply-To: <{QUOTED}>
References: <{QUOTED}>
Subject: Re: [PATCH] foo: publish the flag after the data
Date: Tue, 07 Jan 2025 15:00:00 +0000

Looking at it.
"""


def _read(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text.replace("}}", "}"), encoding="utf-8")
    return parse_rfc822(path.read_bytes(), str(path))


def test_the_parser_reads_a_quoted_id_whole() -> None:
    assert normalize_msgid(f"<{QUOTED}>") == QUOTED
    assert msgid_list(f"<x@y> <{QUOTED}> <z@w>") == ("x@y", QUOTED, "z@w")
    assert msgid_list('<a"b> <z@w>') == ('a"b', "z@w")  # a '>' that ends a word still ends the id


def test_a_quoted_id_is_stored_threaded_and_answered_whole(tmp_path: Path) -> None:
    patch_msg = _read(tmp_path, "patch.eml", PATCH)
    decoy = _read(tmp_path, "decoy.eml", DECOY)
    reply = _read(tmp_path, "reply.eml", REPLY)
    assert patch_msg.message_id == QUOTED
    assert reply.in_reply_to == QUOTED and reply.references == (QUOTED,)
    threads = assign_threads([decoy, patch_msg, reply])
    assert threads[reply.message_id] == QUOTED != threads[decoy.message_id]

    rules = load_rules()
    with Store(tmp_path / "db.sqlite") as store:
        with store.transaction():
            store.put_message(decoy, thread_id=decoy.message_id)
        found = load_thread(store, [patch_msg, reply], rules)
        assert [f.rule_id for f in found[QUOTED]] == ["RB102"]
        assert store.load_message(QUOTED).message_id == QUOTED
        assert parse_patch(store.load_message(QUOTED)).files[0].path == "foo.c"
        summary = draft_fixed(store, rules, tmp_path / "outbox")
    files = sorted((tmp_path / "outbox").glob("*.eml"))
    assert len(files) == 1, summary
    draft = email.message_from_bytes(files[0].read_bytes())
    assert draft["In-Reply-To"] == f"<{QUOTED}>"
    assert msgid_list(draft["References"]) == (QUOTED,)
    assert "ada@example.org" in draft["To"]
