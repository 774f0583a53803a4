#!/bin/sh
# Bad input: `pmutrace script` prints the samples it could decode and ONE stderr line
# summarising the damage, and exits 2 (output written, data damaged). The damage is made by hand: record 10 of this stream
# (offset 0x280) is PC (9 bytes), OP_TYPE "49 00" at 0x289, EVENTS, counters, VA, PAD, TS.
# Writing 0x03 0x03 (no packet starts with 0x03: arm-spe.md header table) over the OP_TYPE
# skips 2 bytes in 1 range at 0x289 and drops the record begun by the PC packet; the rest
# of record 10 has no LD/ST op, so 49 of the 50 load records give a "memory" sample.
#   spe_bad_input.sh PMUTRACE
set -eu
PMUTRACE=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records 50 --seed 1 --mix loads --record-size 64 -o "$T/a.spe"
[ "$(od -An -tx1 -j 649 -N 2 "$T/a.spe" | tr -d ' ')" = 4900 ] ||
	{ echo "FAIL: synth layout changed: no OP_TYPE 49 00 at 0x289"; exit 1; }
printf '\003\003' | dd of="$T/a.spe" bs=1 seek=649 conv=notrunc 2>/dev/null
. "$(dirname "$0")/../tools/exit_status.sh"
pmt_ok "$T/out.csv" "$T/err.txt" "$PMUTRACE" script --raw "$T/a.spe" --csv
[ "$pmt_rc" = 2 ] || { echo "FAIL: exit $pmt_rc on damaged input, want 2"; exit 1; }
lines=$(wc -l <"$T/err.txt")
[ "$lines" = 1 ] || { echo "FAIL: $lines stderr lines:"; cat "$T/err.txt"; exit 1; }
grep -q "2 bytes skipped in 1 ranges, 1 partial records dropped, first bad byte at AUX stream offset 0x289" \
	"$T/err.txt" || { echo "FAIL: summary:"; cat "$T/err.txt"; exit 1; }
# 49 intact load records still give their samples
n=$(grep -c '^memory,' "$T/out.csv")
[ "$n" = 49 ] || { echo "FAIL: $n memory samples, want 49"; exit 1; }
echo "OK: $(cat "$T/err.txt")"
