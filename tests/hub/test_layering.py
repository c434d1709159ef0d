"""The hub core knows no game, and its parts lean on each other one way.

Read from the source (imports through ``ast``, words through ``tokenize``), so a test
cannot be fooled by what happens to be imported already:

- no front end imports another (``hub.frontends.<a>`` → ``hub.frontends.<b>``);
- nothing under ``hub/`` imports ``games`` or ``bots`` (built-in plugins are found by
  their ``.meta`` files and imported by name);
- no word of a built-in game (:data:`GAME_WORDS`: every built-in game's name and the
  words of its family, ``poker``, ``holdem``, ``morris``, ``kingdomino``, ``hello``...)
  appears in ``hub/`` except in docstrings and comments that name an example: not in
  its Python code or strings, and not in its static files (HTML, JavaScript and CSS
  outside their comments).  ``domino`` on its own is also the name of a front end (the
  Domino line protocol, ``hub.frontends.domino``): as a whole word it is the hub's;
  ``kingdomino`` is the game;
- the modules of ``hub/`` import each other without a cycle at import time, and
  without a circle even through lazy and type-checking imports (but for the known
  ones, :data:`KNOWN_CIRCLES`).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

HUB = Path(__file__).resolve().parents[2] / "hub"
#: the words of the built-in games (each built-in game's name contains one:
#: :func:`test_every_built_in_game_has_a_game_word`)
GAME_WORDS = (
    "poker", "texas", "holdem", "hold'em", "five-card", "sng",
    "nmmorris", "morris", "kingdomino", "domino", "hello",
)  # fmt: skip
GAME_WORD = re.compile("|".join(re.escape(w) for w in GAME_WORDS), re.I)
#: front-end names that are also game words: as whole words (``domino``,
#: ``DOMINO``, ``IDominoAdapter``) they name the front end (not ``kingdomino``)
FRONTEND_WORDS = re.compile(r"(?<![a-z])[Dd]omino(?![a-z])|DOMINO")
#: the static files of the web front end that are read (pages, scripts, styles)
STATIC_SUFFIXES = (".html", ".js", ".css")


def modules() -> dict[str, Path]:
    """Every module of ``hub/``: dotted name → file."""
    out = {}
    for path in sorted(HUB.rglob("*.py")):
        parts = list(path.relative_to(HUB.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(name: str, top_level_only: bool = False, for_types: bool = True) -> set[str]:
    """The modules ``name`` imports: ``from x import y`` counts ``x.y`` when that is a
    module of ``hub/`` (a submodule import needs no more of ``x`` than a started
    package), else ``x``.  ``top_level_only``: only what runs at import time (not in
    functions or under ``if TYPE_CHECKING``); ``for_types`` false: not what is imported
    under ``if TYPE_CHECKING`` only."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if _is_package(name) else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if top_level_only and (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            or _type_checking(node)
        ):
            return
        if not for_types and _type_checking(node):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def frontend_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["hub", "frontends"]:
        return parts[2]
    return None


def test_no_front_end_imports_another():
    crossings = []
    for name in MODULES:
        mine = frontend_of(name)
        if mine is None:
            continue
        for target in imports(name):
            theirs = frontend_of(target)
            if theirs is not None and theirs != mine:
                crossings.append(f"{name} imports {target}")
    assert crossings == []


def test_the_hub_imports_no_game_and_no_bot():
    found = [
        f"{name} imports {target}"
        for name in MODULES
        for target in imports(name)
        if target.split(".")[0] in ("games", "bots")
    ]
    assert found == []


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                first = body[0]
                if isinstance(first.value.value, str):
                    lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def game_words(source: str) -> list[str]:
    """Game words in the code and non-docstring strings of ``source`` (comments and
    docstrings may name examples)."""
    docstrings = _docstring_lines(ast.parse(source))
    hits = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            continue
        if token.type == tokenize.STRING and token.start[0] in docstrings:
            continue
        if GAME_WORD.search(FRONTEND_WORDS.sub("", token.string)):
            hits.append(f"line {token.start[0]}: {token.string[:60]}")
    return hits


#: comments of the static files: ``/* */`` (CSS, JavaScript), ``<!-- -->`` (HTML) and
#: ``//`` to the end of the line where it follows a blank or starts it (not ``http://``)
_STATIC_COMMENTS = re.compile(r"/\*.*?\*/|<!--.*?-->|(?:^|(?<=\s))//[^\n]*", re.S | re.M)


def static_game_words(text: str) -> list[str]:
    """Game words in a static file's text outside its comments (a comment keeps its
    lines, so the line numbers stay)."""
    code = _STATIC_COMMENTS.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    hits = []
    for number, line in enumerate(code.splitlines(), 1):
        found = GAME_WORD.search(FRONTEND_WORDS.sub("", line))
        if found:
            hits.append(f"line {number}: {found.group(0)} in {line.strip()[:60]}")
    return hits


def static_files() -> list[Path]:
    """Every page, script and stylesheet under ``hub/``."""
    return sorted(p for p in HUB.rglob("*") if p.is_file() and p.suffix in STATIC_SUFFIXES)


def test_the_hub_code_names_no_game():
    found = {name: game_words(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_word_scan_can_fail():
    code = '"""Chips, as in poker."""\n# a texas example\nx = "holdem"\npoker_table = 1\n'
    assert game_words(code) == ['line 3: "holdem"', "line 4: poker_table"]
    more = 'a = "nmmorris"\nb = "kingdomino"\nc = "domino_game"\nd = hello()\ne = "Hold\'em"\n'
    assert game_words(more) == [
        'line 1: "nmmorris"',
        'line 2: "kingdomino"',
        "line 4: hello",
        'line 5: "Hold\'em"',
    ]


def test_the_hub_static_files_name_no_game():
    assert static_files(), "no static files found"
    found = {
        str(path.relative_to(HUB)): static_game_words(path.read_text(encoding="utf-8"))
        for path in static_files()
    }
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_static_scan_can_fail():
    js = (
        "// Poker in comments is fine\n/* so is morris */\n"
        'const t = "nmmorris";\nfetch("http://x/poker");\nconst ok = "domino";\n'
    )
    assert static_game_words(js) == [
        'line 3: nmmorris in const t = "nmmorris";',
        'line 4: poker in fetch("http://x/poker");',
    ]
    css = "/* King Domino */\n.kingdomino-grid { }\n.ok { }\n"
    assert static_game_words(css) == ["line 2: kingdomino in .kingdomino-grid { }"]
    html = "<!-- hello -->\n<h2>Poker hands</h2>\n"
    assert static_game_words(html) == ["line 2: Poker in <h2>Poker hands</h2>"]


def test_every_built_in_game_has_a_game_word():
    """A new built-in game is covered by the word scan only once its words are listed."""
    import tomllib

    metas = [
        tomllib.loads(p.read_text(encoding="utf-8")) for p in (HUB / "builtin_meta").glob("*.meta")
    ]
    games = [m["plugin"]["name"] for m in metas if m["plugin"]["kind"] == "game"]
    assert len(games) >= 6
    assert [name for name in games if not GAME_WORD.search(name)] == []


def test_no_import_cycle_in_the_hub():
    graph = {
        name: {target for target in imports(name, top_level_only=True) if target in MODULES}
        for name in MODULES
    }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def walk(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target) :] + [target])  # on the stack
            elif target not in state:
                walk(target, path + [target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])
    assert cycles == []


#: circles of modules that import each other through lazy or type-checking imports
#: (no cycle at import time, :func:`test_no_import_cycle_in_the_hub`), left to undo:
#: each an exact set, so that a new circle, or one that grows, fails, and an undone
#: one must be struck off here.  None is left (issue 34, 7b: the XML front end's
#: seven modules name what they use of the parts above them as typing Protocols)
KNOWN_CIRCLES: list[set[str]] = []


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts of ``graph`` of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for target in sorted(graph[name]):
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            part = set()
            while True:
                member = stack.pop()
                part.add(member)
                if member == name:
                    break
            if len(part) > 1:
                out.append(part)

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return out


def test_no_circle_of_imports_even_lazy_or_for_types():
    """A game seam, the journal, the bot driver, the kit: modules that lean one way,
    also through imports inside functions and under ``TYPE_CHECKING`` (what another
    module needs of one above it is a typing Protocol of its own)."""
    graph = {name: {t for t in imports(name) if t in MODULES} for name in MODULES}
    found = circles(graph)
    assert sorted(map(sorted, found)) == sorted(map(sorted, KNOWN_CIRCLES))


def test_the_circle_finder_can_fail():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [{"a", "b", "c"}]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_import_reader_sees_relative_lazy_and_guarded_imports():
    assert "hub.frontends.xml.codec" in imports("hub.frontends.xml.adapters")  # from . import
    assert "hub.frontends.xml.server" in imports("hub.frontends.xml")  # inside a function
    assert "hub.frontends.xml.server" not in imports("hub.frontends.xml", top_level_only=True)
    assert "hub.interfaces" in imports("hub.frontends.xml", top_level_only=True)


def test_every_front_end_module_declares_its_seams():
    import importlib

    from zope.interface.verify import verifyObject

    from hub.frontends import FRONTENDS
    from hub.interfaces import IFrontend, IHTTPResources

    publishing = []
    for name, (_, module_name) in FRONTENDS.items():
        module = importlib.import_module(module_name)
        assert verifyObject(IFrontend, module), name
        if IHTTPResources.providedBy(module):
            assert verifyObject(IHTTPResources, module)
            publishing.append(name)
    assert publishing == ["xml", "acpc"]


def test_every_hub_module_imports():
    """Every module of ``hub/`` imports (mypy is told to ignore what it cannot find,
    so a relative import left behind by a move is caught here)."""
    import importlib

    failed = {}
    for name in sorted(MODULES):
        if name.endswith("__main__"):
            continue
        try:
            importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 (each reported)
            failed[name] = repr(e)
    assert failed == {}


def test_no_circle_between_the_hub_packages():
    """``hub/``'s packages (and its top-level modules) lean one way: each imports only
    those below it, at import time or in a function (docs/architecture.md, "The
    modules"); a seam may name a type of a package above it for the type checker
    only (``if TYPE_CHECKING``: ``IHub.telemetry``, the store's records)."""

    def part(module: str) -> str:
        return ".".join(module.split(".")[:2])

    graph: dict[str, set[str]] = {}
    for name in MODULES:
        targets = {part(t) for t in imports(name, for_types=False) if t in MODULES and t != "hub"}
        graph.setdefault(part(name), set()).update(targets - {part(name)})
    assert circles(graph) == []
