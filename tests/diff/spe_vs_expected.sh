#!/bin/sh
# pmutrace script --perf-compat=6.1 on the shared real SPE buffers must print exactly what
# Debian's perf 6.1 printed for them (../shared/data/spe/perf61_expected, see its README:
# timeless, tid 1234, cpu 0, N1 CPUID or none). The first line of each expected file is
# 6.1's timeless artefact; --perf-compat=6.1 reproduces it, so files are compared whole.
#   spe_vs_expected.sh PMUTRACE SHARED_DIR
set -eu
PMUTRACE=$1 D=$2/data/spe
[ -d "$D/perf61_expected" ] || { echo "SKIP: $D/perf61_expected absent"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0 n=0
for exp in "$D"/perf61_expected/*.script-*.txt; do
	base=$(basename "$exp")
	name=${base%%.script-*}
	kind=${base#*.script-}; kind=${kind%.txt}
	buf=$D/$name.bin
	[ -f "$buf" ] || buf=$D/$name.data
	case $kind in N1midr) midr=0x410fd0c0 ;; *) midr=0 ;; esac
	"$PMUTRACE" script --raw "$buf" --tid 1234 --cpu 0 --midr $midr --itrace=bfmtaMi1i \
		--perf-compat=6.1 >"$T/out.txt"
	n=$((n + 1))
	if ! cmp -s "$T/out.txt" "$exp"; then
		echo "FAIL: $base"
		diff "$exp" "$T/out.txt" | head -10
		fail=1
	fi
done
[ $n -gt 0 ] || { echo "SKIP: no expected files"; exit 77; }
[ $fail = 0 ] && echo "OK: $n files identical to perf 6.1"
exit $fail
