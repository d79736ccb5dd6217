"""``reviewbot scan`` refuses a list name the archive's list index lacks (issue 12), from a real HTTP server."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mirror_server import MirrorServer
from reviewbot.cli import main
from reviewbot.config import Settings
from reviewbot.fetch.lists import INDEX_FILE, known_lists, parse_list_index
from reviewbot.status import ExitStatus

ROOT_PAGE = """<!DOCTYPE html>
<html><head><title>Mailing lists</title></head><body>
<p><a href="https://www.openwall.com/blists/">Powered by blists</a>
<table>
<tr><td><a href="linux-kernel/">linux-kernel</a></td><td>Linux kernel</td></tr>
<tr><td><a href="/netdev/">netdev</a></td><td>Networking</td></tr>
<tr><td><a href="oss-security/">oss-security</a></td><td>Security</td></tr>
</table></body></html>
"""


def test_parse_list_index_takes_relative_list_links_only() -> None:
    assert parse_list_index(ROOT_PAGE) == ("linux-kernel", "netdev", "oss-security")
    assert parse_list_index("<p>The request has failed: Not Found</p>") == ()


def test_unknown_list_is_refused_with_the_known_names(isolated_env: Path) -> None:
    site = isolated_env / "site"
    site.mkdir()
    (site / "index.html").write_text(ROOT_PAGE)
    cache = isolated_env / "cache"
    with MirrorServer(site) as server:
        args = [
            "scan",
            "linux-kernal",
            "--since",
            "2023-06",
            "--until",
            "2023-06",
            "--base-url",
            server.base_url,
            "--cache-dir",
            str(cache),
            "--db",
            str(isolated_env / "db.sqlite"),
        ]
        res = CliRunner().invoke(main, args)
        assert res.exit_code == ExitStatus.USAGE, res.output
        assert res.stderr == (
            "reviewbot scan: 'linux-kernal': no such list in the archive's list index; known lists: linux-kernel, "
            "netdev, oss-security\n"
        )
        assert not (isolated_env / "db.sqlite").exists()  # nothing queued
        assert (cache / INDEX_FILE).read_text() == "linux-kernel\nnetdev\noss-security\n"
        server.reset_log()
        again = CliRunner().invoke(main, args)  # the cached index answers: no request at all
        assert again.exit_code == ExitStatus.USAGE and server.requests == []


def test_no_index_no_refusal(isolated_env: Path) -> None:
    """A mirror without a root list page (or the host down): names cannot be known, nothing is refused."""
    site = isolated_env / "site"
    site.mkdir()
    with MirrorServer(site) as server:
        settings = Settings(base_url=server.base_url, cache_dir=isolated_env / "cache", obey_robots=False)
        assert known_lists(settings) == ()
