#!/bin/sh
# Issue 11 test b: PEBS sampling with retire latency on the simulated Intel core PMU
# (tests/pmusim/pebs.c in the pmusim preload, a fake GNR sysfs tree). Each config yields
# PMUSIM_PEBS_SAMPLES samples with the same retire latencies whoever records them. Checks:
#  1. pmutrace record -W -a keeps every produced sample (producer log, container summary);
#  2. pmutrace calibrate of the container prints the statistics that an awk over x86 perf
#     7.3's `perf script -F event,retire_lat` of the same container (zstd -dc | perf)
#     computes: count, mean, median, min, max, p90, p99, mode;
#  3. perf 7.3 recording the same simulated PMU gets the same distributions (perf script of
#     both files), and pmutrace calibrate reads perf's file to the same table; with -d,
#     --phys-data and --data-page-size both files hold the same samples field by field;
#  4. a per-task recording (workload) keeps every sample too;
#  5. counting reads: perf 7.3 stat -A of a group and a single event under multiplexing
#     (PMUSIM_RUNNING_PCT=50) prints, per CPU, what the producer says it counted, scaled;
#  5b. topdown groups read PERF_METRICS fractions (perf 7.3's TopdownL1 = topdown.txt's
#     test vector);
#  6. record --tpebs -M: the metrics' :R events sampled whole, calibrate as in 2, and
#     pmutrace metrics TRACE applies rint(mean) of perf's reading of the samples; the
#     metrics' other events counted into the same container: perf 7.3 stat report reads
#     the producer's counts from it, and metrics TRACE alone equals metrics --counts on
#     those counts; with per-CPU counts and --retire-latency-per-cpu each CPU's rows use
#     rint(mean) of that CPU's samples in perf 7.3's reading of the container, and a
#     recording with --count-per-cpu gives the same rows alone as with perf's -A report of
#     its counts;
#  7. perf 7.3 stat --record-tpebs -M tma_lock_latency on the same simulated PMU prints the
#     :R value and metric that pmutrace's --tpebs recording and metrics TRACE give, and its
#     record child opens the sampled event per CPU as pmutrace --tpebs does.
#   pmusim_pebs.sh PMUTRACE [ORACLES_DIR]
set -u
P=$1 ORC=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
X86=$ORC/bin/perf-7.3
[ -n "$ORC" ] && [ -x "$X86" ] || { echo "SKIP: x86 perf 7.3 oracle not built (tests/oracles/setup)"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: no zstd"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/../pmusim/pmusim.c" \
	-ldl -lpthread || exit 1
sh "$HERE/../oracles/fake_intel_sysfs.sh" "$T/gnr" gnr
N=20000
# MEM_INST_RETIRED.LOCK_LOADS and MEM_LOAD_RETIRED.L3_HIT (GNR's event JSON), named as
# perf's tpebs names its events
EV1=cpu/event=0xd0,umask=0x21,name=MEM_INST_RETIRED.LOCK_LOADS/pp
EV2=cpu/event=0xd1,umask=0x4,name=MEM_LOAD_RETIRED.L3_HIT/p

sim() { # LOG SAMPLES -- command: SIGINT once every sample was written
	log=$1 n=$2
	shift 2
	rm -f "$log"
	env SYSFS_PATH="$T/gnr" PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_PEBS_SAMPLES="$n" PMUSIM_PEBS_SEED=11 PMUSIM_LOG="$log" \
		PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$T/sim.so" "$@"
}
produced() { awk -v c="$2" '$1 == "pebs" && $5 == c { s += $7 } END { print s + 0 }' "$1"; }
# perf script lines "NAME: LAT" into calibrate's table: name count mean median min max p90
# p99 mode (median and pNN the sorted value at floor(NN/100 x count), the smallest mode)
stats() {
	sed -n 's/^ *\([^ :]*\): *\([0-9][0-9]*\)$/\1 \2/p' | sort -k1,1 -k2,2n | awk '
	function flush() {
		if (!n) return
		m = 0; mode = 0
		for (i = 0; i < n; i++) if (cnt[v[i]] > m) { m = cnt[v[i]]; mode = v[i] }
		printf "%s %d %.2f %d %d %d %d %d %d\n", name, n, sum / n, v[int(n / 2)], v[0],
			v[n - 1], v[int(0.9 * n)], v[int(0.99 * n)], mode
		n = 0; sum = 0; split("", cnt)
	}
	{ $1 = tolower($1) }
	$1 != name { flush(); name = $1 }
	{ v[n++] = $2; sum += $2; cnt[$2]++ }
	END { flush() }'
}
# perf 7.3 script's FIELDS of each sample of FILE after its CPU and time in ns; `once` drops
# the records perf's own recording holds twice: perf_mmap__push (tools/perf/util/mmap.c)
# reads data_head twice, pushes up to the second value and consumes up to the first, so a
# record written between the two reads is written again in the next round (CI: sample
# 7879 of LOCK_LOADS twice at the same ns on CPU 6, a FINISHED_ROUND between them; a real
# PMU writes during the read too). Two simulated samples of an event on a CPU never share
# a nanosecond. pmutrace's recordings are never filtered: their counts are checked whole.
script_ns() { "$X86" script --ns -i "$1" -F cpu,time,$2 2>/dev/null; }
once() { awk -v twice="$T/twice" '!seen[$0]++ { print; next } { print >>twice }'; }
strip_cpu_time() { sed 's/^ *\[[0-9]*\] *[0-9]*\.[0-9]*: *//'; }
calib() { # TRACE: calibrate's table without its header
	"$P" calibrate "$1" -o "$T/cal.json" | awk 'NR > 1 { print $1, $2, $3, $4, $5, $6, $7, $8, $9 }' | sort
}

# 1. system-wide, two events, a fixed period
sim "$T/r.log" $N "$P" record -q -W -e "$EV1" -e "$EV2" -c 1009 -a --duration 30 \
	-o "$T/r.pmt" 2>"$T/err" || bad "record: exit $?: $(cat "$T/err")"
for c in 0x21d0 0x4d1; do
	[ "$(produced "$T/r.log" $c)" = $N ] || bad "record: config $c produced $(produced "$T/r.log" $c) of $N"
done
"$P" info "$T/r.pmt" | grep -q "MEM_INST_RETIRED.LOCK_LOADS: $N samples; MEM_LOAD_RETIRED.L3_HIT: $N samples" ||
	bad "record: the container holds '$("$P" info "$T/r.pmt" | grep holds)', want $N of each"

# 2. calibrate against perf's reading of the same container
zstd -dc "$T/r.pmt" | "$X86" script -i - -F event,retire_lat 2>/dev/null | stats >"$T/perf_r.txt"
calib "$T/r.pmt" >"$T/cal_r.txt"
[ "$(wc -l <"$T/perf_r.txt")" = 2 ] && cmp -s "$T/perf_r.txt" "$T/cal_r.txt" ||
	{ bad "calibrate differs from perf 7.3 script's statistics (perf < > calibrate)"; diff "$T/perf_r.txt" "$T/cal_r.txt"; }

# 3. perf 7.3 records the same simulated PMU
sim "$T/p.log" $N timeout 60 "$X86" record -q -W -e "$EV1" -e "$EV2" -c 1009 -a \
	-o "$T/p.data" -- sleep 30 >"$T/perr" 2>&1
for c in 0x21d0 0x4d1; do
	[ "$(produced "$T/p.log" $c)" = $N ] || bad "perf 7.3: config $c produced $(produced "$T/p.log" $c) of $N: $(tail -3 "$T/perr")"
done
script_ns "$T/p.data" event,retire_lat | once | strip_cpu_time | stats >"$T/perf_p.txt"
cmp -s "$T/perf_p.txt" "$T/perf_r.txt" ||
	{ bad "perf 7.3's recording and pmutrace's differ (perf's < > pmutrace's)"; diff "$T/perf_p.txt" "$T/perf_r.txt"; }
# calibrate reads perf's file as perf 7.3 script does, its twins included (CI: failed here
# with the deduplicated statistics, the run after `once` was added)
script_ns "$T/p.data" event,retire_lat | strip_cpu_time | stats >"$T/perf_p_all.txt"
calib "$T/p.data" >"$T/cal_p.txt"
cmp -s "$T/cal_p.txt" "$T/perf_p_all.txt" || {
	bad "calibrate reads perf 7.3's recording differently (perf < > calibrate)"
	diff "$T/perf_p_all.txt" "$T/cal_p.txt"
}

# 4. per task: the workload's events (enable on exec, inherited)
# (the producer's SIGINT may stop the recording while sleep runs: sleep then dies of the
# SIGTERM it is sent and pmutrace exits 143, as perf record does)
rc=0
sim "$T/w.log" 5000 "$P" record -q -W -e "$EV2" -o "$T/w.pmt" -- sleep 1 2>"$T/err" || rc=$?
[ $rc = 0 ] || [ $rc = 143 ] || bad "workload: exit $rc: $(cat "$T/err")"
"$P" info "$T/w.pmt" | grep -q "MEM_LOAD_RETIRED.L3_HIT: 5000 samples" ||
	bad "workload: '$("$P" info "$T/w.pmt" | grep holds)', want 5000 samples"

# 5. counting reads with GROUP and multiplexing, as perf 7.3 scales them
rm -f "$T/c.log"
SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 PMUSIM_RUNNING_PCT=50 \
	PMUSIM_LOG=$T/c.log LD_PRELOAD=$T/sim.so timeout 60 "$X86" stat -x, -A -a \
	-e '{cpu/event=0xc0/,cpu/event=0x3c/}' -e cpu/event=0xc4/ -- true 2>"$T/stat.csv" >/dev/null
awk -F, '/^CPU/ { sub("CPU", "", $1); e = $4; sub(/.*event=/, "", e); sub("/", "", e)
	printf "%d %s %s %s\n", $1, e, $2, $6 }' "$T/stat.csv" | sort >"$T/stat.txt"
awk '$1 == "count" { c = $5; sub("0x", "", c)
	printf "%d 0x%s %d %.2f\n", $3, c, $9 * $11 / $13, 100 * $13 / $11 }' "$T/c.log" | sort >"$T/want.txt"
[ "$(wc -l <"$T/stat.txt")" = 24 ] && cmp -s "$T/stat.txt" "$T/want.txt" ||
	{ bad "perf 7.3 stat's counts are not the producer's (perf < > producer)"; diff "$T/stat.txt" "$T/want.txt" | head; }

# 3b. with -d --phys-data --data-page-size the recordings hold the same samples field by
# field (sample k of a config has the same values whoever records it)
F=event,ip,addr,phys_addr,data_page_size,weight,ins_lat,retire_lat
sim "$T/d.log" 3000 "$P" record -q -W -d --phys-data --data-page-size -e "$EV1" -c 1009 -a \
	--duration 30 -o "$T/d.pmt" 2>"$T/err" || bad "record -d: exit $?: $(cat "$T/err")"
sim "$T/pd.log" 3000 timeout 60 "$X86" record -q -W -d --phys-data --data-page-size -e "$EV1" \
	-c 1009 -a -o "$T/pd.data" -- sleep 30 >"$T/perr" 2>&1
zstd -dc "$T/d.pmt" | script_ns - $F | strip_cpu_time | sort >"$T/d_pmt.txt"
script_ns "$T/pd.data" $F | once | strip_cpu_time | sort >"$T/d_perf.txt"
[ "$(wc -l <"$T/d_pmt.txt")" = 3000 ] && cmp -s "$T/d_pmt.txt" "$T/d_perf.txt" ||
	{ bad "record -d: pmutrace's $(wc -l <"$T/d_pmt.txt") samples and perf 7.3's $(wc -l <"$T/d_perf.txt") differ"; diff "$T/d_pmt.txt" "$T/d_perf.txt" | head -5; }

# 5b. topdown: a slots group reads PERF_METRICS fractions; perf 7.3's TopdownL1 on them is
# topdown.txt's test vector 0x40300C085F501040 (tpebs.md section 4: retiring 25.1%, bad
# speculation 6.3%, frontend bound 31.4%, backend bound 37.3%), with INT_MISC.UOP_DROPPING
# (config 0x10ad) counting nothing
SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
	PMUSIM_RATES=0x10ad:0,0x400:1000000 LD_PRELOAD=$T/sim.so timeout 60 "$X86" stat \
	-M TopdownL1 -a -x, -- true 2>"$T/td.csv" >/dev/null
awk -F, '$7 ~ /tma_/ { sub(/^%  */, "", $7); print $7, $6 }' "$T/td.csv" | sort >"$T/td.txt"
printf '%s\n' "tma_backend_bound 37.3" "tma_bad_speculation 6.3" "tma_frontend_bound 31.4" \
	"tma_retiring 25.1" | cmp -s - "$T/td.txt" ||
	{ bad "topdown: perf 7.3's TopdownL1 on the simulated PERF_METRICS: $(tr '\n' ';' <"$T/td.txt")"; }

# 6. record --tpebs: the metrics' :R events sampled whole; calibrate equals perf's statistics
# of the container, and metrics TRACE applies rint(mean) of perf's reading of the samples
M=$HERE/../../fixtures/metrics/tpebs-raw-metrics.json
sim "$T/t.log" $N "$P" record -q --tpebs -M tma_L4_group --metrics "$M" -a --duration 30 \
	-o "$T/t.pmt" 2>"$T/err"
rc=$?
[ $rc = 0 ] && [ ! -s "$T/err" ] || bad "tpebs: exit $rc: $(cat "$T/err")"
"$P" info "$T/t.pmt" | grep -q "cpu/event=0xd0,umask=0x21,period=100007/p: $N samples; cpu/event=0xd1,umask=0x4,period=100021/p: $N samples" ||
	bad "tpebs: the container holds '$("$P" info "$T/t.pmt" | grep holds)'"
# perf reads the recording's counts against the CPUs of the sysfs tree it was made on
zstd -dc "$T/t.pmt" | SYSFS_PATH=$T/gnr "$X86" script -i - -F event,retire_lat 2>/dev/null |
	sed 's|cpu/\(event=[^/]*\)/p:|\1:|' | stats >"$T/perf_t.txt"
calib "$T/t.pmt" >"$T/cal_t.txt"
[ "$(wc -l <"$T/perf_t.txt")" = 2 ] && cmp -s "$T/perf_t.txt" "$T/cal_t.txt" ||
	{ bad "tpebs: calibrate differs from perf 7.3 script's statistics"; diff "$T/perf_t.txt" "$T/cal_t.txt"; }
# tma_lock_latency = 100 * LOCK_LOADS * LOCK_LOADS:R / clks, with :R = rint(mean) (perf's
# tpebs mean); perf stat -x';' counts, since the raw names hold commas
printf '%s\n' "1000000;;cpu/event=0xd0,umask=0x21,period=100007/;1000000;100.00;;" \
	"1000000;;cpu/event=0xd1,umask=0x4,period=100021/;1000000;100.00;;" \
	"2000000000;;cpu/event=0x3c/;1000000;100.00;;" >"$T/counts.csv"
"$P" metrics "$T/t.pmt" --metrics "$M" --counts "$T/counts.csv" -M tma_L4_group --csv \
	2>"$T/err" | awk -F, 'NR > 1 { print $4, $5 }' | sort >"$T/met.txt"
awk '{ m = $3; r = int(m + 0.5); if (r - m == 0.5 && r % 2) r--
	n = $1 ~ /0xd0/ ? "tma_lock_latency" : "tma_l3_hit_latency"
	printf "%s %.6f\n", n, 100 * 1000000 * r / 2000000000 }' "$T/perf_t.txt" | sort >"$T/met_want.txt"
cmp -s "$T/met.txt" "$T/met_want.txt" ||
	{ bad "metrics TRACE: (perf-derived < > pmutrace)"; diff "$T/met_want.txt" "$T/met.txt"; cat "$T/err"; }
# 6b. the metrics' other events were counted into the same container (perf stat record's
# records): perf 7.3's stat report of it gives the producer's counts (summed over the CPUs,
# each read once at the end), and metrics TRACE from the container alone equals metrics
# --counts on perf's reading of those counts
zstd -dc "$T/t.pmt" | SYSFS_PATH=$T/gnr "$X86" stat -x';' report -i - 2>&1 |
	grep -v '^<not counted>' >"$T/rep.csv"
# the events by the config the producer logs (umask << 8 | event)
awk -F';' '{ print $3, $1 }' "$T/rep.csv" | sed 's|^cpu/event=0xd0,umask=0x21,[^ ]*|0x21d0|
	s|^cpu/event=0xd1,umask=0x4,[^ ]*|0x4d1|; s|^cpu/event=0x3c/|0x3c|' | sort >"$T/rep.txt"
awk '$1 == "count" { s[$5] += $9 } END { for (c in s) print c, s[c] }' "$T/t.log" |
	sort >"$T/rep_want.txt"
[ "$(wc -l <"$T/rep.txt")" = 3 ] && cmp -s "$T/rep.txt" "$T/rep_want.txt" ||
	{ bad "tpebs: perf 7.3 stat report of the container's counts (< producer >)"; diff "$T/rep_want.txt" "$T/rep.txt"; cat "$T/rep.csv"; }
"$P" metrics "$T/t.pmt" --metrics "$M" -M tma_L4_group --csv >"$T/met_trace.csv" 2>"$T/err" ||
	bad "metrics TRACE (counts from the container): exit $?: $(cat "$T/err")"
"$P" metrics "$T/t.pmt" --metrics "$M" -M tma_L4_group --csv --counts "$T/rep.csv" \
	>"$T/met_counts.csv" 2>>"$T/err"
[ "$(wc -l <"$T/met_trace.csv")" = 3 ] && cmp -s "$T/met_trace.csv" "$T/met_counts.csv" ||
	{ bad "tpebs: metrics TRACE differs from metrics --counts on perf 7.3's reading of its counts"; diff "$T/met_counts.csv" "$T/met_trace.csv"; }

# 6c. --retire-latency-per-cpu: with per-CPU counts (perf stat -A's layout), each CPU's
# rows take rint(mean) of that CPU's own samples, as perf 7.3's script -F cpu,event,retire_lat
# of the container gives them; a CPU without samples of an event takes every CPU's mean
for c in 0 1 2 3 4 5 6 7; do
	printf 'CPU%d;1000000;;%s;1000000;100.00;;\n' $c cpu/event=0xd0,umask=0x21,period=100007/ \
		$c cpu/event=0xd1,umask=0x4,period=100021/
	printf 'CPU%d;2000000000;;cpu/event=0x3c/;1000000;100.00;;\n' $c
done >"$T/counts_pc.csv"
zstd -dc "$T/t.pmt" | SYSFS_PATH=$T/gnr "$X86" script -i - -F cpu,event,retire_lat 2>/dev/null |
	sed -n 's|^ *\[0*\([0-9][0-9]*\)\] *cpu/\(event=0x..\)[^ ]* *\([0-9][0-9]*\)$|\1 \2 \3|p' >"$T/pc_lat.txt"
awk 'function rint(m,  r) { r = int(m + 0.5); if (r - m == 0.5 && r % 2) r--; return r }
	FNR == NR { n = $1 ~ /0xd0/ ? "tma_lock_latency" : "tma_l3_hit_latency"; all[n] = rint($3); next }
	{ n = $2 == "event=0xd0" ? "tma_lock_latency" : "tma_l3_hit_latency"; s[$1 " " n] += $3; k[$1 " " n]++ }
	END { for (c = 0; c < 8; c++) for (n in all) { u = c " " n
		r = k[u] ? rint(s[u] / k[u]) : all[n]
		printf "CPU%d %s %.6f\n", c, n, 100 * 1000000 * r / 2000000000 } }' \
	"$T/perf_t.txt" "$T/pc_lat.txt" | sort >"$T/pc_want.txt"
"$P" metrics "$T/t.pmt" --metrics "$M" --counts "$T/counts_pc.csv" -M tma_L4_group --csv \
	--retire-latency-per-cpu 2>"$T/err" | awk -F, 'NR > 1 { print $2, $4, $5 }' | sort >"$T/pc.txt"
[ "$(wc -l <"$T/pc.txt")" = 16 ] && [ "$(wc -l <"$T/pc_lat.txt")" = $((2 * N)) ] &&
	cmp -s "$T/pc_want.txt" "$T/pc.txt" ||
	{ bad "metrics --retire-latency-per-cpu: (perf 7.3's per-CPU samples < > pmutrace)"; diff "$T/pc_want.txt" "$T/pc.txt" | head -6; }

# and from one recording made with --count-per-cpu: its counts per CPU, each CPU's own :R,
# the same rows as --counts on perf 7.3's stat -A report of that container
sim "$T/tp.log" $N "$P" record -q --tpebs -M tma_L4_group --metrics "$M" -a --count-per-cpu \
	--duration 30 -o "$T/tp.pmt" 2>"$T/err" || bad "tpebs --count-per-cpu: exit $?: $(cat "$T/err")"
zstd -dc "$T/tp.pmt" | SYSFS_PATH=$T/gnr "$X86" stat -A -x';' report -i - 2>&1 |
	grep '^CPU[0-9]*;[0-9]' >"$T/rep_pc.csv"
"$P" metrics "$T/tp.pmt" --metrics "$M" -M tma_L4_group --csv --retire-latency-per-cpu \
	2>"$T/err" >"$T/mt_pc.csv"
"$P" metrics "$T/tp.pmt" --metrics "$M" -M tma_L4_group --csv --retire-latency-per-cpu \
	--counts "$T/rep_pc.csv" 2>/dev/null >"$T/mc_pc.csv"
[ "$(wc -l <"$T/rep_pc.csv")" = 24 ] && [ "$(wc -l <"$T/mt_pc.csv")" = 17 ] &&
	cmp -s "$T/mt_pc.csv" "$T/mc_pc.csv" ||
	{ bad "tpebs --count-per-cpu: metrics TRACE per CPU differs from --counts on perf 7.3's stat -A report"; diff "$T/mc_pc.csv" "$T/mt_pc.csv" | head -6; head -3 "$T/rep_pc.csv"; }

# 7. against perf 7.3's own TPEBS (its events from its built-in GNR tables): `perf stat
# --record-tpebs -M tma_lock_latency` (its record child sampling the simulated PMU, the
# workload's samples kept) prints LOCK_LOADS:R and the metric; pmutrace record --tpebs with
# the same metric (tiny-metrics.json: upstream's formula) and the events' JSON
# (fixtures/events/gnr_tpebs.json) records the same hardware, and metrics TRACE with perf's
# own counts gives the same metric. perf runs its child as "perf" from PERF_EXEC_PATH: a
# shim there runs the oracle
mkdir -p "$T/shim"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$X86" >"$T/shim/perf"
chmod +x "$T/shim/perf"
rm -f "$T/pidfile"
PERF_EXEC_PATH=$T/shim SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
	PMUSIM_PEBS_SAMPLES=$N PMUSIM_PEBS_SEED=11 PMUSIM_PEBS_COMM=sleep \
	PMUSIM_PEBS_PIDFILE=$T/pidfile PMUSIM_ATTR_LOG=$T/ts_attrs.log LD_PRELOAD=$T/sim.so \
	timeout 60 "$X86" stat --record-tpebs -M tma_lock_latency -a -x, -- sleep 1 \
	2>"$T/ts.out" >/dev/null
grep '^[0-9]*,,' "$T/ts.out" | grep -v ':R,' >"$T/ts.csv"
want=$(awk -F, '$7 ~ /tma_lock_latency/ { print $6 }' "$T/ts.csv")
r73=$(awk -F, '$3 == "MEM_INST_RETIRED.LOCK_LOADS:R" { print $1 }' "$T/ts.out")
TM=$HERE/../../fixtures/metrics/tiny-metrics.json EVJ=$HERE/../../fixtures/events/gnr_tpebs.json
sim "$T/n.log" $N env PMUSIM_ATTR_LOG="$T/n_attrs.log" "$P" record -q --tpebs \
	-M tma_lock_latency --metrics "$TM" --events "$EVJ" -a --duration 30 -o "$T/n.pmt" 2>"$T/err"
"$P" info "$T/n.pmt" | grep -q "MEM_INST_RETIRED.LOCK_LOADS:p: $N samples" ||
	bad "tpebs (named): the container holds '$("$P" info "$T/n.pmt" | grep holds)': $(cat "$T/err")"
got=$("$P" metrics "$T/n.pmt" --metrics "$TM" --counts "$T/ts.csv" -M tma_lock_latency \
	--csv 2>/dev/null | awk -F, '$4 == "tma_lock_latency" { printf "%.1f", $5 }')
mean=$(awk '$1 ~ /0xd0/ { printf "%.0f", $3 }' "$T/perf_t.txt")
[ -n "$want" ] && [ "$got" = "$want" ] && [ "$r73" = "$mean" ] ||
	bad "perf 7.3 stat --record-tpebs: tma_lock_latency ${want:-none} (:R ${r73:-none}), pmutrace metrics of its --tpebs recording ${got:-none} (:R mean $mean): $(tail -3 "$T/ts.out")"
# and from the recording alone: its own counts (each counter read once at the end, as
# perf stat reads them) with its samples' retire latencies
alone=$("$P" metrics "$T/n.pmt" --metrics "$TM" -M tma_lock_latency --csv 2>"$T/err" |
	awk -F, '$4 == "tma_lock_latency" { printf "%.1f", $5 }')
[ -n "$want" ] && [ "$alone" = "$want" ] ||
	bad "perf 7.3 stat --record-tpebs: tma_lock_latency ${want:-none}, pmutrace metrics of its --tpebs recording alone ${alone:-none}: $(cat "$T/err")"
# and its record child opened LOCK_LOADS for sampling as pmutrace --tpebs opened it (the
# simulator's log of every open: config, period, sample_type, read_format, flags, per CPU)
grep 'config 0x21d0 period [1-9]' "$T/ts_attrs.log" | sort >"$T/ts_sampled.txt"
grep 'config 0x21d0 period [1-9]' "$T/n_attrs.log" | sort >"$T/n_sampled.txt"
[ "$(wc -l <"$T/ts_sampled.txt")" = 8 ] && cmp -s "$T/ts_sampled.txt" "$T/n_sampled.txt" ||
	{ bad "perf 7.3's tpebs child and pmutrace --tpebs open LOCK_LOADS differently (perf < > pmutrace)"; diff "$T/ts_sampled.txt" "$T/n_sampled.txt" | head -4; }
[ "$fail" = 0 ] || exit 1
[ -s "$T/twice" ] && echo "note: perf 7.3's recordings held $(wc -l <"$T/twice") record(s) twice, counted once: $(head -1 "$T/twice")"
echo "OK: tma_lock_latency $got% as perf 7.3 stat --record-tpebs (:R $r73); $N samples x 2 events recorded whole by pmutrace and perf 7.3, calibrate = perf script statistics ($(tr '\n' ';' <"$T/cal_r.txt")), 24 counts read as perf 7.3 reads them"
