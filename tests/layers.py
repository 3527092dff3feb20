"""Layer rules for desktop_app, checked statically with `ast`: the package is never imported, so a
broken or half-restructured tree is still checked, and CI needs neither Qt nor any new dependency.

    python tests/layers.py [PACKAGE_DIR]    exit 0 when clean, 1 with the violations listed

1. Qt (PySide6, shiboken6, PyQt5/6, pyqtgraph, qtpy) is imported only under ui/.
2. Nothing outside ui/ imports the ui package and nothing outside cli/ imports the cli package,
   except the entry points in LAYER_EXCEPTIONS.
3. No import cycles between modules, counting lazy imports (inside functions) too: they still run,
   just later. Imports under `if TYPE_CHECKING:` never run and are skipped by this rule only; rules 1
   and 2 still see them, since a type-only import of the UI is still the core depending on the UI.
4. Optionally (CHECK_PACKAGE_CYCLES) no cycles between the top-level subpackages/modules.
5. No SQL in the UI: nothing under ui/ imports the database layer (sqlalchemy, sqlmodel), not even for a
   type. Widgets ask named functions (rule 6), so a query is written, tested and indexed once, and the CLI
   and scripts can ask the same thing.
6. The UI reaches the store only through the Python API (api/) or the open project it was handed (the
   Project object's own methods): nothing under ui/ imports the store package or any module of it, lazily
   inside a function or under TYPE_CHECKING included (a type named from the store is still the window
   knowing the store's layout; api/ re-exports the row classes and constants a widget names). An API
   function opens the session itself, so the window holds none, and it makes all the queries one view
   needs in that session (one round of reads on a server).
"""

from __future__ import annotations

import ast
import sys
from collections import deque
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

QT_MODULES = frozenset({"PySide6", "shiboken6", "PyQt5", "PyQt6", "pyqtgraph", "qtpy"})
SQL_MODULES = frozenset({"sqlalchemy", "sqlmodel"})  # the database layer: the core's, never the UI's
UI, CLI = "ui", "cli"  # the two outer layers: subpackages of the checked package
STORE = "store"  # the storage layer, which the UI reaches only through the API (rule 6)
# Files (relative to the package directory) allowed to import both outer layers. `__main__.py` is the
# program's entry point: wiring the command line to the window is its whole job.
LAYER_EXCEPTIONS = frozenset({"__main__.py"})
# Cycles between top-level parts (agents, store, ui, ...) are reported as their own check, so it can be
# switched off while module-level cycles stay enforced.
CHECK_PACKAGE_CYCLES = True

TITLES = {  # report order and headings
    "parse": "Files that do not parse",
    "qt": "Qt outside the UI",
    "layers": "The core importing the UI or the CLI",
    "sql": "SQL in the UI",
    "store": "The UI reaching the store around the API",
    "cycles": "Import cycles between modules",
    "package-cycles": "Import cycles between top-level packages",
}


@dataclass(frozen=True)
class Violation:
    rule: str  # a key of TITLES
    path: str  # relative to the package's parent, e.g. desktop_app/store/db.py
    line: int
    message: str
    details: tuple[str, ...] = ()  # further lines, each with its own file:line

    def __str__(self) -> str:
        return "\n    ".join((f"{self.path}:{self.line}: {self.message}", *self.details))


@dataclass(frozen=True)
class _Import:
    """One imported name as written: `import a.b` -> (0, "a.b", ()), `from ..x import y` -> (2, "x", ("y",))."""

    line: int
    level: int
    module: str
    names: tuple[str, ...]
    lazy: bool  # inside a function: runs at call time, not import time
    type_only: bool  # under `if TYPE_CHECKING:`: never runs


@dataclass(frozen=True)
class _Site:
    """Where an edge of the import graph comes from (for package edges: one example module edge)."""

    path: str
    line: int
    lazy: bool
    source: str
    target: str
    named: str  # the module the statement names; target is one of its packages when they differ


class _Collector(ast.NodeVisitor):
    def __init__(self) -> None:
        self.imports: list[_Import] = []
        self._functions = 0
        self._type_checking = 0

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._functions += 1
        self.generic_visit(node)
        self._functions -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        test = node.test  # `if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`
        if not (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
                or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            self.generic_visit(node)
            return
        self._type_checking += 1
        for stmt in node.body:
            self.visit(stmt)
        self._type_checking -= 1
        for stmt in node.orelse:  # the else branch does run
            self.visit(stmt)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node, 0, alias.name, ())

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._add(node, node.level, node.module or "", tuple(alias.name for alias in node.names))

    def _add(self, node: ast.stmt, level: int, module: str, names: tuple[str, ...]) -> None:
        self.imports.append(_Import(node.lineno, level, module, names, self._functions > 0, self._type_checking > 0))


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _named(imp: _Import, importer: str, is_package: bool, known: set[str]) -> list[str]:
    """The absolute modules an import names; `from pkg import x` names pkg.x when that is a module."""
    module = imp.module
    if imp.level:
        package = (importer if is_package else importer.rpartition(".")[0]).split(".")
        if imp.level > len(package):
            return []  # beyond the top-level package: Python raises, nothing is imported
        base = ".".join(package[: len(package) - imp.level + 1])
        module = f"{base}.{module}" if module else base
    if not imp.names:
        return [module]
    return list(dict.fromkeys(f"{module}.{n}" if f"{module}.{n}" in known else module for n in imp.names))


def _edges(target: str, importer: str, modules: set[str]) -> list[str]:
    """The modules whose code runs when `importer` imports `target` (a module of the package)."""
    parts = target.split(".")
    # Python runs every enclosing package's __init__ first. Those edges are counted only when the
    # importer is outside that package: from inside, the __init__ has necessarily started before the
    # importer did, so the edge never triggers anything, and counting it would turn every __init__ that
    # imports its own submodules (formats/, agents/conventions/) into a cycle with each of them. From
    # outside it is real: X -> pkg.mod runs pkg/__init__, and if that imports X back, it is a cycle.
    edges = [p for p in (".".join(parts[:i]) for i in range(1, len(parts)))
             if p in modules and not _within(importer, p)]
    if target in modules:  # named explicitly, so always counted (even the importer's own __init__)
        edges.append(target)
    return [e for e in edges if e != importer]


def _tarjan(graph: dict[str, dict[str, _Site]]) -> list[list[str]]:
    """Strongly connected components, iteratively (no recursion limit on deep graphs)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:  # all children done
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    components.append(sorted(component))
    return components


def _shortest_cycle(graph: dict[str, dict[str, _Site]], component: list[str]) -> list[str]:
    """A shortest cycle inside a component (BFS from each member), starting at its smallest name."""
    members = set(component)
    best: list[str] = []
    for start in component:
        parent = {start: start}
        queue = deque([start])
        last = None
        while queue and last is None:
            node = queue.popleft()
            for child in sorted(graph[node]):
                if child == start:
                    last = node
                    break
                if child in members and child not in parent:
                    parent[child] = node
                    queue.append(child)
        path = [last]
        while path[-1] != start:
            path.append(parent[path[-1]])
        cycle = [*reversed(path), start]
        if not best or len(cycle) < len(best):
            best = cycle
    return best


def _cycles(rule: str, graph: dict[str, dict[str, _Site]], per_module: bool) -> list[Violation]:
    violations = []
    for component in _tarjan(graph):
        if len(component) < 2:
            continue
        cycle = _shortest_cycle(graph, component)
        message = " -> ".join(cycle)
        if len(component) > len(cycle) - 1:  # say what else is tangled in, not just one loop of it
            message += f"  ({len(component)} tangled together: {', '.join(component)})"
        details = []
        for a, b in pairwise(cycle):
            site = graph[a][b]
            lazy = " inside a function" if site.lazy else ""
            if not per_module:
                via = f" (e.g. {site.source} imports {site.named})"
            elif site.named != site.target:
                via = f" (its __init__ runs first when importing {site.named})"
            else:
                via = ""
            details.append(f"{site.path}:{site.line}: {a} -> {b}{lazy}{via}")
        first = graph[cycle[0]][cycle[1]]
        violations.append(Violation(rule, first.path, first.line, message, tuple(details)))
    return violations


def check(root: Path, package_cycles: bool | None = None) -> list[Violation]:
    """Every violation in the package at `root` (a directory; its name is the package's name)."""
    root = Path(root).resolve()
    package_cycles = CHECK_PACKAGE_CYCLES if package_cycles is None else package_cycles
    top, ui, cli, store = root.name, f"{root.name}.{UI}", f"{root.name}.{CLI}", f"{root.name}.{STORE}"
    files: dict[str, Path] = {}
    for file in sorted(root.rglob("*.py")):
        parts = file.relative_to(root.parent).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    modules = set(files)
    # Directories without __init__.py are namespace packages: nameable, but no code runs.
    known = modules | {m.rsplit(".", i)[0] for m in modules for i in range(1, m.count(".") + 1)}

    violations: list[Violation] = []
    graph: dict[str, dict[str, _Site]] = {m: {} for m in modules}
    for module, file in files.items():
        path = file.relative_to(root.parent).as_posix()
        try:
            tree = ast.parse(file.read_bytes(), filename=path)
        except SyntaxError as error:
            violations.append(Violation("parse", path, error.lineno or 0, f"cannot parse: {error.msg}"))
            continue
        collector = _Collector()
        collector.visit(tree)
        exempt = file.relative_to(root).as_posix() in LAYER_EXCEPTIONS
        for imp in collector.imports:
            where = " inside a function" if imp.lazy else " under TYPE_CHECKING" if imp.type_only else ""
            if imp.level == 0 and imp.module.partition(".")[0] in QT_MODULES and not _within(module, ui):
                violations.append(Violation("qt", path, imp.line, f"{module} imports {imp.module}{where}"))
            if imp.level == 0 and imp.module.partition(".")[0] in SQL_MODULES and _within(module, ui):
                violations.append(Violation("sql", path, imp.line, f"{module} imports {imp.module}{where}"))
            named = _named(imp, module, file.name == "__init__.py", known)
            reaching = [t for t in named if _within(t, store)]
            if reaching and _within(module, ui):
                violations.append(Violation("store", path, imp.line,
                                            f"{module} imports {', '.join(reaching)}{where}"))
            for layer in (ui, cli):
                crossing = [t for t in named if _within(t, layer)]
                if crossing and not _within(module, layer) and not exempt:
                    violations.append(Violation("layers", path, imp.line,
                                                f"{module} imports {', '.join(crossing)}{where}"))
            if imp.type_only:
                continue
            for target in named:
                if _within(target, top):
                    for edge in _edges(target, module, modules):
                        graph[module].setdefault(edge, _Site(path, imp.line, imp.lazy, module, edge, target))

    violations += _cycles("cycles", graph, per_module=True)
    if package_cycles:
        # Collapse to top-level parts: desktop_app.agents.runner -> desktop_app.agents.
        def part(m: str) -> str:
            return ".".join(m.split(".")[:2])

        packages: dict[str, dict[str, _Site]] = {part(m): {} for m in modules}
        # The first site in file order becomes the example; per statement, the module it names.
        sites = sorted((s for edges in graph.values() for s in edges.values()),
                       key=lambda s: (s.path, s.line, s.target != s.named))
        for site in sites:
            if part(site.source) != part(site.target):
                packages[part(site.source)].setdefault(part(site.target), site)
        violations += _cycles("package-cycles", packages, per_module=False)
    return sorted(violations, key=lambda v: (list(TITLES).index(v.rule), v.path, v.line))


def report(violations: list[Violation]) -> str:
    lines = []
    for rule, title in TITLES.items():
        found = [v for v in violations if v.rule == rule]
        if found:
            lines += [f"{title} ({len(found)}):", *(f"  {v}".replace("\n", "\n  ") for v in found), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "desktop_app"
    violations = check(root)
    if violations:
        print(report(violations), end="")
        print(f"{len(violations)} layer violation(s) in {root.name}")
        return 1
    print(f"layers: {root.name} is clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
