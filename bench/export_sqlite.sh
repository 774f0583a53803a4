#!/bin/sh
# `pmutrace export sqlite` of ~1M samples, and perf's export-to-sqlite.py on the same file
# when perf and PySide2 are there (not a test; prints figures).
#   bench/export_sqlite.sh [PMUTRACE] [RECORDS] [PERF]
#   (default: build/cli/pmutrace, 760000 records = ~1.0M samples, perf)
# Both decode with perf 6.1's rules and --itrace=bfmtaM (perf 6.1's samples, which its
# script exports), so they write the same samples; the row counts are printed to show it
# (perf's script adds one all-zero placeholder row, id 0, not counted). Wall, CPU seconds
# and peak RSS from /usr/bin/time; rows/s = samples / wall seconds. perf runs its script as
# its documentation shows (perf script -s export-to-sqlite.py DB: the default columns, no
# calls), in one process (Python inside perf), so its CPU seconds are all its work. The
# ratios are printed for wall and CPU seconds: on a shared machine wall times are the
# scheduler's, CPU seconds the comparable figure. perf's script builds no index on samples,
# so --no-index is the like-for-like load. bench_sqlite_floor (beside the binary's build)
# prints what libsqlite3 alone costs for as many rows of the same table (bind/step per row,
# CREATE INDEX), then the same rows through the export without decoding (its floor).
set -eu
PMUTRACE=${1:-build/cli/pmutrace}
RECORDS=${2:-760000}
PERF=${3:-perf}
SCRIPT=/usr/lib/perf-core/scripts/python/export-to-sqlite.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records "$RECORDS" --seed 1 --mix n1 --context -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.perf.data"
echo "input: $RECORDS SPE records, $(wc -c <"$T/a.perf.data") bytes of perf.data"

. "$(dirname "$0")/export_lib.sh"

timed pmutrace "$PMUTRACE" export sqlite "$T/a.perf.data" --itrace=bfmtaM --perf-compat=6.1 \
	-o "$T/pmt.db"
rows=$(sqlite3 "$T/pmt.db" "SELECT count(*) FROM samples")
report pmutrace "$rows" "$(wc -c <"$T/pmt.db")"
# the load alone: perf's script builds no index on samples
timed noindex "$PMUTRACE" export sqlite "$T/a.perf.data" --itrace=bfmtaM --perf-compat=6.1 \
	--no-index -o "$T/noidx.db"
report noindex "$rows" "$(wc -c <"$T/noidx.db")"
# the default decode (newest perf: instructions samples too, 2.5x the rows)
timed newest "$PMUTRACE" export sqlite "$T/a.perf.data" -o "$T/new.db"
report newest "$(sqlite3 "$T/new.db" "SELECT count(*) FROM samples")" "$(wc -c <"$T/new.db")"

FLOOR=$(dirname "$PMUTRACE")/../bench/bench_sqlite_floor
[ -x "$FLOOR" ] && echo "libsqlite3 alone: $("$FLOOR" "$T/floor.db" "$rows")" && rm -f "$T/floor.db"

if ! command -v "$PERF" >/dev/null 2>&1 || [ ! -f "$SCRIPT" ]; then
	echo "perf's export-to-sqlite.py: not run ($PERF or $SCRIPT missing)"
	exit 0
fi
if ! /usr/bin/python3 -c 'import PySide2.QtSql' 2>/dev/null; then
	echo "perf's export-to-sqlite.py: not run (no PySide2 for /usr/bin/python3:" \
		"apt-get install python3-pyside2.qtsql)"
	exit 0
fi
timed perf "$PERF" script -i "$T/a.perf.data" --itrace=bfmtaM -s "$SCRIPT" "$T/perf.db"
prow=$(sqlite3 "$T/perf.db" "SELECT count(*) FROM samples WHERE id > 0")
report perf "$prow" "$(wc -c <"$T/perf.db")"
cpu() { awk '{ print $2 + $3 }' "$T/$1.t"; }
awk -v a="$(cut -d' ' -f1 "$T/perf.t")" -v b="$(cut -d' ' -f1 "$T/pmutrace.t")" \
	-v c="$(cut -d' ' -f1 "$T/noindex.t")" -v ac="$(cpu perf)" -v bc="$(cpu pmutrace)" \
	-v cc="$(cpu noindex)" \
	'BEGIN { printf "pmutrace is %.1fx faster (wall), %.1fx without its indexes; CPU: %.1fx, %.1fx\n",
		a / b, a / c, ac / bc, ac / cc }'
