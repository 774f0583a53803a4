#!/bin/sh
# The order of --topdown's events (pmt_metric_set_perf_events) against x86 perf 7.3 on
# several CPU models: perf's `stat -vv --topdown [--td-level 2]` prints the metric group's
# event names as it walks its hash map of them ("found event X", metricgroup.c), and
# `pmutrace stat -v --dry-run --topdown --metrics TABLE` prints its own walk of the same
# metrics. TABLE is perf's built-in table for the model, as `perf list -j` prints it (one
# row per metric group, merged here into one metric per name; perf list does not print
# MetricgroupNoGroup, which perf's x86 tables set to TopdownL1 and TopdownL2 for the
# metrics of those groups, so it is set so here). Fake GNR sysfs tree (slots and the
# topdown-* events), perf's feature probes answered by tests/pmusim/probe_ok.c.
#   topdown_order.sh PMUTRACE ORACLES_DIR
set -eu
P=$1 ORC=$2
. "$(dirname "$0")/x86_perf73_setup.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
n=0 fail=0
# Ice Lake server, Sapphire Rapids, Emerald Rapids, Granite Rapids, Ice Lake and Tiger Lake
# clients, Rocket Lake
for cpuid in GenuineIntel-6-6A-0 GenuineIntel-6-8F-0 GenuineIntel-6-CF-0 GenuineIntel-6-AD-0 \
	GenuineIntel-6-7E-0 GenuineIntel-6-8C-0 GenuineIntel-6-A7-0; do
	SYSFS_PATH=$T/gnr PERF_CPUID=$cpuid "$X86" list -j >"$T/list.json" 2>/dev/null
	python3 - "$T/list.json" "$T/table.json" <<'EOF'
import json, sys
rows, table = json.load(open(sys.argv[1])), {}
for r in rows:
    if "MetricExpr" not in r:
        continue
    m = table.setdefault(r["MetricName"], dict(r, MetricGroup=""))
    m["MetricGroup"] = ";".join(g for g in (m["MetricGroup"], r.get("MetricGroup", "")) if g)
    m["MetricgroupNoGroup"] = "TopdownL1;TopdownL2"
json.dump(list(table.values()), open(sys.argv[2], "w"))
EOF
	for level in 1 2; do
		n=$((n + 1))
		SYSFS_PATH=$T/gnr PERF_CPUID=$cpuid LD_PRELOAD=$T/probe.so timeout 60 "$X86" stat -vv \
			--topdown --td-level $level -a -- true 2>&1 | sed -n 's/^found event //p' >"$T/perf"
		SYSFS_PATH=$T/gnr "$P" stat -v --dry-run --topdown --td-level $level \
			--metrics "$T/table.json" -a 2>&1 |
			sed -n 's/^pmutrace: debug: found event //p' >"$T/pmt" || true
		if [ ! -s "$T/perf" ]; then
			echo "FAIL: $cpuid level $level: perf 7.3 printed no event names"
			fail=$((fail + 1))
		elif ! cmp -s "$T/perf" "$T/pmt"; then
			echo "FAIL: $cpuid level $level: perf 7.3 < > pmutrace"
			diff "$T/perf" "$T/pmt" | head -10
			fail=$((fail + 1))
		else
			echo "ok: $cpuid level $level: $(wc -l <"$T/perf") events in perf's order"
		fi
	done
done
echo "$n event lists compared, $fail differ"
[ "$fail" = 0 ]
