#!/usr/bin/env python3
"""No public function that only its own file uses (issue 38).

A public function is one a library's hwt_*.h declares (the headers of the
layering manifest, libraries.txt, as all_headers.py finds them). Each must
be used by some file of the source tree other than that header and the
file that defines it: another library, a command, a test, a bench program.
One that is not is either dead (remove it) or private to its file (make it
static and take it out of the header), so the headers say only what
callers use.

Every C, C++, Python, shell and CMake file under the source tree counts,
except build directories (any directory holding a CMakeCache.txt).

usage: unused_api.py LIBRARIES_TXT SOURCE_DIR
"""
import os
import re
import sys

SUFFIXES = (".c", ".h", ".cc", ".cpp", ".hpp", ".py", ".sh", ".cmake", ".txt", ".in")
# A declaration in a header: a return type, then the name and "(".
DECLARATION = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(hwt_\w+)\s*\(", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def public_headers(manifest):
    headers = set()
    with open(manifest) as f:
        for row in f:
            fields = row.rstrip("\n").split("|")
            if len(fields) < 6:
                continue
            for name in sorted(os.listdir(fields[2])):
                if name.startswith("hwt_") and name.endswith(".h"):
                    headers.add(os.path.realpath(os.path.join(fields[2], name)))
    return sorted(headers)


def source_files(root):
    texts = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if "CMakeCache.txt" in filenames or os.path.basename(dirpath) == ".git":
            dirnames[:] = []
            continue
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            if name.endswith(SUFFIXES) or name == "CMakeLists.txt":
                path = os.path.realpath(os.path.join(dirpath, name))
                with open(path, errors="replace") as f:
                    texts[path] = f.read()
    return texts


def declared(header_text):
    text = COMMENT.sub("", header_text)
    return sorted({m.group(1) for m in DECLARATION.finditer(text)
                   if not m.group(0).startswith(("typedef", "return", "if", "while"))})


# A definition in a C file: at the start of a line, after its return type.
DEFINITION = re.compile(r"^(?!return\b|if\b|while\b|else\b)[A-Za-z_][^;=(\n]*\b(hwt_\w+)\s*\(",
                        re.M)
WORD = re.compile(r"\bhwt_\w+")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    manifest, root = sys.argv[1], os.path.realpath(sys.argv[2])
    headers = public_headers(manifest)
    texts = source_files(root)
    if not headers:
        sys.exit("unused_api: no public header found in " + manifest)
    # Each name once: the files that name it, and the C files that define it.
    named, defined = {}, {}
    for path, text in texts.items():
        for name in set(WORD.findall(text)):
            named.setdefault(name, set()).add(path)
        if path.endswith(".c"):
            for name in set(DEFINITION.findall(text)):
                defined.setdefault(name, set()).add(path)
    unused = []
    checked = 0
    for header in headers:
        for name in declared(texts.get(header) or open(header).read()):
            checked += 1
            definers = defined.get(name, set())
            users = named.get(name, set()) - definers - {header}
            if not users:
                unused.append("%s: %s (defined in %s)" % (
                    os.path.relpath(header, root), name,
                    ", ".join(sorted(os.path.relpath(p, root) for p in definers)) or "nothing"))
    for line in unused:
        print("unused_api: no caller outside its own file: " + line)
    print("unused_api: %d public functions of %d headers, %d unused" %
          (checked, len(headers), len(unused)))
    sys.exit(1 if unused else 0)


if __name__ == "__main__":
    main()
