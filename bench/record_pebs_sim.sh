#!/bin/sh
# pmutrace record and x86 perf 7.3 record against the simulated Intel core PMU
# (tests/pmusim/pebs.c): how fast each takes PEBS samples (-W, WEIGHT_STRUCT) from 8 CPU
# rings into its file, the producer waiting for room rather than dropping, so the figure
# is the recorder's drain rate (the producer threads share the 2 vCPUs with it).
# Each line counts the samples the recorder's own summary reports (2 x SAMPLES_PER_EVENT
# when nothing was lost).
#   sh bench/record_pebs_sim.sh build/cli/pmutrace [SAMPLES_PER_EVENT=500000] [ORACLES_DIR]
set -eu
P=$1 N=${2:-500000} ORC=${3:-/var/cache/pmutrace-oracles}
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/tests/pmusim/pmusim.c" -ldl -lpthread
sh "$HERE/tests/oracles/fake_intel_sysfs.sh" "$T/gnr" gnr
EV="-W -e cpu/event=0xd0,umask=0x21/pp -e cpu/event=0xd1,umask=0x4/p -c 1009 -a"
run() { # LABEL OUTPUT command...
	label=$1 out=$2
	shift 2
	python3 "$HERE/bench/rusage.py" "$T/time" env SYSFS_PATH="$T/gnr" \
		PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 PMUSIM_PEBS_SAMPLES="$N" \
		PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$T/sim.so" "$@" >/dev/null 2>"$T/err" || true
	read -r wall user sys rss <"$T/time"
	# the samples each recorder says it wrote (its summary line)
	got=$(sed -n 's/.*[ (]\([0-9][0-9]*\) samples[),].*/\1/p' "$T/err" | head -1)
	awk -v l="$label" -v n="${got:-0}" -v w="$wall" -v u="$user" -v y="$sys" -v r="$rss" \
		-v o="$(stat -c %s "$out" 2>/dev/null || echo 0)" \
		'BEGIN { printf "%s: %d samples in %.2f s = %.2f M samples/s; CPU %.2f s; RSS %.0f MB; file %.1f MB\n", l, n, w, n / w / 1e6, u + y, r / 1024, o / 1e6 }'
}
# shellcheck disable=SC2086
run "pmutrace record -z 3" "$T/p.pmt" "$P" record $EV --duration 120 -o "$T/p.pmt"
if [ -x "$ORC/bin/perf-7.3" ]; then
	# shellcheck disable=SC2086
	run "perf 7.3 record" "$T/p.data" "$ORC/bin/perf-7.3" record $EV -o "$T/p.data" -- sleep 120
fi
