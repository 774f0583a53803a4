#!/bin/sh
# A container cut inside a data frame (a killed recording: the frame's info would have
# followed it): `pmutrace info` walks the readable part of that frame and says which AUX
# offsets, records and SPE times survived in it and which were lost. The oracle is zstd
# and perf 6.1: `zstd -dc` of the cut file prints what can be decompressed before the error,
# and perf's `report -D` of that lists the AUXTRACE records (cpu, idx, offset, size, with
# the SPE timestamps of each) that the readable bytes hold, the last one cut. Cut points: a
# frame boundary (nothing cut), between a data frame and its info (the frame's records are
# walked for its AUX offsets), inside AUX bytes, inside an AUXTRACE record's header, and
# early in a frame (nothing of it readable). Usage: container_cut.sh PMUTRACE SPE_CPUS
set -u
pmt=$1
spe_cpus=$2
command -v perf >/dev/null 2>&1 && command -v zstd >/dev/null 2>&1 ||
	{ echo "SKIP: perf 6.1 and zstd are the oracle"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# perf's AUXTRACE records of zstd -dc FILE: "cpu idx offset size stream_offset ts_lo ts_hi"
# (decimal; stream offsets as perf prints them, from after the pipe header; ts - - when
# perf dumped no timestamp of the record)
perf_aux() {
	zstd -dcq "$1" 2>/dev/null | perf report -D -i - 2>/dev/null | awk '
		function out() { if (have) print rec, (lo == "" ? "-" : lo), (hi == "" ? "-" : hi) }
		/PERF_RECORD_AUXTRACE size:/ {
			out(); have = 1; lo = ""; hi = ""
			so = $3; sz = $7; off = $9; idx = $13; cpu = $17
			rec = cpu " " idx " " off " " sz " " so
			next }
		/ TS [0-9]+$/ && have { t = $NF; if (lo == "" || t + 0 < lo + 0) lo = t; if (hi == "" || t + 0 > hi + 0) hi = t }
		/PERF_RECORD_/ { out(); have = 0 }
		END { out() }' |
	while read -r cpu idx off sz so lo hi; do
		echo "$cpu $idx $((off)) $((sz)) $((so)) $lo $hi"
	done
}
# bytes zstd -dc gives of a file
zbytes() { zstd -dcq "$1" 2>/dev/null | wc -c; }

# check_cut FILE CUT: info of FILE cut at CUT against perf and zstd
check_cut() {
	head -c "$2" "$1" >"$tmp/cut.pmt"
	rc=0
	"$pmt" info "$tmp/cut.pmt" >"$tmp/info" 2>"$tmp/err" || rc=$?
	line=$(grep "^cut: data frame [0-9]* (file offset" "$tmp/info")
	if [ -z "$line" ]; then
		echo "frame boundary"
		return
	fi
	[ $rc = 2 ] || fail "cut at $2: exit $rc"
	frame=$(echo "$line" | sed 's/^cut: data frame \([0-9]*\) .*/\1/')
	at=$(echo "$line" | sed 's/.*(file offset \([0-9]*\)).*/\1/')
	dec=$(echo "$line" | sed 's/.*which decompress to \([0-9]*\) bytes.*/\1/')
	whole=$(echo "$line" | sed 's/.*, \([0-9]*\) of them whole records.*/\1/')
	head -c "$at" "$1" >"$tmp/before.pmt"
	zb=$(zbytes "$tmp/before.pmt")
	zc=$(zbytes "$tmp/cut.pmt")
	# what zstd prints of the cut frame is what info decompressed
	[ $((zc - zb)) = "$dec" ] || fail "cut at $2: zstd -dc prints $((zc - zb)) bytes of frame $frame, info $dec"
	perf_aux "$tmp/before.pmt" >"$tmp/p_before"
	perf_aux "$tmp/cut.pmt" >"$tmp/p_cut"
	tail -n +$(($(wc -l <"$tmp/p_before") + 1)) "$tmp/p_cut" >"$tmp/p_new"
	# perf's stream offsets count from after the 16-byte pipe header
	start=$((zb - 16)); end=$((zc - 16))
	# the whole records, per stream as info lists them (contiguous in these files), and
	# the one the cut ends inside
	awk -v end="$end" -v f="$frame" '
		$5 + 48 + $4 <= end { k = $1 " " $2; if (!(k in first)) { first[k] = $3; order[n++] = k }
			last[k] = $3 + $4; recs[k]++; if ($6 != "-") { if (lo == "" || $6 < lo) lo = $6; if ($7 > hi) hi = $7 } ; next }
		$5 + 48 <= end { cut = sprintf("%d %d %d %d %d", $1, $2, $3, $3 + end - ($5 + 48), $3 + $4) }
		END { for (i = 0; i < n; i++) { split(order[i], c, " ")
			printf "readable: data frame %d: CPU %s (idx %s) AUX offsets 0x%x-0x%x (%d bytes, %d AUXTRACE records)\n",
				f, c[1], c[2], first[order[i]], last[order[i]], last[order[i]] - first[order[i]], recs[order[i]] }
		      if (cut != "") { split(cut, c, " ")
			printf "readable: data frame %d: CPU %s (idx %s) AUX offsets 0x%x-0x%x (%d bytes)\n", f, c[1], c[2], c[3], c[4], c[4] - c[3]
			printf "lost: data frame %d: CPU %s (idx %s) AUX offsets 0x%x-0x%x (%d bytes)\n", f, c[1], c[2], c[4], c[5], c[5] - c[4] }
		      if (lo != "") printf "TS %.0f %.0f\n", lo, hi }' "$tmp/p_new" >"$tmp/want"
	grep "^readable: data frame $frame: CPU\|^lost: data frame $frame: CPU" "$tmp/info" >"$tmp/got"
	grep -v "^TS" "$tmp/want" | cmp -s - "$tmp/got" ||
		fail "cut at $2: AUX offsets of frame $frame: $(grep -v "^TS" "$tmp/want" | diff "$tmp/got" -)"
	# its whole records' SPE time range, as perf dumps their TS packets
	ts=$(sed -n 's/^TS //p' "$tmp/want" | { read -r lo hi && printf '0x%x-0x%x' "$lo" "$hi"; })
	if [ -n "$ts" ]; then
		grep -q "^readable: data frame $frame: .*, SPE timestamps $ts" "$tmp/info" ||
			fail "cut at $2: SPE timestamps of frame $frame not $ts: $(grep "^readable: data frame $frame: [0-9]" "$tmp/info")"
	fi
	# where the whole records end: perf's last whole record's end (or the frame's start)
	wend=$(awk -v s="$start" -v end="$end" 'BEGIN { w = s } $5 + 48 + $4 <= end { w = $5 + 48 + $4 } END { print w }' "$tmp/p_new")
	[ $((wend - start)) = "$whole" ] || fail "cut at $2: whole records end $((wend - start)) bytes in, info says $whole"
	if grep -q "^lost: data frame $frame: a record whose header is cut" "$tmp/info"; then
		grep -q "^lost: data frame $frame: a record whose header is cut after $((end - wend)) bytes" "$tmp/info" ||
			fail "cut at $2: header cut after $((end - wend)) bytes: $(cat "$tmp/info")"
		echo "record header"
	elif grep -q "^lost: data frame $frame: CPU" "$tmp/info"; then
		echo "AUX bytes"
	elif [ "$dec" = 0 ]; then
		echo "nothing readable"
	else
		echo "record boundary"
	fi
	grep -q "^lost: data frame $frame: [0-9]* bytes of records after the cut (of [0-9]*)" "$tmp/info" ||
		fail "cut at $2: no lost size: $(cat "$tmp/info")"
}

"$spe_cpus" "$tmp/a.data" whole 24 || fail spe_cpus
"$pmt" convert "$tmp/a.data" --container --frame-size 256k -o "$tmp/a.pmt" || fail convert
# AUXTRACE records of 65520 bytes: one's header straddles a 128 KiB zstd block's end
"$pmt" synth --records 60000 --seed 5 -o "$tmp/s.spe" || fail synth
"$pmt" convert --raw "$tmp/s.spe" --midr 0x410fd0c0 --chunk 65472 --container --frame-size 256k \
	-o "$tmp/h.pmt" || fail "convert --raw"

# frame boundaries: the end of the third frame info, and its start (the data frame before
# it whole, its info cut off: info walks that frame's records); the AUX streams are perf's
i3=$(grep -obUaP "PMTFINFO" "$tmp/a.pmt" | sed -n '3s/:.*//p')
n3=$(od -An -tu4 -j $((i3 - 4)) -N4 "$tmp/a.pmt" | tr -d ' ')
for cut in $((i3 + n3)) $((i3 - 8)); do
	kind=$(check_cut "$tmp/a.pmt" $cut) || { echo "$kind"; exit 1; }
	[ "$kind" = "frame boundary" ] || fail "cut at $cut, a frame boundary: $kind"
	grep -q "^cut:" "$tmp/info" && fail "a frame boundary cut: $(cat "$tmp/info")"
	perf_aux "$tmp/cut.pmt" | awk '{ k = $1 " " $2; if (!(k in f)) { f[k] = $3; o[n++] = k } e[k] = $3 + $4; r[k]++ }
		END { for (i = 0; i < n; i++) { split(o[i], c, " "); printf "AUX stream: CPU %s (idx %s): offsets 0x%x-0x%x, %d AUXTRACE records, 0 gaps\n", c[1], c[2], f[o[i]], e[o[i]], r[o[i]] } }' >"$tmp/want"
	grep "^AUX stream" "$tmp/info" | cmp -s - "$tmp/want" ||
		fail "frame boundary at $cut: $(grep "^AUX stream" "$tmp/info" | diff "$tmp/want" -)"
done
grep -q "^frame infos: [0-9]* of [0-9]* frames.*; 1 without one (their records walked" "$tmp/info" ||
	fail "a frame without its info: $(cat "$tmp/info")"

seen=""
size=$(stat -c %s "$tmp/a.pmt")
for cut in 200000 220000 $((size / 3)) $((size / 2 + 777)) $((size * 4 / 5)); do
	kind=$(check_cut "$tmp/a.pmt" $cut) || { echo "$kind"; exit 1; }
	seen="$seen, $kind"
done
for cut in 100000 70000; do
	kind=$(check_cut "$tmp/h.pmt" $cut) || { echo "$kind"; exit 1; }
	seen="$seen, $kind"
done
for k in "AUX bytes" "record header" "nothing readable"; do
	case "$seen" in *"$k"*) ;; *) fail "no cut ended in: $k ($seen)" ;; esac
done
echo "OK: cut frames against zstd -dc | perf report -D:$seen" | sed 's/:,/:/'
