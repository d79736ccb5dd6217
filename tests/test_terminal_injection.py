"""Issue 24: a mail's text never steers the terminal or the mail reader of whoever reads reviewbot's output.

One hostile patch mail, real in every other way (a real mail file, a real SQLite database, the real
commands): its Subject carries OSC 52 (writes the reader's clipboard) and BEL, its author's name a BEL,
and an added line a cursor move, a screen clear and a right-to-left override next to a barrier without
a comment. `check`, `findings`, `show` and the draft written for it show each of these characters
escaped (``\\x1b``), and nothing raw.
"""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

from click.testing import CliRunner

from helpers import IDENTITY, LIST_ADDRESS, FIXED_NOW, load_thread
from reviewbot.cli import main
from reviewbot.parse.mail import parse_rfc822
from reviewbot.registry import load_rules
from reviewbot.respond.runner import draft_pending
from reviewbot.store import Store

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07"  # "set the clipboard to `rm -rf ~`"
CURSOR = "\x1b[2J\x1b[1;1H"  # clear the screen, cursor home
RLO = "\u202e"
RAW = ("\x1b", "\x07", RLO)

PATCH = f"""\
The reader may see ready before the value.

Signed-off-by: Eve Example <eve@example.org>
---
 kernel/pub.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/kernel/pub.c b/kernel/pub.c
index 1111111..2222222 100644
--- a/kernel/pub.c
+++ b/kernel/pub.c
@@ -3,5 +3,6 @@ int ready, value;
 void publish(int v)
 {{
 \tvalue = v;
+\tsmp_wmb(); /* {CURSOR}ok{RLO} */
 \tready = 1;
 }}
--
2.40.0
"""


def hostile_mail(folder: Path) -> Path:
    msg = EmailMessage()
    msg["From"] = "Eve\x07 Example <eve@example.org>"
    msg["To"] = LIST_ADDRESS
    msg["Subject"] = f"[PATCH] pub: order value {OSC52}before ready"
    msg["Date"] = "Thu, 01 Jun 2023 12:00:00 +0000"
    msg["Message-ID"] = "<hostile-1@example.org>"
    msg.set_content(PATCH)
    path = folder / "hostile.eml"
    path.write_bytes(msg.as_bytes())
    return path


def assert_escaped(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"raw {ch!r} in the output"


def test_check_shows_control_characters_escaped(tmp_path: Path, isolated_env: Path) -> None:
    mail = hostile_mail(tmp_path)
    for fmt in ("text", "terse"):
        res = CliRunner().invoke(main, ["check", "--format", fmt, str(mail)])
        assert res.exit_code == 1, res.output
        assert_escaped(res.stdout)
    text = CliRunner().invoke(main, ["check", str(mail)]).stdout
    assert "+\tsmp_wmb(); /* \\x1b[2J\\x1b[1;1Hok\\u202e */" in text  # the tab kept, the rest escaped
    # json is for programs: the exact text, escaped by JSON itself
    doc = json.loads(CliRunner().invoke(main, ["check", "--format", "json", str(mail)]).stdout)
    assert OSC52 in doc["findings"][0]["subject"]


def test_draft_findings_and_show_escape_the_mail(tmp_path: Path, isolated_env: Path) -> None:
    mail = hostile_mail(tmp_path)
    message = parse_rfc822(mail.read_bytes(), str(mail))
    db, outbox = tmp_path / "r.db", tmp_path / "outbox"
    rules = load_rules(select=("RB102",))
    with Store(db) as store:
        found = load_thread(store, [message], rules)
        assert [f.rule_id for f in found["hostile-1@example.org"]] == ["RB102"]
        summary = draft_pending(
            store,
            unsure=True,
            rules=rules,
            identity=IDENTITY,
            list_address=LIST_ADDRESS,
            outbox=outbox,
            clock=lambda: FIXED_NOW,
        )
    (written,) = summary.written
    data = Path(written.path).read_bytes()
    head, body = data.split(b"\n\n", 1)
    assert b"Content-Transfer-Encoding: " in head  # 7bit or 8bit, never a raw ESC under either
    for raw in (b"\x1b", b"\x07"):
        assert raw not in data
    text = body.decode()
    assert "wrote:" in text.split("\n", 1)[0] and "Eve\\x07 Example wrote:" in text
    assert "> +\tsmp_wmb(); /* \\x1b[2J\\x1b[1;1Hok\\u202e */" in text

    listed = CliRunner().invoke(main, ["findings", "--db", str(db)])
    assert listed.exit_code == 0, listed.output
    assert_escaped(listed.stdout)
    assert "order value \\x1b]52;c;cm0gLXJmIH4K\\x07before ready" in listed.stdout
    shown = CliRunner().invoke(main, ["show", "--db", str(db), "<hostile-1@example.org>"])
    assert shown.exit_code == 0, shown.output
    assert_escaped(shown.stdout)


def _scan_listing(width: int) -> str:
    """What the scan prints of two findings on a terminal ``width`` columns wide (a real rich terminal
    console writing into a string)."""
    import io

    from reviewbot.cli import console
    from reviewbot.commands.scan import _print_findings
    from reviewbot.store.rows import FindingLine

    rows = [
        FindingLine(
            "RB102",
            "WARNING",
            "open",
            "smp_wmb() without a comment naming the barrier it pairs with",
            "drivers/net/ethernet/mellanox/mlx5/core/en_rx.c",
            1234,
            "hostile-1@example.org",
            f"[PATCH] pub: order value [bold]{OSC52}before[/bold] ready{RLO}",
            None,
            "2023-06-01",
        ),
    ]
    buffer = io.StringIO()
    out = console(file=buffer, width=width, force_terminal=True, color_system=None)
    _print_findings(out, rows)
    return buffer.getvalue()


def test_scan_listing_escapes_and_keeps_words_whole() -> None:
    """The scan's findings on an 80-column terminal: the subject escaped and its [markup] shown as
    written; no word or path broken across lines (five table columns in 80 columns broke them)."""
    text = _scan_listing(80)
    assert_escaped(text)
    assert "[bold]\\x1b]52;c;cm0gLXJmIH4K\\x07before[/bold]" in "".join(text.split("\n"))
    words = set(text.split())
    for word in ("drivers/net/ethernet/mellanox/mlx5/core/en_rx.c:1234:", "smp_wmb()", "RB102", "comment"):
        assert word in words, (word, text)
