#!/usr/bin/env python3
"""The stacks of an ETMv4 (aarch64) trace against two independent counts.

usage: etm_stacks_check.py self TOOL INSNS FOLDED
       etm_stacks_check.py calls CALLGRIND_OUT FOLDED FUNCTIONS

self: every function's exclusive instructions in FOLDED (`stacks_tool
stacks BUNDLE --addresses`, --weight insns: frames named PATH+0xENTRY) must
equal the instructions the profile of the same bundle counted in it (INSNS:
`profile_tool insns PROFILE`, each instruction named by TOOL's `symbolize`
mode, the same symbol lookup), for every function of every image (code
with no symbol: in one sum per image), and the totals must be equal. The profile is OpenCSD's decode as counted before it
became control flow, checked against QEMU's own log by the decode tests.

calls: the calls into each function of the program (FUNCTIONS: names, one
a line, defined in both the aarch64 and the x86-64 build) in FOLDED
(`hwt report folded --weight calls` of the aarch64 run) must equal
callgrind's calls= counts of the x86-64 build of the same source
(CALLGRIND_OUT), summed over callers: a deterministic program makes the
same calls on both.
Exits 1 on a difference, listing them.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_stacks import read_callgrind  # noqa: E402


def folded_lines(path):
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                continue
            stack, _, count = line.rpartition(' ')
            yield stack.split(';'), int(count)


def check_self(tool, insns_path, folded_path):
    per_insn = []
    image = None
    with open(insns_path) as f:
        for line in f:
            fields = line.split()
            if fields[0] == 'image':
                image = line.split(' ', 1)[1].rstrip('\n')
            elif fields[0] == 'image-error':
                sys.exit('FAIL: the profile names an unreadable image: ' + line.strip())
            else:
                per_insn.append((image, fields[0], int(fields[1])))
    query = ''.join('%s %s\n' % (img, addr) for img, addr, _ in per_insn)
    names = subprocess.run([tool, 'symbolize', '-'], input=query, capture_output=True,
                           text=True, check=True).stdout.split('\n')
    profile = defaultdict(int)
    named = set()
    for (img, addr, count), name in zip(per_insn, names):
        if name == '-' or name.startswith('- '):
            name = img + ' (no symbol)'
        else:
            named.add(name)
        profile[name] += count
    # Code with no symbol is named by the stacks after the call that entered
    # it: compared per image, in one sum.
    stacks = defaultdict(int)
    for frames, count in folded_lines(folded_path):
        leaf = frames[-1]
        if leaf not in named and '+0x' in leaf:
            leaf = leaf.rpartition('+0x')[0] + ' (no symbol)'
        stacks[leaf] += count
    bad = []
    for name in sorted(set(profile) | set(stacks)):
        if profile.get(name, 0) != stacks.get(name, 0):
            bad.append('%s: profile %d, stacks %d' % (name, profile.get(name, 0),
                                                      stacks.get(name, 0)))
    total_p, total_s = sum(profile.values()), sum(stacks.values())
    print('self: %d functions, %d instructions in the profile, %d in the stacks' %
          (len(profile), total_p, total_s))
    if bad:
        print('FAIL: exclusive instructions differ:\n  ' + '\n  '.join(bad[:40]))
        return 1
    return 0


def check_calls(callgrind_path, folded_path, functions_path):
    with open(functions_path) as f:
        functions = {line.strip() for line in f if line.strip()}
    _, edges, _ = read_callgrind(callgrind_path)
    callgrind = defaultdict(int)
    for edge in edges:
        # Levels of a recursion are named fib'2, fib'3... (--separate-recs).
        callee, calls = re.sub(r"'[0-9]+$", '', edge[7]), edge[4]
        if callee in functions:
            callgrind[callee] += calls
    stacks = defaultdict(int)
    for frames, count in folded_lines(folded_path):
        if len(frames) > 2 and frames[-1] in functions:
            stacks[frames[-1]] += count
    bad = []
    for name in sorted(functions):
        if callgrind.get(name, 0) != stacks.get(name, 0):
            bad.append('%s: callgrind (x86-64) %d, stacks (aarch64) %d' %
                       (name, callgrind.get(name, 0), stacks.get(name, 0)))
    print('calls: %d functions, %d calls (callgrind), %d (stacks)' %
          (len(functions), sum(callgrind.values()), sum(stacks.values())))
    if not callgrind:
        print('FAIL: callgrind saw no call into the program\'s functions')
        return 1
    if bad:
        print('FAIL: calls differ:\n  ' + '\n  '.join(bad))
        return 1
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'self':
        return check_self(*sys.argv[2:])
    if len(sys.argv) == 5 and sys.argv[1] == 'calls':
        return check_calls(*sys.argv[2:])
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main())
