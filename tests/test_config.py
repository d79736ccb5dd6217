"""Settings precedence: defaults < user config < project config (``check`` only) < environment."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from reviewbot.config import Settings, load_settings


def _git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def test_defaults_are_polite(isolated_env: Path) -> None:
    s = load_settings()
    assert s.rate == 1.0
    assert s.base_url == "https://lists.openwall.net"
    assert "reviewbot/" in s.user_agent and "mailto:" in s.user_agent
    assert s.host_cache_dir().name == "lists.openwall.net"


def test_precedence(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _git_init(isolated_env)
    user = isolated_env / "xdg_config_home" / "reviewbot"
    user.mkdir(parents=True)
    (user / "config.toml").write_text('rate = 0.5\ncontact = "user@example.org"\nstrict = true\nignore = ["RB1"]\n')
    (isolated_env / "pyproject.toml").write_text('[tool.reviewbot]\nstrict = false\nignore = ["RB201"]\n')
    monkeypatch.setenv("REVIEWBOT_CONTACT", "env@example.org")
    s = load_settings(project=True)
    assert (s.rate, s.contact, s.strict, s.ignore) == (0.5, "env@example.org", False, ("RB201",))
    # every command but check: the user's config alone
    s = load_settings()
    assert (s.rate, s.contact, s.strict, s.ignore) == (0.5, "env@example.org", True, ("RB1",))


def test_dotfile_wins_over_pyproject_in_same_dir(isolated_env: Path) -> None:
    _git_init(isolated_env)
    (isolated_env / "pyproject.toml").write_text('[tool.reviewbot]\nselect = ["RB1"]\n')
    (isolated_env / ".reviewbot.toml").write_text('select = ["RB2"]\n')
    assert load_settings(project=True).select == ("RB2",)


def test_unknown_key_is_a_warning_naming_the_file(
    isolated_env: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A typo or a newer version's key is said, with the file, and left out; the rest is read."""
    user = isolated_env / "config.toml"
    user.write_text("rats = 3\nrate = 2\n[identity]\nnmae = 'Ada'\n")
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(user))
    with caplog.at_level(logging.WARNING):
        s = load_settings()
    assert s.rate == 2.0 and s.identity_name is None
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        f"{user}: unknown setting 'rats' ignored",
        f"{user}: unknown setting 'identity.nmae' ignored (identity has name and email)",
    ]


def test_with_ignores_none() -> None:
    assert Settings().with_(rate=None, strict=True).rate == 1.0


def test_a_missing_config_named_by_the_environment_is_warned_about(tmp_path, monkeypatch, caplog) -> None:
    """REVIEWBOT_CONFIG naming a file that is not there (a typo) is said once, not silently run on defaults."""
    import logging

    from reviewbot.config import load_settings

    missing = tmp_path / "nope.toml"
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(missing))
    with caplog.at_level(logging.WARNING):
        load_settings()
    assert [r.getMessage() for r in caplog.records] == [
        f"{missing}: no such config file (named by REVIEWBOT_CONFIG): the defaults are used"
    ]
