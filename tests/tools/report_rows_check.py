#!/usr/bin/env python3
"""report_rows_check.py TEXT JSON CSV: the --json and --csv forms of a report --sort agree
with its text form (which the callers compare with perf): each event's header counts
("# Samples", "# Event count" or --mem's "# Total weight") are the JSON's samples, period
or weight; each text entry's percentages (Children and Self, or --mem's overhead and
Samples) are those of the JSON entry at the same place, worked out here from its period
(weight) over the event's total; the CSV rows are the JSON entries. Prints what differs
and exits 1."""
import csv
import json
import re
import sys


def perf_count(n):
    """perf's "# Samples: 2K": thousands, then millions, cut down"""
    unit = " "
    for u in ("K", "M"):
        if n > 1000:
            n //= 1000
            unit = u
    return f"{n}{unit}"


def text_events(path):
    events, cur = [], None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"# Samples: (\S+ ?) ?of event '(.*)'", line)
        if m:
            cur = {"samples": m.group(1).strip(), "name": m.group(2), "rows": []}
            events.append(cur)
            continue
        m = re.match(r"# (Event count \(approx\.\)|Total weight ?): (\d+)", line)
        if m and cur:
            cur["total"] = int(m.group(2))
            continue
        m = re.match(r"^ +(\d+\.\d\d)%(?: +(\d+\.\d\d)%| +(\d+)(?=  ))?", line)
        if m and cur:
            cur["rows"].append(m.groups())
    return events


def main():
    text, doc = text_events(sys.argv[1]), json.load(open(sys.argv[2], encoding="utf-8"))
    rows = list(csv.reader(open(sys.argv[3], encoding="utf-8")))
    bad = []
    jev = doc["events"]
    if [e["name"] for e in text] != [e["event"] for e in jev]:
        bad.append(f"events: text {[e['name'] for e in text]} json {[e['event'] for e in jev]}")
    flat = []
    for t, j in zip(text, jev):
        mem = "weight" in j
        total = j["weight"] if mem else j["period"]
        if perf_count(j["samples"]).strip() != t["samples"]:
            bad.append(f"{j['event']}: samples {j['samples']}, text {t['samples']}")
        if total != t.get("total"):
            bad.append(f"{j['event']}: total {total}, text {t.get('total')}")
        if len(t["rows"]) != len(j["entries"]):
            bad.append(f"{j['event']}: {len(j['entries'])} entries, text {len(t['rows'])}")
        for i, (r, e) in enumerate(zip(t["rows"], j["entries"])):
            own = e["weight"] if mem else e["period"]
            want = ["%.2f" % (100.0 * own / total if total else 0)]
            if doc["children"]:
                want.insert(0, "%.2f" % (100.0 * e["children_period"] / total if total else 0))
            got = [r[0], r[1]] if doc["children"] else [r[0]]
            if mem and r[2] != str(e["samples"]):
                bad.append(f"{j['event']} entry {i}: samples {e['samples']}, text {r[2]}")
            if got != want:
                bad.append(f"{j['event']} entry {i}: {want} from the JSON, text {got}")
            keys = [str(v).lower() if isinstance(v, bool) else
                    "%.4f" % v if isinstance(v, float) else str(v)
                    for k, v in e.items() if k not in ("overhead", "weight")]
            flat.append([j["event"], "%.4f" % e["overhead"]] + keys)
    got_csv = [[c for c in row] for row in rows[1:]]
    want_csv = [[r[0], r[1]] + [("1" if v == "true" else "0") if v in ("true", "false") else v
                                 for v in r[2:]] for r in flat]
    if got_csv != want_csv:
        diff = next((i for i, (a, b) in enumerate(zip(got_csv, want_csv)) if a != b),
                    min(len(got_csv), len(want_csv)))
        bad.append(f"CSV row {diff + 1} differs from the JSON entry: "
                   f"{got_csv[diff:diff + 1]} vs {want_csv[diff:diff + 1]}")
    for b in bad[:10]:
        print("FAIL:", b)
    sys.exit(1 if bad else 0)


main()
