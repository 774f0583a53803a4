#!/bin/sh
# report --mem --sort KEYS against perf mem report --stdio --sort KEYS on the same SPE trace
# (PCs in the AArch64 fixtures and the kernel, every data-source level the synthetic mix
# makes): the memory-access, snoop and TLB columns, overhead of the weight (total latency)
# and the sample counts, byte for byte; with --dsos, --symbols, --comms and --percentage, and
# their --json and --csv forms against the text. Keys with sym/dso are left out: for entries of
# nearly equal weight perf's order differs from pmutrace's in places (not resolved yet).
#   [PERF=CMD] [COMPAT=VER] mem_vs_perf.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
. "$SRC/tests/tools/symbols_fixture.sh"
perf_oracle
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_build "$T/fx"
text_trace "$T/fx" 91 12000 "$T/t.data"
n=0
for keys in mem snoop tlb mem,snoop,tlb snoop,mem tlb,mem; do
	$PERF mem report -i "$T/t.data" --symfs "$T/fx/fs" --stdio --sort $keys 2>/dev/null |
		sed '/^# (Tip/,$d' | sed '$d' >"$T/perf"
	"$P" report "$T/t.data" --symfs "$T/fx/fs" --mem --sort $keys --perf-compat=$COMPAT >"$T/pmt"
	[ -s "$T/perf" ] || { echo "FAIL: perf printed nothing for $keys"; exit 1; }
	cmp -s "$T/perf" "$T/pmt" || { echo "FAIL: --sort $keys differs (perf < > pmutrace)"; diff "$T/perf" "$T/pmt" | head -6; exit 1; }
	n=$((n + $(grep -c '%' "$T/perf")))
done
# --dsos, --symbols, --comms passed through perf mem report to perf report: the samples
# left out stay in the header's counts and the weight the overhead is of, unless
# --percentage relative; --json and --csv with the text's totals
for args in "--dsos libfix.so" "--symbols lib_part_07,lib_part_11 --percentage relative" \
	"-d app -S work_20,lib_part_07 --percentage relative" "--comms app --sort mem" \
	"--symbols no_such_symbol"; do
	# shellcheck disable=SC2086
	$PERF mem report -i "$T/t.data" --symfs "$T/fx/fs" --stdio --sort mem,dso,sym $args \
		2>/dev/null | sed '/^# (Tip/,$d' | sed '$d' >"$T/perf"
	for f in "" --json --csv; do
		# shellcheck disable=SC2086
		"$P" report "$T/t.data" --symfs "$T/fx/fs" --mem --sort mem,dso,sym $args \
			--perf-compat=$COMPAT $f >"$T/pmt$f"
	done
	cmp -s "$T/perf" "$T/pmt" || { echo "FAIL: $args differs (perf < > pmutrace)"; diff "$T/perf" "$T/pmt" | head -6; exit 1; }
	python3 "$SRC/tests/tools/report_rows_check.py" "$T/pmt" "$T/pmt--json" "$T/pmt--csv" ||
		{ echo "FAIL: $args: --json or --csv differ from the text"; exit 1; }
	n=$((n + $(grep -c '%' "$T/perf" || true)))
done
# the lists without --sort: an SPE trace's report becomes perf report's comm,dso,sym table
$PERF report -i "$T/t.data" --symfs "$T/fx/fs" --stdio --dsos libfix.so -S lib_part_07,lib_part_03 \
	2>/dev/null | sed '/^# (Tip/,$d' | sed '$d' >"$T/perf"
"$P" report "$T/t.data" --symfs "$T/fx/fs" --dsos libfix.so -S lib_part_07,lib_part_03 \
	--perf-compat=$COMPAT >"$T/pmt"
cmp -s "$T/perf" "$T/pmt" || { echo "FAIL: report --dsos -S without --sort differs (perf < > pmutrace)"; diff "$T/perf" "$T/pmt" | head -6; exit 1; }
n=$((n + $(grep -c '%' "$T/perf" || true)))
echo "OK: $n lines identical to $($PERF version) mem report (mem, snoop, tlb, filters)"
