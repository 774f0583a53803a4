#!/usr/bin/env python3
"""Each sample's call chain as one line, "ADDR SYM+0xOFF (DSO) | ..." leaf first (ADDR in
hex without 0x, as perf prints it), from either side of a comparison:
  chain_rows.py script SCRIPT.txt   perf script -F ip,sym,symoff,dso of a -g recording:
                                    each sample's block of chain lines, perf 7.3's
                                    "ADDR FUNC+0xOFF (inlined)" lines included
  chain_rows.py csv FILE.csv        pmutrace script --csv: the callchain column, read by
                                    Python's csv module ("0xADDR SYM+0xOFF (DSO)" frames
                                    joined by ';')
  chain_rows.py json FILE.jsonl     pmutrace script --jsonl: each line's "callchain" array
                                    of {ip, sym, dso, symoff[, inlined]}, read by Python's
                                    json module (an inlined frame as perf's line)
A frame without a symbol is "ADDR [unknown] (DSO)", without a map "([unknown])"."""
import csv
import json
import sys


def script(path):
    rows, cur = [], None
    for line in open(path):
        if line.startswith("\t"):
            if cur is None:
                cur = []
            cur.append(line.strip())
        elif cur is not None:
            rows.append(cur)
            cur = None
    if cur is not None:
        rows.append(cur)
    return rows


def frame_text(f):
    addr = f.split(" ", 1)
    return "%x %s" % (int(addr[0], 16), addr[1])


def from_csv(path):
    with open(path, newline="") as fh:
        return [[frame_text(f) for f in r["callchain"].split(";")]
                for r in csv.DictReader(fh) if r["callchain"]]


def from_json(path):
    rows = []
    for line in open(path):
        s = json.loads(line)
        if "callchain" not in s:
            continue
        frames = []
        for f in s["callchain"]:
            sym = "[unknown]" if f["sym"] is None else "%s+%s" % (f["sym"], f["symoff"])
            where = "inlined" if f.get("inlined") else \
                "[unknown]" if f["dso"] is None else f["dso"]
            frames.append("%x %s (%s)" % (int(f["ip"], 16), sym, where))
        rows.append(frames)
    return rows


rows = {"script": script, "csv": from_csv, "json": from_json}[sys.argv[1]](sys.argv[2])
for r in rows:
    print(" | ".join(r))
