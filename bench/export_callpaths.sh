#!/bin/sh
# `pmutrace export sqlite` of a large perf record -g recording (call chains: the call_paths
# table and samples.call_path_id) against the same workload recorded without -g, and perf
# 6.1's export-to-sqlite.py with its call-graph tables on the -g file when PySide2 is there
# (not a test; prints figures). Both with perf 6.1's model (--perf-compat=6.1), and the -g
# file once more with the newest (perf 7.3's nodes for inlined functions); then script
# --csv and --jsonl of the -g file (the callchain column) and perf 7.3's script -F
# ip,sym,symoff,dso (the same frames as text; its rows figure is the samples).
#   bench/export_callpaths.sh [PMUTRACE] [LOOPS] [PERF] [PERF73]
#   (default: build/cli/pmutrace, 60000000 loops of fixtures/symbols/callchain.c, sampled
#   every 20 us of cpu-clock: ~0.7-0.9M samples, each chain 5 frames)
# Wall, CPU seconds and peak RSS from /usr/bin/time; rows/s = samples / wall seconds.
set -eu
PMUTRACE=${1:-build/cli/pmutrace}
LOOPS=${2:-60000000}
PERF=${3:-perf}
PERF73=${4:-/var/cache/pmutrace-oracles/bin/perf-7.3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SCRIPT=/usr/lib/perf-core/scripts/python/export-to-sqlite.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sh "$SRC/fixtures/symbols/build.sh" x86_64 "$T/fx" >/dev/null
"$PERF" record -q -g -e cpu-clock:u -c 20000 -o "$T/g.data" "$T/fx/callchain" "$LOOPS" >/dev/null
"$PERF" record -q -e cpu-clock:u -c 20000 -o "$T/flat.data" "$T/fx/callchain" "$LOOPS" >/dev/null
echo "input: $(wc -c <"$T/g.data") bytes with chains (-g), $(wc -c <"$T/flat.data") without"

. "$(dirname "$0")/export_lib.sh"

q() { sqlite3 "$@"; }
for f in g flat; do
	timed "$f" "$PMUTRACE" export sqlite "$T/$f.data" --perf-compat=6.1 -o "$T/$f.db"
	report "$f" "$(q "$T/$f.db" "SELECT count(*) FROM samples")" "$(wc -c <"$T/$f.db")"
	timed "$f-noidx" "$PMUTRACE" export sqlite "$T/$f.data" --perf-compat=6.1 --no-index \
		-o "$T/$f-noidx.db"
	report "$f-noidx" "$(q "$T/$f.db" "SELECT count(*) FROM samples")" \
		"$(wc -c <"$T/$f-noidx.db")"
done
# the newest model: perf 7.3's nodes for inlined functions (a libdw lookup per new address)
timed g-newest "$PMUTRACE" export sqlite "$T/g.data" -o "$T/g-newest.db"
report g-newest "$(q "$T/g-newest.db" "SELECT count(*) FROM samples")" "$(wc -c <"$T/g-newest.db")"
echo "call_paths rows: $(q "$T/g.db" "SELECT count(*) FROM call_paths") (newest model:" \
	"$(q "$T/g-newest.db" "SELECT count(*) FROM call_paths"))," \
	"frames in the samples' chains: $(q "$T/g.db" "WITH RECURSIVE up(n) AS (SELECT call_path_id
	FROM samples WHERE call_path_id IS NOT NULL UNION ALL SELECT c.parent_id FROM up JOIN
	call_paths c ON c.id = up.n WHERE c.parent_id IS NOT NULL) SELECT count(*) FROM up")"

# the same chains as text columns: script --csv / --jsonl against perf 7.3's chain lines
timed csv "$PMUTRACE" script --csv "$T/g.data"
report csv "$(($(wc -l <"$T/csv.out") - 1))" "$(wc -c <"$T/csv.out")"
timed jsonl "$PMUTRACE" script --jsonl "$T/g.data"
report jsonl "$(wc -l <"$T/jsonl.out")" "$(wc -c <"$T/jsonl.out")"
if [ -x "$PERF73" ]; then
	timed perf73-F "$PERF73" script -i "$T/g.data" -F ip,sym,symoff,dso
	report perf73-F "$(($(wc -l <"$T/csv.out") - 1))" "$(wc -c <"$T/perf73-F.out")"
fi
rm -f "$T/csv.out" "$T/jsonl.out" "$T/perf73-F.out"

if ! /usr/bin/python3 -c 'import PySide2.QtSql' 2>/dev/null || [ ! -f "$SCRIPT" ]; then
	echo "perf's export-to-sqlite.py: not run (no $SCRIPT or no PySide2 for /usr/bin/python3)"
	exit 0
fi
# perf 6.1's 'callchains' alone stops in trace_begin: 'calls' too (an empty table here)
timed perf "$PERF" script -i "$T/g.data" -s "$SCRIPT" "$T/perf.db" all calls callchains
report perf "$(q "$T/perf.db" "SELECT count(*) FROM samples WHERE id > 0")" "$(wc -c <"$T/perf.db")"
awk -v a="$(cut -d' ' -f1 "$T/perf.t")" -v b="$(cut -d' ' -f1 "$T/g.t")" \
	-v c="$(cut -d' ' -f1 "$T/g-noidx.t")" \
	'BEGIN { printf "pmutrace is %.1fx faster (wall) on the -g file, %.1fx without its indexes\n", a / b, a / c }'
