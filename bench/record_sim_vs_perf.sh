#!/bin/sh
# The highest simulated SPE producer rate each recorder keeps up with, nothing lost:
# pmutrace record against arm64 perf 7.3 (under qemu-user) on the same simulated PMU
# (tests/pmusim), same command line (-e arm_spe_0// -C 0 -m 64,1024 -- sleep SEC), same
# producer (PMUSIM_RATE, 64 KiB per driver interrupt). Losses are the producer's own count
# (its log at close: TRUNCATED areas, records dropped from a full data ring), so both
# recorders are judged by the same ledger. perf runs emulated: its rate says what perf
# keeps up with here, not on an arm64 server.
#   sh bench/record_sim_vs_perf.sh build/cli/pmutrace [ORACLES=/var/cache/pmutrace-oracles]
#     [RATES="25 50 100 200 400"] [SEC=2]
set -eu
P=$1 ORC=${2:-/var/cache/pmutrace-oracles} RATES=${3:-25 50 100 200 400} SEC=${4:-2}
HERE=$(cd "$(dirname "$0")/.." && pwd)
ARM=$ORC/bin/perf-7.3-arm64
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/tests/pmusim/pmusim.c" -ldl -lpthread
aarch64-linux-gnu-gcc -shared -fPIC -O2 -o "$T/sim64.so" "$HERE/tests/pmusim/pmusim.c" \
	-ldl -lpthread
sh "$HERE/tests/pmusim/fake_sysfs.sh" "$T/fs" 1 arm_spe_0:8:0:1024
max=0
for r in $RATES; do [ "$r" -gt "$max" ] && max=$r; done
# enough records for the fastest rate's whole run (16384 records of 64 bytes a MiB)
"$P" synth --records $((max * SEC * 16384 + 16384)) --seed 1 --mix n1 -o "$T/a.spe" >/dev/null
sum() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }' "$1"; }
run() { # LABEL RATE RECORDER...
	label=$1 rate=$2
	shift 2
	rm -f "$T/log" "$T/o.data"
	python3 "$HERE/bench/rusage.py" "$T/time" env SYSFS_PATH="$T/fs" PERF_CPUID=0x410fd0c0 \
		PMUSIM_TYPE=8 PMUSIM_SPE="$T/a.spe" PMUSIM_LOG="$T/log" PMUSIM_CHUNK=65536 \
		PMUSIM_RATE=$((rate * 1000000)) "$@" record -e arm_spe_0// -C 0 -m 64,1024 \
		-o "$T/o.data" -- sleep "$SEC" >/dev/null 2>&1 || true
	read -r _wall user sys _rss <"$T/time"
	prod=$(sum "$T/log" produced) tr=$(sum "$T/log" truncated) dl=$(sum "$T/log" data_lost)
	awk -v l="$label" -v r="$rate" -v p="$prod" -v t="$tr" -v d="$dl" -v c="$user $sys" \
		'BEGIN { split(c, x, " "); printf "  %-9s producer %4d MB/s: %6.1f MB produced, %s truncated, %s AUX records lost, CPU %.2f s%s\n", l, r, p / 1e6, t, d, x[1] + x[2], t + d ? "" : "  (lossless)" }'
}
for r in $RATES; do
	run pmutrace "$r" env LD_PRELOAD="$T/sim.so" "$P"
	[ -x "$ARM" ] && run "perf 7.3" "$r" env QEMU_SET_ENV=LD_PRELOAD="$T/sim64.so" "$ARM"
done
