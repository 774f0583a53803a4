#!/bin/sh
# pmutrace script --perf-compat=6.1 on the shared real SPE buffers must print exactly what
# Debian's perf 6.1 printed for them (../shared/data/spe/perf61_expected, see its README:
# timeless, tid 1234, cpu 0, N1 CPUID or none). The first line of each expected file is
# 6.1's timeless artefact; --perf-compat=6.1 reproduces it, so files are compared whole.
#   spe_vs_expected.sh PMUTRACE SHARED_DIR
set -eu
PMUTRACE=$1
. "$(dirname "$0")/spe_refs.sh"
spe_refs_open "$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check() { # NAME BUFFER KIND MIDR EXPECTED
	"$PMUTRACE" script --raw "$2" --tid 1234 --cpu 0 --midr "$4" --itrace=bfmtaMi1i \
		--perf-compat=6.1 >"$T/out.txt"
	spe_refs_same "$5" "$T/out.txt" "$(basename "$5")"
}
spe_refs_each check
[ $spe_refs_n -gt 0 ] || { echo "SKIP: no expected files"; exit 77; }
[ $fail = 0 ] && echo "OK: $spe_refs_n files identical to perf 6.1"
exit $fail
