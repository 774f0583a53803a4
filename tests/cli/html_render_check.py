#!/usr/bin/env python3
"""Checks Chromium's rendering of a `pmutrace report --html` page (standard library only).

  html_render_check.py SCREENSHOT.png DOM.html NETLOG.json
  html_render_check.py --requests NETLOG.json   (prints the URLs a page asked for)
  html_render_check.py --colours SCREENSHOT.png RRGGBB...   (each colour is on screen)

The screenshot is not blank (PNG decoded with zlib: colours and inked pixels, the charts'
bar colours on screen); the DOM (--dump-dom) has the escaped title, every section's
heading and the SVG charts; the net log holds no request of the page's."""
import json
import re
import struct
import sys
import zlib

fails = []


def page_requests(path):
    """URLs the page asked for: requests whose network isolation key is the file:// page's
    (the browser's own background requests, refused by the dead proxy, have others)."""
    log = json.load(open(path))
    start = log['constants']['logEventTypes']['URL_REQUEST_START_JOB']
    return sorted({e['params']['url'] for e in log.get('events', [])
                   if e.get('type') == start and 'url' in (e.get('params') or {}) and
                   ('file://' in e['params'].get('network_isolation_key', '') or
                    e['params'].get('initiator') in ('null', 'file://'))})


def pixels(path):
    """Yield each row of an 8-bit RGB or RGBA PNG as bytes (filters undone)."""
    d = open(path, 'rb').read()
    if d[:8] != b'\x89PNG\r\n\x1a\n':
        raise SystemExit('FAIL: not a PNG')
    pos, idat = 8, b''
    while pos < len(d):
        n, = struct.unpack('>I', d[pos:pos + 4])
        kind, chunk = d[pos + 4:pos + 8], d[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', chunk[:10])
            if depth != 8 or ctype not in (2, 6):
                raise SystemExit(f'FAIL: PNG depth {depth} colour type {ctype}')
        elif kind == b'IDAT':
            idat += chunk
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    for y in range(h):
        base = y * (stride + 1)
        f, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        yield bpp, bytes(line)


if sys.argv[1] == '--requests':
    # a control page's net log: print what it asked for
    print('\n'.join(page_requests(sys.argv[2])))
    sys.exit(0)
if sys.argv[1] == '--colours':
    # a screenshot holds each of these RGB colours (hex)
    seen_rgb = {line[x:x + 3] for bpp, line in pixels(sys.argv[2])
                for x in range(0, len(line), bpp)}
    missing = [c for c in sys.argv[3:] if bytes.fromhex(c) not in seen_rgb]
    if missing:
        print('FAIL: not on the screenshot:', ' '.join(missing))
    sys.exit(1 if missing else 0)
png, dom, net = sys.argv[1:4]

colours, ink, seen = set(), 0, 0
for bpp, line in pixels(png):
    for x in range(0, len(line), bpp * 2):
        px = line[x:x + 3]
        colours.add(px)
        seen += 1
        ink += px != b'\xff\xff\xff'
if len(colours) < 16 or ink < seen // 50:
    fails.append(f'screenshot looks blank: {len(colours)} colours, {ink} of {seen} pixels inked')
# the charts' bar colours (html_write.c's style): symbols, latency
for what, rgb in (('symbol bars', b'\x4a\x7f\xb5'), ('latency bars', b'\xc9\x91\x3a')):
    if rgb not in colours:
        fails.append(f'no {what} in the screenshot')

text = open(dom, encoding='utf-8').read()
if not re.search(r'<title>pmutrace report: [^<]*x&lt;b&gt;&amp;', text):
    fails.append('DOM: the title is missing or not escaped')
for h2 in ('Available samples', 'Top symbols', 'Latency', 'Data source and TLB', 'Timeline',
           'Metrics'):
    if f'<h2>{h2}</h2>' not in text:
        fails.append(f'DOM: no heading "{h2}"')
if text.count('<svg') < 6:
    fails.append(f'DOM: {text.count("<svg")} SVG charts, want at least 6')

asked = page_requests(net)
if asked:
    fails.append(f'the page made requests: {asked[:5]}')
for f in fails:
    print('FAIL:', f)
sys.exit(1 if fails else 0)
