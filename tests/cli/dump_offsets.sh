#!/bin/sh
# dump's record offsets are perf's, and --cpu/--time slices of a container keep them (issue 9):
#  - perf 6.1 and 7.3 `report -D` count a pipe-mode stream's offsets from after its 16-byte
#    header; dump prints the same offset and size for every record of a pipe-mode and a
#    file-mode perf.data (named and on stdin) and of a container (against
#    `zstd -dc | perf report -D -i -`);
#  - dump --cpu/--time of a container passes over the frames without such chunks (-v counts
#    them) and prints exactly what the same dump prints over the container's whole stream
#    (`zstd -dc`), offsets included, also with -j 2; the same on a container whose frame
#    infos are those of the writer before the stream fields (PMT_CTR_TEST_SHORT_FINFO: the
#    offsets come from its index), where script's slices also print what the perf.data does;
#    such a file cut before its index is read whole;
#  - records after a damaged frame keep their offsets in the whole stream.
# Usage: dump_offsets.sh PMUTRACE SPE_CPUS [PERF73]
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
PMT_CTR_TEST_SHORT_FINFO=1 "$pmt" convert "$tmp/a.data" --container --frame-size 64k \
	-o "$tmp/old.pmt" || fail "convert (short frame infos)"
# the older writer's frame infos are 16 bytes shorter: 104 - 88 per frame
[ $(($(wc -c <"$tmp/a.pmt") - $(wc -c <"$tmp/old.pmt"))) -gt 1000 ] || fail "old.pmt is no older file"
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

frames() { # ERRFILE: "READ SKIPPED" from -v
	sed -n 's/.*: \([0-9]*\) data frames read, \([0-9]*\) passed over/\1 \2/p' "$1"
}
# the trace spans 16495.39..16495.50 s on CPUs 0-3 (tests/perfdata/spe_cpus.c)
slices="--cpu=1|--cpu=0,3|--time=16495.45,16495.46|--time=16495.499,|--cpu=2 --time=16495.41,16495.43"
IFS='|'
for s in $slices; do
	unset IFS
	# shellcheck disable=SC2086
	"$pmt" dump "$tmp/a.pipe" $s >"$tmp/want" 2>/dev/null || fail "dump a.pipe $s"
	grep -q 'PERF_RECORD_AUXTRACE size' "$tmp/want" || fail "dump a.pipe $s: no chunk"
	for f in a old; do
		for j in 1 2; do
			rc=0
			# shellcheck disable=SC2086
			"$pmt" dump "$tmp/$f.pmt" -v -j $j $s >"$tmp/got" 2>"$tmp/err" || rc=$?
			[ $rc = 0 ] || fail "dump $f.pmt $s: exit $rc: $(cat "$tmp/err")"
			cmp -s "$tmp/want" "$tmp/got" ||
				fail "dump $f.pmt -j $j $s differs from the whole stream's: $(diff "$tmp/want" "$tmp/got" | head -4)"
			set -- $(frames "$tmp/err")
			[ "${2:-0}" -gt 0 ] || fail "dump $f.pmt $s: no frame passed over ($(cat "$tmp/err"))"
		done
		# shellcheck disable=SC2086
		"$pmt" script "$tmp/$f.pmt" --csv $s >"$tmp/sgot" 2>/dev/null || fail "script $f.pmt $s"
		# shellcheck disable=SC2086
		"$pmt" script "$tmp/a.data" --csv $s >"$tmp/swant" 2>/dev/null || fail "script a.data $s"
		cmp -s "$tmp/swant" "$tmp/sgot" || fail "script $f.pmt $s differs from the perf.data's"
		echo "$f.pmt $s: $1 frames read, $2 passed over"
	done
	IFS='|'
done
unset IFS
# an older writer's file cut before its index: no stream offsets, nothing passed over, and
# what is read keeps the offsets it has in the stream
head -c 2000000 "$tmp/old.pmt" >"$tmp/oldcut.pmt"
"$pmt" dump "$tmp/oldcut.pmt" -v --cpu=1 >"$tmp/got" 2>"$tmp/err"
set -- $(frames "$tmp/err")
[ "${1:-0}" -gt 10 ] && [ "${2:-1}" = 0 ] || fail "oldcut.pmt: $(cat "$tmp/err")"
"$pmt" dump "$tmp/a.pipe" | pmt_offs >"$tmp/all"
pmt_offs <"$tmp/got" | while read -r o s; do
	grep -qxF "$o $s" "$tmp/all" || { echo "$o $s"; break; }
done >"$tmp/bad"
[ -s "$tmp/bad" ] && fail "oldcut.pmt: record $(cat "$tmp/bad") is not in the stream"
# a damaged data frame (a flipped byte in the middle of the file): the records after it
# keep their stream offsets
cp "$tmp/a.pmt" "$tmp/d.pmt"
printf '\377' | dd of="$tmp/d.pmt" bs=1 seek=1500000 conv=notrunc 2>/dev/null
rc=0
"$pmt" dump "$tmp/d.pmt" >"$tmp/got" 2>"$tmp/err" || rc=$?
[ $rc = 2 ] || fail "dump of a damaged container: exit $rc"
grep -q 'data frame [0-9]* is damaged' "$tmp/err" || fail "damage not named: $(cat "$tmp/err")"
pmt_offs <"$tmp/got" >"$tmp/dgot"
[ "$(wc -l <"$tmp/dgot")" -lt "$(wc -l <"$tmp/all")" ] || fail "the damaged frame lost no record"
sort "$tmp/dgot" >"$tmp/d1"
sort "$tmp/all" >"$tmp/d2"
[ -z "$(comm -23 "$tmp/d1" "$tmp/d2")" ] ||
	fail "records after a damaged frame moved: $(comm -23 "$tmp/d1" "$tmp/d2" | head -3)"
[ "$(tail -1 "$tmp/dgot")" = "$(tail -1 "$tmp/all")" ] || fail "the last record moved"
echo "OK: dump's offsets are perf's ($nperf perf versions), sliced containers keep them"
