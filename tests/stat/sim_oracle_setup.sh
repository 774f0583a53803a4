# Sourced by the tests that run x86 perf 7.3 and pmutrace on the simulated PMU of a fake
# sysfs tree (tests/stat/*.sh, tests/cli/topdown_perf73.sh), with SRC (the source tree) and
# X (perf 7.3) set, it brings first_interval and same_as_perf, and
#   sim_oracle_setup TREE KIND [FILE...]
# skips (exit 77) without perf 7.3 or one of the FILEs (shared data), then makes T, a
# temporary folder removed at exit, the simulator $T/sim.so and the fake KIND tree (gnr or
# hybrid) in $T/TREE;
#   sim_gnr_topology TREE
# gives that GNR tree's CPUs 0-7 one socket and die, core k%4 CPUs k and k+4 (two threads);
#   sim_hybrid_topology TREE
# gives the hybrid tree Alder Lake's: one socket and die, cpu_core's CPUs 0-7 four P cores
# of two threads (CPUs 2k and 2k+1, core_id 4k, as the kernel numbers them), cpu_atom's 8-11
# E cores of one thread (core_id 32-35, one cluster).
. "$SRC/tests/stat/first_interval.sh"
sim_oracle_setup() {
	[ -x "$X" ] || { echo "SKIP: x86 perf 7.3 oracle not built (tests/oracles/setup)"; exit 77; }
	sim_tree=$1 sim_kind=$2
	shift 2
	for sim_need in "$@"; do
		[ -r "$sim_need" ] || { echo "SKIP: no $sim_need"; exit 77; }
	done
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	cc -shared -fPIC -O2 -o "$T/sim.so" "$SRC/tests/pmusim/pmusim.c" -ldl -lpthread || exit 1
	sh "$SRC/tests/oracles/fake_intel_sysfs.sh" "$T/$sim_tree" "$sim_kind"
}
sim_gnr_topology() {
	for c in 0 1 2 3 4 5 6 7; do
		d=$T/$1/devices/system/cpu/cpu$c/topology
		mkdir -p "$d"
		echo 0 >"$d/physical_package_id"
		echo 0 >"$d/die_id"
		echo $((c % 4)) >"$d/core_id"
		echo $((c % 4)) >"$d/cluster_id"
		echo "$((c % 4)),$((c % 4 + 4))" >"$d/core_cpus_list"
		echo "$((c % 4)),$((c % 4 + 4))" >"$d/thread_siblings_list"
		for f in package_cpus_list core_siblings_list die_cpus_list; do echo 0-7 >"$d/$f"; done
	done
}
sim_hybrid_topology() {
	for c in 0 1 2 3 4 5 6 7 8 9 10 11; do
		d=$T/$1/devices/system/cpu/cpu$c/topology
		mkdir -p "$d"
		echo 0 >"$d/physical_package_id"
		echo 0 >"$d/die_id"
		if [ $c -lt 8 ]; then
			core=$((c / 2 * 4)) sib="$((c / 2 * 2))-$((c / 2 * 2 + 1))" cl=$((c / 2 * 8))
		else
			core=$((c + 24)) sib=$c cl=64
		fi
		echo $core >"$d/core_id"
		echo $cl >"$d/cluster_id"
		echo "$sib" >"$d/core_cpus_list"
		echo "$sib" >"$d/thread_siblings_list"
		for f in package_cpus_list core_siblings_list die_cpus_list; do echo 0-11 >"$d/$f"; done
	done
}
