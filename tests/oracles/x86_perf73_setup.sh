# Sourced by the x86 perf 7.3 attr oracles after `set -eu`, with P (pmutrace) and ORC (the
# oracles folder) set: skips (77) without the oracle, and leaves X86 (perf 7.3), T (a
# temporary folder removed on exit) with probe.so (tests/pmusim/probe_ok.c) and the fake
# GNR sysfs tree in $T/gnr.
HERE=$(cd "$(dirname "$0")" && pwd)
X86=$ORC/bin/perf-7.3
[ -x "$X86" ] || { echo "SKIP: x86 perf 7.3 oracle not built (tests/oracles/setup)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -shared -fPIC -O2 -o "$T/probe.so" "$HERE/../pmusim/probe_ok.c" -ldl
sh "$HERE/fake_intel_sysfs.sh" "$T/gnr" gnr
