"""Issue 13: config and command-line values are typed and range-checked with one clear line.

Real config files (the user config, named by ``REVIEWBOT_CONFIG``), read by ``load_settings`` and
by the ``scan`` command (exit status 2, the file and the setting named, no traceback).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewbot.cli import main
from reviewbot.config import Settings, load_settings
from reviewbot.errors import UsageError

BAD = {
    'rate = "fast"': "rate = 'fast': expected a number",
    'retries = "x"': "retries = 'x': expected a whole number",
    "retries = 2.5": "retries = 2.5: expected a whole number",
    "timeout = 0": "timeout = 0: out of range",
    "rules-dirs = 7": "rules-dirs = 7: expected a list of strings",
    "mutable-days = -5": "mutable-days = -5: out of range",
    "rate = 1e-300": "rate = 1e-300: out of range",
    'base-url = "https://lists.openwall.net/linux-kernel"': "expected http(s)://host[:port] with no path",
    'obey-robots = "no"': "obey-robots = 'no': expected true or false",
    "db-path = 3": "db-path = 3: expected a path",
    'fail-on = "sometimes"': "expected one of error, warning, check",
    "lore-url = 5": "lore-url = 5: expected a string",  # was a traceback later, in the lore client
    'identity = "ada"': "identity = 'ada': expected a table of name and email",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    for var in ("REVIEWBOT_CONFIG", "REVIEWBOT_DB", "REVIEWBOT_BASE_URL", "REVIEWBOT_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REVIEWBOT_CONFIG", str(tmp_path / ".reviewbot.toml"))  # the user's own config, named
    return tmp_path


@pytest.mark.parametrize("line", sorted(BAD))
def test_bad_config_value_is_one_clear_line(project: Path, line: str) -> None:
    (project / ".reviewbot.toml").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_settings()
    assert BAD[line] in str(err.value) and str(project / ".reviewbot.toml") in str(err.value)
    result = CliRunner().invoke(main, ["scan", "linux-kernel", "--since", "2023-06-01", "--offline"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert BAD[line] in result.output


def test_binary_config_file(project: Path) -> None:
    (project / ".reviewbot.toml").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    with pytest.raises(UsageError, match="invalid TOML"):
        load_settings()


def test_good_values_are_typed(project: Path) -> None:
    (project / ".reviewbot.toml").write_text(
        'rate = 2\nretries = 3\nrules-dirs = "my-rules"\nselect = "RB101,RB102"\n', encoding="utf-8"
    )
    s = load_settings()
    assert s.rate == 2.0 and isinstance(s.rate, float) and s.retries == 3
    assert s.rules_dirs == (Path("my-rules"),) and s.select == ("RB101", "RB102")


def test_flag_out_of_range(project: Path) -> None:
    with pytest.raises(UsageError, match=r"--rate = 1e-300: out of range"):
        Settings().with_(rate=1e-300)
    with pytest.raises(UsageError, match="no path"):
        Settings().with_(base_url="http://example.org/x")
    assert Settings().with_(rate=0.0).rate == 0.0


def test_check_dev_zero_and_endless_stdin_are_bounded(monkeypatch) -> None:
    from reviewbot import checking

    monkeypatch.setattr(checking, "MAX_INPUT_BYTES", 2 * 1024 * 1024)
    result = CliRunner().invoke(main, ["check", "/dev/zero"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "/dev/zero: more than 2 MiB: not a mail input" in result.output

    class Endless:
        def read(self, n: int = -1) -> bytes:
            return b"+" * (n if n > 0 else 1 << 20)

    import pytest as _pytest

    with _pytest.raises(checking.InputError, match="more than 2 MiB"):
        checking.read_input("-", stdin=Endless())
