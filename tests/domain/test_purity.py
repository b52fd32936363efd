"""The domain is pure: standard library computation and msgspec only; no I/O, clock or chance."""

from __future__ import annotations

import ast
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "domain"

ALLOWED = {
    "__future__",
    "collections",
    "collections.abc",
    "functools",
    "hashlib",
    "hmac",
    "struct",
    "typing",
    "itertools",
    "msgspec",
    "msgspec.structs",
    "msgspec.json",
    "math",
    "bisect",  # binary search over sorted lists (the pool sweep's ratings)
    "enum",
    "unicodedata",
    "re",  # pattern matching of text only (token and instant forms)
    "threading",  # locks only: the capture solver's memos are shared by server threads
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_domain_imports_only_the_standard_library_computation_and_msgspec() -> None:
    for path in sorted(DOMAIN.glob("*.py")):
        foreign = {n for n in imports_of(path) if not n.startswith("domain") and n not in ALLOWED}
        assert not foreign, f"{path.name} imports {sorted(foreign)}"


def test_domain_never_opens_files_or_reads_the_clock() -> None:
    for path in sorted(DOMAIN.glob("*.py")):
        source = path.read_text()
        for needle in ("open(", "time.", "datetime", "random.", "secrets.", "os.environ"):
            assert needle not in source, f"{path.name} uses {needle}"
