#!/usr/bin/env python3
"""Every CTest test is named PART.NOUN[.VARIANT...] (README, "Layout"): PART
is a folder under tests/ (or kmod, examples), the other parts are lower-case
words separated by dots. Lists the tests of BUILD_DIR with `ctest -N`."""
import os
import re
import subprocess
import sys

build_dir, src_dir, ctest = sys.argv[1], sys.argv[2], sys.argv[3]
out = subprocess.run([ctest, '-N'], cwd=build_dir, capture_output=True, text=True, check=True).stdout
names = re.findall(r'^\s*Test\s+#\d+: (\S+)$', out, re.M)
if not names:
    sys.exit('test_names: `ctest -N` listed no test:\n' + out)
parts = {d for d in os.listdir(os.path.join(src_dir, 'tests'))
         if os.path.isdir(os.path.join(src_dir, 'tests', d))} | {'kmod', 'examples'}
bad = []
for name in names:
    words = name.split('.')
    if len(words) < 2 or not all(re.fullmatch(r'[a-z0-9_]+', w) for w in words):
        bad.append(f'{name}: not PART.NOUN[.VARIANT...] in lower-case words')
    elif words[0] not in parts:
        bad.append(f'{name}: {words[0]} is no folder under tests/ (nor kmod, examples)')
for line in bad:
    print(line)
print(f'{len(names)} tests, {len(bad)} named against the rule')
sys.exit(1 if bad else 0)
