#!/bin/sh
# A file-mode perf.data cut anywhere after its attrs stays readable up to the cut (issue 15
# item 4): convert lays files out as perf record does (header, ids, attrs, data, features
# last), so a cut loses only what follows it. Each cut prints the samples before it and
# exits 2 with one line saying what was lost. Usage: truncated_file.sh PMUTRACE
set -u
pmt=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$pmt" synth --records 20000 --context --seed 12 -o "$tmp/a.spe" || fail synth
"$pmt" convert --raw "$tmp/a.spe" --midr 0x410fd0c0 --chunk 65536 -o "$tmp/a.data" || fail convert
full=$("$pmt" script "$tmp/a.data" --csv | wc -l)
size=$(stat -c %s "$tmp/a.data")
prev=0
for pct in 10 35 60 85 99; do
	head -c $((size * pct / 100)) "$tmp/a.data" >"$tmp/cut.data"
	rc=0
	"$pmt" script "$tmp/cut.data" --csv >"$tmp/out.csv" 2>"$tmp/err" || rc=$?
	n=$(wc -l <"$tmp/out.csv")
	[ $rc = 2 ] || fail "cut at $pct%: exit $rc, want 2 ($(head -2 "$tmp/err"))"
	[ "$n" -gt "$prev" ] && [ "$n" -le "$full" ] || fail "cut at $pct%: $n rows (full file $full, previous cut $prev)"
	# the rows are the full file's first rows (event to phys_addr: the data-source columns
	# need the CPU's MIDR from the header features, which perf record too writes last)
	"$pmt" script "$tmp/a.data" --csv | head -n "$((n - 1))" | cut -d, -f1-8 >"$tmp/ref.csv"
	head -n "$((n - 1))" "$tmp/out.csv" | cut -d, -f1-8 | cmp -s - "$tmp/ref.csv" ||
		fail "cut at $pct%: rows differ from the full file's"
	prev=$n
done
# cut inside the header: nothing to read, exit 1 naming the problem
head -c 60 "$tmp/a.data" >"$tmp/hdr.data"
rc=0; "$pmt" script "$tmp/hdr.data" >/dev/null 2>"$tmp/err" || rc=$?
[ $rc = 1 ] || fail "cut inside the header: exit $rc"
echo "OK: cuts at 10..99% keep every sample before them ($prev of $full rows at 99%)"
