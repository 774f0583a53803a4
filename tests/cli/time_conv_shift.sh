#!/bin/sh
# A TIME_CONV whose time_shift is 64 or more (a corrupt field: no conversion shifts a 64-bit
# counter that far) is refused with one warning naming the file and the record's offset;
# samples keep their raw times and the exit status says data was damaged (issue 15 item 3:
# it was undefined behaviour and printed garbage times with exit 0).
# Usage: time_conv_shift.sh PMUTRACE
set -u
pmt=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$pmt" synth --records 50 --seed 5 -o "$tmp/a.spe" || fail synth
"$pmt" convert --raw "$tmp/a.spe" --time-conv 10,1000,5 -o "$tmp/a.data" || fail convert
"$pmt" convert --raw "$tmp/a.spe" -o "$tmp/raw.data" || fail "convert without TIME_CONV"
off=$("$pmt" dump "$tmp/a.data" | sed -n 's/^\(0x[0-9a-f]*\) \[0x[0-9a-f]*\]: PERF_RECORD_TIME_CONV.*/\1/p')
[ -n "$off" ] || fail "no TIME_CONV record in the converted file"
printf '\100' | dd of="$tmp/a.data" bs=1 seek=$((off + 8)) conv=notrunc 2>/dev/null
rc=0
"$pmt" script "$tmp/a.data" --csv >"$tmp/out.csv" 2>"$tmp/err" || rc=$?
[ $rc = 2 ] || fail "exit $rc, want 2"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "expected one warning: $(cat "$tmp/err")"
grep -q "a.data: TIME_CONV at $off has time_shift 64 (must be below 64)" "$tmp/err" ||
	fail "warning: $(cat "$tmp/err")"
# the times are the raw counter values, as in a file without TIME_CONV (the identity
# conversion convert writes for a timed file without --time-conv)
"$pmt" script "$tmp/raw.data" --csv >"$tmp/raw.csv" 2>/dev/null
cut -d, -f5 "$tmp/out.csv" >"$tmp/t1"
cut -d, -f5 "$tmp/raw.csv" >"$tmp/t2"
cmp -s "$tmp/t1" "$tmp/t2" || fail "times differ from the raw counter values"
echo "OK: invalid TIME_CONV refused with one warning, raw times kept"
