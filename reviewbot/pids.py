"""Whether a process that left a file behind (a temporary clone, a draft being written) still runs."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists (ours, or someone else's we may not signal); False for 0 or less."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True
