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
# info of a column frame the file ends inside: what it held is lost (none of it can be
# rebuilt), said as for the same frame damaged (its frame info, the writer's count) and as
# for the plain container cut inside the same frame
dmg=$("$P" info "$T/bad.cols" 2>/dev/null) || true
k=$(echo "$dmg" | sed -n 's/^lost: data frame \([0-9]*\) (file offset '"$off"'): .*/\1/p')
[ -n "$k" ] || fail "info of a damaged column frame: $dmg"
head -c $((off + 3000)) "$T/big.cols" >"$T/cutk.cols"
rc=0
"$P" info "$T/cutk.cols" >"$T/info" 2>"$T/err" || rc=$?
[ $rc = 2 ] || fail "info of a cut column frame: exit $rc"
grep -q "data frame $k (columns) is cut short: the file ends inside it" "$T/err" ||
	fail "info: the cut column frame is not named: $(cat "$T/err")"
grep -q "^cut: data frame $k (columns, file offset $off): the file holds 3000 of its bytes, [0-9]* of its 11 parts whole" "$T/info" ||
	fail "info: no cut line for the column frame: $(cat "$T/info")"
want=$(echo "$dmg" | sed -n "s/^lost: data frame $k (file offset $off): \([0-9]* records, [0-9]* AUXTRACE records, [0-9]* AUX bytes\).*/\1/p")
grep -q "^lost: data frame $k: [0-9]* bytes of records (all of them): $want" "$T/info" ||
	fail "info: the cut column frame's loss is not the frame's own ($want): $(cat "$T/info")"
[ "$(echo "$dmg" | grep "^lost: data frame $k: CPU")" = "$(grep "^lost: data frame $k: CPU" "$T/info")" ] ||
	fail "info: the cut column frame's AUX ranges differ from its frame info's"
poff=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$T/big.pmt" | sed -n "$((k + 1))p" | cut -d: -f1)
head -c $((poff + 3000)) "$T/big.pmt" >"$T/cutk.pmt"
plain=$("$P" info "$T/cutk.pmt" 2>/dev/null | sed -n "s/^lost: data frame $k: \([0-9]*\) bytes of records after the cut (of \1)\$/\1/p") || true
[ -n "$plain" ] || fail "the plain container cut in frame $k: $("$P" info "$T/cutk.pmt" 2>&1)"
grep -q "^lost: data frame $k: $plain bytes of records (all of them)" "$T/info" ||
	fail "info: the plain frame $k held $plain bytes: $(cat "$T/info")"
# cut inside its header, and before its first part is whole
head -c $((off + 20)) "$T/big.cols" >"$T/cuth.cols"
"$P" info "$T/cuth.cols" 2>/dev/null | grep -q "^lost: data frame $k: all of its records (how many bytes is not known: its header is cut) (which records is not known" ||
	fail "info: a column frame cut in its header: $("$P" info "$T/cuth.cols" 2>&1)"
head -c $((off + 125)) "$T/big.cols" >"$T/cutp.cols" # the header is 120 bytes
"$P" info "$T/cutp.cols" 2>/dev/null | grep -q "^lost: data frame $k: $plain bytes of records (all of them) (which records is not known" ||
	fail "info: a column frame cut in its first part: $("$P" info "$T/cutp.cols" 2>&1)"
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
