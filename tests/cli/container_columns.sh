#!/bin/sh
# Column frames (convert --container --spe-columns): the AUX bytes split by SPE packet field
# before zstd. The container decodes exactly as the perf.data and the plain container do
# (every synth mix, CONTEXT, SVE, the shared real buffers), is smaller, converts back to the
# same perf.data; a damaged or cut column frame is reported and skipped, the other frames
# decode; the option needs --container.
#   container_columns.sh PMUTRACE [SHARED_DIR]
set -eu
P=$1
SHARED=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
same() { # NAME RAW [convert options]
	name=$1 raw=$2
	shift 2
	"$P" convert --raw "$raw" --midr 0x410fd0c0 "$@" -o "$T/$name.data"
	"$P" convert "$T/$name.data" --container -o "$T/$name.pmt"
	"$P" convert "$T/$name.data" --container --spe-columns -o "$T/$name.cols"
	"$P" script "$T/$name.data" --csv >"$T/want"
	"$P" script "$T/$name.cols" --csv >"$T/got"
	cmp -s "$T/want" "$T/got" || fail "$name: the column container decodes differently"
	"$P" convert "$T/$name.pmt" -o "$T/$name.a"
	"$P" convert "$T/$name.cols" -o "$T/$name.b"
	cmp -s "$T/$name.a" "$T/$name.b" || fail "$name: converted back, the perf.data differs"
	"$P" info "$T/$name.cols" | grep -q '^column frames: [1-9]' || fail "$name: info: $("$P" info "$T/$name.cols")"
}
for spec in "n1:" "v2:--sve --context" "loads:" "stores:" "branches:--no-timestamps" "other:" "hip12:--context"; do
	mix=${spec%%:*} opts=${spec#*:}
	# shellcheck disable=SC2086
	"$P" synth --records 30000 --seed 11 --mix "$mix" $opts -o "$T/$mix.spe"
	same "$mix" "$T/$mix.spe" --chunk 65536
done
if [ -n "$SHARED" ] && [ -d "$SHARED/data/spe" ]; then
	for f in "$SHARED"/data/spe/*.bin "$SHARED"/data/spe/*.data; do
		same "shared-$(basename "$f")" "$f"
	done
fi
# several frames, smaller than the plain container
"$P" synth --records 300000 --seed 12 -o "$T/big.spe"
same big "$T/big.spe" --chunk 1048576
a=$(wc -c <"$T/big.pmt") b=$(wc -c <"$T/big.cols")
[ $((a * 10)) -gt $((b * 12)) ] || fail "the column container ($b bytes) is not 1.2x smaller than the plain one ($a)"
n=$("$P" info "$T/big.cols" | sed -n 's/^data frames: \([0-9]*\) read.*/\1/p')
[ "$n" -ge 4 ] || fail "want several frames, info says $n"
lines=$(wc -l <"$T/want")
# a flipped byte in the second column frame: that frame is reported and skipped
# (at any byte: frames start where the compressed sizes before them put them)
off=$(LC_ALL=C grep -obUaP '\x53\x2a\x4d\x18' "$T/big.cols" | sed -n 2p | cut -d: -f1)
[ -n "$off" ] || fail "no second column frame found"
cp "$T/big.cols" "$T/bad.cols"
at=$((off + 5000))
byte=$(od -A n -t u1 -j $at -N 1 "$T/bad.cols" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 1)))" | dd of="$T/bad.cols" bs=1 seek=$at conv=notrunc 2>/dev/null
rc=0
"$P" script "$T/bad.cols" --csv >"$T/bad.csv" 2>"$T/err" || rc=$?
[ $rc = 2 ] || fail "a damaged column frame: exit $rc, want 2 ($(cat "$T/err"))"
grep -q "data frame [0-9]* (columns) is damaged" "$T/err" || fail "the damage is not named: $(cat "$T/err")"
got=$(wc -l <"$T/bad.csv")
[ "$got" -gt 1000 ] && [ "$got" -lt "$lines" ] || fail "after the damage $got of $lines rows"
# cut inside the last column frame: everything before it decodes
size=$(wc -c <"$T/big.cols")
head -c $((size - 9000)) "$T/big.cols" >"$T/cut.cols"
rc=0
"$P" script "$T/cut.cols" --csv >"$T/cut.csv" 2>"$T/err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/cut.csv")" -gt 1000 ] || fail "a cut file: exit $rc, $(wc -l <"$T/cut.csv") rows"
rc=0
"$P" convert "$T/big.data" --spe-columns -o "$T/x.data" 2>"$T/err" || rc=$?
[ $rc = 129 ] && grep -q "add --container" "$T/err" || fail "--spe-columns without --container: exit $rc"
echo "ok: column containers decode as perf.data on every mix; $b bytes for $a plain ($(awk "BEGIN { printf \"%.2f\", $a / $b }")x)"
