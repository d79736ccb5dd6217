"""RB202's look-up of the lines naming a print call or a clock (``_lines_naming``) against testing each line."""

from __future__ import annotations

import pytest

from reviewbot.rules import rb202_measurement_code as rb202

_CODES = [
    "u64 t0 = get_cycles();",
    "",
    "foo_create_entry(cache, key);",
    'pr_info("create took %llu cycles", get_cycles() - t0); dev_dbg(dev, "x");',
    'printk(KERN_INFO pr_fmt("a"));',
    "t1 = ktime_get_ns(); t2 = ktime_get_ns(); sched_clock();",
    "rdtscll(x);",
    "no call here",
    "dev_",
]


@pytest.mark.parametrize("words", [rb202.PRINT_WORDS, rb202.CLOCK_WORDS, ("x",), ("absent",)])
def test_the_lines_naming_words_are_those_holding_them(words: tuple[str, ...]) -> None:
    expected = {k for k, code in enumerate(_CODES) if any(word in code for word in words)}
    assert rb202._lines_naming(words, _CODES) == expected
    assert rb202._lines_naming(words, _CODES, "\n".join(_CODES)) == expected  # the lines joined by the caller


def test_no_lines() -> None:
    assert rb202._lines_naming(rb202.PRINT_WORDS, []) == set()
    assert rb202._lines_naming(rb202.PRINT_WORDS, [""]) == set()
