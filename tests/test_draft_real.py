"""Drafts for real labelled patches from ../shared/corpus, and ``git send-email --dry-run`` on drafts.

Three messages of labels.tsv: a struct reorder (request_queue), an
uncommented barrier (io_uring smp_mb()), a speed claim without numbers
(mq-deadline). Each draft must quote the right hunk and name the member,
barrier or claim. Then every draft (these and the golden ones) goes through
Debian's ``git send-email --dry-run`` in a throwaway repository with HOME in
tmp: it must accept the message and send it to the right people, in reply
to the right Message-ID.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import DATA_MAIL
from reviewbot.engine import check_patch
from reviewbot.models import Address
from reviewbot.parse.mail import parse_rfc822
from reviewbot.parse.patch import parse_patch
from reviewbot.registry import load_rules
from reviewbot.respond.draft import build_draft
from reviewbot.respond.render import render_message, write_outbox

NOW = datetime(2025, 3, 20, 8, 30, tzinfo=timezone.utc)
ME = Address("Zoë Reviewer", "zoe@example.com")
LIST = "linux-kernel@vger.kernel.org"
GOLDEN = Path(__file__).resolve().parent / "golden" / "drafts"

STRUCT = "d2b7b61c-4868-45c0-9060-4f9c73de9d7e@kernel.dk"
BARRIER = "760086647776a5aebfa77cfff728837d476a4fd8.1737718881.git.asml.silence@gmail.com"
CLAIM = "20240122235332.2299150-1-bvanassche@acm.org"
LONG_SUBJECT = "20260512-psi_impr-v1-2-2b7f10fdfad5@tencent.com"  # Subject 72 characters long


def labelled(message_id: str) -> str:
    """The patterns column of labels.tsv for a Message-ID (the test's premise)."""
    for line in (DATA_MAIL / "labels.tsv").read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if cols[0] == f"<{message_id}>":
            return cols[2]
    raise AssertionError(f"{message_id} not in labels.tsv")


@pytest.fixture(scope="module")
def corpus_bytes() -> bytes:
    return (DATA_MAIL / "lkml-sample.mbox").read_bytes()


def entry(data: bytes, message_id: str) -> bytes:
    """The raw mbox entry holding ``message_id`` (mboxo: entries start at ``\\nFrom ``)."""
    m = re.search(rb"^Message-I[dD]:\s*<" + re.escape(message_id.encode()) + rb">", data, re.M | re.I)
    assert m, message_id
    start = data.rfind(b"\nFrom ", 0, m.start()) + 1
    end = data.find(b"\nFrom ", m.end())
    return data[start : (end + 1 if end > 0 else len(data))]


@pytest.fixture(scope="module")
def rules():
    return load_rules(entry_points=False)


def real_draft(corpus_bytes: bytes, message_id: str, rules, only: str):
    msg = parse_rfc822(entry(corpus_bytes, message_id), f"lkml-real.mbox:<{message_id}>")
    patch = parse_patch(msg)
    findings = [f for f in check_patch(patch, rules).findings if f.rule_id == only]
    assert findings, f"no {only} finding for {message_id}"
    draft = build_draft(
        patch,
        findings,
        rules,
        identity=ME,
        list_address=LIST,
        clock=lambda: NOW,
        make_msgid=lambda d: f"real-{only}@{d}",
    )
    return patch, findings, draft


def quoted(body: str) -> list[str]:
    return [line for line in body.split("\n") if line.startswith(">")]


def test_real_struct_reorder(corpus_bytes, rules) -> None:
    assert "struct_reorder" in labelled(STRUCT)
    patch, findings, draft = real_draft(corpus_bytes, STRUCT, rules, "RB101")
    q = quoted(draft.body)
    assert q[:3] == [
        "> --- a/include/linux/blkdev.h",
        "> +++ b/include/linux/blkdev.h",
        "> @@ -367,59 +367,51 @@ struct blk_independent_access_ranges {",
    ]
    assert ">  struct request_queue {" in q
    # the first moved member is quoted where it was removed and where it was added
    assert "> +\tvoid\t\t\t*queuedata;" in q and "> -\tvoid\t\t\t*queuedata;" in q
    assert q.index("> +\tvoid\t\t\t*queuedata;") < q.index("> -\tvoid\t\t\t*queuedata;")
    assert "> [...]" in q and len(q) < 50
    prose = "\n".join(line for line in draft.body.split("\n") if not line.startswith(">"))
    assert "struct request_queue" in prose and "queuedata" in prose and "elevator" in prose
    assert draft.to == (Address("Jens Axboe", "axboe@kernel.dk"),)
    assert draft.in_reply_to == STRUCT and draft.subject == "Re: [PATCH] block: improve struct request_queue layout"


def test_real_uncommented_barrier(corpus_bytes, rules) -> None:
    assert "barrier_added" in labelled(BARRIER) and "barrier_commented" not in labelled(BARRIER)
    patch, findings, draft = real_draft(corpus_bytes, BARRIER, rules, "RB102")
    q = quoted(draft.body)
    assert q[:3] == [
        "> --- a/io_uring/io_uring.c",
        "> +++ b/io_uring/io_uring.c",
        "> @@ -592,8 +592,10 @@ static inline void __io_cq_unlock_post_flush(struct io_ring_ctx *ctx)",
    ]
    assert "> +\t\tsmp_mb();" in q and "> +\t\t__io_cqring_wake(ctx);" not in q
    assert ">  \t\t__io_cqring_wake(ctx);" in q
    prose = "\n".join(line for line in draft.body.split("\n") if not line.startswith(">"))
    assert "smp_mb()" in prose
    assert draft.to[0].email == "asml.silence@gmail.com"


def test_real_claim_without_numbers(corpus_bytes, rules) -> None:
    assert "perf_claim" in labelled(CLAIM) and "perf_evidence" not in labelled(CLAIM)
    patch, findings, draft = real_draft(corpus_bytes, CLAIM, rules, "RB201")
    q = quoted(draft.body)
    assert q[0] == "> Reduce lock contention on dd->lock by calling dd_insert_request() from"
    assert not any(line.startswith("> +") or line.startswith("> ---") for line in q)  # no hunk for a claim
    prose = "\n".join(line for line in draft.body.split("\n") if not line.startswith(">"))
    assert "numbers" in prose and "fio" in prose
    assert draft.to == (Address("Bart Van Assche", "bvanassche@acm.org"),)


# --------------------------------------------------------------------- git send-email


def _send_email_dry_run(tmp_path: Path, eml: Path) -> str:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    repo = tmp_path / "repo"
    if not repo.exists():
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin:/usr/local/bin", "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C.UTF-8"}
    for key, value in (
        ("user.name", ME.name),
        ("user.email", ME.email),
        ("sendemail.smtpserver", "/bin/true"),
        ("sendemail.confirm", "never"),
        ("sendemail.suppresscc", "self"),
    ):
        subprocess.run(["git", "config", "--global", key, value], check=True, env=env)
    done = subprocess.run(
        ["git", "send-email", "--dry-run", "--confirm=never", "--smtp-server=/bin/true", str(eml)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout + done.stderr


def _parsed(out: str) -> tuple[set[str], str]:
    rcpt = re.search(r"^Sendmail: /bin/true -i (.+)$", out, re.M)
    irt = re.search(r"^In-Reply-To: (.+)$", out, re.M)
    assert rcpt and irt and "Result: OK" in out, out
    return set(rcpt.group(1).split()), irt.group(1).strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git missing")
def test_git_send_email_accepts_every_draft(tmp_path: Path, corpus_bytes, rules) -> None:
    probe = subprocess.run(["git", "send-email", "-h"], capture_output=True, text=True)
    assert "send-email" in probe.stdout + probe.stderr, "git-email is not installed"
    drafts = []
    for mid, rule in ((STRUCT, "RB101"), (BARRIER, "RB102"), (CLAIM, "RB201"), (LONG_SUBJECT, "RB101")):
        drafts.append(real_draft(corpus_bytes, mid, rules, rule)[2])
    # a subject longer than 78 columns stays on the Subject: line (git send-email reads only that line)
    long_head = render_message(drafts[-1]).split(b"\n\n", 1)[0].decode()
    assert "\nSubject: Re: [PATCH 2/6] psi: reorganize the psi members for cacheline benifits\n" in long_head
    files = [write_outbox(d, tmp_path / "outbox", "linux-kernel") for d in drafts]
    for draft, eml in zip(drafts, files):
        rcpt, irt = _parsed(_send_email_dry_run(tmp_path, eml))
        expected = {a.email for a in (*draft.to, *draft.cc)}
        assert rcpt == expected, (eml.name, rcpt, expected)
        assert irt == f"<{draft.in_reply_to}>"
    golden = {
        "barrier.eml": (
            {"ada@example.org", LIST, "juergen@example.de", "bob@example.com"},
            "<20250312090000.2222-1-ada@example.org>",
        ),
        "struct-reorder.eml": ({"ada@example.org", LIST, "bob@example.com"}, "<20250311090000.1111-1-ada@example.org>"),
        "perf-claim.eml": (
            {"ada@example.org", LIST, "linux-block@vger.kernel.org"},
            "<20250313090000.3333-1-ada@example.org>",
        ),
    }
    for name, (want_rcpt, want_irt) in golden.items():
        rcpt, irt = _parsed(_send_email_dry_run(tmp_path, GOLDEN / name))
        assert rcpt == want_rcpt and irt == want_irt, name


def test_draft_bytes_have_no_obfuscated_header(corpus_bytes, rules) -> None:
    for mid, rule in ((STRUCT, "RB101"), (BARRIER, "RB102"), (CLAIM, "RB201")):
        data = render_message(real_draft(corpus_bytes, mid, rules, rule)[2])
        assert b"@..." not in data.split(b"\n\n", 1)[0]
