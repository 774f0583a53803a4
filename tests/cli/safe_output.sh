#!/bin/sh
# A user's recording is never destroyed (issue 15 item 1): every command that writes a file
# refuses an output that is one of its inputs (by any name: path, symlink, hard link) and
# replaces a target only with a complete file. Usage: safe_output.sh PMUTRACE
set -u
pmt=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
same() { cmp -s "$1" "$2" || fail "$1 changed ($3)"; }

"$pmt" synth --records 20000 --context --seed 3 -o "$tmp/a.spe" || fail "synth"
"$pmt" convert --raw "$tmp/a.spe" --midr 0x410fd0c0 -o "$tmp/x.data" || fail "convert"
cp "$tmp/x.data" "$tmp/x.orig"
cp "$tmp/a.spe" "$tmp/a.orig"
ln -s x.data "$tmp/link.data"
ln "$tmp/x.data" "$tmp/hard.data"

# same file under three names, for both convert paths and for calibrate
for out in x.data link.data hard.data; do
	"$pmt" convert "$tmp/x.data" -o "$tmp/$out" 2>"$tmp/err"
	rc=$?
	[ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "convert X -o $out exited $rc"
	grep -q "same file as the input" "$tmp/err" || fail "convert X -o $out: $(cat "$tmp/err")"
	same "$tmp/x.data" "$tmp/x.orig" "convert -o $out"
done
# the other writers: export's databases and profiles, report's page
for w in "export sqlite X -o link.data" "export pprof X -o hard.data" "report X --html link.data"; do
	# shellcheck disable=SC2046
	set -- $(echo "$w" | sed "s|X|$tmp/x.data|; s| -o | -o $tmp/|; s|--html |--html $tmp/|")
	"$pmt" "$@" 2>"$tmp/err" && fail "$w succeeded"
	grep -q "same file as the input" "$tmp/err" || fail "$w: $(cat "$tmp/err")"
	same "$tmp/x.data" "$tmp/x.orig" "$w"
done
"$pmt" convert --raw "$tmp/a.spe" -o "$tmp/a.spe" 2>"$tmp/err" && fail "convert --raw A -o A succeeded"
grep -q "same file as the input" "$tmp/err" || fail "convert --raw: $(cat "$tmp/err")"
same "$tmp/a.spe" "$tmp/a.orig" "convert --raw -o itself"
# calibrate: a trace with retire-latency samples (perf record -W gives cpu-clock samples
# PERF_SAMPLE_WEIGHT_STRUCT) when perf runs here
if perf record -W -e cpu-clock -c 100000 -o "$tmp/w.data" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1; then
	cp "$tmp/w.data" "$tmp/w.orig"
	ln -s w.data "$tmp/wlink.data"
	"$pmt" calibrate "$tmp/w.data" -o "$tmp/wlink.data" 2>"$tmp/err" && fail "calibrate IN -o IN succeeded"
	grep -q "same file as the input" "$tmp/err" || fail "calibrate: $(cat "$tmp/err")"
	same "$tmp/w.data" "$tmp/w.orig" "calibrate -o itself"
	# -o - is stdout, never a file named '-'
	(cd "$tmp" && "$pmt" calibrate w.data -o - >"$tmp/cal.json" 2>/dev/null) || fail "calibrate -o -"
	[ ! -e "$tmp/-" ] || fail "calibrate -o - wrote a file named -"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/cal.json" || fail "calibrate -o - is not JSON"
else
	echo "note: perf record does not run here; calibrate's part skipped"
fi
# no retire-latency samples: an error naming the file, and no table written
"$pmt" calibrate "$tmp/x.data" -o "$tmp/none.json" 2>"$tmp/err"
[ $? = 1 ] || fail "calibrate without samples: exit status"
grep -q "x.data has no samples with a retire latency" "$tmp/err" || fail "calibrate without samples: $(cat "$tmp/err")"
[ ! -e "$tmp/none.json" ] || fail "calibrate without samples wrote a table"

# a write that fails leaves the old target in place and no stray file
mkdir "$tmp/ro" && echo old >"$tmp/ro/t.data"
cp "$tmp/ro/t.data" "$tmp/t.orig"
chmod 555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then # root writes anywhere
	"$pmt" convert "$tmp/x.data" -o "$tmp/ro/t.data" 2>/dev/null && fail "write into a read-only folder succeeded"
	same "$tmp/ro/t.data" "$tmp/t.orig" "failed write"
fi
chmod 755 "$tmp/ro"
"$pmt" convert "$tmp/x.data" -o /dev/full 2>/dev/null && fail "convert -o /dev/full succeeded"

# killed mid-write: the target is the old file or the complete new one, never a part
# (python restores SIGINT, which sh ignores in background jobs)
"$pmt" synth --records 3000000 --context --seed 4 -o "$tmp/big.spe" || fail "synth big"
"$pmt" convert --raw "$tmp/big.spe" -o "$tmp/r.data" || fail "convert big"
full=$(stat -c %s "$tmp/r.data")
for sig in TERM INT HUP KILL; do
	echo old >"$tmp/t.data"
	python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
		"$pmt" convert --raw "$tmp/big.spe" -o "$tmp/t.data" &
	pid=$!
	sleep 0.1
	kill -$sig $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ "$(head -c 4 "$tmp/t.data")" != old ]; then
		[ "$(stat -c %s "$tmp/t.data")" = "$full" ] && "$pmt" dump "$tmp/t.data" >/dev/null ||
			fail "SIG$sig left a partial target ($(stat -c %s "$tmp/t.data") of $full bytes)"
	fi
	if [ $sig != KILL ]; then
		left=$(ls -A "$tmp" | grep -c '^\.t\.data\.')
		[ "$left" = 0 ] || fail "SIG$sig left $left temporary files"
	fi
	rm -f "$tmp"/.t.data.*
done
echo "OK: outputs never overwrite an input and are replaced only when complete"
