#!/usr/bin/env python3
"""Checks a Chrome trace event file and a speedscope file from hwt against
the folded stacks of the same bundle.

usage: timeline_check.py CHROME_JSON SPEEDSCOPE_JSON FOLDED

For every thread of the Chrome trace: "B" and "E" events nest strictly (an
"E" closes the innermost open slice, by name), time stamps never go back,
nothing is left open, and every thread has "M" events naming its process
and itself. Every speedscope profile is "evented", its events nest the same
way, and "at" never goes back. Then the time each stack spends as the
innermost slice, summed per stack (the process name as the root, as folded
stacks have it), equals the folded count of that stack, in both files.
Exits 1 on any failure.
"""
import json
import sys
from collections import defaultdict


def fail(msg):
    print('FAIL:', msg)
    sys.exit(1)


def self_times(events, root):
    """events: (at, open?, name) in order; returns {stack: self time}."""
    out = defaultdict(int)
    stack = []
    last = None
    for at, is_open, name in events:
        if last is not None:
            if at < last:
                fail(f'{root}: time goes back ({last} -> {at})')
            if stack and at > last:
                out[';'.join([root] + stack)] += at - last
        last = at
        if is_open:
            stack.append(name)
        else:
            if not stack or stack[-1] != name:
                fail(f'{root}: close of {name!r} does not match the innermost open '
                     f'{stack[-1] if stack else None!r}')
            stack.pop()
    if stack:
        fail(f'{root}: {len(stack)} slices left open')
    return out


def main():
    chrome_path, speedscope_path, folded_path = sys.argv[1:4]
    folded = defaultdict(int)
    with open(folded_path) as f:
        for line in f:
            stack, _, count = line.rstrip('\n').rpartition(' ')
            folded[stack] += int(count)

    chrome = json.load(open(chrome_path))
    threads = defaultdict(list)
    process_names, thread_names = {}, set()
    for e in chrome['traceEvents']:
        if e['ph'] == 'M':
            if e['name'] == 'process_name':
                process_names[e['pid']] = e['args']['name']
            elif e['name'] == 'thread_name':
                thread_names.add((e['pid'], e['tid']))
        elif e['ph'] in 'BE':
            threads[(e['pid'], e['tid'])].append((e['ts'], e['ph'] == 'B', e['name']))
        else:
            fail(f'unexpected event phase {e["ph"]!r}')
    chrome_stacks = defaultdict(int)
    for (pid, tid), events in threads.items():
        if pid not in process_names or (pid, tid) not in thread_names:
            fail(f'thread {pid}/{tid} is not named by M events')
        for k, v in self_times(events, process_names[pid]).items():
            chrome_stacks[k] += v
    if dict(chrome_stacks) != {k: v for k, v in folded.items() if v}:
        only = set(chrome_stacks) ^ set(folded)
        diff = [k for k in set(chrome_stacks) & set(folded) if chrome_stacks[k] != folded[k]]
        fail(f'chrome totals differ from the folded counts: {len(only)} stacks in one only '
             f'(e.g. {sorted(only)[:3]}), {len(diff)} with other counts (e.g. {diff[:3]})')

    ss = json.load(open(speedscope_path))
    frames = [f['name'] for f in ss['shared']['frames']]
    ss_stacks = defaultdict(int)
    for p in ss['profiles']:
        if p['type'] != 'evented':
            fail(f'profile {p["name"]!r} is {p["type"]!r}, not evented')
        root = p['name'].rsplit(' ', 1)[0]
        events = [(e['at'], e['type'] == 'O', frames[e['frame']]) for e in p['events']]
        if events and (events[0][0] < p['startValue'] or events[-1][0] > p['endValue']):
            fail(f'profile {p["name"]!r}: events outside startValue..endValue')
        for k, v in self_times(events, root).items():
            ss_stacks[k] += v
    if dict(ss_stacks) != {k: v for k, v in folded.items() if v}:
        fail('speedscope totals differ from the folded counts')
    print(f'ok: {len(threads)} threads, {sum(len(v) for v in threads.values())} chrome events, '
          f'{len(ss["profiles"])} speedscope profiles; {len(folded)} stacks, '
          f'{sum(folded.values())} instructions, equal in all three')


if __name__ == '__main__':
    main()
