#!/usr/bin/env python3
"""Checks the flame graph's options in the boxes hwt drew.

usage: svg_check.py PLAIN_SVG ICICLE_SVG KIND_SVG

PLAIN_SVG: the defaults (1200 pixels, root at the bottom, hot colours).
ICICLE_SVG: --width 800 --inverted --min-width 5 --colors mem --title 'an
icicle'. KIND_SVG: --colors kind. Every box is a <g class="f"> with data-x,
data-v (start and width in counts) and data-d (depth) around its <rect>.
Exits 1 on any failure.
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def fail(msg):
    print('FAIL:', msg)
    sys.exit(1)


def load(path):
    svg = ET.parse(path).getroot()
    boxes = []
    for g in svg.iter(NS + 'g'):
        if g.get('class') != 'f':
            continue
        r = g.find(NS + 'rect')
        rgb = tuple(int(v) for v in re.findall(r'\d+', r.get('fill')))
        boxes.append({'name': g.get('data-n'), 'd': int(g.get('data-d')),
                      'v': int(g.get('data-v')), 'x': float(r.get('x')),
                      'y': float(r.get('y')), 'w': float(r.get('width')), 'rgb': rgb})
    if not boxes:
        fail(f'{path}: no boxes')
    title = svg.find(f'.//{NS}text[@id="title"]').text
    return svg, boxes, title


def check_layout(path, svg, boxes, width, inverted):
    pad = float(svg.get('data-pad'))
    if float(svg.get('width')) != width:
        fail(f'{path}: width {svg.get("width")}, not {width}')
    if svg.get('data-inverted') != ('1' if inverted else '0'):
        fail(f'{path}: data-inverted {svg.get("data-inverted")}')
    roots = [b for b in boxes if b['d'] == 0]
    total = sum(b['v'] for b in roots)
    if abs(sum(b['w'] for b in roots) - (width - 2 * pad)) > 0.05 * len(roots):
        fail(f'{path}: the roots are not {width - 2 * pad} pixels wide')
    for b in boxes:
        if b['x'] < pad - 0.01 or b['x'] + b['w'] > width - pad + 0.01:
            fail(f'{path}: {b["name"]} drawn outside the graph')
        want = b['v'] * (width - 2 * pad) / total
        if abs(b['w'] - want) > 0.01 + 1e-6 * want:
            fail(f'{path}: {b["name"]} is {b["w"]} pixels, its count says {want:.2f}')
    # Depth grows upwards (flame) or downwards (icicle), one row each.
    ys = {}
    for b in boxes:
        ys.setdefault(b['d'], set()).add(b['y'])
    if any(len(v) != 1 for v in ys.values()):
        fail(f'{path}: boxes of one depth on several rows')
    deepest = max(ys)
    step = next(iter(ys[1])) - next(iter(ys[0]))
    if (step > 0) != inverted:
        fail(f'{path}: depth 1 is {"above" if step < 0 else "below"} the root '
             f'({"inverted" if inverted else "not inverted"})')
    return deepest


plain_svg, plain, plain_title = load(sys.argv[1])
ice_svg, ice, ice_title = load(sys.argv[2])
kind_svg, kind, _ = load(sys.argv[3])

plain_depth = check_layout(sys.argv[1], plain_svg, plain, 1200, False)
check_layout(sys.argv[2], ice_svg, ice, 800, True)
if not plain_title.startswith('Flame Graph'):
    fail(f'default title {plain_title!r}')
if ice_title != 'an icicle':
    fail(f'--title: {ice_title!r}')

# --min-width 5: nothing narrower than 5 pixels but gap markers; the
# default (0.1 pixels) keeps narrower ones, so boxes went.
markers = ('[overflow]', '[decode error]', '[lost]', '[untraced]')
narrow = [b for b in ice if b['w'] < 5 and b['name'] not in markers]
if narrow:
    fail(f'--min-width 5: {narrow[0]["name"]} is {narrow[0]["w"]:.2f} pixels')
if not any(b['w'] * 800 / 1200 < 5 for b in plain) or len(ice) >= len(plain):
    fail(f'--min-width 5 left out nothing ({len(ice)} boxes, {len(plain)} without)')

# Colours: hot (red to yellow: red high, blue low), mem (green), kind (the
# process root apart from the functions).
for b in plain:
    r, g, bl = b['rgb']
    if b['name'].startswith('[') or b['d'] == 0 and b['rgb'] == (160, 160, 160):
        continue
    if not (r >= 205 and bl <= 55):
        fail(f'hot colours: {b["name"]} is rgb{b["rgb"]}')
for b in ice:
    r, g, bl = b['rgb']
    if b['name'].startswith('['):
        continue
    if not (r == 0 and g >= 190):
        fail(f'--colors mem: {b["name"]} is rgb{b["rgb"]}')
root_colours = {b['rgb'] for b in kind if b['d'] == 0}
func_colours = {b['rgb'] for b in kind if b['d'] > 0 and not b['name'].startswith('[')}
if root_colours != {(180, 140, 230)} or (180, 140, 230) in func_colours:
    fail(f'--colors kind: roots {root_colours}')
print(f'ok: {len(plain)} boxes at 1200 pixels ({plain_depth + 1} deep), {len(ice)} inverted at '
      f'800 with --min-width 5, colours hot, mem and kind, --title, --progress')
