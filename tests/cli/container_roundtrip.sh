#!/bin/sh
# Issue 9's round trip, judged by perf itself: a perf.data converted to a container and back
# to a perf.data prints what the original prints with perf 6.1 and perf 7.3 (`perf script`,
# SPE samples synthesized with --itrace, and PEBS-shaped samples with their weights), and
# `zstd -dc` of the container piped to `perf script -i -` prints what the original's pipe
# form prints, with both perfs. Inputs: every synth mix, the shared real SPE buffers (when
# there), a PEBS-shaped file (tests/perfdata/pebs_like.c), a 4-CPU SPE trace with
# TIME_CONV in 64 KiB frames (tests/perfdata/spe_cpus.c), whose records span many frames,
# a perf.data in the other byte order, and perf record -z's COMPRESSED records.
# Usage: container_roundtrip.sh PMUTRACE PEBS_LIKE SPE_CPUS [PERF73] [SHARED_DIR]
set -u
pmt=$1
pebs_like=$2
spe_cpus=$3
p73=${4:-}
shared=${5:-}
command -v perf >/dev/null 2>&1 && command -v zstd >/dev/null 2>&1 ||
	{ echo "SKIP: perf 6.1 and zstd are the oracle"; exit 77; }
perfs=perf
[ -n "$p73" ] && [ -x "$p73" ] && perfs="perf $p73"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cases=0

# perf script of FILE (or - for stdin) with the fields of its kind
pscript() { # PERF FILE KIND
	case $3 in
	spe) $1 script -i "$2" --itrace=bfmtaMi1i -F tid,cpu,time,event,ip,addr 2>/dev/null ;;
	spe-timeless) $1 script -i "$2" --itrace=bfmtaMi1i -F tid,cpu,event,ip,addr 2>/dev/null ;;
	pebs | plain) $1 script -i "$2" 2>/dev/null ;; # the default fields (PEBS: weights, data_src, addr)
	esac
}

# roundtrip NAME FILE KIND [convert options for the container]
roundtrip() {
	name=$1 f=$2 kind=$3
	shift 3
	"$pmt" convert "$f" --container "$@" -o "$tmp/$name.pmt" 2>"$tmp/err" || fail "$name: convert --container: $(cat "$tmp/err")"
	"$pmt" convert "$tmp/$name.pmt" -o "$tmp/$name.back" 2>"$tmp/err" || fail "$name: convert back: $(cat "$tmp/err")"
	"$pmt" convert "$f" -o - >"$tmp/$name.pipe" 2>"$tmp/err" || fail "$name: convert -o -: $(cat "$tmp/err")"
	for p in $perfs; do
		if [ "$p" != perf ] || [ -z "${no_file61:-}" ]; then
			pscript "$p" "$f" "$kind" >"$tmp/want"
			[ -s "$tmp/want" ] || fail "$name: $p script printed nothing of the original"
			pscript "$p" "$tmp/$name.back" "$kind" >"$tmp/got"
			cmp -s "$tmp/want" "$tmp/got" ||
				fail "$name: $p script of the perf.data converted back differs: $(diff "$tmp/want" "$tmp/got" | head -5)"
			cases=$((cases + 1))
		fi
		# (perf reads a pipe-mode file reliably only from a pipe)
		cat "$tmp/$name.pipe" | pscript "$p" - "$kind" >"$tmp/want"
		[ -s "$tmp/want" ] || fail "$name: $p script printed nothing of the pipe form"
		zstd -dcq "$tmp/$name.pmt" | pscript "$p" - "$kind" >"$tmp/got"
		cmp -s "$tmp/want" "$tmp/got" ||
			fail "$name: zstd -dc | $p script differs from the pipe form's: $(diff "$tmp/want" "$tmp/got" | head -5)"
		cases=$((cases + 1))
	done
}

for spec in "n1:" "v2:--sve --context" "loads:" "stores:" "branches:" "other:" "hip12:--context"; do
	mix=${spec%%:*} opts=${spec#*:}
	# shellcheck disable=SC2086
	"$pmt" synth --mix "$mix" --records 3000 --seed 3 $opts -o "$tmp/$mix.spe" || fail "synth $mix"
	"$pmt" convert --raw "$tmp/$mix.spe" --midr 0x410fd0c0 --chunk 16384 -o "$tmp/$mix.data" || fail "convert --raw $mix"
	roundtrip "$mix" "$tmp/$mix.data" spe --frame-size 64k
done
"$pebs_like" "$tmp/pebs.data" || fail pebs_like
roundtrip pebs "$tmp/pebs.data" pebs
"$spe_cpus" "$tmp/cpus.data" whole 8 || fail spe_cpus
# (perf 6.1 stops on this file-mode perf.data, "failed to process type: 0", and reads its
# pipe form: with perf 6.1 only the pipe forms are compared)
no_file61=1 roundtrip cpus "$tmp/cpus.data" spe --frame-size 64k
# the other byte order (pmutrace's writer), read back into the host's
"$pmt" convert "$tmp/n1.data" --swap -o "$tmp/swapped.data" || fail "convert --swap"
roundtrip swapped "$tmp/swapped.data" spe
# perf record -z: COMPRESSED records, expanded into the container's frames
if perf record -q -z -e cpu-clock -o "$tmp/z.data" -- sh -c 'ls /usr/bin >/dev/null' >/dev/null 2>&1; then
	roundtrip perf-z "$tmp/z.data" plain
else
	echo "note: perf record -z not permitted: COMPRESSED records not checked"
fi
real=0
if [ -n "$shared" ] && [ -d "$shared/data/spe" ]; then
	for f in "$shared"/data/spe/*.bin "$shared"/data/spe/*.data; do
		b=$(basename "$f")
		"$pmt" convert --raw "$f" --midr 0x410fd0c0 --timeless -o "$tmp/$b.data" || fail "convert --raw $b"
		roundtrip "$b" "$tmp/$b.data" spe-timeless
		real=$((real + 1))
	done
fi
[ $real -gt 0 ] || echo "note: no shared data: the real buffers were not checked"
echo "OK: $cases round trips print as the original with $(echo "$perfs" | wc -w) perf(s) ($real real buffers)"
