#!/bin/sh
# A sysfs tree with fake Arm SPE PMUs, for SYSFS_PATH (perf and pmutrace read PMUs from it).
#   fake_sysfs.sh DIR NCPUS [NAME:TYPE:CPUS:MIN_INTERVAL[:EVENT_FILTER] ...]
# e.g. fake_sysfs.sh /tmp/fs 4 arm_spe_0:8:0-1:1024 arm_spe_1:9:2-3:256:0x7e
# Format files are the arm_spe_pmu driver's (drivers/perf/arm_spe_pmu.c, newest kernel).
set -eu
dir=$1 ncpus=$2
shift 2
rm -rf "$dir"
mkdir -p "$dir/devices/system/cpu" "$dir/bus/event_source/devices"
echo "0-$((ncpus - 1))" >"$dir/devices/system/cpu/online"
echo "0-$((ncpus - 1))" >"$dir/devices/system/cpu/possible"
echo "0-$((ncpus - 1))" >"$dir/devices/system/cpu/present"
echo 511 >"$dir/devices/system/cpu/kernel_max"
# the kernel's software PMU (cpu-clock, dummy, ...), as every sysfs has it
mkdir -p "$dir/bus/event_source/devices/software"
echo 1 >"$dir/bus/event_source/devices/software/type"
for spec in "$@"; do
	name=${spec%%:*} rest=${spec#*:}
	type=${rest%%:*} rest=${rest#*:}
	cpus=${rest%%:*} min=${rest#*:}
	filter=
	case $min in *:*) filter=${min#*:} min=${min%%:*} ;; esac
	d=$dir/bus/event_source/devices/$name
	mkdir -p "$d/format" "$d/caps"
	echo "$type" >"$d/type"
	echo "$cpus" >"$d/cpumask"
	for kv in ts_enable=config:0 pa_enable=config:1 pct_enable=config:2 jitter=config:16 \
		branch_filter=config:32 load_filter=config:33 store_filter=config:34 discard=config:35 \
		inv_event_filter=config3:0-63 event_filter=config1:0-63 min_latency=config2:0-11; do
		echo "${kv#*=}" >"$d/format/${kv%%=*}"
	done
	echo 1 >"$d/caps/arch_inst"
	echo 1 >"$d/caps/ernd"
	echo 12 >"$d/caps/count_size"
	[ "$min" = - ] || echo "$min" >"$d/caps/min_interval"
	[ -z "$filter" ] || echo "$filter" >"$d/caps/event_filter"
done
