#!/bin/sh
# The simulated SPE PMU (tests/pmusim) across a teardown with the event still enabled: its
# producer must stop writing when the rings are unmapped, as the kernel does, and before
# the fix it faulted there (SIGSEGV in the producer thread while close() joined it).
#   pmusim_unmap.sh PMUTRACE
set -u
P=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v cc >/dev/null || { echo "SKIP: no C compiler for the preload"; exit 77; }
cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/../pmusim/pmusim.c" -ldl -lpthread || exit 1
cc -O2 -o "$T/client" "$HERE/../pmusim/unmap_client.c" || exit 1
"$P" synth --records 20000 --seed 1 --mix n1 -o "$T/r.spe" || exit 1
fail=0
# with records to write (the area fills and TRUNCATED stops it until the re-enable) and
# with none left (the producer still reads the ring's head on every turn)
for spe in "$T/r.spe" /dev/null; do
	for i in 1 2 3; do
		out=$(env PMUSIM_TYPE=8 PMUSIM_SPE="$spe" LD_PRELOAD="$T/sim.so" "$T/client" 2>&1)
		rc=$?
		[ $rc = 0 ] && [ "$out" = closed ] && continue
		echo "FAIL: PMUSIM_SPE=$spe run $i: exit $rc: $out"
		fail=1
	done
done
[ $fail = 0 ] && echo "ok: unmapped rings are left alone"
exit $fail
