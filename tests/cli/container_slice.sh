#!/bin/sh
# --cpu and --time slices of a container (issue 9): script and report read only the data
# frames that can hold those samples (counted by -v) and print exactly what the same filter
# prints over the whole perf.data; a file whose SPE records span AUX chunks (and frames)
# gives the same output too; a container without frame infos (an older writer) is read
# whole. perf 7.3 is the oracle for the samples: `zstd -dc | perf script --time` and, as
# perf takes --cpu only from a file-mode perf.data, the container converted back to one.
# Usage: container_slice.sh PMUTRACE SPE_CPUS [PERF73]
set -u
pmt=$1
gen=$2
p73=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$gen" "$tmp/a.data" || fail "spe_cpus"
"$gen" "$tmp/c.data" cut || fail "spe_cpus cut"
for f in a c; do
	# 64 KiB frames: about one AUX chunk (one CPU) each
	"$pmt" convert "$tmp/$f.data" --container --frame-size 64k -o "$tmp/$f.pmt" || fail "convert $f"
done
# the trace spans 16495.39..16495.50 s (CPUs 0-3)
slices="--cpu=2|--cpu=1,3|--time=16495.45,16495.46|--cpu=1|--time=16495.41,16495.42|--time=16495.499,|--time=,16495.3921|--time=20%-21%,70%-71%|--cpu=3|--time=16495.40,16495.401"
check() { # FILE ARGS...: the slice of the container against the filter over the perf.data
	f=$1
	shift
	rc=0
	"$pmt" script "$tmp/$f.pmt" --csv -v "$@" >"$tmp/got" 2>"$tmp/err" || rc=$?
	[ $rc = 0 ] || fail "script $f.pmt $*: exit $rc: $(cat "$tmp/err")"
	"$pmt" script "$tmp/$f.data" --csv "$@" >"$tmp/want" 2>/dev/null || fail "script $f.data $*"
	cmp -s "$tmp/want" "$tmp/got" || fail "script $f.pmt $* differs from the whole file's"
	[ "$(wc -l <"$tmp/got")" -gt "${min_rows:-100}" ] || fail "script $f.pmt $*: only $(wc -l <"$tmp/got") rows"
	read_=$(sed -n 's/.*: \([0-9]*\) data frames read, \([0-9]*\) passed over/\1/p' "$tmp/err")
	skip=$(sed -n 's/.*: \([0-9]*\) data frames read, \([0-9]*\) passed over/\2/p' "$tmp/err")
	[ -n "$skip" ] || fail "script -v $*: no frame count: $(cat "$tmp/err")"
}
total=0
for f in a c; do
	IFS='|'
	for s in $slices; do
		unset IFS
		check $f $s
		[ "$skip" -gt 0 ] || fail "$f $s: every frame read ($read_)"
		echo "$f $s: $read_ frames read, $skip passed over"
		IFS='|'
	done
	unset IFS
	check $f --cpu=1 --time=16495.45,16495.46
	[ "$skip" -gt 0 ] || fail "$f --cpu=1 --time: every frame read"
	"$pmt" report "$tmp/$f.pmt" --stdio --cpu=0,2 --time=16495.41,16495.43 >"$tmp/got" 2>&1 || fail "report $f.pmt"
	"$pmt" report "$tmp/$f.data" --stdio --cpu=0,2 --time=16495.41,16495.43 >"$tmp/want" 2>&1 || fail "report $f.data"
	cmp -s "$tmp/want" "$tmp/got" || fail "report $f.pmt of a slice differs from the whole file's"
done
# In c, CPU 1's record 1000 of each round begins in one AUX chunk (frame) and ends in the
# next: a slice that starts at its time needs the frame with its head, or the record comes
# out without its first packets (no PC, no thread)
"$pmt" script "$tmp/c.data" --csv --itrace=i1i --cpu 1 | awk -F, 'NR > 1 { print $5 }' | uniq >"$tmp/t1"
[ "$(wc -l <"$tmp/t1")" = 48000 ] || fail "c: $(wc -l <"$tmp/t1") records of CPU 1, want 48000"
min_rows=1
for r in 10 20 31; do
	t=$(sed -n "$((1000 * r))p" "$tmp/t1" | sed 's/\(.........\)$/.\1/')
	check c --time="$t,$t" --itrace=i1i
	[ "$skip" -gt 0 ] || fail "c --time=$t,$t: every frame read"
done
min_rows=100
# a COMM record of round 5 (after CPU 1's chunk, in a frame of CPU 1's) gives a thread
# of CPU 0 its pid: a CPU 0 slice at that thread's times must read that frame too
"$pmt" script "$tmp/a.data" --csv | awk -F, 'NR > 1 && $3 > 0 { print $5 }' >"$tmp/tp"
[ -s "$tmp/tp" ] || fail "a: no samples with the pid of the COMM record"
lo=$(sed -n 1p "$tmp/tp" | sed 's/\(.........\)$/.\1/')
hi=$(sed -n '$p' "$tmp/tp" | sed 's/\(.........\)$/.\1/')
check a --cpu=0 --time="$lo,$hi"
[ "$skip" -gt 0 ] || fail "a --cpu=0 --time=$lo,$hi: every frame read"
grep -q ',0,[1-9][0-9]*,' "$tmp/got" || fail "a --cpu=0 --time=$lo,$hi: no sample with the COMM's pid"
# the whole file, no slice: every frame read
check a
[ "$skip" = 0 ] || fail "no slice, yet $skip frames passed over"
all=$read_
"$pmt" info "$tmp/a.pmt" >"$tmp/info" || fail "info a.pmt"
# all but the metadata's frame and the one with the COMM of round 5
grep -q "^frame infos: $all of $all frames ($((all - 2)) of AUX data only.*; CPUs 0-3; SPE timestamps 0x" "$tmp/info" ||
	fail "info: $(grep 'frame infos' "$tmp/info")"
# the frame infos are what a slice reads: without them (an older writer's file) nothing
# is skipped and the samples are the same
cp "$tmp/a.pmt" "$tmp/old.pmt"
grep -boa PMTFINFO "$tmp/a.pmt" | cut -d: -f1 >"$tmp/offs"
[ "$(wc -l <"$tmp/offs")" -ge "$all" ] || fail "$(wc -l <"$tmp/offs") frame infos for $all frames"
while read -r o; do
	printf 'OLDINFO_' | dd of="$tmp/old.pmt" bs=1 seek="$o" conv=notrunc 2>/dev/null
done <"$tmp/offs"
cp "$tmp/old.pmt" "$tmp/a.pmt"
check a --time=16495.45,16495.46
[ "$skip" = 0 ] && [ "$read_" = "$all" ] || fail "a file without frame infos: $read_ read, $skip skipped"
"$pmt" info "$tmp/a.pmt" | grep -q "^frame infos: 0 of $all frames" || fail "info of a file without frame infos"
"$gen" "$tmp/a.data" && "$pmt" convert "$tmp/a.data" --container --frame-size 64k -o "$tmp/a.pmt" || fail "convert a again"
# a recording: pmutrace record of the simulated SPE PMU on 2 CPUs (tests/pmusim), whose
# frames hold AUX and ITRACE_START records besides the AUX data, sliced against the same
# filter over the recording converted to a perf.data
here=$(cd "$(dirname "$0")/.." && pwd)
if cc -shared -fPIC -O2 -o "$tmp/sim.so" "$here/pmusim/pmusim.c" -ldl -lpthread 2>/dev/null; then
	sh "$here/pmusim/fake_sysfs.sh" "$tmp/fs" 2 arm_spe_0:8:0:1024
	"$pmt" synth --records 400000 --seed 1 --mix n1 -o "$tmp/r.spe" || fail "synth"
	rc=0
	env SYSFS_PATH="$tmp/fs" PMUSIM_TYPE=8 PMUSIM_SPE="$tmp/r.spe" PMUSIM_LOG="$tmp/log" \
		PMUSIM_CHUNK=65536 PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$tmp/sim.so" \
		"$pmt" record -q -e arm_spe_0// -a -m 64,1024 --duration 20 -o "$tmp/r.pmt" \
		2>"$tmp/err" || rc=$?
	[ $rc = 0 ] || [ $rc = 2 ] || fail "record: exit $rc: $(cat "$tmp/err")"
	"$pmt" convert "$tmp/r.pmt" -o "$tmp/r.data" 2>/dev/null || [ $? = 2 ] || fail "convert r.pmt"
	rskip=0
	for s in --time=30%-31% --cpu=1 --time=10%-11%,50%-52% "--cpu=0 --time=70%-71%"; do
		rc=0
		# shellcheck disable=SC2086
		"$pmt" script "$tmp/r.pmt" --csv -v $s >"$tmp/got" 2>"$tmp/err" || rc=$?
		# shellcheck disable=SC2086
		"$pmt" script "$tmp/r.data" --csv $s >"$tmp/want" 2>/dev/null
		cmp -s "$tmp/want" "$tmp/got" || fail "recording $s differs from the whole file's"
		skip=$(sed -n 's/.*: \([0-9]*\) data frames read, \([0-9]*\) passed over/\2/p' "$tmp/err")
		rskip=$((rskip + ${skip:-0}))
		echo "recording $s: $(wc -l <"$tmp/got") rows, $(grep 'data frames' "$tmp/err" | sed 's/.*: //')"
	done
	# (which CPU a chunk goes to is the simulator's: a slice of one CPU may hold little)
	[ "$rskip" -gt 0 ] || fail "recording: no slice passed over a frame"
else
	echo "no cc: the recording's slices are not checked"
fi
# perf 7.3: the samples of the slice (perf orders samples of equal times on different CPUs
# otherwise than pmutrace, so the rows are compared sorted)
if [ -n "$p73" ] && [ -x "$p73" ] && command -v zstd >/dev/null 2>&1; then
	F=tid,cpu,time,event,ip,addr,data_src
	"$pmt" convert "$tmp/a.pmt" -o "$tmp/back.data" || fail "convert back"
	for s in --time=16495.45,16495.46 --time=16495.499, --cpu=1,3 "--cpu=2 --time=16495.41,16495.42"; do
		case $s in
		*--cpu*) $p73 script -i "$tmp/back.data" --itrace=bfmtaM -F $F $s 2>/dev/null | sort >"$tmp/want" ;;
		*) zstd -dcq "$tmp/a.pmt" | $p73 script -i - --itrace=bfmtaM -F $F $s 2>/dev/null | sort >"$tmp/want" ;;
		esac
		# shellcheck disable=SC2086
		"$pmt" script "$tmp/a.pmt" --itrace=bfmtaM -F $F --perf-compat=7.3 $s 2>/dev/null | sort >"$tmp/got"
		[ -s "$tmp/want" ] || fail "perf 7.3 printed nothing for $s"
		cmp -s "$tmp/want" "$tmp/got" || fail "script $s: not perf 7.3's samples"
	done
	echo "perf 7.3 agrees on 4 slices"
fi
echo "OK: container slices read fewer frames and print what the whole file prints"
