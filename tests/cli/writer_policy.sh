#!/bin/sh
# record --writer-policy (issue 9): what the container writer does when compression cannot
# keep up, with a compressor made slow on purpose (PMT_CTR_TEST_COMPRESS_RATE=4096: a model
# that takes 4 KiB per record handed over, against 64 KiB AUX chunks) on a recording of the
# simulated SPE PMU (tests/pmusim) on 2 CPUs:
#  - block: records waited, none dropped, every AUX byte captured is in the file;
#  - drop: AUXTRACE records dropped, exit 2; the AUX bytes in the file plus those dropped
#    are the AUX bytes captured; script says how many were dropped and exits 2;
#  - lower (-z 3: the default level 1 has none lower): frames compressed below level 3,
#    down to 1, none dropped;
#  - the end summary and `pmutrace info` give the same counts; a bad policy is a usage error.
# (unit.ctr_backlog checks each policy's counts exactly against a hand-worked model.)
# Usage: writer_policy.sh PMUTRACE
set -u
pmt=$1
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cc -shared -fPIC -O2 -o "$tmp/sim.so" "$here/pmusim/pmusim.c" -ldl -lpthread 2>/dev/null ||
	{ echo "SKIP: no cc for the simulated PMU"; exit 77; }
sh "$here/pmusim/fake_sysfs.sh" "$tmp/fs" 2 arm_spe_0:8:0:1024
"$pmt" synth --records 400000 --seed 1 --mix n1 -o "$tmp/r.spe" || fail "synth"
"$pmt" record --writer-policy=fast -e dummy -o "$tmp/x.pmt" -- true >/dev/null 2>&1
[ $? = 129 ] || fail "--writer-policy=fast: not a usage error"

rec() { # POLICY: records into $tmp/POLICY.pmt, the summary in $tmp/POLICY.err
	p=$1
	rc=0
	env PMT_CTR_TEST_COMPRESS_RATE=4096 SYSFS_PATH="$tmp/fs" PMUSIM_TYPE=8 \
		PMUSIM_SPE="$tmp/r.spe" PMUSIM_LOG="$tmp/log" PMUSIM_CHUNK=65536 \
		PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$tmp/sim.so" \
		"$pmt" record -e arm_spe_0// -a -m 64,64 --no-bundle --duration 20 -z 3 \
		--writer-policy="$1" -o "$tmp/$1.pmt" 2>"$tmp/$1.err" || rc=$?
	# the simulated PMU outruns the drain, so the kernel's AUX flags say TRUNCATED (2)
	[ $rc = 0 ] || [ $rc = 2 ] || fail "record --writer-policy=$1: exit $rc: $(cat "$tmp/$1.err")"
	sum=$(sed -n 's/^\[ compression fell behind: \(.*\) \]$/\1/p' "$tmp/$1.err")
	[ -n "$sum" ] || fail "$1: no summary of the writer: $(cat "$tmp/$1.err")"
	"$pmt" info "$tmp/$1.pmt" >"$tmp/$1.info" 2>/dev/null
	grep -q "^writer: policy $1 when compression falls behind: $sum\$" "$tmp/$1.info" ||
		fail "$1: info does not say what the summary says ($sum): $(grep writer "$tmp/$1.info")"
	set -- $(echo "$sum" | sed 's/^\([0-9]*\) records waited ([0-9.]* s), \([0-9]*\) AUXTRACE records dropped (\([0-9]*\) bytes), \([0-9]*\) frames below level 3 (lowest \([0-9]*\), raised back \([0-9]*\) times)$/\1 \2 \3 \4 \5 \6/')
	[ $# = 6 ] || fail "summary: $sum"
	waits=$1 dropped=$2 dbytes=$3 lowered=$4 lowest=$5 raised=$6
	captured=$(sed -n 's/.*samples, \([0-9.]*\) MB AUX).*/\1/p' "$tmp/$p.err")
	inside=$(sed -n 's/.*; \([0-9]*\) bytes of AUX data;.*/\1/p' "$tmp/$p.info")
	[ -n "$captured" ] && [ -n "$inside" ] || fail "$p: no AUX sizes"
}
for pol in block drop lower; do
	rec $pol
	echo "$pol: $sum"
	case $pol in
	block) [ "$waits" -gt 0 ] && [ "$dropped" = 0 ] && [ "$lowered" = 0 ] && [ "$raised" = 0 ] ||
		fail "block: $sum" ;;
	drop) [ "$dropped" -gt 0 ] && [ "$waits" = 0 ] && [ "$lowered" = 0 ] && [ "$raised" = 0 ] ||
		fail "drop: $sum"
		[ $rc = 2 ] || fail "drop: records dropped, exit $rc" ;;
	lower) [ "$lowered" -gt 0 ] && [ "$lowest" -lt 3 ] && [ "$dropped" = 0 ] ||
		fail "lower: $sum" ;;
	esac
	# every AUX byte captured is in the file or counted as dropped (each dropped record
	# had its 48-byte header; 64 KiB chunks need no padding)
	all=$((inside + dbytes - 48 * dropped))
	[ "$(printf '%.3f' "$(echo "$all / 1000000" | bc -l)")" = "$captured" ] ||
		fail "$pol: $inside AUX bytes in the file + $dbytes dropped, $captured MB captured"
	rc=0
	"$pmt" script "$tmp/$pol.pmt" --csv >/dev/null 2>"$tmp/$pol.script" || rc=$?
	if [ "$dropped" -gt 0 ]; then
		grep -q "the recorder dropped $dropped AUXTRACE records ($dbytes bytes)" "$tmp/$pol.script" ||
			fail "$pol: script does not say what was dropped: $(cat "$tmp/$pol.script")"
		[ $rc = 2 ] || fail "$pol: script exit $rc with records dropped"
	else
		grep -q "recorder dropped" "$tmp/$pol.script" && fail "$pol: script reports drops"
	fi
done
echo "OK: block waits, drop drops (counted, exit 2), lower lowers; summary, info and script agree"
