"""What a bot's command needs to run (its runtime), found without running it.

The sandbox shows a bot a small, known set of files (``arena.procs.sandbox``): its own folder,
the arena's packages, a few files of ``/etc`` and the runtime of its program, which this module
finds. ``program_runtime`` follows the command's program from ``PATH`` and through the
interpreter lines of scripts (``#!/usr/bin/env node``) to a binary, then:

- **a binary** (ELF, of this machine's kind): its dynamic loader and every shared library it
  needs, as the loader would find them (``DT_RPATH``, ``LD_LIBRARY_PATH``, ``DT_RUNPATH`` with
  ``$ORIGIN``, the folders of ``/etc/ld.so.conf``, the system's), and theirs in turn;
- **a Python interpreter**: also its standard library (without its tests, IDLE, Tk, ``ensurepip``,
  the build files and the installed packages), the shared libraries of its extension modules,
  and, for the arena's own interpreter, the packages the SDK needs (``SDK_PACKAGES``); a
  virtual environment's interpreter brings its ``pyvenv.cfg`` and its installed packages;
- **anything else** (a Java, .NET or other runtime that loads more at run time): only the
  binary and its libraries. Its author names the rest with ``$ARENA_SANDBOX_SHOW``
  (``arena.procs.sandbox``).

``elf_libraries`` gives the libraries of one binary or library (the sandbox asks it for the
ones it finds in a bot's own folder: a compiled bot, a Node add-on). A runtime is a list of
``Entry`` values: a path (as the program names it: links on the way are kept) and whether a
folder is shown whole; the answer for a program is kept until its file changes.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import os
import platform
import re
import struct
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: Packages of the arena's interpreter a bot needs: the SDK's dependencies.
SDK_PACKAGES = ("zmq", "msgpack", "ormsgpack")
#: Parts of a Python standard library no bot needs (large, or needing what the sandbox lacks).
STDLIB_LEFT_OUT = frozenset(
    {
        "test",
        "idlelib",
        "tkinter",
        "turtledemo",
        "ensurepip",
        "lib2to3",
        "site-packages",
        "dist-packages",
        "_tkinter",
        "tests",
        "*.opt-1.pyc",
        "*.opt-2.pyc",
    }
)
#: Folders the dynamic loader searches last (``DT_RUNPATH`` and ``ld.so.conf`` come first).
SYSTEM_LIBRARY_FOLDERS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")
#: Interpreter lines and loader links are followed this deep.
MAX_DEPTH = 8
_ELF_MAGIC = b"\x7fELF"
_ELF_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183}
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 1, 5, 15, 29


@dataclass(frozen=True)
class Entry:
    """A path a bot may read: a file, a link, or a folder (``whole``: with all it holds but
    what ``left_out`` names, at any depth: a name, a file's name up to its first dot, or
    ``*SUFFIX``), shown at its own path or at ``at``."""

    path: str
    whole: bool = False
    left_out: frozenset[str] = frozenset()
    at: str = ""  # where the bot sees it (its own path if empty)


@dataclass(frozen=True)
class _Elf:
    """What the loader reads of a binary: its interpreter, needed libraries and search paths."""

    interpreter: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]


def find_program(name: str, cwd: str, path_variable: str) -> str | None:
    """Where ``execvp`` finds program ``name`` (a path, or a name looked up on
    ``path_variable``), or None."""
    if "/" in name:
        found = os.path.join(cwd, name)
        return os.path.abspath(found) if os.path.isfile(found) else None
    for folder in path_variable.split(os.pathsep):
        candidate = os.path.join(folder or cwd, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


def program_runtime(program: str, environment: Mapping[str, str]) -> tuple[Entry, ...]:
    """The runtime of ``program`` (an absolute path): it, what runs it (interpreter lines),
    and what those binaries load (see the module's docstring). ``environment`` is the bot's
    (``PATH`` for ``env``, ``LD_LIBRARY_PATH``)."""
    try:
        stamp = os.stat(program).st_mtime_ns
    except OSError:
        return (Entry(program),)
    key = (environment.get("PATH", ""), environment.get("LD_LIBRARY_PATH", ""))
    return _program_runtime(program, stamp, key)


@functools.cache
def _program_runtime(program: str, stamp: int, key: tuple[str, str]) -> tuple[Entry, ...]:
    path_variable, library_path = key
    entries: list[Entry] = []
    binaries: list[str] = []
    current = program
    for _ in range(MAX_DEPTH):
        entries.append(Entry(current))
        interpreter = _interpreter_line(current, path_variable)
        if interpreter is None:
            binaries.append(current)
            break
        current = interpreter
    for binary in binaries:
        entries += python_runtime(binary)
    for folder in [e for e in entries if e.whole]:
        binaries += _binaries_in(folder)
    libraries = libraries_of(binaries, library_path)
    return tuple(dict.fromkeys([*entries, *(Entry(path) for path in libraries)]))


def _interpreter_line(path: str, path_variable: str) -> str | None:
    """The program a script's ``#!`` line runs (``env NAME`` looked up on the bot's PATH),
    or None for anything else."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        names = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        found = find_program(names[0], "/", path_variable) if names else None
        return found or words[0]
    return words[0]


def python_runtime(binary: str) -> list[Entry]:
    """What a Python interpreter at ``binary`` needs beyond its libraries: its standard
    library, its virtual environment's configuration and packages, and for the arena's own
    interpreter the SDK's packages. Nothing for a binary that is no Python."""
    real = os.path.realpath(binary)
    if not re.fullmatch(r"python(\d+(\.\d+)?)?[a-z]*", os.path.basename(binary)):
        return []
    entries: list[Entry] = []
    prefix = os.path.dirname(os.path.dirname(real))
    stdlibs = sorted(
        os.path.dirname(landmark)
        for landmark in glob.glob(os.path.join(prefix, "lib", "python3*", "os.py"))
    )
    for stdlib in stdlibs:
        config = frozenset(name for name in os.listdir(stdlib) if name.startswith("config-"))
        entries.append(Entry(stdlib, whole=True, left_out=STDLIB_LEFT_OUT | config))
    venv = os.path.dirname(os.path.dirname(os.path.abspath(binary)))
    if os.path.isfile(os.path.join(venv, "pyvenv.cfg")):
        entries.append(Entry(os.path.join(venv, "pyvenv.cfg")))
        if os.path.realpath(venv) != os.path.realpath(sys.prefix):
            for packages in glob.glob(os.path.join(venv, "lib", "python3*", "site-packages")):
                entries.append(Entry(packages, whole=True))
    if real == os.path.realpath(sys.executable):
        entries += [Entry(folder, whole=True) for folder in sdk_folders()]
    return entries


@functools.cache
def sdk_folders() -> tuple[str, ...]:
    """The folders of the SDK's packages in the arena's interpreter (found without importing
    them)."""
    found = []
    for name in SDK_PACKAGES:
        spec = importlib.util.find_spec(name)
        found += (
            [os.path.abspath(p) for p in (spec.submodule_search_locations or [])] if spec else []
        )
    return tuple(found)


def left_out(entry: Entry, name: str) -> bool:
    """Whether ``name``, in a folder ``entry`` shows whole, is left out."""
    if not entry.left_out:
        return False
    if name in entry.left_out or name.split(".", 1)[0] in entry.left_out:
        return True
    return name.endswith(_suffixes(entry.left_out))


@functools.lru_cache(maxsize=64)
def _suffixes(left: frozenset[str]) -> tuple[str, ...]:
    return tuple(p[1:] for p in left if p.startswith("*"))


def _binaries_in(entry: Entry) -> list[str]:
    """The shared libraries and programs in a folder shown whole (by name: ``.so`` files,
    Node add-ons, files without a suffix that may be run)."""
    found = []
    for root, folders, files in os.walk(entry.path):
        folders[:] = [f for f in folders if not left_out(entry, f)]
        found += [
            os.path.join(root, name)
            for name in files
            if not left_out(entry, name) and may_be_binary(root, name)
        ]
    return found


def may_be_binary(root: str, name: str) -> bool:
    """Whether file ``name`` in ``root`` may be a binary the loader reads (by its name)."""
    if ".so" in name or name.endswith(".node"):
        return True
    return "." not in name and os.access(os.path.join(root, name), os.X_OK)


def libraries_of(binaries: Iterable[str], library_path: str = "") -> list[str]:
    """Every file the dynamic loader opens to run ``binaries``: their interpreters and the
    libraries they need, and theirs, in the order found (paths as found: links kept)."""
    found: dict[str, None] = {}
    todo = [(path, ()) for path in binaries]
    seen: set[str] = set()
    while todo:
        path, inherited = todo.pop()
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        elf = _read_elf(real)
        if elf is None:
            continue
        origin = os.path.dirname(real)
        rpath = tuple(_expand(p, origin) for p in elf.rpath) + inherited
        runpath = tuple(_expand(p, origin) for p in elf.runpath)
        if elf.interpreter:
            found[elf.interpreter] = None
        for name in elf.needed:
            library = _find_library(name, () if runpath else rpath, library_path, runpath)
            if library is not None:
                found[library] = None
                todo.append((library, rpath))
    return list(found)


@functools.lru_cache(maxsize=8192)
def elf_libraries(path: str) -> tuple[str, ...]:
    """The loader and libraries one binary or library needs (``libraries_of``), or none if
    it is not a binary of this machine's kind."""
    return tuple(libraries_of([path]))


def _expand(path: str, origin: str) -> str:
    for token in ("${ORIGIN}", "$ORIGIN"):
        path = path.replace(token, origin)
    return path.replace("${LIB}", "lib").replace("$LIB", "lib")


@functools.lru_cache(maxsize=8192)
def _find_library(
    name: str, rpath: tuple[str, ...], library_path: str, runpath: tuple[str, ...]
) -> str | None:
    if "/" in name:
        return name if os.path.exists(name) else None
    folders = [*rpath, *library_path.split(os.pathsep), *runpath, *_configured_folders()]
    for folder in [*folders, *SYSTEM_LIBRARY_FOLDERS]:
        candidate = os.path.normpath(os.path.join(folder, name))
        if folder and os.path.isfile(candidate) and _read_elf(os.path.realpath(candidate)):
            return candidate
    return None


@functools.cache
def _configured_folders() -> tuple[str, ...]:
    """The folders ``/etc/ld.so.conf`` lists (with its ``include`` files)."""
    found: list[str] = []

    def read(path: str, depth: int) -> None:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return
        for line in lines:
            words = line.split("#", 1)[0].split()
            if len(words) >= 2 and words[0] == "include" and depth < MAX_DEPTH:
                for pattern in words[1:]:
                    pattern = os.path.join(os.path.dirname(path), pattern)
                    for included in sorted(glob.glob(pattern)):
                        read(included, depth + 1)
            elif len(words) == 1:
                found.append(words[0])

    read("/etc/ld.so.conf", 0)
    return tuple(dict.fromkeys(found))


@functools.cache
def _machine() -> int | None:
    return _ELF_MACHINES.get(platform.machine().lower())


@functools.lru_cache(maxsize=4096)
def _read_elf(path: str) -> _Elf | None:
    """The loader's view of a 64-bit little-endian ELF file of this machine, else None."""
    try:
        with open(path, "rb") as handle:
            return _parse_elf(handle)
    except (OSError, struct.error, ValueError, UnicodeDecodeError):
        return None


def _parse_elf(handle) -> _Elf | None:
    header = handle.read(64)
    if len(header) < 64 or header[:4] != _ELF_MAGIC or header[4] != 2 or header[5] != 1:
        return None
    if struct.unpack_from("<H", header, 18)[0] != _machine():
        return None
    phoff = struct.unpack_from("<Q", header, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", header, 54)
    handle.seek(phoff)
    table = handle.read(phentsize * phnum)
    loads, dynamic, interpreter = [], None, None
    for i in range(phnum):
        kind, _, offset, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", table, i * phentsize)
        if kind == _PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif kind == _PT_DYNAMIC:
            dynamic = (offset, filesz)
        elif kind == _PT_INTERP:
            handle.seek(offset)
            interpreter = handle.read(filesz).split(b"\0", 1)[0].decode()
    if dynamic is None:
        return _Elf(interpreter, (), (), ())
    handle.seek(dynamic[0])
    data = handle.read(dynamic[1])
    tags: list[tuple[int, int]] = []
    for at in range(0, len(data) - 15, 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == 0:
            break
        tags.append((tag, value))
    strtab = next((value for tag, value in tags if tag == _DT_STRTAB), None)
    base = next(
        (off + strtab - va for va, off, size in loads if va <= (strtab or -1) < va + size), None
    )
    if base is None:
        return _Elf(interpreter, (), (), ())

    def string(at: int) -> str:
        handle.seek(base + at)
        return handle.read(4096).split(b"\0", 1)[0].decode()

    def paths(kind: int) -> tuple[str, ...]:
        return tuple(p for tag, v in tags if tag == kind for p in string(v).split(":") if p)

    needed = tuple(string(value) for tag, value in tags if tag == _DT_NEEDED)
    return _Elf(interpreter, needed, paths(_DT_RPATH), paths(_DT_RUNPATH))
