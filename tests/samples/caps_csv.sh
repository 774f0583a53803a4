#!/bin/sh
# The SPE PMU's caps/event_filter, as perf >= 6.18 records it in the v2 per-CPU metadata
# (CAP_EVENT_FILTER, index 6 of the block, NR_PARAMS 4), reaches the data source: with an
# MIDR no table knows, a load the CPU did not mark SNOOPED is snoop "None" when the
# event_filter has bit 23 (SNOOPED can be reported) and "N/A" when it is not recorded
# (newest perf's arm_spe__synth_memory_level()). perf 6.13-era metadata (NR_PARAMS 3)
# carries no caps. perf 6.17 and older ignore the caps.
#   caps_csv.sh PMUTRACE
set -eu
PMUTRACE=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records 3000 --seed 5 --mix loads -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x000f0010 --event-filter 0x800000 -o "$T/caps.data"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x000f0010 --spe-v2 -o "$T/nocaps.data"
# mem_op and mem_snoop columns of the memory samples of records without SNOOPED (the loads
# mix sets no SNOOPED bit: every memory sample is such a load)
snoops() { "$PMUTRACE" script "$@" --itrace=M --csv | cut -d, -f14,16 | sed 1d | sort -u; }
fail=0
[ "$(snoops "$T/caps.data")" = "LOAD,None" ] || { echo "FAIL: caps with SNOOPED: $(snoops "$T/caps.data")"; fail=1; }
[ "$(snoops "$T/nocaps.data")" = "LOAD,N/A" ] || { echo "FAIL: no caps: $(snoops "$T/nocaps.data")"; fail=1; }
[ "$(snoops "$T/caps.data" --perf-compat=6.17)" = "LOAD,None" ] || { echo "FAIL: 6.17"; fail=1; }
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x000f0010 --event-filter 0x2 -o "$T/other.data"
[ "$(snoops "$T/other.data")" = "LOAD,N/A" ] || { echo "FAIL: caps without bit 23"; fail=1; }
n=$("$PMUTRACE" script "$T/caps.data" --itrace=M --csv | sed 1d | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no memory samples"; fail=1; }
[ "$fail" = 0 ] && echo "OK: $n memory samples, snoop None with caps, N/A without"
exit $fail
