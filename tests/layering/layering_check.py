#!/usr/bin/env python3
"""The house's layering, checked from the build (docs/overview.md, "How it works").

Each library of the build (every library target whose source folder is
not tests/, bench/ or examples/) belongs to the layer of its folder, in the
order of the data flow (../shared/DESIGN.md):

  common < bundle, perfdata < collector/* < converters/elf
    < converters/hash < converters/profile < converters/decode, converters/spe
    < converters/{dwarf,lcov,diffcov,afdo,bolt,dump,stacks} < integrations/*

Two rules:

1. No library includes a header from a folder of a higher layer. Every
   `#include "..."` of the library's sources and of the headers in its
   folder is resolved as the compiler does (the including file's folder,
   then the target's include directories, usage requirements of what it
   links included); a header found in a higher layer's folder is an error.
   A folder of the source tree that is not in LAYERS is an error too: a new
   folder gets its place in the order here, once.

2. Libraries under bundle/, perfdata/, converters/ and common/ print
   nothing and start no programs: `nm -u` of their archives (or objects)
   names none of printf, vprintf, puts, putchar, perror, stdout, stderr,
   exit, _exit, _Exit, fork, vfork, posix_spawn*, exec*, system, popen
   (glibc's __*_chk forms included). fprintf, fputs and the like stay
   allowed: they write the files the caller opened (an lcov tracefile, a
   profile), and stdout/stderr themselves cannot be reached without the
   symbols above. abort is allowed (an assertion).

usage: layering_check.py MANIFEST SOURCE_DIR   (MANIFEST: written by CMake)
"""
import os
import re
import subprocess
import sys

# Folder (relative to the source tree) -> layer; the longest prefix wins.
LAYERS = {
    "common": 0,
    "kmod/include/uapi": 0,  # hwt.ko's user ABI, as common/'s record ABI
    "bundle": 1,
    "perfdata": 1,
    "collector": 2,
    "converters/elf": 3,
    "converters/hash": 4,
    "converters/profile": 5,
    "converters/decode": 6,
    "converters/spe": 6,
    "converters/dwarf": 7,
    "converters/lcov": 7,
    "converters/afdo": 7,
    "converters/bolt": 7,
    "converters/dump": 7,
    "converters/stacks": 7,
    "converters/diffcov": 7,
    "integrations": 8,
}
# converters/ itself holds headers every converter may use (grow.h).
LAYERS["converters"] = 3

QUIET = ("common", "bundle", "perfdata", "converters")

FORBIDDEN = re.compile(
    r"^(printf|vprintf|puts|putchar|perror|stdout|stderr|exit|_exit|_Exit|fork|vfork|"
    r"posix_spawn|posix_spawnp|execl|execlp|execle|execv|execve|execvp|execvpe|fexecve|"
    r"system|popen)$")

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of(rel):
    """The LAYERS folder a path of the source tree is in, or None."""
    best = None
    for folder in LAYERS:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def plain_symbol(name):
    """printf for __printf_chk, stdout for stdout@GLIBC_2.2.5."""
    name = name.split("@")[0]
    m = re.match(r"^__(\w+)_chk$", name)
    return m.group(1) if m else name


def read_manifest(path):
    libs = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            name, kind, src_dir, files, sources, includes = line.split("|")
            libs.append({
                "name": name, "kind": kind, "dir": src_dir,
                "files": [x for x in files.split(";") if x],
                "sources": [x for x in sources.split(";") if x],
                "includes": [x for x in includes.split(";") if x],
            })
    return libs


def main():
    manifest, source_dir = sys.argv[1], os.path.realpath(sys.argv[2])
    libs = read_manifest(manifest)
    errors = []
    checked_includes = checked_archives = 0

    def rel(path):
        path = os.path.realpath(path)
        if path == source_dir or path.startswith(source_dir + "/"):
            return os.path.relpath(path, source_dir)
        return None

    for lib in libs:
        lib_rel = rel(lib["dir"])
        lib_folder = folder_of(lib_rel)
        if lib_folder is None:
            errors.append(f"{lib['name']}: its folder {lib_rel}/ has no layer: give it one "
                          f"in LAYERS of {os.path.relpath(__file__, source_dir)}")
            continue
        layer = LAYERS[lib_folder]

        # Rule 1: includes.
        files = set()
        for s in lib["sources"]:
            s = s if os.path.isabs(s) else os.path.join(lib["dir"], s)
            if s.endswith((".c", ".h", ".cc", ".cpp")) and os.path.exists(s):
                files.add(os.path.realpath(s))
        for name in os.listdir(lib["dir"]):
            if name.endswith(".h"):
                files.add(os.path.realpath(os.path.join(lib["dir"], name)))
        for path in sorted(files):
            with open(path, errors="replace") as f:
                for number, text in enumerate(f, 1):
                    m = INCLUDE.match(text)
                    if not m:
                        continue
                    checked_includes += 1
                    header = None
                    for d in [os.path.dirname(path)] + lib["includes"]:
                        candidate = os.path.join(d, m.group(1))
                        if os.path.isfile(candidate):
                            header = candidate
                            break
                    where = f"{rel(path) or path}:{number}"
                    if header is None:
                        errors.append(f"{lib['name']}: {where}: \"{m.group(1)}\" is not in its "
                                      f"include path")
                        continue
                    header_rel = rel(header)
                    if header_rel is None:
                        continue  # generated or installed: not ours to order
                    header_folder = folder_of(header_rel)
                    if header_folder is None:
                        errors.append(f"{lib['name']}: {where}: {header_rel} is in a folder "
                                      f"with no layer")
                    elif LAYERS[header_folder] > layer:
                        errors.append(f"{lib['name']} ({lib_folder}/, layer {layer}): {where}: "
                                      f"includes {header_rel} ({header_folder}/, layer "
                                      f"{LAYERS[header_folder]}, above it)")

        # Rule 2: no printing, no exit, no programs started.
        if not lib_folder.startswith(QUIET):
            continue
        for archive in lib["files"]:
            out = subprocess.run(["nm", "-u", archive], capture_output=True, text=True)
            if out.returncode != 0:
                errors.append(f"{lib['name']}: nm -u {archive} failed: {out.stderr.strip()}")
                continue
            checked_archives += 1
            member = os.path.basename(archive)
            for line in out.stdout.splitlines():
                if line.endswith(":") and not line.startswith(" "):
                    member = line[:-1]
                    continue
                fields = line.split()
                if len(fields) >= 2 and fields[-2] == "U":
                    symbol = plain_symbol(fields[-1])
                    if FORBIDDEN.match(symbol):
                        errors.append(f"{lib['name']} ({lib_folder}/): {member} references "
                                      f"{fields[-1]}: a library prints nothing and starts no "
                                      f"program (integrations/ does)")

    for e in errors:
        print("layering: " + e)
    print(f"layering: {len(libs)} libraries, {checked_includes} includes, "
          f"{checked_archives} archives checked, {len(errors)} errors")
    if not libs or not checked_includes or not checked_archives:
        print("layering: nothing was checked: the manifest is wrong")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
