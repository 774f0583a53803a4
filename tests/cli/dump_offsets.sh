#!/bin/sh
# dump's record offsets are perf's: perf 6.1 and 7.3 `report -D` count a pipe-mode stream's
# offsets from after its 16-byte header; dump prints the same offset and size for every
# record of a pipe-mode and a file-mode perf.data (named and on stdin) and of a container
# (against `zstd -dc | perf report -D -i -`).
# Usage: container_dump_slice.sh PMUTRACE SPE_CPUS [PERF73]
set -u
pmt=$1
gen=$2
p73=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v zstd >/dev/null 2>&1 || { echo "SKIP: no zstd"; exit 77; }
"$gen" "$tmp/a.data" || fail "spe_cpus"
"$pmt" convert "$tmp/a.data" --container --frame-size 64k -o "$tmp/a.pmt" || fail "convert"
zstd -dcq "$tmp/a.pmt" >"$tmp/a.pipe" || fail "zstd -dc"
# spe_cpus writes a pipe-mode perf.data; f.data is file-mode
"$pmt" convert "$tmp/a.data" -o "$tmp/f.data" || fail "convert to a file-mode perf.data"

# "OFFSET [SIZE]" of every record: perf's "0x98@pipe [0x54]: event: 80" (a file:
# "0x100@f.data [0x28]: event: 78") lines, dump's
# "0x98 [0x54]: PERF_RECORD_..." lines
perf_offs() { sed -n 's/^\(0x[0-9a-f]*\|0\)@[^ ]* \(\[0x[0-9a-f]*\]\): event: .*/\1 \2/p'; }
pmt_offs() { sed -n 's/^\(0x[0-9a-f]*\|0\) \(\[0x[0-9a-f]*\]\): PERF_RECORD_.*/\1 \2/p'; }
nperf=0
for perf in perf "$p73"; do
	[ -n "$perf" ] && $perf version >/dev/null 2>&1 || continue
	nperf=$((nperf + 1))
	# (perf 6.1 stops early in a pipe-mode file it can seek in, named or redirected:
	# "failed to process type: 0" inside its first AUXTRACE's data; a real pipe it reads)
	for f in a.data f.data; do
		case $f in
		a.data) cat "$tmp/$f" | $perf report -D -i - 2>/dev/null | perf_offs >"$tmp/want" ;;
		*) $perf report -D -i "$tmp/$f" 2>/dev/null | perf_offs >"$tmp/want" ;;
		esac
		[ "$(wc -l <"$tmp/want")" -gt 100 ] || fail "$perf report -D $f: $(wc -l <"$tmp/want") records"
		"$pmt" dump "$tmp/$f" | pmt_offs >"$tmp/got"
		cmp -s "$tmp/want" "$tmp/got" ||
			fail "dump $f: offsets are not $perf's: $(diff "$tmp/want" "$tmp/got" | head -4)"
		"$pmt" dump - <"$tmp/$f" | pmt_offs >"$tmp/got"
		cmp -s "$tmp/want" "$tmp/got" || fail "dump - <$f: offsets are not $perf's"
	done
	zstd -dcq "$tmp/a.pmt" | $perf report -D -i - 2>/dev/null | perf_offs >"$tmp/want"
	"$pmt" dump "$tmp/a.pmt" | pmt_offs >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
		fail "dump a.pmt: offsets are not those of $perf on zstd -dc: $(diff "$tmp/want" "$tmp/got" | head -4)"
	head -1 "$tmp/want" | grep -q '^0 ' || fail "$perf: the first record of a pipe is not at 0"
done
[ $nperf -gt 0 ] || echo "no perf: dump's offsets checked against the whole stream only"

echo "OK: dump's offsets are perf's ($nperf perf versions)"
