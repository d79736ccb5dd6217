"""reviewbot.lazylog: loggers that load logging only for a record that is kept."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from reviewbot.lazylog import get_logger


def test_records_name_their_caller_as_a_logging_logger_would(caplog: pytest.LogCaptureFixture) -> None:
    log = get_logger("reviewbot.lazylog_test")
    with caplog.at_level(logging.DEBUG, logger="reviewbot.lazylog_test"):
        log.debug("debug %d", 1)
        log.info("info %s", "two")
        log.warning("warning")
        log.error("error")
    assert [(r.name, r.levelname, r.getMessage(), r.funcName) for r in caplog.records] == [
        ("reviewbot.lazylog_test", level, text, "test_records_name_their_caller_as_a_logging_logger_would")
        for level, text in (("DEBUG", "debug 1"), ("INFO", "info two"), ("WARNING", "warning"), ("ERROR", "error"))
    ]


SCRIPT = """\
import sys
from reviewbot import lazylog

def configure():
    import logging
    print("configured", file=sys.stderr)
    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")

lazylog.configure_on_first_record(configure)
log = lazylog.get_logger("reviewbot.x")
log.debug("not kept")
log.info("not kept either")
print("loaded after debug/info:", "logging" in sys.modules, file=sys.stderr)
log.warning("kept %d", 1)
log.error("kept %d", 2)
"""


def test_debug_and_info_load_nothing_a_warning_configures_then_logs() -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert proc.stderr.splitlines() == [
        "loaded after debug/info: False",
        "configured",
        "WARNING reviewbot.x: kept 1",
        "ERROR reviewbot.x: kept 2",
    ]
