"""The house's floors, checked from the import graph of the source tree.

Facts at the bottom (detour_core, and each service pack's descriptor, which is facts too),
parts above (certs, sandbox, mock_services, proxy_addons), faces on top (detour). An import
may point down or sideways, never up; and no set of files, or of packages, may import each
other in a circle. Every import counts, wherever it stands in a file (a lazy import inside a
function is still a dependency). The registry's `PACK_MODULES` names descriptors by string;
those count as imports too, so the registry cannot hide an upward edge.

Beside the floors stands the client (detour_client): it talks to stacks over HTTP and imports
nothing of theirs, so that it installs where the stack cannot; the faces may use it.
"""

from __future__ import annotations

import ast
import fnmatch
from dataclasses import dataclass
from pathlib import Path

FLOORS: list[tuple[str, tuple[str, ...]]] = [
    ("facts", ("detour_core", "mock_services.*.pack")),
    ("parts", ("certs", "sandbox", "mock_services", "proxy_addons")),
    ("faces", ("detour",)),
]
STANDALONE = ("detour_client",)  # imports none of the project's other packages
SKIPPED_DIRS = {"node_modules", "venv", ".venv", "__pycache__", "preludes"}
REGISTRY_CONSTANT = "PACK_MODULES"


@dataclass(frozen=True)
class Edge:
    source: str      # importing module
    target: str      # imported module
    file: Path
    line: int

    def where(self) -> str:
        return f"{self.file}:{self.line}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files(root: Path, packages: list[str]) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if not SKIPPED_DIRS & set(path.relative_to(root).parts):
                found[module_name(root, path)] = path
    return found


def floor_of(module: str) -> int | None:
    """The floor whose most specific pattern matches the module (or one of its parents)."""
    best: tuple[int, int] | None = None
    for rank, (_, patterns) in enumerate(FLOORS):
        for pattern in patterns:
            if fnmatch.fnmatchcase(module, pattern) or fnmatch.fnmatchcase(module, pattern + ".*"):
                specificity = pattern.count(".") * 2 + pattern.count("*") * -1 + 2
                if best is None or specificity > best[1]:
                    best = (rank, specificity)
    return best[0] if best else None


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The deepest project module a dotted name reaches (`from a.b import c`: a.b.c or a.b)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _imported_names(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[:len(anchor) - node.level + 1]
            base = ".".join([*anchor, base] if base else anchor)
        return [f"{base}.{alias.name}" for alias in node.names] or [base]
    return []


def _registry_names(node: ast.AST) -> list[str]:
    if (isinstance(node, ast.Assign | ast.AnnAssign)
            and any(isinstance(t, ast.Name) and t.id == REGISTRY_CONSTANT
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
            and isinstance(node.value, ast.Tuple)):
        return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def edges(root: Path, modules: dict[str, Path]) -> list[Edge]:
    found = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = _imported_names(node, module, path.name == "__init__.py") + _registry_names(node)
            for name in names:
                target = _resolve(name, modules)
                if target and target != module:
                    found.append(Edge(module, target, path.relative_to(root), node.lineno))
    return found


def climbs(found: list[Edge]) -> list[str]:
    problems = []
    for e in found:
        source, target = floor_of(e.source), floor_of(e.target)
        if source is not None and target is not None and target > source:
            problems.append(f"{e.where()}: {e.source} ({FLOORS[source][0]}) imports {e.target} "
                            f"({FLOORS[target][0]}), a floor above")
    return problems


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def package_of(module: str) -> str:
    """The top-level package a module counts in; the descriptors count with the facts."""
    if floor_of(module) == 0:
        return "detour_core"
    return module.split(".")[0]


def circles(found: list[Edge], unit=lambda m: m) -> list[str]:
    graph: dict[str, set[str]] = {}
    where: dict[tuple[str, str], Edge] = {}
    for e in found:
        a, b = unit(e.source), unit(e.target)
        if a != b:
            graph.setdefault(a, set()).add(b)
            where.setdefault((a, b), e)
    problems = []
    for component in _cycles(graph):
        members = set(component)
        inside = [where[(a, b)] for a in component for b in sorted(graph.get(a, ())) if b in members]
        problems.append("circle: " + ", ".join(component) + " ("
                        + "; ".join(f"{e.where()} imports {e.target}" for e in inside) + ")")
    return problems


def reaches_out(found: list[Edge]) -> list[str]:
    """A standalone package's imports of any other of the project's packages."""
    return [f"{e.where()}: {e.source} (standalone) imports {e.target}" for e in found
            if e.source.split(".")[0] in STANDALONE and e.target.split(".")[0] != e.source.split(".")[0]]


def check(root: Path, packages: list[str] | None = None) -> list[str]:
    """Every climb, every circle of files, every circle of packages, and every import out of a standalone one."""
    packages = packages or sorted({p for _, patterns in FLOORS for p in patterns if "*" not in p} | set(STANDALONE))
    modules = source_files(root, [p for p in packages if (root / p).is_dir()])
    found = edges(root, modules)
    return climbs(found) + circles(found) + circles(found, package_of) + reaches_out(found)
