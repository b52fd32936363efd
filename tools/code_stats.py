#!/usr/bin/env python3
"""The shape of the code: lines per package, the longest modules and the longest functions.

Usage: ``python3 tools/code_stats.py [--root DIR] [--top N] [--json]``

Counts every ``.py`` file of the four packages (domain, replays, app, cli) under ``--root`` (this
checkout by default), so two checkouts can be compared side by side. Lines are physical lines;
a function's length runs from its ``def`` (decorators included) to its last line. Standard
library only.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

PACKAGES = ("domain", "replays", "app", "cli")


def functions(tree: ast.AST) -> list[tuple[str, int, int]]:
    """(qualified name, first line, line count) of every function and method in ``tree``."""
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                last = child.end_lineno or child.lineno
                name = f"{prefix}{child.name}"
                found.append((name, first, last - first + 1))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return found


def measure(root: Path, top: int) -> dict[str, object]:
    """Lines and files per package, the ``top`` longest modules and functions under ``root``."""
    packages: dict[str, dict[str, int]] = {}
    modules: list[tuple[str, int]] = []
    longest: list[tuple[str, int]] = []
    for package in PACKAGES:
        lines = files = 0
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            count = len(text.splitlines())
            rel = path.relative_to(root).as_posix()
            lines += count
            files += 1
            modules.append((rel, count))
            for name, first, length in functions(ast.parse(text)):
                longest.append((f"{rel}:{first} {name}", length))
        packages[package] = {"lines": lines, "files": files}
    modules.sort(key=lambda m: -m[1])
    longest.sort(key=lambda f: -f[1])
    return {
        "packages": packages,
        "modules": modules[:top],
        "functions": longest[:top],
        "functions_over_50_lines": sum(1 for _, n in longest if n > 50),
    }


def main() -> int:
    """Print the measures of one checkout (as text, or JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.root, args.top)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
        return 0
    packages = result["packages"]
    assert isinstance(packages, dict)
    for package, counts in packages.items():
        print(f"{package:8} {counts['lines']:6} lines in {counts['files']:3} files")
    print("longest modules:")
    for rel, count in result["modules"]:  # type: ignore[attr-defined]
        print(f"  {count:5}  {rel}")
    print("longest functions:")
    for where, count in result["functions"]:  # type: ignore[attr-defined]
        print(f"  {count:5}  {where}")
    print(f"functions over 50 lines: {result['functions_over_50_lines']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
