"""Build-check of the Windows and macOS packaging, run on Linux (issue 19).

    .venv/bin/python packaging/check_other_platforms.py [--offline] [--pyinstaller VENV] [-v]

Neither build can run here (no PowerShell, Inno Setup, Wine or macOS), so this verifies what Linux can:

1. wheels: the pinned runtime dependencies plus the scripts' PyInstaller, with their whole dependency
   closure, resolve to wheels for CPython 3.11 on win_amd64, macOS arm64 and macOS x86_64
   (`pip install --dry-run --only-binary=:all: --platform ...` against the package index, ignoring this
   machine's local wheel folders and extra indexes), at the macOS version the app declares
   (LSMinimumSystemVersion in the spec); when that fails, the lowest macOS version that works and the
   packages with no wheel at all. Also that the chosen Playwright wheel holds the Node.js file the spec
   bundles. Needs the network: offline, these lines are `skip`, never `ok`.
2. static: one PyInstaller version in the three build scripts; every repository path the scripts, the
   .iss and the spec name exists; the version comes from pyproject.toml everywhere; the entitlements
   plist parses and holds the JIT keys; the executables, folders and file names the .iss, the .ps1 and
   build_macos.sh use are the ones the spec produces; the SCREENLAB_* variables they set are read.
3. shell: `bash -n` (and `dash -n` for /bin/sh scripts) on the shell scripts of packaging/ and .ci/;
   shellcheck when installed (warnings and errors fail, notes are listed).
4. spec: its platform branches; the keyword arguments it passes to Analysis/PYZ/EXE/COLLECT/BUNDLE and
   the hook helpers exist in the pinned PyInstaller (read from its source in a build venv: EXE and
   BUNDLE take **kwargs and silently ignore unknown ones, so a typo would go unnoticed); its Qt path
   filters match where PyInstaller puts Qt's files on each OS.

Prints one line per check (ok / FAIL / skip) and a summary; exits 1 when a check FAILs.
tests/test_packaging_scripts.py runs parts 2-4 (offline) in the test suite.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {"linux": "packaging/build_linux.sh", "macos": "packaging/build_macos.sh",
           "windows": "packaging/build_windows.ps1"}
SPEC, ISS = "packaging/screenlab.spec", "packaging/windows/screenlab.iss"
ENTITLEMENTS = "packaging/macos/entitlements.plist"
JIT_KEYS = ("com.apple.security.cs.allow-jit", "com.apple.security.cs.allow-unsigned-executable-memory")
# Paths inside the repository that the scripts mention, as in "packaging/screenlab.spec" or
# "resources\icons\screenlab.png"; desktop_app/_data/ is a path inside the wheel, not the repository.
REPO_PATH = re.compile(r"(?<![\w$./\\-])((?:packaging|resources|datasets|desktop_app|tests|\.ci)[/\\][\w.*/\\-]*[\w*])")
NOT_IN_REPO = ("desktop_app/_data",)
MACOS_LADDER = ((11, 0), (12, 0), (13, 0), (14, 0), (15, 0), (26, 0))  # macOS 15 was followed by 26
# Where PyInstaller 6 puts PySide6's Qt files (PyInstaller/utils/hooks/qt/__init__.py, qt_rel_dir);
# used when no PyInstaller source is at hand.
QT_REL_DIR_DEFAULT = {"win32": "PySide6", "darwin": "PySide6/Qt", "linux": "PySide6/Qt"}


@dataclass
class Check:
    status: str  # "ok", "FAIL" or "skip"
    name: str
    detail: str = ""
    lines: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        head = f"{self.status:<5} {self.name}" + (f": {self.detail}" if self.detail else "")
        return "\n".join([head, *(f"        {line}" for line in self.lines)])


def _check(name: str, problems: list[str], detail_ok: str, lines: list[str] | None = None) -> Check:
    if problems:
        return Check("FAIL", name, problems[0], problems[1:] + (lines or []))
    return Check("ok", name, detail_ok, lines or [])


def _read(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def _pyproject(root: Path) -> dict:
    with open(root / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def _packaging():
    """PyPA's `packaging` (the repository's packaging/ folder has no __init__.py, so it never shadows it)."""
    try:
        from packaging import requirements, specifiers, tags, utils, version
    except ImportError:  # pip vendors it
        from pip._vendor.packaging import requirements, specifiers, tags, utils, version
    return requirements, specifiers, tags, utils, version


# ============================================================================ the spec, read with ast
class SpecModel:
    """What the checks need of packaging/screenlab.spec, without running it (it imports PyInstaller)."""

    def __init__(self, root: Path):
        self.source = _read(root, SPEC)
        self.tree = ast.parse(self.source, SPEC)
        self.assigns: dict[str, ast.expr] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.assigns.setdefault(node.targets[0].id, node.value)

    def path_parts(self, node: ast.expr) -> list[str] | None:
        """`ROOT / "a" / "b"` (or via a name assigned such a chain) -> ["a", "b"]; else None."""
        if isinstance(node, ast.Name):
            if node.id == "ROOT":
                return []
            value = self.assigns.get(node.id)
            return self.path_parts(value) if value is not None and node.id.isupper() else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left = self.path_parts(node.left)
            if left is not None and isinstance(node.right, ast.Constant) and isinstance(node.right.value, str):
                return [*left, node.right.value]
            if left is not None and isinstance(node.right, ast.IfExp):  # ICON_DIR / ("a" if X else "b")
                return None
        return None

    def repo_paths(self) -> set[str]:
        out = set()
        inner = {id(n.left) for n in ast.walk(self.tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)}
        for node in ast.walk(self.tree):  # whole chains only: not ROOT / "build" of ROOT / "build" / "node-xz"
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and id(node) not in inner:
                parts = self.path_parts(node)
                if parts:
                    out.add("/".join(parts))
        return out

    def calls(self, func: str, body: list[ast.stmt] | None = None) -> list[ast.Call]:
        nodes = body if body is not None else [self.tree]
        found = []
        for top in nodes:
            for node in ast.walk(top):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == func:
                    found.append(node)
        return sorted(found, key=lambda c: c.lineno)

    def keywords(self, call: ast.Call) -> dict[str, ast.expr]:
        """Keyword arguments, with `**name` expanded when name = dict(...) in the spec."""
        out: dict[str, ast.expr] = {}
        for kw in call.keywords:
            if kw.arg is not None:
                out[kw.arg] = kw.value
            elif isinstance(kw.value, ast.Name):
                value = self.assigns.get(kw.value.id)
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
                    out.update({k.arg: k.value for k in value.keywords if k.arg})
        return out

    def branch(self, flag: str) -> list[ast.stmt]:
        """The body of the module-level `if FLAG:` / `elif FLAG:` branches; flag "else" = the final else of
        the `if WINDOWS: ... elif MACOS: ... else:` chain."""
        body: list[ast.stmt] = []
        for node in self.tree.body:
            current = node
            while isinstance(current, ast.If):
                test = current.test
                if isinstance(test, ast.Name) and test.id == flag:
                    body += current.body
                if len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
                    current = current.orelse[0]
                else:
                    if flag == "else" and isinstance(test, ast.Name) and test.id in ("WINDOWS", "MACOS"):
                        body += current.orelse
                    break
        return body

    def exe_names(self, flag: str) -> list[str]:
        names = []
        for call in self.calls("EXE", self.branch(flag)):
            name = self.keywords(call).get("name")
            if isinstance(name, ast.Constant):
                names.append(name.value)
        return names

    def constant(self, node: ast.expr | None):
        try:
            return ast.literal_eval(node) if node is not None else None
        except ValueError:
            return None

    def info_plist(self) -> dict:
        for call in self.calls("BUNDLE"):
            value = self.keywords(call).get("info_plist")
            if isinstance(value, ast.Dict):
                return {self.constant(k): self.constant(v) for k, v in zip(value.keys, value.values, strict=True)}
        return {}

    def functions(self, names: tuple[str, ...], constants: dict) -> dict:
        """Define the spec's pure helper functions (and the module constants they read) in a namespace."""
        module = ast.Module(body=[], type_ignores=[])
        def wanted(node: ast.stmt) -> bool:
            if isinstance(node, ast.FunctionDef):
                return node.name in names
            return (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id.isupper() and self.constant(node.value) is not None)

        module.body = [node for node in self.tree.body if wanted(node)]
        namespace = dict(constants)
        exec(compile(module, SPEC, "exec"), namespace)  # only literal assignments and function definitions
        namespace.update(constants)
        return namespace


# ============================================================================ 2. static consistency
def pyinstaller_pins(root: Path) -> dict[str, str]:
    pins = {}
    for _os, rel in SCRIPTS.items():
        text = _read(root, rel)
        pattern = r'^\$PyInstallerVersion\s*=\s*"([^"]+)"' if rel.endswith(".ps1") else r'^PYINSTALLER_VERSION="([^"]+)"'
        m = re.search(pattern, text, re.M)
        pins[rel] = m.group(1) if m else ""
    return pins


def check_pyinstaller_version(root: Path) -> Check:
    pins = pyinstaller_pins(root)
    problems = [f"{rel}: no PyInstaller version variable" for rel, v in pins.items() if not v]
    versions = {v for v in pins.values() if v}
    if len(versions) > 1:
        problems.insert(0, "different PyInstaller versions: " + ", ".join(f"{r} {v}" for r, v in pins.items()))
    for rel in SCRIPTS.values():
        text = _read(root, rel)
        use = r'"pyinstaller==\$PyInstallerVersion"' if rel.endswith(".ps1") else r'"pyinstaller==\$PYINSTALLER_VERSION"'
        if not re.search(use, text):
            problems.append(f"{rel}: the pip install line does not use its PyInstaller version variable")
    for rel in [*SCRIPTS.values(), SPEC, "packaging/README.md"]:  # the version quoted in comments and docs
        for quoted in set(re.findall(r"pyinstaller==(\d[\w.]*)", _read(root, rel))) - versions:
            problems.append(f"{rel} mentions pyinstaller=={quoted}")
    return _check("static: PyInstaller version", problems, f"{' '.join(sorted(versions))} in all three build scripts")


def check_app_version(root: Path) -> Check:
    version = _pyproject(root)["project"]["version"]
    reads = re.compile(r"""tomllib\.load\(open\((['"])pyproject\.toml\1,\s*(['"])rb\2\)\)\[(['"])project\3\]\[(['"])version\4\]""")
    assign = {"packaging/build_windows.ps1": r"^\$Version\s*=.*", "packaging/build_linux.sh": r"^VERSION=\$\(.*",
              "packaging/build_macos.sh": r"^VERSION=\$\(.*"}
    problems = []
    for rel, pattern in assign.items():
        m = re.search(pattern, _read(root, rel), re.M)
        if not (m and reads.search(m.group(0))):
            problems.append(f"{rel}: the version is not read from pyproject.toml's [project] version")
    if not re.search(r'"/DAppVersion=\$Version"', _read(root, SCRIPTS["windows"])):
        problems.append("build_windows.ps1 does not pass /DAppVersion=$Version to ISCC")
    init = ast.parse(_read(root, "desktop_app/__init__.py"))
    app_version = next((ast.literal_eval(n.value) for n in init.body if isinstance(n, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == "__version__" for t in n.targets)), None)
    if app_version != version:  # the spec's VERSION (BUNDLE version, Info.plist) is desktop_app.__version__
        problems.append(f"desktop_app.__version__ is {app_version!r}, pyproject.toml says {version!r} (the spec uses the former)")
    return _check("static: app version", problems,
                  f"{version}: the three scripts read pyproject.toml; the .iss gets it as /DAppVersion; "
                  "the spec's desktop_app.__version__ matches")


def check_paths(root: Path) -> Check:
    referenced: dict[str, set[str]] = {}
    files = [*SCRIPTS.values(), ISS, SPEC, *sorted(str(p.relative_to(root)) for p in (root / "packaging").rglob("*.sh"))]
    for rel in dict.fromkeys(files):
        for raw in REPO_PATH.findall(_read(root, rel)):
            path = raw.replace("\\", "/").rstrip("/.")
            if not path.startswith(NOT_IN_REPO):
                referenced.setdefault(path, set()).add(rel)
    spec = SpecModel(root)
    for path in spec.repo_paths():
        if not path.startswith(("build/", "dist/")):  # outputs of the build: checked in check_outputs
            referenced.setdefault(path, set()).add(SPEC)
    for src in _pyproject(root)["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]:
        referenced.setdefault(src, set()).add("pyproject.toml force-include (the spec's datas)")
    problems = []
    for path, where in sorted(referenced.items()):
        exists = any(root.glob(path)) if "*" in path else (root / path).exists()
        if not exists:
            problems.append(f"{path} does not exist (named in {', '.join(sorted(where))})")
    # build_macos.sh renders the .icns with `from render_icon import render` and render(size, path)
    macos = _read(root, SCRIPTS["macos"])
    if "from render_icon import render" in macos:
        tree = ast.parse(_read(root, "packaging/render_icon.py"))
        render = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "render"), None)
        if render is None or len(render.args.args) < 2:
            problems.append("packaging/render_icon.py has no render(size, out) for build_macos.sh")
    return _check("static: paths named by the scripts, the .iss and the spec", problems,
                  f"{len(referenced)} paths exist", [", ".join(sorted(referenced))])


def check_entitlements(root: Path) -> Check:
    try:
        with open(root / ENTITLEMENTS, "rb") as fh:
            data = plistlib.load(fh)
    except (OSError, plistlib.InvalidFileException, ValueError) as exc:
        return Check("FAIL", "static: macOS entitlements", f"{ENTITLEMENTS} does not parse: {exc}")
    problems = [f"{key} is not true" for key in JIT_KEYS if data.get(key) is not True]
    spec_uses = "packaging/macos/entitlements.plist" in SpecModel(root).repo_paths()
    if not spec_uses:
        problems.append("the spec does not pass packaging/macos/entitlements.plist as entitlements_file")
    return _check("static: macOS entitlements", problems, f"plist parses; {', '.join(f'{k}={v}' for k, v in data.items())}")


def _iss_defines(iss: str) -> set[str]:
    return set(re.findall(r"^\s*#define\s+(\w+)", iss, re.M))


def check_outputs(root: Path) -> Check:
    """The names the installer and the scripts expect are the ones the spec produces."""
    spec, iss, ps1 = SpecModel(root), _read(root, ISS), _read(root, SCRIPTS["windows"])
    macos, linux = _read(root, SCRIPTS["macos"]), _read(root, SCRIPTS["linux"])
    problems, facts = [], []
    win_exes = [f"{n}.exe" for n in spec.exe_names("WINDOWS")]
    facts.append(f"win32 EXEs: {', '.join(win_exes) or 'none'}")
    if len({n.lower() for n in win_exes}) != len(win_exes):
        problems.append(f"Windows executables differ only in case (one file system name): {win_exes}")
    lowered = {n.lower() for n in win_exes}
    for where, text, pattern in (("screenlab.iss", iss, r"\{app\}\\([\w.-]+\.exe)"),
                                 ("build_windows.ps1", ps1, r'Join-Path \$AppDir "([\w.-]+\.exe)"')):
        for exe in sorted(set(re.findall(pattern, text))):
            if exe.lower() not in lowered:
                problems.append(f"{where} uses {exe}, the spec's win32 branch makes {win_exes}")
    collect = [spec.constant(spec.keywords(c).get("name")) for c in spec.calls("COLLECT")]
    options = spec.assigns.get("exe_options")
    contents = spec.constant(next((k.value for k in getattr(options, "keywords", []) if k.arg == "contents_directory"), None))
    facts.append(f"COLLECT {collect}, contents_directory {contents!r}")
    folder = (re.search(r'^\$AppDir\s*=\s*Join-Path \$Dist "([^"]+)"', ps1, re.M) or [None, None])[1]
    if [folder] != collect:
        problems.append(f"build_windows.ps1 packs dist\\{folder}, the spec's COLLECT makes {collect}")
    iss_internal = set(re.findall(r"\{app\}\\(_\w+)", iss))
    if iss_internal and iss_internal != {contents}:
        problems.append(f"screenlab.iss deletes {sorted(iss_internal)} in {{app}}, the bundle's contents_directory is {contents!r}")
    # the .iss defaults (relative to packaging/windows) point where the build puts things
    defaults = dict(re.findall(r'^\s*#define\s+(\w+)\s+"([^"]*)"', iss, re.M))
    expected = {"SourceDir": f"dist/{collect[0] if collect else '?'}", "OutputDir": "dist", "IconFile": "build/icons/screenlab.ico"}
    for name, want in expected.items():
        got = defaults.get(name)
        resolved = os.path.normpath(os.path.join("packaging/windows", got.replace("\\", "/"))) if got else None
        if resolved != want:
            problems.append(f"screenlab.iss default {name}={got!r} resolves to {resolved}, expected {want}")
    used = set(re.findall(r"\{#(\w+)\}", iss))
    passed = set(re.findall(r'"/D(\w+)=', ps1))
    if used - _iss_defines(iss) - passed:
        problems.append(f"screenlab.iss uses {sorted(used - _iss_defines(iss) - passed)} that nothing defines")
    if passed - used:
        problems.append(f"build_windows.ps1 passes {sorted(passed - used)} that screenlab.iss never uses")
    base = (re.search(r"^OutputBaseFilename=(.+)$", iss, re.M) or [None, ""])[1].strip().replace("{#AppVersion}", "{V}")
    setup = (re.search(r'Join-Path \$Dist "(ScreenLab-[^"]+\.exe)"', ps1) or [None, ""])[1].replace("$Version", "{V}")
    facts.append(f"installer {base}.exe")
    if f"{base}.exe" != setup:
        problems.append(f"screenlab.iss writes {base}.exe, build_windows.ps1 expects {setup}")
    # icons: the spec reads build/icons/screenlab.ico|icns, the scripts write them there
    icon_dir = spec.path_parts(ast.Name("ICON_DIR"))
    if icon_dir != ["build", "icons"]:
        problems.append(f"the spec's ICON_DIR is {icon_dir}, the scripts write build/icons")
    if not re.search(r'^\$Build\s*=\s*Join-Path \$Root "build"', ps1, re.M) or '$Ico = Join-Path $Build "icons\\screenlab.ico"' not in ps1:
        problems.append("build_windows.ps1 does not write build\\icons\\screenlab.ico (the spec's win32 icon)")
    if 'BUILD="$ROOT/build"' not in macos or '-o "$BUILD/icons/screenlab.icns"' not in macos:
        problems.append("build_macos.sh does not write build/icons/screenlab.icns (the spec's BUNDLE icon)")
    # macOS: the .app name and the executable inside it; Linux: the executable
    bundle = [spec.constant(spec.keywords(c).get("name")) for c in spec.calls("BUNDLE")]
    mac_exes = spec.exe_names("MACOS")
    facts.append(f"darwin: BUNDLE {bundle}, EXE {mac_exes}")
    if not re.search(r'^APP="\$DIST/' + re.escape(bundle[0] if bundle else "?") + '"', macos, re.M):
        problems.append(f"build_macos.sh's APP is not dist/{bundle}")
    for exe in re.findall(r'"\$APP/Contents/MacOS/([\w.-]+)"', macos):
        if exe not in mac_exes:
            problems.append(f"build_macos.sh runs Contents/MacOS/{exe}, the spec's darwin EXE is {mac_exes}")
    linux_exes = spec.exe_names("else")
    facts.append(f"linux: EXE {linux_exes}")
    if not all(f'"$APPDIR/{n}"' in linux for n in linux_exes) or not linux_exes:
        problems.append(f"build_linux.sh does not use the spec's Linux executable {linux_exes}")
    return _check("static: names the .iss/.ps1/.sh expect vs what the spec produces", problems, "consistent", facts)


def check_environment(root: Path) -> Check:
    """SCREENLAB_* variables the Windows and macOS scripts set are read by the app or the spec."""
    readers = [root / SPEC, *(root / "packaging").glob("*.py"), *(root / "desktop_app").rglob("*.py")]
    read_text = "\n".join(p.read_text(encoding="utf-8") for p in readers)
    problems, names = [], set()
    for rel in (SCRIPTS["windows"], SCRIPTS["macos"]):
        for name in set(re.findall(r"\b(SCREENLAB_\w+)\s*=", _read(root, rel))):
            names.add(name)
            if name not in read_text:
                problems.append(f"{rel} sets {name}, which neither desktop_app nor the spec reads")
    if "CODESIGN_IDENTITY" in _read(root, SCRIPTS["macos"]) and 'os.environ.get("CODESIGN_IDENTITY")' not in _read(root, SPEC):
        problems.append("build_macos.sh passes CODESIGN_IDENTITY, the spec does not read it")
    return _check("static: environment the scripts set", problems, f"{', '.join(sorted(names))} are read")


def static_checks(root: Path = ROOT) -> list[Check]:
    checks = []
    for fn in (check_pyinstaller_version, check_app_version, check_paths, check_entitlements, check_outputs,
               check_environment):
        try:
            checks.append(fn(root))
        except (OSError, SyntaxError, KeyError, IndexError) as exc:
            checks.append(Check("FAIL", f"static: {fn.__name__}", f"{type(exc).__name__}: {exc}"))
    return checks


# ============================================================================ 3. shell scripts
def shell_scripts(root: Path) -> list[Path]:
    found = sorted((root / "packaging").rglob("*.sh"))
    for path in sorted((root / ".ci").glob("*")):
        if path.is_file() and (path.suffix == ".sh" or path.read_bytes()[:64].split(b"\n")[0].endswith((b"sh", b"bash"))):
            found.append(path)
    return list(dict.fromkeys(found))


def shell_checks(root: Path = ROOT, shellcheck: bool = True) -> list[Check]:
    checks = []
    for path in shell_scripts(root):
        rel = str(path.relative_to(root))
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        shells = ["bash"] + (["dash"] if re.search(r"\bsh$", first) and shutil.which("dash") else [])
        errors = []
        for sh in shells:
            run = subprocess.run([sh, "-n", str(path)], capture_output=True, text=True)
            if run.returncode:
                errors.append(f"{sh} -n: {run.stderr.strip()}")
        checks.append(_check(f"shell: {' -n, '.join(shells)} -n {rel}", errors, "parses"))
    if not shellcheck:
        return checks
    if not shutil.which("shellcheck"):
        return [*checks, Check("skip", "shell: shellcheck", "not installed (Debian: apt-get install shellcheck)")]
    for path in shell_scripts(root):
        rel = str(path.relative_to(root))
        run = subprocess.run(["shellcheck", "-f", "json1", str(path)], capture_output=True, text=True)
        try:
            comments = json.loads(run.stdout or "{}").get("comments", [])
        except json.JSONDecodeError:
            checks.append(Check("FAIL", f"shell: shellcheck {rel}", run.stderr.strip() or "unreadable output"))
            continue
        serious = [c for c in comments if c["level"] in ("error", "warning")]
        listed = [f"{rel}:{c['line']}: {c['level']} SC{c['code']}: {c['message']}" for c in comments]
        status = "FAIL" if serious else "ok"
        detail = f"{len(serious)} warnings/errors" if serious else (f"{len(comments)} notes (style/info)" if comments else "clean")
        checks.append(Check(status, f"shell: shellcheck {rel}", detail, listed))
    return checks


# ============================================================================ 4. the spec vs PyInstaller
def find_pyinstaller(hint: str | os.PathLike | None = None) -> Path | None:
    """The PyInstaller package folder of a build venv (build/venv, or --pyinstaller / SCREENLAB_PYINSTALLER:
    a venv, a site-packages folder or the PyInstaller folder itself), else of this interpreter.
    SCREENLAB_BUILD_UNDERWAY set: build/venv is left alone, as a build running beside (.ci/run runs the release
    build beside the suite) may be installing into it."""
    candidates: list[Path] = []
    build_venv = None if os.environ.get("SCREENLAB_BUILD_UNDERWAY") else ROOT / "build" / "venv"
    for base in (hint, os.environ.get("SCREENLAB_PYINSTALLER"), build_venv):
        if base:
            base = Path(base)
            candidates += [base, base / "PyInstaller", *sorted(base.glob("lib/python3*/site-packages/PyInstaller")),
                           base / "Lib" / "site-packages" / "PyInstaller"]
    try:
        import importlib.util

        found = importlib.util.find_spec("PyInstaller")
        if found and found.origin:
            candidates.append(Path(found.origin).parent)
    except (ImportError, ValueError):
        pass
    return next((c for c in candidates if (c / "building" / "api.py").is_file()), None)


def pyinstaller_version(package: Path) -> str | None:
    for info in package.parent.glob("pyinstaller-*.dist-info"):
        return info.name.removeprefix("pyinstaller-").removesuffix(".dist-info")
    return None


def _accepted_keywords(source: str, cls: str | None, func: str = "__init__") -> set[str] | None:
    """Parameters of cls.func (or of module function func), plus the keys read from its **kwargs."""
    tree = ast.parse(source)
    scope = tree
    if cls:
        scope = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if scope is None:
            return None
    fn = next((n for n in scope.body if isinstance(n, ast.FunctionDef) and n.name == func), None)
    if fn is None:
        return None
    names = {a.arg for a in fn.args.args + fn.args.kwonlyargs} - {"self"}
    if fn.args.kwarg:
        kw = fn.args.kwarg.arg
        for node in ast.walk(fn):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop")
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == kw and node.args
                    and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
            elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == kw
                  and isinstance(node.slice, ast.Constant)):
                names.add(node.slice.value)
    return names


def check_branches(spec: SpecModel) -> Check:
    lines = []
    for flag, label in (("WINDOWS", "win32"), ("MACOS", "darwin"), ("else", "linux")):
        parts = []
        for call in spec.calls("EXE", spec.branch(flag)):
            kws = spec.keywords(call)
            shown = {k: ast.unparse(v) for k, v in kws.items() if k in ("name", "console", "icon", "target_arch",
                                                                         "codesign_identity", "entitlements_file")}
            parts.append("EXE(" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")")
        for call in spec.calls("BUNDLE", spec.branch(flag)):
            parts.append(f"BUNDLE(name={ast.unparse(spec.keywords(call)['name'])}, info_plist={len(spec.info_plist())} keys)")
        lines.append(f"{label}: " + " + ".join(parts))
    src = spec.source.splitlines()
    platform_lines = sorted({n.lineno for n in ast.walk(spec.tree) if isinstance(n, (ast.Name, ast.Attribute))
                             and (getattr(n, "id", None) in ("WINDOWS", "MACOS") or ast.unparse(n) == "sys.platform")})
    for no in platform_lines:
        text = src[no - 1].strip()
        if not text.startswith(("if WINDOWS", "elif MACOS", "if MACOS")):
            lines.append(f"line {no}: {text[:110]}")
    return Check("ok", "spec: platform branches", "what differs on win32 / darwin / linux", lines)


def check_spec_names(spec: SpecModel, pyi: Path | None) -> Check:
    name = "spec: globals PyInstaller provides (Analysis, PYZ, EXE, COLLECT, BUNDLE, SPECPATH)"
    if pyi is None:
        return Check("skip", name, "no PyInstaller source found (build/venv, --pyinstaller or SCREENLAB_PYINSTALLER)")
    source = (pyi / "building" / "build_main.py").read_text(encoding="utf-8")
    m = re.search(r"spec_namespace\s*=\s*\{(.*?)\n    \}", source, re.S)
    provided = set(re.findall(r"'(\w+)':", m.group(1))) if m else set()
    defined = {n.targets[0].id for n in ast.walk(spec.tree) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
    defined |= {n.name for n in ast.walk(spec.tree) if isinstance(n, ast.FunctionDef)}
    defined |= {a.asname or a.name.split(".")[0] for n in ast.walk(spec.tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    defined |= {a.arg for n in ast.walk(spec.tree) if isinstance(n, (ast.FunctionDef, ast.Lambda)) for a in n.args.args}
    defined |= {n.id for n in ast.walk(spec.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    import builtins

    used = {n.id for n in ast.walk(spec.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    free = used - defined - set(dir(builtins))
    missing = sorted(free - provided)
    return _check(name, [f"the spec uses {missing}, which PyInstaller's spec namespace does not define"] if missing else [],
                  f"{', '.join(sorted(free))} are in the spec namespace of PyInstaller {pyinstaller_version(pyi)}")


def check_spec_keywords(spec: SpecModel, pyi: Path | None, pin: str) -> Check:
    name = "spec: keyword arguments exist in PyInstaller"
    if pyi is None:
        return Check("skip", name, "no PyInstaller source found (build/venv, --pyinstaller or SCREENLAB_PYINSTALLER)")
    found = pyinstaller_version(pyi)
    if found != pin:
        return Check("skip", name, f"PyInstaller {found} at {pyi}, the scripts pin {pin}")
    api = (pyi / "building" / "api.py").read_text(encoding="utf-8")
    targets = {"Analysis": ((pyi / "building" / "build_main.py").read_text(encoding="utf-8"), "Analysis", "__init__"),
               "PYZ": (api, "PYZ", "__init__"), "EXE": (api, "EXE", "__init__"), "COLLECT": (api, "COLLECT", "__init__"),
               "BUNDLE": ((pyi / "building" / "osx.py").read_text(encoding="utf-8"), "BUNDLE", "__init__")}
    hooks = (pyi / "utils" / "hooks" / "__init__.py").read_text(encoding="utf-8")
    targets |= {"collect_data_files": (hooks, None, "collect_data_files"),
                "collect_submodules": (hooks, None, "collect_submodules")}
    problems, used_lines = [], []
    for func, (source, cls, method) in targets.items():
        accepted = _accepted_keywords(source, cls, method)
        calls = spec.calls(func)
        if accepted is None:
            problems.append(f"{func} not found in PyInstaller {found}")
            continue
        kws = sorted({k for c in calls for k in spec.keywords(c)})
        unknown = [k for k in kws if k not in accepted]
        if unknown:
            problems.append(f"{func}: {', '.join(unknown)} not accepted by PyInstaller {found} (silently ignored)")
        used_lines.append(f"{func} ({len(calls)} calls): {', '.join(kws)}")
    bindepend = (pyi / "depend" / "bindepend.py").read_text(encoding="utf-8")
    if "bindepend.get_imports" in spec.source and not re.search(r"^def get_imports\(filename\b", bindepend, re.M):
        problems.append(f"PyInstaller.depend.bindepend.get_imports(filename) is not in PyInstaller {found}")
    return _check(name, problems, f"PyInstaller {found} ({pyi.parent})", used_lines)


def check_qt_filters(spec: SpecModel, pyi: Path | None) -> Check:
    """The spec's `_unwanted` / `_unused_plugin` filters (Qt translations, QML, unused plugins) applied to
    the destination paths PyInstaller gives Qt's files on each OS."""
    rel = dict(QT_REL_DIR_DEFAULT)
    origin = "layout of PyInstaller 6.22.3 (no PyInstaller source here)"
    if pyi is not None:
        qt = (pyi / "utils" / "hooks" / "qt" / "__init__.py").read_text(encoding="utf-8")
        m = re.search(r"PySide6.*?if compat\.is_win:\s*self\.qt_rel_dir = '([^']+)'\s*else:\s*self\.qt_rel_dir = "
                      r"os\.path\.join\('PySide6', 'Qt'\)", qt, re.S)
        if m:
            rel = {"win32": m.group(1), "darwin": "PySide6/Qt", "linux": "PySide6/Qt"}
            origin = f"qt_rel_dir of {pyi.parent.name}/PyInstaller/utils/hooks/qt"
    ns = spec.functions(("_in_qt", "_unwanted", "_unused_plugin"), {"COMPRESS_NODE": True})
    samples = {"translations": "{q}/translations/qtbase_de.qm", "QML": "{q}/qml/QtQuick/qmldir",
               "generic plugins": "{q}/plugins/generic/{lib}qtuiotouchplugin.{ext}"}
    ext = {"win32": ("", "dll"), "darwin": ("lib", "dylib"), "linux": ("lib", "so")}
    problems, lines = [], []
    for platform, q in rel.items():
        kept = []
        for what, template in samples.items():
            dest = template.format(q=q, lib=ext[platform][0], ext=ext[platform][1])
            if platform == "win32":
                dest = dest.replace("/", "\\")
            if not (ns["_unwanted"](dest) or ns["_unused_plugin"](dest)):
                kept.append(f"{what} ({dest})")
        lines.append(f"{platform}: Qt under {q}/: " + (f"would keep {', '.join(kept)}" if kept else "left out as intended"))
        if kept:
            problems.append(f"on {platform} the spec's filters (written for PySide6/Qt/...) miss {', '.join(kept)}: "
                            f"PyInstaller puts Qt under {q}/ there")
    return _check("spec: Qt translations/QML/plugin filters on each OS", problems, f"match ({origin})", lines)


def spec_checks(root: Path = ROOT, pyinstaller: str | os.PathLike | None = None) -> list[Check]:
    spec = SpecModel(root)
    pyi = find_pyinstaller(pyinstaller)
    pins = set(pyinstaller_pins(root).values())
    pin = pins.pop() if len(pins) == 1 else "?"
    return [check_branches(spec), check_spec_names(spec, pyi), check_spec_keywords(spec, pyi, pin),
            check_qt_filters(spec, pyi)]


# ============================================================================ 1. wheels (network)
NETWORK_ERRORS = ("NewConnectionError", "Temporary failure in name resolution", "Failed to establish a new connection",
                  "ProxyError", "Could not fetch URL", "ConnectTimeout", "Network is unreachable", "ReadTimeoutError")


def _index_url() -> str:
    return (os.environ.get("PIP_INDEX_URL") or "https://pypi.org/simple/").rstrip("/") + "/"


def _index_files(name: str) -> list[dict]:
    _req, _spec, _tags, utils, _ver = _packaging()
    url = _index_url() + utils.canonicalize_name(name) + "/"
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["files"]


def _pip_env() -> dict[str, str]:
    """This machine's pip configuration adds local wheel folders and extra indexes; a Windows or macOS
    builder has only the index. Keep PIP_INDEX_URL, certificates and proxies."""
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    for key in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX", "PIP_CONSTRAINT", "PIP_REQUIRE_VIRTUALENV"):
        env.pop(key, None)
    return env


def _run_pip(requirements: list[str], platform: str, work: Path) -> tuple[dict | None, str]:
    report = work / f"report-{platform}.json"
    report.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--only-binary=:all:",
           "--platform", platform, "--python-version", "3.11", "--implementation", "cp",
           "--target", str(work / "target"), "--report", str(report), "--quiet", "--retries", "2",
           "--timeout", "60", *requirements]
    run = subprocess.run(cmd, capture_output=True, text=True, env=_pip_env())
    if run.returncode == 0 and report.is_file():
        return json.loads(report.read_text()), run.stderr
    return None, run.stderr + run.stdout


def _wheel_tags(filename: str):
    _req, _spec, _tags, utils, _ver = _packaging()
    try:
        return utils.parse_wheel_filename(filename)[3]
    except Exception:  # not a wheel, or a name packaging rejects
        return frozenset()


def _supported(platforms: list[str]) -> set:
    _req, _spec, tags, _utils, _ver = _packaging()
    return (set(tags.cpython_tags((3, 11), abis=["cp311"], platforms=platforms))
            | set(tags.compatible_tags((3, 11), "cp311", platforms)))


def _mac_platforms(version: tuple[int, int], arch: str) -> list[str]:
    _req, _spec, tags, _utils, _ver = _packaging()
    return list(tags.mac_platforms(version, arch))


def _lowest_macos(files: list[dict], arch: str) -> tuple[tuple[int, int], str] | None:
    for version in MACOS_LADDER:
        supported = _supported(_mac_platforms(version, arch))
        for f in files:
            if _wheel_tags(f["filename"]) & supported:
                return version, f["filename"]
    return None


def _matching_files(requirement: str) -> tuple[str, list[dict]]:
    requirements, _spec, _tags, _utils, version = _packaging()
    req = requirements.Requirement(requirement)
    files = []
    for f in _index_files(req.name):
        if not f["filename"].endswith(".whl") or f.get("yanked"):
            continue
        parts = f["filename"].split("-")
        try:
            if version.Version(parts[1]) in req.specifier:
                files.append(f)
        except version.InvalidVersion:
            continue
    return req.name, files


def _failed_requirement(stderr: str) -> str | None:
    m = re.search(r"No matching distribution found for (.+)", stderr)
    return m.group(1).strip() if m else None


def _fmt(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def wheel_check(label: str, requirements: list[str], work: Path, arch: str | None = None,
                floor: tuple[int, int] | None = None, windows_platform: str = "win_amd64") -> Check:
    """Resolve the closure for one platform; on a missing wheel find why (macOS version, or none at all)."""
    name = f"wheels: {label}"
    reqs = list(requirements)
    requirement, _spec, _tags, utils, _ver = _packaging()
    top_level = {utils.canonicalize_name(requirement.Requirement(r).name): r for r in requirements}
    stated = floor
    raised, missing, report = [], [], None
    for _attempt in range(12):
        platform = windows_platform if arch is None else _mac_platforms(floor, arch)[0]
        report, err = _run_pip(reqs, platform, work)
        if report is not None:
            break
        if any(sig in err for sig in NETWORK_ERRORS):
            return Check("skip", name, "the package index is not reachable: " + err.strip().splitlines()[-1][:150])
        failed = _failed_requirement(err)
        if failed is None:
            return Check("FAIL", name, "pip failed: " + " | ".join(err.strip().splitlines()[-3:])[:400])
        pkg, files = _matching_files(failed)
        lowest = _lowest_macos(files, arch) if arch else None
        if lowest and lowest[0] > floor:
            raised.append(f"{failed}: lowest wheel {lowest[1]} -> macOS >= {_fmt(lowest[0])}")
            floor = lowest[0]
            continue
        tags = sorted({str(t).split("-")[-1] for f in files for t in _wheel_tags(f["filename"])})
        missing.append(f"{failed}: no wheel for {platform} (its wheels: {', '.join(tags) or 'none, sdist only'})")
        key = utils.canonicalize_name(pkg)
        if key in top_level and top_level[key] in reqs:
            reqs.remove(top_level[key])  # go on without it, to find what else is missing
            continue
        break  # a dependency of a dependency: cannot resolve further
    lines = [*raised, *missing]
    packages = []
    if report is not None:
        binary = []
        for item in report["install"]:
            meta, filename = item["metadata"], item["download_info"]["url"].rsplit("/", 1)[-1]
            packages.append(meta["name"])
            if not filename.endswith("-none-any.whl"):
                binary.append(f"{meta['name']} {meta['version']} ({'-'.join(filename[:-4].split('-')[-3:])})")
        lines.append(f"{len(packages)} packages, {len(binary)} platform wheels: " + ", ".join(binary))
        pure = sorted(set(packages) - {b.split()[0] for b in binary}, key=str.lower)
        lines.append("pure-Python: " + ", ".join(pure))
        node = _node_in_playwright(report, arch is None)
        if node:
            lines.append(node)
    where = f"macOS {_fmt(floor)} {arch}" if arch else windows_platform
    if raised or missing:
        what = []
        if raised:
            what.append(f"needs macOS >= {_fmt(floor)}, the spec declares LSMinimumSystemVersion {_fmt(stated)}")
        if missing:
            what.append(f"{len(missing)} requirement(s) without any wheel for {arch or windows_platform}")
        resolved = f"; the rest resolves at {where}" if report is not None else ""
        return Check("FAIL", name, "; ".join(what) + resolved, lines)
    return Check("ok", name, f"all {len(packages)} packages have wheels for {where}", lines)


class _HttpFile(io.RawIOBase):
    """A remote file read with HTTP range requests: enough for zipfile to list a wheel's members."""

    def __init__(self, url: str):
        self.url, self.pos = url, 0
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=30) as response:
            self.size = int(response.headers["Content-Length"])

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = {0: offset, 1: self.pos + offset, 2: self.size + offset}[whence]
        return self.pos

    def readinto(self, buffer) -> int:
        end = min(self.size, self.pos + len(buffer))
        if end <= self.pos:
            return 0
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={self.pos}-{end - 1}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            data = response.read()
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)


def _node_in_playwright(report: dict, windows: bool) -> str | None:
    """The spec bundles playwright/driver/node.exe (Windows) or .../node (macOS): is it in the wheel?"""
    item = next((i for i in report["install"] if i["metadata"]["name"].lower() == "playwright"), None)
    if item is None:
        return None
    url = item["download_info"]["url"]
    want = "playwright/driver/node.exe" if windows else "playwright/driver/node"
    try:
        names = zipfile.ZipFile(io.BufferedReader(_HttpFile(url), 1 << 16)).namelist()
    except (OSError, urllib.error.URLError, zipfile.BadZipFile, KeyError, TypeError) as exc:
        return f"could not list {url.rsplit('/', 1)[-1]} ({exc}): the spec's {want} not checked"
    return f"{want} is in {url.rsplit('/', 1)[-1]}" if want in names else f"MISSING: {want} not in {url.rsplit('/', 1)[-1]}"


def wheel_checks(root: Path = ROOT, macos_version: str | None = None) -> list[Check]:
    pins = set(pyinstaller_pins(root).values())
    requirements = [*_pyproject(root)["project"]["dependencies"], f"pyinstaller=={sorted(pins)[0]}"]
    stated = macos_version or str(SpecModel(root).info_plist().get("LSMinimumSystemVersion") or "11.0")
    floor = tuple(int(x) for x in (stated.split(".") + ["0"])[:2])
    labels = ["Windows x64 (win_amd64)", f"macOS arm64 (from {stated})", f"macOS x86_64 (from {stated})"]
    pip_version = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True).stdout.split()
    if len(pip_version) < 2 or int(pip_version[1].split(".")[0]) < 23:
        return [Check("skip", f"wheels: {label}", f"needs pip >= 23 in {sys.executable} (found {pip_version[1:2]})")
                for label in labels]
    try:
        request = urllib.request.Request(_index_url() + "pip/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        urllib.request.urlopen(request, timeout=15).close()
    except (OSError, urllib.error.URLError) as exc:
        return [Check("skip", f"wheels: {label}", f"offline: {_index_url()} not reachable ({exc})") for label in labels]
    with tempfile.TemporaryDirectory(prefix="screenlab-wheels-") as tmp:
        work = Path(tmp)
        return [wheel_check(labels[0], requirements, work),
                wheel_check(labels[1], requirements, work, arch="arm64", floor=floor),
                wheel_check(labels[2], requirements, work, arch="x86_64", floor=floor)]


# ============================================================================ main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--offline", action="store_true", help="skip the wheel resolution (part 1)")
    parser.add_argument("--pyinstaller", help="a build venv (or its PyInstaller folder) to check the spec against")
    parser.add_argument("--macos-version", help="macOS version to resolve wheels for (default: the spec's "
                                                "LSMinimumSystemVersion)")
    parser.add_argument("--no-shellcheck", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the detail lines of passing checks too")
    args = parser.parse_args(argv)

    results: list[Check] = []

    def show(checks: list[Check]) -> None:
        for check in checks:
            results.append(check)
            print(check if args.verbose or check.status != "ok" or check.name.startswith(("wheels", "spec: platform"))
                  else Check(check.status, check.name, check.detail), flush=True)

    show(static_checks(ROOT))
    show(shell_checks(ROOT, shellcheck=not args.no_shellcheck))
    show(spec_checks(ROOT, args.pyinstaller))
    if args.offline:
        show([Check("skip", "wheels: Windows and macOS", "--offline")])
    else:
        show(wheel_checks(ROOT, args.macos_version))
    counts = {s: sum(c.status == s for c in results) for s in ("ok", "FAIL", "skip")}
    print(f"summary: {counts['ok']} ok, {counts['FAIL']} FAIL, {counts['skip']} skip")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
