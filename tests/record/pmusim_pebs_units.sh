#!/bin/sh
# Issue 11 item 6: retire latencies (:R) per aggregation unit from one recording, on the
# simulated Intel core PMU (tests/pmusim/pebs.c) in a fake GNR sysfs tree given a topology
# of two sockets x two cores x two threads (CPU c: socket c/4, die 0, core (c%4)/2).
#  1. the recording's HEADER_CPU_TOPOLOGY: x86 perf 7.3's `report --header-only -I` of a
#     pmutrace recording prints the same sibling and per-CPU lines as of its own recording
#     of the same tree;
#  2. metrics TRACE --per-core / --per-socket --retire-latency-per-unit: each unit's counts
#     are perf 7.3's `stat --per-core` / `--per-socket` report of the container (which reads
#     the topology pmutrace wrote), each unit's :R is rint(mean) of the unit's samples in
#     perf 7.3's `script -F cpu,event,retire_lat` of the same container (python computes
#     the metric rows from those two); a unit without samples takes every sample's mean;
#  3. -I: a recording with --count-interval; each interval's :R is rint(mean) of the samples
#     whose time (perf 7.3 script -F time) lies in that interval, an interval without
#     samples takes the table default with a warning naming the event and the interval;
#  4. a recording without a topology (sysfs without topology folders): --per-core fails
#     naming the file and the missing feature.
#   pmusim_pebs_units.sh PMUTRACE [ORACLES_DIR]
set -u
P=$1 ORC=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
X86=$ORC/bin/perf-7.3
[ -n "$ORC" ] && [ -x "$X86" ] || { echo "SKIP: x86 perf 7.3 oracle not built (tests/oracles/setup)"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: no zstd"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/../pmusim/pmusim.c" -ldl -lpthread || exit 1
sh "$HERE/../oracles/fake_intel_sysfs.sh" "$T/gnr" gnr
cp -r "$T/gnr" "$T/flat"
for c in 0 1 2 3 4 5 6 7; do
	d=$T/gnr/devices/system/cpu/cpu$c/topology s=$((c / 4)) p=$((c / 2 * 2))
	mkdir -p "$d"
	echo $s >"$d/physical_package_id"
	echo 0 >"$d/die_id"
	echo $(((c % 4) / 2)) >"$d/core_id"
	echo "$((s * 4))-$((s * 4 + 3))" >"$d/package_cpus_list"
	echo "$((s * 4))-$((s * 4 + 3))" >"$d/die_cpus_list"
	echo "$p-$((p + 1))" >"$d/core_cpus_list"
done
EV2=cpu/event=0xd1,umask=0x4,name=MEM_LOAD_RETIRED.L3_HIT/p
M=$HERE/../../fixtures/metrics/tpebs-raw-metrics.json
sim() { # TREE LOG SAMPLES -- command: SIGINT once every sample was written
	tree=$1 log=$2 n=$3
	shift 3
	rm -f "$log"
	env SYSFS_PATH="$T/$tree" PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_PEBS_SAMPLES="$n" PMUSIM_PEBS_SEED=11 PMUSIM_LOG="$log" \
		PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$T/sim.so" "$@"
}
topo() { grep -E '^# (sibling|CPU [0-9]+:)'; }

# 1. the topology as perf 7.3 prints it from its own recording and from pmutrace's
sim gnr "$T/p.log" 200 timeout 60 "$X86" record -q -W -e "$EV2" -c 1009 -a -o "$T/p.data" \
	-- sleep 30 >"$T/perr" 2>&1
"$X86" report --header-only -I -i "$T/p.data" 2>/dev/null | topo >"$T/topo_perf.txt"
sim gnr "$T/r.log" 200 "$P" record -q -W -e "$EV2" -c 1009 -a --duration 30 -o "$T/r.pmt" \
	2>"$T/err" || bad "record: exit $?: $(cat "$T/err")"
zstd -dc "$T/r.pmt" | "$X86" report --header-only -I -i - 2>/dev/null | topo >"$T/topo_pmt.txt"
[ "$(wc -l <"$T/topo_perf.txt")" = 16 ] && cmp -s "$T/topo_perf.txt" "$T/topo_pmt.txt" ||
	{ bad "HEADER_CPU_TOPOLOGY: perf 7.3 reads pmutrace's differently from its own (perf's < > pmutrace's)"; diff "$T/topo_perf.txt" "$T/topo_pmt.txt"; }

# python: metric rows "UNIT METRIC VALUE" from perf's unit counts (stat report -x';') and
# perf script's samples "CPU EVENT LAT [TIME]"; a unit's :R is rint(mean) of its samples
# (python's round() is rint's half-to-even), else of every sample
cat >"$T/rows.py" <<'EOF'
import sys
mode, counts, samples = sys.argv[1], sys.argv[2], sys.argv[3]
def unit_of(cpu):
    s = cpu // 4
    return {"core": "S%d-D0-C%d" % (s, cpu % 4 // 2), "socket": "S%d" % s}.get(mode, "")
def key_of(ev):
    for k, names in (("d0", ("0xd0", "LOCK_LOADS")), ("d1", ("0xd1", "L3_HIT")),
                     ("3c", ("0x3c", "CPU_CLK_UNHALTED"))):
        if any(n in ev for n in names):
            return k
cnt, last = {}, {}
for line in open(counts):
    f = line.rstrip("\n").split(";")
    if mode == "interval":  # time;value;unit;event: perf prints the cumulative count
        unit, val, ev = f[0], f[1], f[3]
    else:                   # unit;cpus;value;unit;event
        unit, val, ev = f[0], f[2], f[4]
    key = key_of(ev)
    if key and not ev.endswith(":p") and val.replace(".", "").isdigit():
        v = float(val)
        if mode == "interval":
            v, last[key] = v - last.get(key, 0), v
        cnt.setdefault(unit, {})[key] = v
bounds = sorted(cnt, key=float) if mode == "interval" else sorted(cnt)
t0 = int(sys.argv[4]) if mode == "interval" else 0
lat, alll = {}, {}
for line in open(samples):
    f = line.split()
    cpu, key, v = int(f[0]), key_of(f[1]), int(f[2])
    if mode == "interval":
        t = int(f[3].replace(".", "")) - t0  # ns since the rounds' time 0
        unit = next((b for b in bounds if t <= int(b.replace(".", ""))), None)
        if unit is None:
            continue
    else:
        unit = unit_of(cpu)
    lat.setdefault((unit, key), []).append(v)
    alll.setdefault(key, []).append(v)
for unit in bounds:
    for key, name in (("d0", "tma_lock_latency"), ("d1", "tma_l3_hit_latency")):
        if key not in cnt[unit]:
            continue
        vals = lat.get((unit, key))
        if vals:
            r = round(sum(vals) / len(vals))
        elif mode == "interval":
            r = round(float(sys.argv[5]))
            print("none %s" % unit, file=sys.stderr)
        else:
            r = round(sum(alll[key]) / len(alll[key]))
        print("%s %s %.6f" % (unit, name, 100 * cnt[unit][key] * r / cnt[unit]["3c"]))
EOF

# 2. per core and per socket from one recording; the samples spread over the CPUs by rate
sim gnr "$T/t.log" 4000 env PMUSIM_PEBS_RATE=4000 "$P" record -q --tpebs -M tma_L4_group \
	--metrics "$M" -a --count-per-cpu --duration 30 -o "$T/t.pmt" 2>"$T/err" ||
	bad "tpebs: exit $?: $(cat "$T/err")"
zstd -dc "$T/t.pmt" | SYSFS_PATH=$T/gnr "$X86" script -i - -F cpu,event,retire_lat 2>/dev/null |
	sed -n 's|^ *\[0*\([0-9][0-9]*\)\] *cpu/\(event=0x..\)[^ ]* *\([0-9][0-9]*\)$|\1 \2 \3|p' >"$T/lat.txt"
for mode in core socket; do
	zstd -dc "$T/t.pmt" | SYSFS_PATH=$T/gnr "$X86" stat -x';' report --per-$mode -i - 2>&1 |
		grep '^S[0-9]' >"$T/rep_$mode.csv"
	python3 "$T/rows.py" $mode "$T/rep_$mode.csv" "$T/lat.txt" | sort >"$T/want_$mode.txt"
	"$P" metrics "$T/t.pmt" --metrics "$M" -M tma_L4_group --csv --per-$mode \
		--retire-latency-per-unit 2>"$T/err_$mode" | awk -F, 'NR > 1 { print $2, $4, $5 }' |
		sort >"$T/got_$mode.txt"
	n=$([ $mode = core ] && echo 8 || echo 4)
	[ "$(wc -l <"$T/want_$mode.txt")" = $n ] && cmp -s "$T/want_$mode.txt" "$T/got_$mode.txt" ||
		{ bad "metrics --per-$mode (perf 7.3 + python < > pmutrace)"; diff "$T/want_$mode.txt" "$T/got_$mode.txt"; cat "$T/err_$mode"; }
done
units=$(awk '{ print $1 }' "$T/lat.txt" | sort -u | tr '\n' ' ')

# 3. -I: each interval's :R from the samples of that interval. The samples come at 250/s per
# CPU for 1 s, the recording runs 3 s: the last intervals have none and take the table's
# default (RetirementLatencyMean 63.76 of gnr_tpebs.json, rint 64). The rounds' time 0 in
# the samples' clock is read from the container as FORMAT.md lays out its count-clock file
TM=$HERE/../../fixtures/metrics/tiny-metrics.json EVJ=$HERE/../../fixtures/events/gnr_tpebs.json
rm -f "$T/i.log"
env SYSFS_PATH="$T/gnr" PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 PMUSIM_PEBS_SAMPLES=2000 \
	PMUSIM_PEBS_SEED=11 PMUSIM_PEBS_RATE=250 PMUSIM_LOG="$T/i.log" LD_PRELOAD="$T/sim.so" \
	"$P" record -q --tpebs -M tma_lock_latency --metrics "$TM" --events "$EVJ" -a \
	--count-interval 200 --duration 3 -o "$T/i.pmt" 2>"$T/err" || bad "-I: exit $?: $(cat "$T/err")"
cat >"$T/t0.py" <<'EOF'
import struct, subprocess, sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"PMTFILE\0" + struct.pack("<I", 4))
p = i + 8 + 4 + 1 + 20 + 3
p += 2 + struct.unpack("<H", d[p:p + 2])[0] + 8
out = subprocess.run(["zstd", "-dc"], input=d[p:p + 64], capture_output=True).stdout
print(struct.unpack("<Q", out[:8])[0] if i >= 0 and len(out) == 16 else "none")
EOF
t0=$(python3 "$T/t0.py" "$T/i.pmt")
zstd -dc "$T/i.pmt" | SYSFS_PATH=$T/gnr "$X86" stat -x';' report -i - 2>&1 | grep '^[0-9]' >"$T/rep_i.csv"
zstd -dc "$T/i.pmt" | SYSFS_PATH=$T/gnr "$X86" script --ns -i - -F cpu,event,retire_lat,time \
	2>/dev/null | sed -n 's|^ *\[0*\([0-9][0-9]*\)\] *\([0-9.]*\): *\([^ ]*\): *\([0-9][0-9]*\)$|\1 \3 \4 \2|p' >"$T/lat_i.txt"
python3 "$T/rows.py" interval "$T/rep_i.csv" "$T/lat_i.txt" "$t0" 63.76 2>"$T/none.txt" |
	sort >"$T/want_i.txt"
"$P" metrics "$T/i.pmt" --metrics "$TM" --events "$EVJ" -M tma_lock_latency --csv \
	--retire-latency-per-unit 2>"$T/err_i" | awk -F, 'NR > 1 { print $1, $4, $5 }' | sort >"$T/got_i.txt"
first=$(awk '{ print $2; exit }' "$T/none.txt")
[ "$t0" != none ] && [ "$(wc -l <"$T/want_i.txt")" -ge 14 ] && [ -n "$first" ] &&
	[ "$(wc -l <"$T/lat_i.txt")" = 2000 ] && cmp -s "$T/want_i.txt" "$T/got_i.txt" ||
	{ bad "metrics -I per interval (perf 7.3 + python < > pmutrace; t0 $t0, first interval without samples ${first:-none})"; diff "$T/want_i.txt" "$T/got_i.txt"; cat "$T/err_i"; }
grep -q "no retire-latency samples of mem_inst_retired.lock_loads in interval $first (the first without): using the table's default, 64" "$T/err_i" ||
	bad "-I: no warning naming the first interval without samples ($first): $(cat "$T/err_i")"
with=$(($(wc -l <"$T/want_i.txt") - $(wc -l <"$T/none.txt")))
# the container's frames decompressed ahead on threads (-j) or not: the same rows and messages
for j in 1 3; do
	"$P" metrics "$T/i.pmt" --metrics "$TM" --events "$EVJ" -M tma_lock_latency --csv \
		--retire-latency-per-unit -j $j >"$T/j$j.csv" 2>"$T/j$j.err"
done
[ -s "$T/j1.csv" ] && cmp -s "$T/j1.csv" "$T/j3.csv" && cmp -s "$T/j1.err" "$T/j3.err" ||
	bad "metrics -j 1 and -j 3 differ: $(diff "$T/j1.csv" "$T/j3.csv" | head -3 | tr '\n' ' ')"

# 4. no topology in the recording: --per-core says so
sim flat "$T/f.log" 200 "$P" record -q --tpebs -M tma_L4_group --metrics "$M" -a \
	--count-per-cpu --duration 30 -o "$T/f.pmt" 2>"$T/err" || bad "flat: exit $?: $(cat "$T/err")"
"$P" metrics "$T/f.pmt" --metrics "$M" -M tma_L4_group --per-core >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q "$T/f.pmt: --per-core needs the CPU topology (header feature CPU_TOPOLOGY), which this recording lacks" "$T/err" ||
	bad "--per-core without a topology: exit $rc, '$(cat "$T/err")'"

# 5. the real kernel: its perf clock is not CLOCK_MONOTONIC (17 ms apart on the test VM);
# the count clock places the rounds so that a workload's samples, as perf 6.1's script
# times them, fall after time 0 and within the last round. The workload spins 300 ms of its
# own CPU time, not of the clock's: cpu-clock samples only while it runs, so on a loaded
# machine a 300 ms wall-clock spin gave fewer than the 50 samples asked for
if command -v perf >/dev/null; then
	cat >"$T/spin.c" <<'EOF'
#include <time.h>
int main(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 300000000L);
	return 0;
}
EOF
	cc -O2 -o "$T/spin" "$T/spin.c"
	"$P" record -q --no-bundle -e cpu-clock -c 1000000 --count-events task-clock \
		--count-interval 50 -o "$T/k.pmt" -- "$T/spin" 2>"$T/err" || bad "kernel: exit $?: $(cat "$T/err")"
	kt0=$(python3 "$T/t0.py" "$T/k.pmt")
	last=$(zstd -dc "$T/k.pmt" | perf stat report -i - 2>&1 | awk '/task-clock/ && $1 ~ /^[0-9.]+$/ { t = $1 } END { print t }')
	zstd -dc "$T/k.pmt" | perf script --ns -i - -F time,event 2>/dev/null |
		awk -v t0="$kt0" -v last="$last" '/cpu-clock:/ { t = $1; sub(":", "", t); sub("\\.", "", t)
			n++; if (t + 0 <= t0 + 0 || t + 0 > t0 + last * 1e9) out++ }
			END { print n + 0, out + 0 }' >"$T/k.txt"
	read -r nk outk <"$T/k.txt"
	[ "$kt0" != none ] && [ "$nk" -gt 50 ] && [ "$outk" = 0 ] ||
		bad "kernel: $outk of $nk samples outside the counting rounds (t0 $kt0, last round $last s)"
else
	echo "note: no perf 6.1: the real-kernel clock check is left out"
fi

[ "$fail" = 0 ] || exit 1
echo "OK: topology as perf 7.3 reads it; :R per core and per socket as perf 7.3's counts and samples give (samples on CPUs $units); -I: $with intervals with their own samples' :R, $(wc -l <"$T/none.txt") with the table's default"
