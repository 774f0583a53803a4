#!/bin/sh
# Behaviour unchanged across a refactoring: runs output_digest.sh (script, report, dump,
# metrics, calibrate, convert and synth over every fixture, the fuzz corpora's traces and
# the shared real buffers; stdout, stderr, exit status and written files, as md5) with the
# pmutrace built before and the one built after, and compares the two listings line by line.
# Exit 0 when they are identical, 1 with the differing cases listed.
#   compare_builds.sh OLD_PMUTRACE NEW_PMUTRACE [SHARED_DIR]
# e.g. with a build of main in a separate folder (CONTRIBUTING.md, "Tests"):
#   mkdir /tmp/base && git archive main | tar -x -C /tmp/base
#   cmake -S /tmp/base -B /tmp/base/build && cmake --build /tmp/base/build --target pmutrace
#   sh tests/tools/compare_builds.sh /tmp/base/build/cli/pmutrace build/cli/pmutrace ../shared
set -u
[ $# -ge 2 ] || { echo "usage: compare_builds.sh OLD_PMUTRACE NEW_PMUTRACE [SHARED_DIR]" >&2; exit 129; }
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sh "$here/output_digest.sh" "$1" ${3:+"$3"} >"$out/old" 2>"$out/old.err"
sh "$here/output_digest.sh" "$2" ${3:+"$3"} >"$out/new" 2>"$out/new.err"
n=$(wc -l <"$out/new")
if cmp -s "$out/old" "$out/new"; then
	echo "identical: $n cases (stdout, stderr, exit status, written files)"
	exit 0
fi
echo "DIFFERENT ($n cases): < old, > new"
diff "$out/old" "$out/new"
exit 1
