#!/bin/sh
# report --sort as text, --json and --csv: the same entries in the same order with the
# same figures (the text's two-decimal percentages, its symbols and files), per event; the
# JSON's samples add up to the event's, and its periods to the event count.
#   report_formats.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/tools/symbols_fixture.sh"
fixture_build "$T/fx"
text_trace "$T/fx" 81 6000 "$T/t.data"
for keys in sym,dso comm,dso,sym dso cpu,sym; do
	"$P" report "$T/t.data" --symfs "$T/fx/fs" --sort $keys >"$T/txt"
	"$P" report "$T/t.data" --symfs "$T/fx/fs" --sort $keys --json >"$T/json"
	"$P" report "$T/t.data" --symfs "$T/fx/fs" --sort $keys --csv >"$T/csv"
	python3 - "$T/txt" "$T/json" "$T/csv" "$keys" <<'PY'
import csv, json, re, sys
txt, js, cs, keys = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
# the text: "# Samples: N of event 'E'" then rows "  C%  S%  cells..."
rows, ev = [], None
for line in open(txt):
    m = re.match(r"# Samples: .* of event '(.*)'", line)
    if m:
        ev = m.group(1)
        continue
    m = re.match(r"^ +([0-9.]+)% +([0-9.]+)%  (.*)$", line.rstrip("\n"))
    if m:
        rows.append((ev, m.group(2), re.split(r"  +", m.group(3).strip())))
def cells(e):
    out = []
    for k in keys:
        if k == "sym":
            out.append(("[k] " if e["kernel"] else "[.] ") + e["sym"])
        elif k == "cpu":
            out.append("%03d" % e["cpu"])
        else:
            out.append(e[k])
    return out
d = json.load(open(js))
jrows = []
for E in d["events"]:
    assert sum(x["samples"] for x in E["entries"]) == E["samples"], E["event"]
    assert sum(x["period"] for x in E["entries"]) == E["period"], E["event"]
    for x in E["entries"]:
        assert abs(x["overhead"] - 100.0 * x["period"] / E["period"]) < 1e-4
        jrows.append((E["event"], "%.2f" % (100.0 * x["period"] / E["period"]), cells(x)))
crows = []
totals = {E["event"]: E["period"] for E in d["events"]}
r = csv.DictReader(open(cs))
for x in r:
    x["kernel"] = x.get("kernel") == "1"
    if "cpu" in x:
        x["cpu"] = int(x["cpu"])
    assert abs(float(x["overhead"]) - 100.0 * int(x["period"]) / totals[x["event"]]) < 1e-4
    crows.append((x["event"], "%.2f" % (100.0 * int(x["period"]) / totals[x["event"]]), cells(x)))
def norm(rs):
    return [(e, p, [c.strip() for c in cs]) for e, p, cs in rs]
t, j, c = norm(rows), norm(jrows), norm(crows)
if t != j or t != c:
    for a, b, cc in zip(t, j, c):
        if a != b or a != cc:
            print("FAIL: %s: text %s / json %s / csv %s" % (",".join(keys), a, b, cc))
            break
    else:
        print("FAIL: %s: %d text rows, %d json, %d csv" % (",".join(keys), len(t), len(j), len(c)))
    sys.exit(1)
if len(t) < 5:
    print("FAIL: only %d rows" % len(t)); sys.exit(1)
PY
done
echo "OK: text, --json and --csv agree for sym,dso comm,dso,sym dso cpu,sym"
