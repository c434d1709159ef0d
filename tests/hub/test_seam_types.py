"""The seams are typed (issue 34): what a game, a bot and a front end use of the hub is
declared with real types, checked by mypy in strict mode, and ``Any`` in the seams'
declarations stays rare (at most :data:`MAX_ANY`), each one with its reason on its line
(``# Any: <why>``).

Counted, in the seam modules: every ``Any`` in the annotations of their classes
(zope interfaces, typing Protocols, the seat operations and the records games get:
arguments, returns, attributes), of their functions and of their type aliases; and each
zope ``Attribute`` declared without a type (``name = Attribute(...)``), which mypy-zope
reads as ``Any`` (``name: str = Attribute(...)`` is typed)."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

ROOT = Path(__file__).resolve().parents[2]
#: module → what of it is seam: ``all`` (a module of declarations) or ``protocols``
#: (only its typing Protocols: the rest is the hub's own code)
SEAMS = {
    "hub.interfaces": "all",
    "hub.optional_interfaces": "all",
    "hub.web_seams": "all",
    "hub.store_seams": "all",
    "hub.plugin_seams": "all",
    "hub.cluster_seams": "all",
    "hub.seatops": "all",
    "hub.model": "all",
    "hub.kit.seams": "all",
    "hub.connections.access": "protocols",
}
MAX_ANY = 15
#: the comment that says why an ``Any`` stays
REASON = "# Any:"


def _is_any(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Any") or (
        isinstance(node, ast.Attribute) and node.attr == "Any"
    )


def _anys(annotation: ast.AST | None) -> list[int]:
    """The lines of the ``Any`` in an annotation (quoted ones too)."""
    if annotation is None:
        return []
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            inner = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
        return [annotation.lineno for node in ast.walk(inner) if _is_any(node)]
    return [node.lineno for node in ast.walk(annotation) if _is_any(node)]


def _signature(
    func: ast.FunctionDef | ast.AsyncFunctionDef, owner: str
) -> Iterator[tuple[int, str]]:
    args = func.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            for line in _anys(arg.annotation):
                yield line, f"{owner}{func.name}({arg.arg})"
    for line in _anys(func.returns):
        yield line, f"{owner}{func.name} →"


def _is_protocol(cls: ast.ClassDef) -> bool:
    return any(ast.unparse(base).split("[")[0].endswith("Protocol") for base in cls.bases)


def _class(cls: ast.ClassDef) -> Iterator[tuple[int, str]]:
    for item in cls.body:
        where = f"{cls.name}."
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _signature(item, where)
        elif isinstance(item, ast.AnnAssign):
            for line in _anys(item.annotation):
                yield line, where + ast.unparse(item.target)
        elif (
            isinstance(item, ast.Assign)
            and isinstance(item.value, ast.Call)
            and ast.unparse(item.value.func).split(".")[-1] == "Attribute"
        ):
            yield item.lineno, where + ast.unparse(item.targets[0]) + " (untyped Attribute)"


def any_uses(source: str, part: str = "all") -> list[tuple[int, str]]:
    """``(line, what)`` of each ``Any`` in the seam declarations of a module's source."""
    found: list[tuple[int, str]] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            if part == "all" or _is_protocol(node):
                found.extend(_class(node))
        elif part != "all":
            continue
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.extend(_signature(node, ""))
        elif isinstance(node, ast.AnnAssign):
            name = ast.unparse(node.target)
            found.extend((line, name) for line in _anys(node.annotation) + _anys(node.value))
        elif isinstance(node, ast.Assign):
            name = ast.unparse(node.targets[0])
            found.extend((line, name) for line in _anys(node.value))
    return found


def unexplained(source: str, uses: list[tuple[int, str]]) -> list[str]:
    """The uses whose line carries no ``# Any: <why>``."""
    lines = source.splitlines()
    return [
        f"{line}: {what}" for line, what in uses if not lines[line - 1].partition(REASON)[2].strip()
    ]


def _path(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def _seam_uses() -> dict[str, tuple[str, list[tuple[int, str]]]]:
    out = {}
    for module, part in SEAMS.items():
        source = _path(module).read_text(encoding="utf-8")
        out[module] = (source, any_uses(source, part))
    return out


def over_the_limit(uses: dict[str, list[tuple[int, str]]], limit: int = MAX_ANY) -> str | None:
    """Why ``uses`` (module → its uses) are too many, or ``None``."""
    total = sum(len(u) for u in uses.values())
    if total <= limit:
        return None
    listed = {m: [f"{line}: {what}" for line, what in u] for m, u in uses.items() if u}
    return f"{total} Any in the seams (at most {limit}): {listed}"


def test_any_in_the_seams_is_rare():
    assert over_the_limit({m: u for m, (_, u) in _seam_uses().items()}) is None


def test_every_any_in_the_seams_says_why():
    missing = {m: unexplained(src, u) for m, (src, u) in _seam_uses().items()}
    assert {m: u for m, u in missing.items() if u} == {}


#: every ``Any`` left in the seams (module → what), each with its reason on its line
#: (:func:`test_every_any_in_the_seams_says_why`): values the hub carries and never
#: reads (JSON, settings, option values, a store row) and the reactor; the parts of the
#: hub above the seams (a live game, the lobby, the plugin registry) were ``Any`` and
#: are typing Protocols now (:data:`PARTS_ABOVE`)
ANY_LEFT = {
    "hub.interfaces": ["IACPCAdapter.log_line(view)", "IHub.reactor", "IHub.options"],
    "hub.store_seams": ["Row"],
    "hub.model": [
        "JsonMapping",
        "GameOption.default",
        "GameOption.minimum",
        "GameOption.maximum",
        "GameOption.choices",
        "GameOption.for_people",
    ],
}


def test_the_any_left_in_the_seams_is_the_listed_one():
    """One ``Any`` more (or one undone) is a change of this list, with its reason."""
    found = {m: [what for _, what in u] for m, (_, u) in _seam_uses().items() if u}
    assert found == ANY_LEFT
    assert sum(map(len, ANY_LEFT.values())) <= MAX_ANY


#: the typing Protocols by which the seams name the hub's parts above them (which
#: import the seams) → the classes that are those parts; each class is handed over as
#: its Protocol in :data:`CONFORMANCE`, which mypy reads, so a part that stops
#: providing what its seam declares fails the type check
PARTS_ABOVE = {
    "hub.model.LiveGame": ["hub.play.game.GameInstance", "hub.cluster.remote.RemoteGame"],
    "hub.model.GameKind": ["hub.cluster.remote.RemoteType"],
    "hub.interfaces.LobbyGame": ["hub.play.game.GameInstance"],
    "hub.interfaces.GameLobby": ["hub.play.lobby.Lobby"],
    "hub.interfaces.PluginRegistry": ["hub.plugins.registry.Registry"],
    "hub.plugin_seams.PluginInfo": ["hub.plugins.registry.PluginRecord"],
    "hub.plugin_seams.PluginFile": ["hub.plugins.registry.Download"],
    "hub.plugin_seams.PluginSigner": ["hub.plugins.signing.Signer"],
    "hub.plugin_seams.SigningRule": ["hub.plugins.signing.PluginTrust"],
    "hub.cluster_seams.ClusterDoor": ["hub.cluster.service.Cluster"],
}
CONFORMANCE = Path(__file__).with_name("conformance.py")


def handed_over(source: str) -> set[tuple[str, str]]:
    """``(class, Protocol)`` of each function ``def f(x: Class) -> Protocol: return x``
    of ``source``, both as the dotted names it imports them by."""
    tree = ast.parse(source)
    imported = {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    found = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or len(node.args.args) != 1:
            continue
        arg, returns = node.args.args[0], node.returns
        body = node.body
        if (
            arg.annotation is not None
            and returns is not None
            and len(body) == 1
            and isinstance(body[0], ast.Return)
            and isinstance(body[0].value, ast.Name)
            and body[0].value.id == arg.arg
        ):
            given, wanted = ast.unparse(arg.annotation), ast.unparse(returns)
            found.add((imported.get(given, given), imported.get(wanted, wanted)))
    return found


def test_the_parts_above_the_seams_are_checked_against_their_protocols():
    import importlib

    expected = {(part, seam) for seam, parts in PARTS_ABOVE.items() for part in parts}
    assert handed_over(CONFORMANCE.read_text(encoding="utf-8")) == expected
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert str(CONFORMANCE.relative_to(ROOT)) in config["files"]
    for seam in PARTS_ABOVE:
        module, _, name = seam.rpartition(".")
        assert Protocol in importlib.import_module(module).__dict__[name].__bases__, seam


def test_the_handing_over_reader_sees_only_checks():
    source = (
        "from a import C, P\n"
        "def ok(x: C) -> P:\n    return x\n"
        "def other(x: C) -> P:\n    return C()\n"
        "def two(x: C, y: C) -> P:\n    return x\n"
    )
    assert handed_over(source) == {("a.C", "a.P")}


def test_the_seams_and_the_games_are_checked_strictly():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    strict = [o for o in config["overrides"] if o.get("disallow_untyped_defs")]
    patterns = {m for o in strict for m in o["module"]}

    def covered(module: str) -> bool:
        parts = module.split(".")
        prefixes = {".".join(parts[:i]) + ".*" for i in range(1, len(parts))}
        return module in patterns or bool(prefixes & patterns)

    assert [m for m in [*SEAMS, "games.poker.server", "hub.kit.game"] if not covered(m)] == []
    assert "games.*" in patterns
    for override in strict:  # none of the strict flags is missing
        assert all(override.get(flag) for flag in STRICT_FLAGS), override["module"]
    assert "games" in config["files"] and "hub" in config["files"]


STRICT_FLAGS = (
    "warn_unused_ignores",
    "disallow_any_generics",
    "disallow_subclassing_any",
    "disallow_untyped_calls",
    "disallow_untyped_defs",
    "disallow_incomplete_defs",
    "check_untyped_defs",
    "disallow_untyped_decorators",
    "warn_return_any",
    "no_implicit_reexport",
    "strict_equality",
    "extra_checks",
)


#: ``# type: ignore[code]  # why``: an ignore names its error code and says why
IGNORE = re.compile(r"#\s*type:\s*ignore(?P<code>\[[a-z-]+(, *[a-z-]+)*\])?(?P<rest>.*)")


def bare_ignores(source: str) -> list[int]:
    """Lines whose ``# type: ignore`` names no code or gives no reason after it."""
    out = []
    for number, line in enumerate(source.splitlines(), 1):
        match = IGNORE.search(line)
        if match and (not match["code"] or not match["rest"].strip().lstrip("#").strip()):
            out.append(number)
    return out


def test_every_ignore_in_the_seams_and_games_names_its_code_and_why():
    paths = [_path(m) for m in SEAMS] + sorted((ROOT / "games").rglob("*.py"))
    paths += sorted((ROOT / "hub" / "kit").rglob("*.py"))
    found = {
        str(p.relative_to(ROOT)): lines
        for p in paths
        if (lines := bare_ignores(p.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_a_bare_ignore_is_reported():
    source = (
        "a = 1  # type: ignore\nb = 2  # type: ignore[misc]\nc = 3  # type: ignore[misc]  # why\n"
    )
    assert bare_ignores(source) == [1, 2]


# -- the counter can fail --------------------------------------------------------------

SYNTHETIC = """
from typing import Any, Protocol
from zope.interface import Attribute, Interface

Loose = dict[str, Any]
Kept = dict[str, Any]  # Any: a reason


class IThing(Interface):
    name = Attribute("untyped: Any to mypy")
    size: int = Attribute("typed")

    def act(seat: int, action: Any) -> "Any": ...

    def fine(seat: int) -> None: ...


class Hub(Protocol):
    options: Any  # Any: settings

    async def run(self, *args: Any, **kw: Any) -> int: ...


def helper(x: "list[Any]") -> None: ...


class NotASeam:
    def only_counted_in_all(self, x: Any) -> None: ...
"""


def test_the_counter_sees_every_kind_of_any():
    uses = any_uses(SYNTHETIC)
    assert [what for _, what in uses] == [
        "Loose",
        "Kept",
        "IThing.name (untyped Attribute)",
        "IThing.act(action)",
        "IThing.act →",
        "Hub.options",
        "Hub.run(args)",
        "Hub.run(kw)",
        "helper(x)",
        "NotASeam.only_counted_in_all(x)",
    ]
    assert [what for _, what in any_uses(SYNTHETIC, "protocols")] == [
        "Hub.options",
        "Hub.run(args)",
        "Hub.run(kw)",
    ]


def test_an_any_without_its_reason_is_reported():
    missing = unexplained(SYNTHETIC, any_uses(SYNTHETIC))
    assert len(missing) == 8
    assert not any("Kept" in m or "Hub.options" in m for m in missing)
    assert any("IThing.name" in m for m in missing)


def test_the_limit_fails_above_it():
    uses = {"synthetic": any_uses(SYNTHETIC)}
    assert over_the_limit(uses, limit=10) is None
    assert over_the_limit(uses, limit=9) == (
        "10 Any in the seams (at most 9): {'synthetic': ["
        + ", ".join(repr(f"{line}: {what}") for line, what in uses["synthetic"])
        + "]}"
    )
