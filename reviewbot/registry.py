"""Find, import and validate review rules; apply ``--select`` / ``--ignore``.

Rules come from three places, all validated the same way (fail closed: the
first broken module stops the run with :class:`~reviewbot.errors.RuleLoadError`
naming it):

1. built-ins: every module named ``rb*`` in the package ``reviewbot.rules``
   (the checkout's ``rules/`` directory), imported eagerly;
2. third-party packages: entry points in the group ``reviewbot.rules.v1``; the
   entry-point *name* is the rule id and its *value* the module
   (``RB901 = mypkg.rules.rb901_foo``);
3. ``--rules-dir DIR``: every ``*.py`` file in DIR (not starting with ``_``),
   imported by file path.

A module is valid when it imports, has ``RULE`` (a :class:`~reviewbot.rule.RuleMeta`)
with an id matching ``RB`` + 3 digits and a kebab-case name, callables ``check``
and ``reply``, and a docstring with every heading of
:data:`reviewbot.rule.DOC_HEADINGS`. Ids and names are unique across all sources.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterable, NamedTuple, Sequence

from reviewbot.errors import RuleLoadError, UsageError
from reviewbot.lazylog import get_logger
from reviewbot.rule import DOC_HEADINGS, ID_RE, NAME_RE, RuleMeta

log = get_logger(__name__)  # loads logging only for a record kept (reviewbot.lazylog)

ENTRY_POINT_GROUP = "reviewbot.rules.v1"
BUILTIN_PACKAGE = "reviewbot.rules"

__all__ = ["LoadedRule", "load_rules", "select_rules", "ENTRY_POINT_GROUP", "doc_sections"]


class LoadedRule(NamedTuple):
    """A validated rule module.

    ``check``/``reply`` are the module's functions; ``doc`` its docstring;
    ``module_name`` the import name (``reviewbot.rules.rb102_barrier_pairing``,
    or ``reviewbot_rules_dir_<hash>.<stem>`` for ``--rules-dir`` files);
    ``examples_dir`` the ``examples/<ID>/`` folder beside the module, when it exists;
    ``origin`` is ``builtin``, ``entry-point`` or ``rules-dir``.

    A NamedTuple (immutable, as a frozen dataclass): a dataclass compiles each generated method at every
    start, and nothing here needs one (no ``replace``, no comparison).
    """

    meta: RuleMeta
    check: Callable
    reply: Callable
    doc: str
    module_name: str
    examples_dir: Path | None
    origin: str = "builtin"

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def name(self) -> str:
        return self.meta.name


def doc_sections(doc: str) -> dict[str, str]:
    """Split a rule docstring into ``{heading: text}`` by the :data:`DOC_HEADINGS` lines.

    A heading is a line equal to the heading text, optionally followed by ``:``
    or underlined with ``-``/``=``. Text before the first heading is under ``""``.
    """
    sections: dict[str, list[str]] = {"": []}
    current = ""
    lines = doc.splitlines()
    skip_underline = False
    for line in lines:
        stripped = line.strip()
        if skip_underline and stripped and set(stripped) <= {"-", "="}:
            skip_underline = False
            continue
        skip_underline = False
        head = stripped.rstrip(":").strip()
        if head in DOC_HEADINGS:
            current = head
            sections.setdefault(current, [])
            skip_underline = True
            continue
        sections.setdefault(current, []).append(line)
    return {k: "\n".join(v).strip("\n") for k, v in sections.items()}


def _validate(module: ModuleType, origin: str, where: str) -> LoadedRule:
    """Check one imported module against the contract; RuleLoadError naming ``where`` otherwise."""
    meta = getattr(module, "RULE", None)
    if not isinstance(meta, RuleMeta):
        raise RuleLoadError("no RULE = RuleMeta(...) in the module", subject=where)
    if not isinstance(meta.id, str) or not ID_RE.match(meta.id):
        raise RuleLoadError(f"bad rule id {meta.id!r}: want RB followed by 3 digits", subject=where)
    if not isinstance(meta.name, str) or not NAME_RE.match(meta.name):
        raise RuleLoadError(f"bad rule name {meta.name!r}: want kebab-case such as 'foo-without-bar'", subject=where)
    for attr in ("check", "reply"):
        if not callable(getattr(module, attr, None)):
            raise RuleLoadError(f"rule {meta.id} has no callable {attr}()", subject=where)
    doc = module.__doc__ or ""
    present = doc_sections(doc)
    missing = [h for h in DOC_HEADINGS if h not in present]
    if missing:
        raise RuleLoadError(f"rule {meta.id} docstring lacks heading(s): {', '.join(missing)}", subject=where)
    examples: Path | None = None
    module_file = getattr(module, "__file__", None)
    if module_file:
        candidate = Path(module_file).resolve().parent / "examples" / meta.id
        if candidate.is_dir():
            examples = candidate
    return LoadedRule(
        meta=meta,
        check=module.check,
        reply=module.reply,
        doc=doc,
        module_name=module.__name__,
        examples_dir=examples,
        origin=origin,
    )


def _import(name: str, where: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except Exception as exc:  # any import-time failure of a plugin stops the run
        raise RuleLoadError(f"cannot import rule module: {exc.__class__.__name__}: {exc}", subject=where) from exc


def _builtin_modules() -> Iterable[tuple[ModuleType, str]]:
    package = importlib.import_module(BUILTIN_PACKAGE)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("rb"):
            full = f"{BUILTIN_PACKAGE}.{info.name}"
            yield _import(full, full), full


def _entry_points_declared() -> bool:
    """Cheap: may an installed distribution declare rules (name the group in its ``entry_points.txt``)?

    Importing ``importlib.metadata`` (zipfile, csv, email...) costs a ``reviewbot
    check`` of one patch more than loading every built-in rule, and almost no
    installation has a rule plugin. So it is asked only when a distribution's
    metadata folder on ``sys.path`` names the group, or when the path holds
    anything else it reads (a zip, an ``.egg``): then it decides.
    """
    group = ENTRY_POINT_GROUP.encode()
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as found:
                for item in found:
                    if item.name.endswith(".egg"):
                        return True
                    if item.name.endswith((".dist-info", ".egg-info")) and item.is_dir():
                        try:
                            with open(os.path.join(item.path, "entry_points.txt"), "rb") as fh:
                                if group in fh.read():
                                    return True
                        except OSError:
                            continue  # no entry points in this distribution
        except NotADirectoryError:
            return True  # a zip on the path
        except OSError:
            continue  # a path entry that does not exist
    return False


def _entry_point_modules() -> Iterable[tuple[ModuleType, str, str]]:
    import importlib.metadata

    eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    for ep in sorted(eps, key=lambda e: (e.name, e.value)):
        where = f"entry point {ep.name} = {ep.value}"
        try:
            obj = ep.load()
        except Exception as exc:
            raise RuleLoadError(f"cannot load: {exc.__class__.__name__}: {exc}", subject=where) from exc
        if not isinstance(obj, ModuleType):
            raise RuleLoadError("entry point must name a module, not an attribute", subject=where)
        yield obj, where, ep.name


def _dir_modules(directory: Path) -> Iterable[tuple[ModuleType, str]]:
    import hashlib

    if not directory.is_dir():
        raise UsageError("rules directory does not exist", subject=str(directory))
    tag = hashlib.sha1(str(directory.resolve()).encode()).hexdigest()[:10]
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        name = f"reviewbot_rules_dir_{tag}.{path.stem}"
        where = str(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise RuleLoadError("cannot build an import spec", subject=where)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(name, None)
            raise RuleLoadError(f"cannot import rule file: {exc.__class__.__name__}: {exc}", subject=where) from exc
        yield module, where


def _matches(rule: LoadedRule, selector: str) -> bool:
    sel = selector.strip()
    if sel.upper().startswith("RB") and sel[2:].isdigit() or sel.upper() == "RB":
        return rule.id.startswith(sel.upper())
    return rule.name == sel.lower()


def select_rules(
    rules: Sequence[LoadedRule], select: Sequence[str] = (), ignore: Sequence[str] = ()
) -> tuple[LoadedRule, ...]:
    """Keep the rules matched by ``select`` (all when empty), minus those matched by ``ignore``.

    A selector is an id (``RB102``), an id prefix (``RB1``, ``RB``) or a rule
    name (``barrier-without-pairing-comment``). A selector matching no loaded
    rule raises UsageError naming it (a typo must not silently disable checks).
    """
    for sel in (*select, *ignore):
        if not any(_matches(r, sel) for r in rules):
            raise UsageError(
                f"unknown rule selector {sel!r} (use an id such as RB102, a prefix such as RB1, or a name)"
            )
    chosen = [r for r in rules if not select or any(_matches(r, s) for s in select)]
    return tuple(r for r in chosen if not any(_matches(r, s) for s in ignore))


def load_rules(
    *,
    rules_dirs: Sequence[Path | str] = (),
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    entry_points: bool = True,
) -> tuple[LoadedRule, ...]:
    """Load built-in, entry-point and ``rules_dirs`` rules, validated, selected, sorted by id.

    Raises RuleLoadError (naming the module or file) for a module that cannot be
    imported or breaks the contract, or for a duplicate id or name; UsageError
    for a missing rules directory or an unknown selector.
    """
    loaded: list[LoadedRule] = []
    for module, where in _builtin_modules():
        loaded.append(_validate(module, "builtin", where))
    if entry_points and _entry_points_declared():
        for module, where, ep_name in _entry_point_modules():
            rule = _validate(module, "entry-point", where)
            if ep_name != rule.id:
                raise RuleLoadError(f"entry-point name {ep_name!r} differs from the rule id {rule.id}", subject=where)
            loaded.append(rule)
    for directory in rules_dirs:
        for module, where in _dir_modules(Path(directory)):
            loaded.append(_validate(module, "rules-dir", where))
    by_id: dict[str, LoadedRule] = {}
    by_name: dict[str, LoadedRule] = {}
    for rule in loaded:
        if rule.id in by_id:
            raise RuleLoadError(
                f"duplicate rule id {rule.id} (also in {by_id[rule.id].module_name})", subject=rule.module_name
            )
        if rule.name in by_name:
            raise RuleLoadError(
                f"duplicate rule name {rule.name} (also in {by_name[rule.name].module_name})", subject=rule.module_name
            )
        by_id[rule.id] = rule
        by_name[rule.name] = rule
    rules = tuple(sorted(loaded, key=lambda r: r.id))
    log.debug("loaded %d rules: %s", len(rules), ", ".join(r.id for r in rules))
    return select_rules(rules, select, ignore)
