"""Rule discovery and validation: built-ins, --rules-dir files, entry points, select/ignore."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from reviewbot.errors import RuleLoadError, UsageError
from reviewbot.registry import doc_sections, load_rules, select_rules
from reviewbot.rule import DOC_HEADINGS

BUILTIN_IDS = ["RB101", "RB102", "RB201", "RB202", "RB301"]

GOOD_DOC = '''"""RB9xx a test rule.

What it does
------------
Nothing.

Why it matters
--------------
Tests.

Example
-------
x

Use instead
-----------
y

Known limits
------------
All.

References
----------
None.
"""
'''


def rule_source(rule_id: str = "RB901", name: str = "test-rule-fires", doc: str = GOOD_DOC, body: str = "") -> str:
    """Source text of a minimal rule module (``body`` replaces the default functions when given)."""
    functions = body or textwrap.dedent(
        """
        def check(patch, ctx):
            return []

        def reply(findings, patch):
            return "Could you look at this?"
        """
    )
    return (
        doc
        + "from reviewbot.rule import RuleMeta, Severity\n"
        + f"RULE = RuleMeta(id={rule_id!r}, name={name!r}, summary='s', severity=Severity.WARNING)\n"
        + functions
    )


def write_rule(directory: Path, filename: str, source: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / filename
    path.write_text(source, encoding="utf-8")
    return path


def test_builtins_load_sorted_with_examples() -> None:
    rules = load_rules(entry_points=False)
    assert [r.id for r in rules] == BUILTIN_IDS
    for r in rules:
        assert r.origin == "builtin"
        assert r.module_name.startswith("reviewbot.rules.rb")
        assert r.examples_dir is not None and r.examples_dir.name == r.id


@pytest.mark.parametrize("rule", load_rules(entry_points=False), ids=lambda r: r.id)
def test_every_builtin_documents_every_heading(rule) -> None:
    sections = doc_sections(rule.doc)
    for heading in DOC_HEADINGS:
        assert sections.get(heading, "").strip(), f"{rule.id}: empty or missing {heading!r}"
    assert rule.meta.references, f"{rule.id}: no references in RULE"


def test_rules_dir_module_loads(tmp_path: Path) -> None:
    write_rule(tmp_path, "my_rule.py", rule_source())
    rules = load_rules(rules_dirs=[tmp_path], entry_points=False)
    assert [r.id for r in rules] == [*BUILTIN_IDS, "RB901"]
    mine = rules[-1]
    assert mine.origin == "rules-dir" and mine.name == "test-rule-fires"
    assert mine.check(None, None) == []


@pytest.mark.parametrize(
    ("source", "expect"),
    [
        ("import nonexistent_module_xyz\n" + rule_source(), "cannot import rule file: ModuleNotFoundError"),
        ("def broken(:\n", "cannot import rule file: SyntaxError"),
        (GOOD_DOC + "def check(p, c): return []\ndef reply(f, p): return ''\n", "no RULE = RuleMeta"),
        (rule_source(rule_id="R901"), "bad rule id 'R901'"),
        (rule_source(rule_id="RB0001"), "bad rule id 'RB0001'"),
        (rule_source(name="Test_Rule"), "bad rule name 'Test_Rule'"),
        (rule_source(name="single"), "bad rule name 'single'"),
        (rule_source(body="def reply(findings, patch):\n    return ''\n"), "has no callable check()"),
        (rule_source(body="def check(patch, ctx):\n    return []\nreply = 3\n"), "has no callable reply()"),
        (rule_source(doc='"""No headings here."""\n'), "lacks heading(s): What it does, Why it matters"),
        (rule_source(doc=GOOD_DOC.replace("Known limits", "Limits")), "lacks heading(s): Known limits"),
        (rule_source(rule_id="RB101"), "duplicate rule id RB101"),
        (rule_source(name="barrier-without-pairing-comment"), "duplicate rule name barrier-without-pairing-comment"),
    ],
    ids=[
        "import-error",
        "syntax-error",
        "no-RULE",
        "bad-id",
        "long-id",
        "bad-name",
        "one-word-name",
        "no-check",
        "reply-not-callable",
        "no-headings",
        "one-heading-missing",
        "dup-id",
        "dup-name",
    ],
)
def test_broken_rule_files_fail_closed_naming_the_file(tmp_path: Path, source: str, expect: str) -> None:
    path = write_rule(tmp_path / "rules", "broken_rule.py", source)
    with pytest.raises(RuleLoadError) as info:
        load_rules(rules_dirs=[path.parent], entry_points=False)
    text = str(info.value)
    assert expect in text
    if "duplicate" not in expect:
        assert str(path) in text
    else:
        assert "broken_rule" in text


def test_missing_rules_dir_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        load_rules(rules_dirs=[tmp_path / "nope"], entry_points=False)


def test_underscore_files_are_not_rules(tmp_path: Path) -> None:
    write_rule(tmp_path, "_helpers.py", "raise RuntimeError('must not be imported')\n")
    assert [r.id for r in load_rules(rules_dirs=[tmp_path], entry_points=False)] == BUILTIN_IDS


@pytest.mark.parametrize(
    ("select", "ignore", "ids"),
    [
        ((), (), BUILTIN_IDS),
        (("RB102",), (), ["RB102"]),
        (("rb102",), (), ["RB102"]),
        (("RB1",), (), ["RB101", "RB102"]),
        (("RB2", "diff-in-commit-message"), (), ["RB201", "RB202", "RB301"]),
        ((), ("RB1",), ["RB201", "RB202", "RB301"]),
        (("RB",), ("perf-claim-without-evidence", "RB3"), ["RB101", "RB102", "RB202"]),
        (("struct-reorder-without-cacheline-comment",), (), ["RB101"]),
    ],
)
def test_select_and_ignore(select, ignore, ids) -> None:
    assert [r.id for r in load_rules(select=select, ignore=ignore, entry_points=False)] == ids


@pytest.mark.parametrize("bad", ["RB999", "RB9", "no-such-rule", "barrier"])
def test_unknown_selector_is_a_usage_error(bad: str) -> None:
    with pytest.raises(UsageError, match="unknown rule selector"):
        load_rules(select=[bad], entry_points=False)
    rules = load_rules(entry_points=False)
    with pytest.raises(UsageError, match=bad):
        select_rules(rules, (), [bad])


def _install_dist(root: Path, ep_lines: str, module_source: str) -> None:
    """A package ``rbtestplug`` with a rule module and a dist-info declaring entry points."""
    write_rule(root / "rbtestplug", "__init__.py", "")
    write_rule(root / "rbtestplug", "rb901_thing.py", module_source)
    info = root / "rbtestplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rbtestplug\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[reviewbot.rules.v1]\n" + ep_lines, encoding="utf-8")


@pytest.fixture
def plugin_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("rbtestplug")]:
        del sys.modules[name]


def test_entry_point_rule_loads(plugin_root: Path) -> None:
    _install_dist(plugin_root, "RB901 = rbtestplug.rb901_thing\n", rule_source())
    rules = load_rules()
    assert [r.id for r in rules] == [*BUILTIN_IDS, "RB901"]
    assert rules[-1].origin == "entry-point"
    assert rules[-1].module_name == "rbtestplug.rb901_thing"
    assert [r.id for r in load_rules(entry_points=False)] == BUILTIN_IDS


def test_entry_point_name_must_be_the_rule_id(plugin_root: Path) -> None:
    _install_dist(plugin_root, "RB902 = rbtestplug.rb901_thing\n", rule_source())
    with pytest.raises(RuleLoadError, match="entry-point name 'RB902' differs from the rule id RB901"):
        load_rules()


def test_entry_point_import_error_fails_closed(plugin_root: Path) -> None:
    _install_dist(plugin_root, "RB901 = rbtestplug.rb901_thing\n", "raise ImportError('needs libfoo')\n")
    with pytest.raises(RuleLoadError, match="entry point RB901 = rbtestplug.rb901_thing: cannot load: ImportError"):
        load_rules()


def test_entry_points_asked_only_when_a_distribution_names_the_group(plugin_root: Path) -> None:
    """importlib.metadata is imported only when some entry_points.txt on sys.path names reviewbot.rules.v1."""
    from reviewbot.registry import _entry_points_declared

    other = plugin_root / "otherpkg-1.0.dist-info"
    other.mkdir()
    (other / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n", encoding="utf-8")
    assert _entry_points_declared() is False
    _install_dist(plugin_root, "RB901 = rbtestplug.rb901_thing\n", rule_source())
    assert _entry_points_declared() is True


def test_a_zip_on_the_path_is_left_to_importlib_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewbot.registry import _entry_points_declared

    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    monkeypatch.syspath_prepend(str(archive))
    assert _entry_points_declared() is True
