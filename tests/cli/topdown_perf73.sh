#!/bin/sh
# Issue 15 item 8: real perf stat output names the PERF_METRICS fields topdown-* (and the
# slots TOPDOWN.SLOTS); Intel perfmon tables name them PERF_METRICS.* and
# TOPDOWN.SLOTS:perf_metrics. x86 perf 7.3 `stat -M TopdownL1 -x,` on the simulated Intel
# core PMU (tests/pmusim/pebs.c, fake GNR sysfs) prints its tma_* level-1 values; from
# that same CSV, pmutrace metrics gives the same values (to perf's one decimal) with
#   - perf's pmu-events GNR table (-M TopdownL1),
#   - Intel's perfmon GNR table (-M TmaL1: Retiring, Bad_Speculation, ...),
# and `metrics --topdown` from the raw slots and PERF_METRICS gives them too. Two
# PERF_METRICS values: topdown.txt's test vector, and one whose level-1 bytes add up past
# 0xff (perf's tma_* formulas divide by their sum: 25% each, not 400% in all).
#   topdown_perf73.sh PMUTRACE ORACLES_DIR SHARED_DIR SOURCE_DIR
set -u
P=$1 X=${2:-}/bin/perf-7.3 D=${3:-}/data/tpebs SRC=$4
. "$SRC/tests/stat/sim_oracle_setup.sh"
sim_oracle_setup gnr gnr "$D/GNR_metrics_graniterapids_metrics.json"
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
SLOTS=8000000
for pm in 0x40300C085F501040 0x80808080A0A0A0A0; do
	# INT_MISC.UOP_DROPPING (0x10ad) counts nothing; slots at 1e6 per CPU of 8
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_PERF_METRICS=$pm PMUSIM_RATES=0x10ad:0,0x400:1000000 \
		LD_PRELOAD=$T/sim.so timeout 60 "$X" stat -M TopdownL1 -a -x, -- true \
		2>"$T/td.csv" >/dev/null
	awk -F, '$7 ~ /tma_/ { sub(/^%  */, "", $7); print $7, $6 }' "$T/td.csv" | sort >"$T/perf.txt"
	[ "$(wc -l <"$T/perf.txt")" = 4 ] || { bad "$pm: perf 7.3 printed: $(cat "$T/td.csv")"; continue; }
	grep -q ',TOPDOWN.SLOTS,' "$T/td.csv" && grep -q ',topdown-retiring,' "$T/td.csv" ||
		bad "$pm: perf 7.3's CSV does not name the events as this test expects"
	# pmutrace's CSV rows "NAME,VALUE" -> "tma_name VALUE" to one decimal
	rows() { awk -F, 'NR > 1 && $5 != "" { n = tolower($4); if (n !~ /^tma_/) n = "tma_" n
		printf "%s %.1f\n", n, $5 }' | sort; }
	"$P" metrics --metrics "$D/gnr-metrics.json" --counts "$T/td.csv" -M TopdownL1 --csv \
		2>"$T/err" | rows >"$T/perf_table.txt"
	cmp -s "$T/perf.txt" "$T/perf_table.txt" ||
		bad "$pm: perf's table: $(tr '\n' ';' <"$T/perf_table.txt"), perf 7.3 $(tr '\n' ';' <"$T/perf.txt") $(head -3 "$T/err")"
	"$P" metrics --metrics "$D/GNR_metrics_graniterapids_metrics.json" --counts "$T/td.csv" \
		-M Retiring,Bad_Speculation,Frontend_Bound,Backend_Bound --csv 2>"$T/err" |
		rows >"$T/intel_table.txt"
	cmp -s "$T/perf.txt" "$T/intel_table.txt" ||
		bad "$pm: Intel's table: $(tr '\n' ';' <"$T/intel_table.txt"), perf 7.3 $(tr '\n' ';' <"$T/perf.txt") $(grep -v skipped "$T/err" | head -3)"
	"$P" metrics --topdown --slots $SLOTS --perf-metrics $pm --csv 2>"$T/err" |
		awk -F, '$2 == 1 { printf "%s %.1f\n", $1, $3 }' | sort >"$T/topdown.txt"
	cmp -s "$T/perf.txt" "$T/topdown.txt" ||
		bad "$pm: --topdown: $(tr '\n' ';' <"$T/topdown.txt"), perf 7.3 $(tr '\n' ';' <"$T/perf.txt") $(head -3 "$T/err")"
done
[ $fail = 0 ] || exit 1
echo "OK: tma_* level 1 from perf 7.3's topdown-* counts equal perf's with both GNR tables and --topdown"
