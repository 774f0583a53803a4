# Sourced by the tests that run x86 perf 7.3 and pmutrace on the simulated PMU of a fake
# sysfs tree (tests/stat/*.sh, tests/cli/topdown_perf73.sh), with SRC (the source tree) and
# X (perf 7.3) set, it brings first_interval and same_as_perf, and
#   sim_oracle_setup TREE KIND [FILE...]
# skips (exit 77) without perf 7.3 or one of the FILEs (shared data), then makes T, a
# temporary folder removed at exit, the simulator $T/sim.so and the fake KIND tree (gnr or
# hybrid) in $T/TREE.
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
