#!/bin/sh
# What a recording's bundle weighs: a shell loop (dash, ld.so, libc, the vdso, kallsyms)
# and fixtures/symbols/unwind.c under --call-graph dwarf, recorded with --bundle=symbols,
# --bundle=full and --no-bundle; the carried ELF files summed from `pmutrace info` (bytes
# before and after compression) and the container's size. BASE=another pmutrace (the tree
# before a change) is measured the same way first.
#   [BASE=/tmp/base/build/cli/pmutrace] sh bench/bundle_size.sh build/cli/pmutrace
set -eu
P=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CF="-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls"
# shellcheck disable=SC2086
gcc $CF -shared -fPIC -o "$T/libunw.so" "$HERE/../fixtures/symbols/unwind_lib.c"
# shellcheck disable=SC2086
gcc $CF -o "$T/unwind" "$HERE/../fixtures/symbols/unwind.c" -L"$T" -lunw -Wl,-rpath,'$ORIGIN'
sizes() { # PMUTRACE LABEL CONTAINER: the ELF files carried and the container
	"$1" info "$3" | sed -n 's/^embedded: ELF.*, \([0-9]*\) bytes (\([0-9]*\) compressed).*/\1 \2/p' |
		awk -v l="$2" -v c="$(wc -c <"$3")" '{ n++; raw += $1; z += $2 }
		END { printf "%-36s %d ELF files %8d bytes, %7d compressed; container %8d bytes\n",
			l, n, raw, z, c }'
}
for b in ${BASE:+"$BASE"} "$P"; do
	tag=$([ "$b" = "$P" ] && echo this || echo BASE)
	for m in symbols full; do
		"$b" record -e cpu-clock -c 100000 --bundle=$m -o "$T/sh.pmt" -- \
			sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1
		sizes "$b" "$tag shell loop --bundle=$m" "$T/sh.pmt"
		"$b" record -e cpu-clock:u -c 200000 --call-graph dwarf --bundle=$m -o "$T/u.pmt" \
			"$T/unwind" 10 >/dev/null 2>&1 || true
		sizes "$b" "$tag unwind fixture --bundle=$m" "$T/u.pmt"
	done
done
