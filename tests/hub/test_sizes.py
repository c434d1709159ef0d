"""Small rooms (issue 14): no module of ``hub/``, ``games/`` or ``bots/`` over 800
lines, no function over 80, unless its ``def`` line says why with ``# long: <why>``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hub", "games", "bots")
MAX_MODULE = 800
MAX_FUNCTION = 80
#: the comment that lets a function be longer: ``def f():  # long: <why>``
LONG = "# long:"


def modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def long_functions(path: Path) -> list[str]:
    """``path:line name (n lines)`` of each function over the limit without a reason."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        length = (node.end_lineno or node.lineno) - start + 1
        if length <= MAX_FUNCTION:
            continue
        def_line = lines[node.lineno - 1]
        why = def_line.partition(LONG)[2].strip()
        if not why:
            rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            found.append(f"{rel}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_module_over_800_lines():
    big = []
    for path in modules():
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MAX_MODULE:
            big.append(f"{path.relative_to(ROOT)} ({count} lines)")
    assert big == []


def test_no_function_over_80_lines_without_a_reason():
    found = [entry for path in modules() for entry in long_functions(path)]
    assert found == []


def test_the_check_sees_a_long_function_and_its_reason(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION))
    path = tmp_path / "sample.py"
    path.write_text(f"def plain():\n{body}\n\ndef said():  # long: a table\n{body}")
    assert long_functions(path) == [f"sample.py:1 plain ({MAX_FUNCTION + 1} lines)"]
