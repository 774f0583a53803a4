#!/bin/sh
# pmutrace record against the simulated SPE PMU (tests/pmusim): how fast it drains and
# stores AUX data, and the highest producer rate it keeps up with, nothing lost, on this
# machine. One producer (one CPU ring), 4 MiB AUX area.
#   sh bench/record_sim.sh build/cli/pmutrace [MB=512]
set -eu
P=$1 MB=${2:-512}
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/tests/pmusim/pmusim.c" -ldl -lpthread
sh "$HERE/tests/pmusim/fake_sysfs.sh" "$T/fs" 1 arm_spe_0:8:0:1024
"$P" synth --records $((MB * 16384)) --seed 1 --mix n1 -o "$T/a.spe"
run() { # LABEL ENV... -- record args
	label=$1
	shift
	python3 "$HERE/bench/rusage.py" "$T/time" env SYSFS_PATH="$T/fs" PMUSIM_TYPE=8 \
		PMUSIM_SPE="$T/a.spe" PMUSIM_LOG="$T/log" PMUSIM_CHUNK=65536 PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$T/sim.so" \
		"$@" >/dev/null 2>"$T/err" || true
	aux=$(sed -n 's/.*MB captured in \([0-9.]*\) s (.*, \([0-9.]*\) MB AUX).*/\2 \1/p' "$T/err")
	set -- ${aux:-0 1}
	read -r wall user sys _rss <"$T/time"
	trunc=$(sed -n 's/.*AUX: \([0-9]*\) truncated.*/\1/p' "$T/err")
	out=$(stat -c %s "$T/o.data" 2>/dev/null || echo 0)
	# -v: the recorder's own thread (rings, records, the container's input side; zstd's
	# workers and the producer thread excluded)
	drain=$(sed -n 's/.*drain thread: \([0-9.]*\) CPU s, \([0-9]*\) MB\/s.*/ drain thread \1 CPU s = \2 MB\/s;/p' "$T/err")
	awk -v l="$label" -v mb="$1" -v s="$2" -v u="$user" -v y="$sys" -v o="$out" -v t="${trunc:-0}" -v d="$drain" \
		'BEGIN { printf "%s: %.0f MB AUX in %.2f s = %.0f MB/s;%s CPU %.2f s (%.2f s per GB); output %.0f MB; truncated %d\n", l, mb, s, mb / s, d, u + y, (u + y) * 1000 / mb, o / 1e6, t }'
	rm -f "$T/log" "$T/o.data"
}
echo "AUX from the simulated producer, unthrottled ($MB MB):"
for z in 1 3; do
	run "  -z $z" "$P" record -v -z $z -e arm_spe_0// -C 0 -m 64,1024 --duration 60 -o "$T/o.data"
done
echo "highest producer rate kept up with, nothing lost (-z 3, 3 s each):"
for rate in 100 200 400 800 1600; do
	run "  producer $rate MB/s" env PMUSIM_RATE=$((rate * 1000000)) "$P" record -e arm_spe_0// \
		-C 0 -m 64,1024 --duration 3 -o "$T/o.data"
done
