"""reviewbot.lazyre: patterns compiled on first use behave as re.compile's, and every rule's patterns compile."""

from __future__ import annotations

import re

import pytest

from reviewbot import lazyre
from reviewbot.registry import load_rules


def test_same_answers_as_re():
    text = "Speed up the fast path: 3x faster, 20 ms -> 12 ms"
    source = r"(\d+)\s*(ms|x)"
    lazy = lazyre.compile(source, re.IGNORECASE)
    real = re.compile(source, re.IGNORECASE)
    assert lazy.search(text).span() == real.search(text).span()
    assert lazy.match(text) is None and real.match(text) is None
    assert lazy.findall(text) == real.findall(text) == [("3", "x"), ("20", "ms"), ("12", "ms")]
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub(lambda m: m.group(1), text) == real.sub(lambda m: m.group(1), text)
    assert lazy.subn("N", text) == real.subn("N", text) == (real.sub("N", text), 3)
    assert lazy.split(text) == real.split(text)
    assert lazy.fullmatch("20 ms").groups() == ("20", "ms")
    assert lazy.groups == 2


def test_compiled_once_then_re_methods():
    lazy = lazyre.compile(r"\bcache[ -]?lines?\b")
    assert lazy.pattern == r"\bcache[ -]?lines?\b"  # reading the source compiles nothing
    assert lazy._compiled is None
    assert lazy.search("false sharing of a cache line")
    compiled = lazy.compiled()
    assert isinstance(compiled, re.Pattern)
    assert lazy.compiled() is compiled
    assert lazy.search == compiled.search  # later calls go straight to re's method


def test_bytes_pattern():
    lazy = lazyre.compile(rb"^From ([0-9a-f]{7,})", re.MULTILINE)
    assert lazy.search(b"x\nFrom 0123abcd Mon").group(1) == b"0123abcd"


def test_bad_pattern_fails_at_first_use():
    lazy = lazyre.compile(r"(unclosed")
    with pytest.raises(re.error):
        lazy.search("x")


def test_every_rule_pattern_compiles():
    """A rule's patterns compile when first used, not at import: compile them all here, so a typo fails a test."""
    import importlib

    count = 0
    for rule in load_rules(entry_points=False):
        module = importlib.import_module(rule.module_name)
        for name, value in vars(module).items():
            found = [value] if isinstance(value, lazyre.LazyPattern) else []
            if isinstance(value, tuple):  # named tables of (kind, pattern, ...) rows
                found = [x for row in value if isinstance(row, tuple) for x in row if isinstance(x, lazyre.LazyPattern)]
            for pattern in found:
                assert isinstance(pattern.compiled(), re.Pattern), f"{rule.id} {name}"
                count += 1
    assert count >= 100
