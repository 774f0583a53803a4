#!/bin/sh
# -j N (issue 9): script, report and dump print exactly what -j 1 prints (stdout, stderr
# and exit status) with frames decompressed ahead, SPE packets decoded into records on
# worker threads and samples made and written on a thread of their own: on every container
# of the fuzz corpus, a 4-CPU SPE trace as perf.data and as a container of small frames
# (many frames in flight), one over the decoder's window (merges before the end of
# the file), --cpu/--time slices, files cut at frame boundaries and inside frames, flipped
# bits in frame headers and payloads, damaged SPE bytes in sound frames (perf.data and
# container), --jsonl, threads known from context switches only, a trace with samples of
# its own, rows made in blocks (one record per CPU, one block and one record more, a write
# error), and the shared real buffers (as containers, and raw) when PMT_SHARED_DIR has
# them. Run under the load of a full ctest, the threads' timing varies
# from run to run.
# Usage: parallel_decode.sh PMUTRACE SPE_CPUS SRC_DIR [SHARED_DIR]
set -u
pmt=$1
gen=$2
src=$3
shared=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cases=0
# FILE CMD ARGS...: the same output and status for -j 1, 2 and 4 and without -j
same() {
	f=$1
	shift
	rc1=0
	"$pmt" "$@" -j 1 "$f" >"$tmp/o1" 2>"$tmp/e1" || rc1=$?
	for j in 2 4 default; do
		rc=0
		if [ $j = default ]; then
			"$pmt" "$@" "$f" >"$tmp/o" 2>"$tmp/e" || rc=$?
		else
			"$pmt" "$@" -j $j "$f" >"$tmp/o" 2>"$tmp/e" || rc=$?
		fi
		[ $rc = $rc1 ] || fail "$* -j $j $f: exit $rc, -j 1: $rc1"
		cmp -s "$tmp/o1" "$tmp/o" || fail "$* -j $j $f: stdout differs from -j 1's"
		cmp -s "$tmp/e1" "$tmp/e" || fail "$* -j $j $f: stderr differs from -j 1's: $(diff "$tmp/e1" "$tmp/e" | head -5)"
	done
	cases=$((cases + 1))
}
# FILE: every command
all_commands() {
	same "$1" script --csv
	same "$1" script
	same "$1" script --itrace=i10ibl -F cpu,time,event,ip,addr,brstack
	same "$1" report --stdio
	same "$1" dump
}
# at least ROWS rows of script --csv (the case is no empty file)
rows() { [ "$("$pmt" script --csv -j 1 "$1" 2>/dev/null | wc -l)" -ge "$2" ] || fail "$1: fewer than $2 rows"; }

for f in "$src"/tests/fuzz/corpus/container/*; do
	all_commands "$f"
done
"$gen" "$tmp/a.data" whole 16 || fail "spe_cpus"
"$pmt" convert "$tmp/a.data" --container --frame-size 64k -o "$tmp/a.pmt" || fail "convert"
rows "$tmp/a.pmt" 100000
all_commands "$tmp/a.data"
all_commands "$tmp/a.pmt"
# -j 2 on a container with the default frame size (few, large frames) and with column
# frames (not decompressed ahead)
"$pmt" convert "$tmp/a.data" --container -o "$tmp/big.pmt" || fail "convert big"
same "$tmp/big.pmt" script --csv
"$pmt" convert "$tmp/a.data" --container --frame-size 64k --spe-columns -o "$tmp/cols.pmt" ||
	fail "convert cols"
same "$tmp/cols.pmt" script --csv
same "$tmp/cols.pmt" script
# no CONTEXT packets: each record's pid/tid come from its CPU's context switches, which
# the merge applies while the writer's thread makes the samples; and a trace with samples
# of its own merged with SPE's
for m in switch own; do
	"$gen" "$tmp/$m.data" $m 16 || fail "spe_cpus $m"
	"$pmt" convert "$tmp/$m.data" --container --frame-size 64k -o "$tmp/$m.pmt" || fail "convert $m"
	all_commands "$tmp/$m.data"
	all_commands "$tmp/$m.pmt"
done
[ "$("$pmt" script --csv -j 1 "$tmp/switch.pmt" | cut -d, -f3 | sort -u | tr '\n' ' ')" = "-1 100 101 102 pid " ] ||
	fail "switch.pmt: not the switches' threads"
IFS='|'
for s in "--cpu=2" "--cpu=1,3" "--time=16495.45,16495.46" "--time=20%-21%,70%-71%" "--cpu=0 --time=16495.41,16495.42"; do
	unset IFS
	# shellcheck disable=SC2086
	same "$tmp/a.pmt" script --csv -v $s
	# shellcheck disable=SC2086
	same "$tmp/a.pmt" report --stdio $s
	# shellcheck disable=SC2086
	same "$tmp/a.pmt" dump $s
	IFS='|'
done
unset IFS
# damage: cut at frame boundaries and inside frames, flipped bits in a data frame's header
# and payload and in the skippable frames after it
size=$(wc -c <"$tmp/a.pmt")
bounds=$(zstd -lv "$tmp/a.pmt" >/dev/null 2>&1; python3 - "$tmp/a.pmt" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos, out = 0, []
while pos + 8 <= len(b) and len(out) < 12:
    m, n = struct.unpack_from('<II', b, pos)
    if m & 0xFFFFFFF0 == 0x184D2A50:
        pos += 8 + n
    else:
        # a zstd frame: walk its blocks (3-byte headers) after the frame header
        fhd = b[pos + 4]
        dict_id = [0, 1, 2, 4][fhd & 3]
        single = (fhd >> 5) & 1
        fcs = [0 if not single else 1, 2, 4, 8][fhd >> 6]
        p = pos + 5 + (0 if single else 1) + dict_id + fcs
        while True:
            h = b[p] | b[p + 1] << 8 | b[p + 2] << 16
            last, typ, bs = h & 1, (h >> 1) & 3, h >> 3
            p += 3 + (1 if typ == 1 else bs)
            if last:
                break
        p += 4 if fhd & 4 else 0
        out.append(pos)
        pos = p
print(' '.join(str(x) for x in out[3:]))
PY
)
[ -n "$bounds" ] || fail "no frame offsets in $tmp/a.pmt"
n=0
for at in $bounds; do
	n=$((n + 1))
	head -c "$at" "$tmp/a.pmt" >"$tmp/cut$n.pmt"
	head -c "$((at + 1000))" "$tmp/a.pmt" >"$tmp/mid$n.pmt"
	for off in 5 20 700; do
		python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[int(sys.argv[2])]^=0x10; open(sys.argv[3],'wb').write(b)" \
			"$tmp/a.pmt" "$((at + off))" "$tmp/flip$n-$off.pmt"
	done
	[ $n -lt 4 ] || break
done
for f in "$tmp"/cut*.pmt "$tmp"/mid*.pmt "$tmp"/flip*.pmt; do
	same "$f" script --csv
	same "$f" report --stdio
	same "$f" dump
done
# a flipped payload bit must have been seen: exit 2 and a message naming the frame
rc=0
"$pmt" script --csv -j 2 "$tmp/flip2-700.pmt" >/dev/null 2>"$tmp/e" || rc=$?
[ $rc = 2 ] && grep -q "data frame" "$tmp/e" || fail "flipped payload: exit $rc: $(cat "$tmp/e")"
# damaged SPE bytes (the frames are sound, the packets are not): garbage inside every third
# AUX chunk and across its last bytes (a record cut at the chunk's end), decoded on the
# workers at -j N: the same samples, the same damage line, exit 2
offs=$("$pmt" dump -j 1 "$tmp/a.data" | awk '/PERF_RECORD_AUXTRACE size/ { print $1 }')
python3 - "$tmp/a.data" "$tmp/d.data" $offs <<'PY' || fail "damaging AUX bytes"
import random, sys
src, dst, offs = sys.argv[1], sys.argv[2], sys.argv[3:]
b = bytearray(open(src, 'rb').read())
rnd = random.Random(9)
# dump's offsets in a pipe-mode file (header size 16) count from after its header
base = 16 if int.from_bytes(b[8:16], 'little') == 16 else 0
for i, o in enumerate(offs):
    if i % 3:
        continue
    rec = base + int(o, 16)
    assert b[rec] == 71, 'no AUXTRACE record at %s' % o
    pay = rec + 0x30  # after the 48-byte AUXTRACE record header
    size = int.from_bytes(b[rec + 8:rec + 16], 'little')
    for at in (pay + 1000 + 7 * i, pay + size - 40):
        for k in range(24):
            b[at + k] = rnd.randrange(256)
open(dst, 'wb').write(b)
PY
"$pmt" convert "$tmp/d.data" --container --frame-size 64k -o "$tmp/d.pmt" || fail "convert damaged"
for f in "$tmp/d.data" "$tmp/d.pmt"; do
	all_commands "$f"
	same "$f" script --jsonl
	same "$f" script --csv --cpu=1,2 --time=20%-60%
	rc=0
	"$pmt" script --csv -j 4 "$f" >/dev/null 2>"$tmp/e" || rc=$?
	[ $rc = 2 ] && grep -q "bytes skipped in" "$tmp/e" || fail "$f: damaged SPE bytes: exit $rc: $(cat "$tmp/e")"
done
same "$tmp/a.pmt" script --jsonl
same "$tmp/a.pmt" script --csv --itrace=i10ibl
same "$tmp/a.data" script --jsonl
# past the decoder's window (8 MiB for its 64 KiB chunks): samples are merged before the
# end of the file
"$gen" "$tmp/big.data" whole 128 || fail "spe_cpus 128"
"$pmt" convert "$tmp/big.data" --container -o "$tmp/big.pmt" || fail "convert big"
same "$tmp/big.pmt" script --csv
same "$tmp/big.data" script --csv
same "$tmp/big.pmt" script --jsonl
# rows made in blocks of 2048 records on either thread (-j on a container): one record per
# CPU, exactly one block, one record past it; and a write error
for n in "1 1" "2 256" "1 513"; do
	# shellcheck disable=SC2086
	"$gen" "$tmp/blk.data" whole $n || fail "spe_cpus whole $n"
	"$pmt" convert "$tmp/blk.data" --container -o "$tmp/blk.pmt" || fail "convert $n"
	same "$tmp/blk.pmt" script --csv
	same "$tmp/blk.pmt" script --jsonl
done
rc1=0
"$pmt" script --csv -j 1 "$tmp/big.pmt" >/dev/full 2>"$tmp/e1" || rc1=$?
rc=0
"$pmt" script --csv -j 2 "$tmp/big.pmt" >/dev/full 2>"$tmp/e" || rc=$?
[ $rc = $rc1 ] && [ $rc != 0 ] && cmp -s "$tmp/e1" "$tmp/e" ||
	fail "writing to /dev/full: -j 2 exit $rc ($(cat "$tmp/e")), -j 1 $rc1 ($(cat "$tmp/e1"))"
if [ -n "$shared" ] && [ -d "$shared/data/spe" ]; then
	# raw AUX buffers: as containers (timed and timeless, AUXTRACE records of 48 bytes),
	# and raw
	for f in "$shared"/data/spe/*.bin "$shared"/data/spe/*.data; do
		b=$(basename "$f")
		for t in "" --timeless; do
			# shellcheck disable=SC2086
			"$pmt" convert --raw "$f" --container --chunk 48 --midr 0x410fd0c0 $t \
				-o "$tmp/$b$t.pmt" >/dev/null 2>&1 || fail "convert $f $t"
			all_commands "$tmp/$b$t.pmt"
		done
		same "$f" script --raw --csv
		same "$f" report --raw --stdio
		same "$f" dump --raw
	done
else
	echo "note: no shared data: the real buffers were not checked"
fi
echo "PASS: $cases cases with the same output for -j 1, 2, 4 and the default"
