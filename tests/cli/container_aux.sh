#!/bin/sh
# AUX offsets in the container's frame infos, as `pmutrace info` prints them: each AUX
# stream's offsets and record count are those of the AUXTRACE records perf 6.1's
# `report -D` prints of `zstd -dc` of the file; a damaged data frame is named with the AUX
# offsets it held, which are whole AUXTRACE records of perf's list; a flipped bit in a frame
# info is named with that info's file offset (exit 2); a file with the infos of the writer
# before the AUX ranges prints none and says so for a damaged frame.
# Usage: container_aux.sh PMUTRACE SPE_CPUS
set -u
pmt=$1
spe_cpus=$2
command -v perf >/dev/null 2>&1 && command -v zstd >/dev/null 2>&1 ||
	{ echo "SKIP: perf 6.1 and zstd are the oracle"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$spe_cpus" "$tmp/a.data" whole 24 || fail spe_cpus
"$pmt" convert "$tmp/a.data" --container --frame-size 256k -o "$tmp/a.pmt" || fail convert
"$pmt" info "$tmp/a.pmt" >"$tmp/info" 2>"$tmp/err" || fail "info: exit $?, $(cat "$tmp/err")"
# perf's AUXTRACE records: "cpu idx offset size" per line, offsets in decimal
zstd -dcq "$tmp/a.pmt" | perf report -D -i - 2>/dev/null |
	sed -n 's/.*PERF_RECORD_AUXTRACE size: \(0x[0-9a-f]*\)  offset: \([0-9a-fx]*\)  ref: [0-9a-fx]*  idx: \([0-9]*\)  tid: [-0-9]*  cpu: \([-0-9]*\).*/\4 \3 \2 \1/p' |
	while read -r cpu idx off size; do echo "$cpu $idx $((off)) $((size))"; done >"$tmp/perf"
[ -s "$tmp/perf" ] || fail "perf report -D printed no AUXTRACE record"
# per stream: first offset, end, records (perf's records of a stream come in offset order)
awk '{ k = $1 " " $2; if (!(k in first)) { first[k] = $3; order[n++] = k }
       end[k] = $3 + $4; recs[k]++ }
     END { for (i = 0; i < n; i++) { split(order[i], c, " ");
             printf "CPU %s (idx %s): offsets 0x%x-0x%x, %d AUXTRACE records, 0 gaps\n",
                    c[1], c[2], first[order[i]], end[order[i]], recs[order[i]] } }' \
	"$tmp/perf" >"$tmp/want"
sed -n 's/^AUX stream: //p' "$tmp/info" >"$tmp/got"
[ "$(wc -l <"$tmp/want")" -eq 4 ] || fail "perf lists $(wc -l <"$tmp/want") streams, not 4"
cmp -s "$tmp/want" "$tmp/got" || fail "AUX streams: $(diff "$tmp/want" "$tmp/got")"
grep -q "^lost" "$tmp/info" && fail "an intact file with losses: $(cat "$tmp/info")"

# a flipped bit in a data frame in the middle: the frame's AUX offsets are named, and each
# range runs from one of perf's records' offset to one's end, covering whole records
# (200 bytes before the middle frame info: inside its data frame, whatever the sizes)
infos=$(grep -obUaP "PMTFINFO" "$tmp/a.pmt" | wc -l)
mid=$(grep -obUaP "PMTFINFO" "$tmp/a.pmt" | sed -n "$((infos / 2))s/:.*//p")
cp "$tmp/a.pmt" "$tmp/flip.pmt"
at=$((mid - 8 - 200))
b=$(od -An -tu1 -j $at -N1 "$tmp/a.pmt" | tr -d ' ')
printf "\\$(printf %o $((b ^ 1)))" | dd of="$tmp/flip.pmt" bs=1 seek=$at conv=notrunc 2>/dev/null
rc=0
"$pmt" info "$tmp/flip.pmt" >"$tmp/info" 2>"$tmp/err" || rc=$?
[ $rc = 2 ] || fail "flipped data frame: exit $rc"
frame=$(sed -n 's/.*data frame \([0-9]*\) is damaged.*/\1/p' "$tmp/err" | head -n 1)
[ -n "$frame" ] || fail "flipped data frame: not named: $(cat "$tmp/err")"
grep -q "^lost: data frame $frame (file offset [0-9]*): [0-9]* records, [0-9]* AUXTRACE records, [1-9][0-9]* AUX bytes, SPE timestamps 0x" "$tmp/info" ||
	fail "flipped data frame $frame: $(cat "$tmp/info")"
sed -n "s/^lost: data frame $frame: CPU \([0-9]*\) (idx \([0-9]*\)) AUX offsets \(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) (\([0-9]*\) bytes)$/\1 \2 \3 \4 \5/p" \
	"$tmp/info" >"$tmp/lost"
[ -s "$tmp/lost" ] || fail "flipped data frame $frame: no AUX offsets: $(cat "$tmp/info")"
while read -r cpu idx lo hi bytes; do
	lo=$((lo)); hi=$((hi))
	[ $((hi - lo)) = "$bytes" ] || fail "lost range $lo-$hi is not $bytes bytes"
	sum=$(awk -v c="$cpu" -v i="$idx" -v lo="$lo" -v hi="$hi" \
		'$1 == c && $2 == i && $3 >= lo && $3 + $4 <= hi { s += $4 } END { print s + 0 }' "$tmp/perf")
	[ "$sum" = "$bytes" ] || fail "lost CPU $cpu $lo-$hi: perf's records there hold $sum bytes"
	awk -v c="$cpu" -v i="$idx" -v lo="$lo" '$1 == c && $2 == i && $3 == lo { f = 1 } END { exit !f }' \
		"$tmp/perf" || fail "lost CPU $cpu from $lo: no record of perf's starts there"
done <"$tmp/lost"
grep -q "AUX stream: CPU [0-9] (idx [0-9]): .*, [1-9][0-9]* bytes in damaged frames" "$tmp/info" ||
	fail "flipped data frame: no stream says its loss: $(cat "$tmp/info")"
# its time range, on perf's clock through the trace's TIME_CONV: the samples the damaged
# file no longer prints are all inside it
range=$(sed -n "s/^lost: data frame $frame (.*, time \([0-9.]*\)-\([0-9.]*\)$/\1 \2/p" "$tmp/info")
[ -n "$range" ] || fail "flipped data frame $frame: no time range: $(cat "$tmp/info")"
"$pmt" script "$tmp/a.pmt" -F time 2>/dev/null | sort >"$tmp/t_all"
"$pmt" script "$tmp/flip.pmt" -F time 2>/dev/null | sort >"$tmp/t_flip"
comm -23 "$tmp/t_all" "$tmp/t_flip" | tr -d ': ' >"$tmp/t_lost"
[ -s "$tmp/t_lost" ] || fail "flipped data frame: no sample lost"
set -- $range
awk -v lo="$1" -v hi="$2" '$1 < lo || $1 > hi { bad++ } END { exit bad > 0 }' "$tmp/t_lost" ||
	fail "samples lost outside $1-$2: $(awk -v lo="$1" -v hi="$2" '$1 < lo || $1 > hi' "$tmp/t_lost" | head -3)"

# a flipped bit in a frame info's AUX ranges: that info is named with its file offset
info_at=$(grep -obUaP "PMTFINFO" "$tmp/a.pmt" | sed -n '3s/:.*//p')
[ -n "$info_at" ] || fail "no third frame info"
info_at=$((info_at - 8))
cp "$tmp/a.pmt" "$tmp/iflip.pmt"
at=$((info_at + 8 + 120))
b=$(od -An -tu1 -j $at -N1 "$tmp/a.pmt" | tr -d ' ')
printf "\\$(printf %o $((b ^ 4)))" | dd of="$tmp/iflip.pmt" bs=1 seek=$at conv=notrunc 2>/dev/null
rc=0
"$pmt" info "$tmp/iflip.pmt" >"$tmp/info" 2>"$tmp/err" || rc=$?
[ $rc = 2 ] || fail "flipped frame info: exit $rc"
grep -q "the frame info at file offset $info_at fails its checksum" "$tmp/err" ||
	fail "flipped frame info at $info_at: $(cat "$tmp/err")"
grep -q "1 damaged" "$tmp/info" || fail "flipped frame info: $(cat "$tmp/info")"
# the data still reads whole
"$pmt" script "$tmp/a.pmt" --csv >"$tmp/ref.csv" 2>/dev/null
"$pmt" script "$tmp/iflip.pmt" --csv --cpu 1 >"$tmp/out.csv" 2>/dev/null
"$pmt" script "$tmp/a.pmt" --csv --cpu 1 | cmp -s - "$tmp/out.csv" || fail "flipped frame info: --cpu 1 differs"

# the writer before the AUX ranges (104-byte infos)
PMT_CTR_TEST_SHORT_FINFO=104 "$pmt" convert "$tmp/a.data" --container --frame-size 256k -o "$tmp/old.pmt" ||
	fail "convert (old infos)"
"$pmt" info "$tmp/old.pmt" >"$tmp/info" 2>"$tmp/err" || fail "info of old infos: $(cat "$tmp/err")"
grep -q "^AUX stream" "$tmp/info" && fail "old infos with AUX streams: $(cat "$tmp/info")"
grep -q "frame infos: [1-9][0-9]* of" "$tmp/info" || fail "old infos not read: $(cat "$tmp/info")"
echo "OK: AUX offsets of 4 streams as perf's AUXTRACE records, damaged frame $frame named with its AUX offsets, a flipped info at $info_at named"
