"""Settings precedence: defaults < user config < project config < environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.config import Settings, load_settings
from reviewbot.errors import UsageError


def test_defaults_are_polite(isolated_env: Path) -> None:
    s = load_settings()
    assert s.rate == 1.0
    assert s.base_url == "https://lists.openwall.net"
    assert "reviewbot/" in s.user_agent and "mailto:" in s.user_agent
    assert s.host_cache_dir().name == "lists.openwall.net"


def test_precedence(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = isolated_env / "xdg_config_home" / "reviewbot"
    user.mkdir(parents=True)
    (user / "config.toml").write_text('rate = 0.5\ncontact = "user@example.org"\nstrict = true\n')
    (isolated_env / "pyproject.toml").write_text('[tool.reviewbot]\nrate = 2.0\nignore = ["RB201"]\n')
    monkeypatch.setenv("REVIEWBOT_CONTACT", "env@example.org")
    s = load_settings()
    assert (s.rate, s.contact, s.strict, s.ignore) == (2.0, "env@example.org", True, ("RB201",))


def test_dotfile_wins_over_pyproject_in_same_dir(isolated_env: Path) -> None:
    (isolated_env / "pyproject.toml").write_text("[tool.reviewbot]\nrate = 2.0\n")
    (isolated_env / ".reviewbot.toml").write_text("rate = 3.0\n[identity]\nname = 'Ada'\nemail = 'ada@example.org'\n")
    s = load_settings()
    assert (s.rate, s.identity_name, s.identity_email) == (3.0, "Ada", "ada@example.org")


def test_unknown_key_names_the_file(isolated_env: Path) -> None:
    (isolated_env / ".reviewbot.toml").write_text("rats = 3\n")
    with pytest.raises(UsageError) as exc:
        load_settings()
    assert ".reviewbot.toml" in str(exc.value) and "rats" in str(exc.value)


def test_with_ignores_none() -> None:
    assert Settings().with_(rate=None, strict=True).rate == 1.0
