#!/bin/sh
# Usage: spe_dump_vs_perf61.sh PMUTRACE SHARED_SPE_DIR NAME
# Dumps SHARED_SPE_DIR/NAME.{bin,data} with `pmutrace dump --raw` and compares it with what
# Debian's perf 6.1 printed for the same bytes (perf61_expected/NAME.report-D.txt).
# perf saw the buffer inside a perf.data whose AUXTRACE size is padded to 8 bytes with zeros
# (the 52-byte buffer is shown as "size 0x38" ending in a 4-byte PAD), so the buffer is
# zero-padded to a multiple of 8 here the same way. Blank lines are perf's record separators.
# Exit 77 (skipped) when the shared data is absent.
set -u
pmt=$1 dir=$2 name=$3
exp="$dir/perf61_expected/$name.report-D.txt"
buf=
for ext in bin data; do
	[ -f "$dir/$name.$ext" ] && buf="$dir/$name.$ext"
done
if [ ! -f "$exp" ] || [ -z "$buf" ]; then
	echo "SKIP: $name not found under $dir"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
size=$(wc -c < "$buf")
pad=$(( (8 - size % 8) % 8 ))
{ cat "$buf"; head -c "$pad" /dev/zero; } > "$tmp/buf"
grep -v '^$' "$exp" > "$tmp/exp"
# The newest-perf text (default) and the perf 6.1 flavour agree on every packet in these buffers.
for flavour in --raw "--raw --legacy61"; do
	# shellcheck disable=SC2086
	"$pmt" dump $flavour "$tmp/buf" > "$tmp/out" || { echo "FAIL: dump $flavour exited $?"; exit 1; }
	grep -v '^$' "$tmp/out" > "$tmp/got"
	if ! diff -u "$tmp/exp" "$tmp/got"; then
		echo "FAIL: $name: dump $flavour differs from perf 6.1 (-expected +pmutrace)"
		exit 1
	fi
	echo "OK: $name: dump $flavour: $(wc -l < "$tmp/got") lines identical to perf 6.1 report -D"
done
