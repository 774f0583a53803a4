#!/bin/sh
# Call chains of a trace's own samples (perf record -g), as perf script prints them: a
# real cpu-clock recording with frame pointers of fixtures/symbols/callchain.c (three
# calls deep, one function inlined), made by perf 6.1 on this kernel, in file and pipe
# mode. pmutrace script equals perf 7.3's script (the default model: absolute addresses,
# inlined functions as their own lines, each line's srcline) and, with
# --perf-compat=6.1, perf 6.1's (addresses in the file, no inlined lines), for the
# default fields, several -F lists and -G; export pprof's stacks equal perf 7.3's chains;
# pmutrace record -g's container read by both perfs through zstd -dc.
#   callchain.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/callchain_fixture.sh"
callchain_fixture "$T"
perf record -q -g -e cpu-clock:u -c 200000 -o - "$T/fx/callchain" 1000000 \
	>"$T/cc.pipe" 2>/dev/null || fail "perf record -g -o - failed where -o FILE worked"

# A sample where libdw has no line row for an address (ld.so's _start) is answered by
# binutils' addr2line in perf 7.3 (an empty file: ":0"); pmutrace prints perf's no-line
# form DSO[OFFSET] (symbols.inline says more). Such srcline pairs, and only those, are
# taken as equal.
same() { # NAME THEIRS OURS
	paste -d '\n' "$2" "$3" | awk -v out="$T/norm" '
		NR % 2 == 1 { theirs = $0; next }
		{ print (theirs ~ /^  :[0-9]+$/ && $0 ~ /^  [^ ]+\[[0-9a-f]+\]$/ ? theirs : $0) > out }'
	# and ld.so's dl-find_object rows (tests/tools/known_line_pairs.awk)
	paste -d '\n' "$2" "$T/norm" | awk -f "$SRC/tests/tools/known_line_pairs.awk" >"$T/norm2"
	cmp -s "$2" "$T/norm2" || {
		echo "FAIL: $1 differs (perf < > pmutrace)"
		diff "$2" "$3" | head -10
		exit 1
	}
}

perf script -i "$T/cc.data" >"$T/p61" 2>/dev/null
grep -q 'level_top' "$T/p61" || fail "perf 6.1 shows no chain through level_top: the fixture lost its frames"
n61=$(grep -c 'cpu-clock' "$T/p61" || true)
checked=0
for f in "" "-G" "-F comm,tid,time,ip,sym,dso" "-F ip" "-F tid,ip,sym,symoff,dso"; do
	# shellcheck disable=SC2086
	perf script -i "$T/cc.data" $f >"$T/p61" 2>/dev/null
	# shellcheck disable=SC2086
	"$P" script --perf-compat=6.1 "$T/cc.data" $f >"$T/m61"
	same "perf 6.1 script $f" "$T/p61" "$T/m61"
	checked=$((checked + 1))
done
if [ -x "$PERF73" ]; then
	"$PERF73" script -i "$T/cc.data" >"$T/p73" 2>/dev/null
	grep -q '(inlined)' "$T/p73" || fail "perf 7.3 shows no inlined line: the fixture lost its inlining"
	for f in "" "-G" "-F tid,ip,sym,srcline" "-F ip,sym,symoff,dso,dsoff,srcline"; do
		# shellcheck disable=SC2086
		"$PERF73" script -i "$T/cc.data" $f >"$T/p73" 2>/dev/null
		# shellcheck disable=SC2086
		"$P" script "$T/cc.data" $f >"$T/m73"
		same "perf 7.3 script $f" "$T/p73" "$T/m73"
		checked=$((checked + 1))
	done
	# export pprof: each Sample's locations (leaf first, each with its inlined Lines) are
	# the chain perf 7.3 prints, counted as folded stacks
	if command -v protoc >/dev/null 2>&1; then
		"$P" export pprof "$T/cc.data" -o "$T/cc.pb.gz"
		gunzip -c "$T/cc.pb.gz" | protoc --decode=perftools.profiles.Profile \
			-I"$SRC/decode/export/proto" profile.proto >"$T/cc.pb.txt" ||
			fail "protoc cannot decode the profile"
		"$PERF73" script -i "$T/cc.data" >"$T/p73" 2>/dev/null
		python3 "$SRC/tests/tools/folded_stacks.py" pprof "$T/cc.pb.txt" >"$T/m.fold"
		python3 "$SRC/tests/tools/folded_stacks.py" script "$T/p73" >"$T/p.fold"
		cmp -s "$T/p.fold" "$T/m.fold" || {
			echo "FAIL: export pprof's stacks differ from perf 7.3 script's chains (perf < > pmutrace)"
			diff "$T/p.fold" "$T/m.fold" | head -10
			exit 1
		}
		checked=$((checked + 1))
	fi
	# a pipe's records are read into a window the next one reuses: the chains are kept
	"$PERF73" script -i "$T/cc.pipe" >"$T/p73" 2>/dev/null
	"$P" script "$T/cc.pipe" >"$T/m73"
	same "perf 7.3 script of a pipe-mode recording" "$T/p73" "$T/m73"
	checked=$((checked + 1))
fi
# chains through the vdso: its symbols from the image perf record keeps in the build-id
# cache, found by the build-id perf's table gives [vdso] (against perf 7.3: perf 6.1 names
# the .plt stub of clock_gettime otherwise, a known difference)
if [ -x "$PERF73" ] && perf record -q -g -e cpu-clock:u -c 200000 -o "$T/vdso.data" \
	"$T/fx/vdso_clock" 2000000 >/dev/null 2>&1; then
	"$PERF73" script -i "$T/vdso.data" >"$T/p73" 2>/dev/null
	if grep -q '__vdso_clock_gettime' "$T/p73"; then
		for f in "" "-F tid,ip,sym,srcline"; do
			# shellcheck disable=SC2086
			"$PERF73" script -i "$T/vdso.data" $f >"$T/p73" 2>/dev/null
			# shellcheck disable=SC2086
			"$P" script "$T/vdso.data" $f >"$T/m73"
			same "perf 7.3 script $f of chains through the vdso" "$T/p73" "$T/m73"
			checked=$((checked + 1))
		done
	else
		echo "note: perf 7.3 names no vdso symbol here (no vdso image in its cache): vdso part skipped"
	fi
fi
# pmutrace's own -g recording: its container read by perf through zstd -dc gives the same
# chains as pmutrace reads from it (files from this machine: --no-bundle)
if command -v zstd >/dev/null 2>&1; then
	"$P" record -q --no-bundle -g -e cpu-clock:u -c 200000 -o "$T/own.pmt" -- \
		"$T/fx/callchain" 1000000 || fail "pmutrace record -g failed where perf record -g worked"
	"$P" script --perf-compat=6.1 "$T/own.pmt" >"$T/m61"
	zstd -dc "$T/own.pmt" | perf script -i - >"$T/p61" 2>/dev/null
	grep -q 'level_top' "$T/m61" || fail "pmutrace record -g: no chain through level_top"
	same "perf 6.1 script of pmutrace record -g" "$T/p61" "$T/m61"
	checked=$((checked + 1))
	if [ -x "$PERF73" ]; then
		"$P" script "$T/own.pmt" >"$T/m73"
		zstd -dc "$T/own.pmt" | "$PERF73" script -i - >"$T/p73" 2>/dev/null
		same "perf 7.3 script of pmutrace record -g" "$T/p73" "$T/m73"
		checked=$((checked + 1))
		# with the default bundle (the files' own tables) and, for a stripped library
		# (libc), the local debug file its build-id names, as perf finds it
		"$P" record -q -g -e cpu-clock:u -c 200000 -o "$T/bundled.pmt" -- \
			"$T/fx/callchain" 1000000 || fail "pmutrace record -g (bundled) failed"
		"$P" script "$T/bundled.pmt" >"$T/m73"
		zstd -dc "$T/bundled.pmt" | "$PERF73" script -i - >"$T/p73" 2>/dev/null
		same "perf 7.3 script of a bundled pmutrace record -g" "$T/p73" "$T/m73"
		checked=$((checked + 1))
		# the vdso travels in the container (pmutrace record reads its own [vdso] image
		# and puts its build-id in the [vdso] MMAP2 records): read with no build-id
		# cache (HOME elsewhere), pmutrace names the vdso frames as perf 7.3 names them
		# in the same stream (perf from its own process's vdso: the same kernel), and
		# the vdso functions are those perf 7.3 names in perf's own recording above
		mkdir "$T/nohome"
		"$P" record -q -g -e cpu-clock:u -c 200000 -o "$T/vdso.pmt" -- \
			"$T/fx/vdso_clock" 2000000 || fail "pmutrace record -g of vdso_clock failed"
		HOME=$T/nohome "$P" script "$T/vdso.pmt" >"$T/m73"
		zstd -dc "$T/vdso.pmt" | HOME=$T/nohome "$PERF73" script -i - >"$T/p73" 2>/dev/null
		grep -q '__vdso_clock_gettime+0x[0-9a-f]* (\[vdso\])' "$T/m73" ||
			fail "pmutrace record -g: no __vdso_clock_gettime frame read without a build-id cache: $(grep -m3 vdso "$T/m73")"
		same "perf 7.3 script of pmutrace record -g through the vdso" "$T/p73" "$T/m73"
		checked=$((checked + 1))
		if [ -s "$T/vdso.data" ]; then
			vdso_names() { sed -n 's/^ *[0-9a-f]* \([^+ ]*\)+0x[0-9a-f]* (\[vdso\])$/\1/p' "$1" | sort -u; }
			"$PERF73" script -i "$T/vdso.data" >"$T/p73own" 2>/dev/null
			if grep -q '__vdso_clock_gettime' "$T/p73own"; then
				[ "$(vdso_names "$T/m73")" = "$(vdso_names "$T/p73own")" ] ||
					fail "vdso functions: pmutrace '$(vdso_names "$T/m73" | tr '\n' ' ')', perf 7.3 of perf's recording '$(vdso_names "$T/p73own" | tr '\n' ' ')'"
				checked=$((checked + 1))
			fi
		fi
	fi
fi
echo "OK: call chains of $n61 cpu-clock samples equal perf's in $checked comparisons"
