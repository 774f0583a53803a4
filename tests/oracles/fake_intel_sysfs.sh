#!/bin/sh
# A sysfs tree with fake Intel core PMUs, for SYSFS_PATH (perf and pmutrace read PMUs from it).
#   fake_intel_sysfs.sh DIR gnr      one "cpu" PMU (type 4) on 8 CPUs, as on Granite Rapids
#   fake_intel_sysfs.sh DIR hybrid [PMU_NAME [lowpower]]
#                                    "cpu_core" (type 4, CPUs 0-7) and "cpu_atom" (type 10,
#                                    CPUs 8-11), as on Alder/Meteor Lake (intel-hybrid.txt);
#                                    caps/pmu_name PMU_NAME (alderlake_hybrid; the kernel's
#                                    meteorlake_hybrid, lunarlake_hybrid, arrowlake_h_hybrid);
#                                    lowpower: Arrow Lake-H's third core PMU, "cpu_lowpower"
#                                    (the kernel's hybrid_tiny: a dynamic type, 11 here, CPUs
#                                    12-13, the atom's format and events, no topdown events)
# Format, events and caps files are those of the kernel's arch/x86/events/intel/core.c.
set -eu
dir=$1 kind=$2 hybrid_name=${3:-alderlake_hybrid} third=${4:-}
rm -rf "$dir"
mkdir -p "$dir/devices/system/cpu" "$dir/bus/event_source/devices/software"
echo 1 >"$dir/bus/event_source/devices/software/type"
core_pmu() { # NAME TYPE CPUS(or -) PMU_NAME
	d=$dir/bus/event_source/devices/$1
	mkdir -p "$d/format" "$d/events" "$d/caps"
	echo "$2" >"$d/type"
	[ "$3" = - ] || echo "$3" >"$d/cpus"
	for kv in event=config:0-7 umask=config:8-15 edge=config:18 pc=config:19 inv=config:23 \
		cmask=config:24-31 in_tx=config:32 in_tx_cp=config:33 offcore_rsp=config1:0-63 \
		ldlat=config1:0-15 frontend=config1:0-23; do
		echo "${kv#*=}" >"$d/format/${kv%%=*}"
	done
	for kv in branch-instructions=event=0xc4 branch-misses=event=0xc5 \
		bus-cycles=event=0x3c,umask=0x01 cache-misses=event=0x2e,umask=0x41 \
		cache-references=event=0x2e,umask=0x4f cpu-cycles=event=0x3c instructions=event=0xc0 \
		ref-cycles=event=0x00,umask=0x03 mem-loads=event=0xcd,umask=0x1,ldlat=3 \
		mem-stores=event=0xcd,umask=0x2; do
		echo "${kv#*=}" >"$d/events/${kv%%=*}"
	done
	echo "$4" >"$d/caps/pmu_name"
	echo 3 >"$d/caps/max_precise"
	echo 32 >"$d/caps/branches"
}
topdown() { # NAME: the PERF_METRICS events of Ice Lake and later
	d=$dir/bus/event_source/devices/$1/events
	echo "event=0x00,umask=0x4" >"$d/slots"
	for kv in retiring=0x80 bad-spec=0x81 fe-bound=0x82 be-bound=0x83 heavy-ops=0x84 \
		br-mispredict=0x85 fetch-lat=0x86 mem-bound=0x87; do
		echo "event=0x00,umask=${kv#*=}" >"$d/topdown-${kv%%=*}"
	done
}
case $kind in
gnr)
	n=8
	core_pmu cpu 4 - sapphire_rapids
	topdown cpu
	;;
hybrid)
	n=12
	core_pmu cpu_core 4 0-7 "$hybrid_name"
	topdown cpu_core
	core_pmu cpu_atom 10 8-11 "$hybrid_name"
	if [ "$third" = lowpower ]; then
		n=14
		core_pmu cpu_lowpower 11 12-13 "$hybrid_name"
	fi
	;;
*) echo "fake_intel_sysfs.sh: kind is gnr or hybrid, not '$kind'" >&2; exit 2 ;;
esac
for f in online possible present; do echo "0-$((n - 1))" >"$dir/devices/system/cpu/$f"; done
echo 511 >"$dir/devices/system/cpu/kernel_max"
