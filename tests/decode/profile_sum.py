#!/usr/bin/env python3
"""usage: profile_sum.py SUM PART...

Checks that every block and edge count of the serialised profile SUM is the
sum of the counts in the PARTs (keyed by image key and offsets, so that
image numbering may differ), and that images' flags and undecoded counts
add up. Exits 1 and lists differences otherwise.
"""
import sys
from collections import Counter


def read(path):
    images, counts, flags = {}, Counter(), {}
    with open(path) as f:
        lines = f.read().split('\n')
    assert lines[0] == 'hwt-profile 1', f'{path}: bad header'
    assert lines[-1] == '' and lines[-2].startswith('end '), f'{path}: no end line'
    for line in lines[1:-2]:
        kw, _, rest = line.partition(' ')
        if kw == 'image':
            index, fl, build_id, undecoded, path_ = rest.split(' ', 4)
            key = build_id if build_id != '-' else path_
            images[index] = key
            flags[key] = set(fl.split(',')) - {'-'}
            counts[('undecoded', key)] += int(undecoded)
        elif kw == 'block':
            image, begin, end, insns, count = rest.split()
            counts[('block', images[image], begin, end, insns)] += int(count)
        elif kw == 'edge':
            fi, fo, ti, to, kind, count = rest.split()
            counts[('edge', images[fi], fo, images[ti], to, kind)] += int(count)
    return counts, flags


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    total, total_flags = read(sys.argv[1])
    want, want_flags = Counter(), {}
    for part in sys.argv[2:]:
        counts, flags = read(part)
        want.update(counts)
        for key, f in flags.items():
            want_flags.setdefault(key, set()).update(f)
    bad = [k for k in set(total) | set(want) if total[k] != want[k]]
    bad_flags = [k for k in set(total_flags) | set(want_flags)
                 if total_flags.get(k) != want_flags.get(k)]
    for k in sorted(bad, key=str)[:20]:
        print(f'differs: {k}: sum has {total[k]}, parts add up to {want[k]}')
    for k in bad_flags[:20]:
        print(f'flags differ: {k}: {total_flags.get(k)} vs {want_flags.get(k)}')
    print(f'{len(total)} counts checked, {len(bad)} differ, {len(bad_flags)} image flags differ')
    return 1 if bad or bad_flags else 0


if __name__ == '__main__':
    sys.exit(main())
