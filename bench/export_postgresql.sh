#!/bin/sh
# `pmutrace export postgresql` and `export pprof` of ~1M samples (not a test; prints figures).
#   bench/export_postgresql.sh [PMUTRACE] [RECORDS] [PERF]
#   (default: build/cli/pmutrace, 760000 records = ~1.0M samples, perf)
# The same trace and decode as bench/export_sqlite.sh (perf 6.1's rules, --itrace=bfmtaM).
# A private PostgreSQL server (tests/tools/pg_server.sh) in a temporary folder, fsync on
# (the default); the figures: a first run (the tables and indexes created), a second run
# into the same database (COPY keeping the indexes up), a run with --no-index into a fresh
# database, then perf's export-to-postgresql.py on the same file when perf, PySide2 and its
# PostgreSQL driver (libqt5sql5-psql) are there, and the pprof file of the same samples.
# "MB out": the database's size on disk after the run (pg_database_size) or the file's.
set -eu
PMUTRACE=${1:-build/cli/pmutrace}
RECORDS=${2:-760000}
PERF=${3:-perf}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SCRIPT=/usr/lib/perf-core/scripts/python/export-to-postgresql.py
T=$(mktemp -d)
. "$SRC/tests/tools/pg_server.sh"
. "$SRC/bench/export_lib.sh"
trap 'pg_stop "$T"; rm -rf "$T"' EXIT
pg_start "$T" >"$T/why" 2>&1 || { cat "$T/why"; exit 1; }
"$PMUTRACE" synth --records "$RECORDS" --seed 1 --mix n1 --context -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.perf.data"
echo "input: $RECORDS SPE records, $(wc -c <"$T/a.perf.data") bytes of perf.data"
pq() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$1" -c "$2"; }
db() { echo "host=$T port=54329 user=pmt dbname=$1"; }
for d in one noidx; do pq "$PMT_PG" "CREATE DATABASE $d"; done
opts="--itrace=bfmtaM --perf-compat=6.1"

# shellcheck disable=SC2086
timed first "$PMUTRACE" export postgresql "$T/a.perf.data" $opts --db "$(db one)"
rows=$(pq "$(db one)" "SELECT count(*) FROM samples WHERE run_id = 1")
report first "$rows" "$(pq "$(db one)" "SELECT pg_database_size('one')")"
# shellcheck disable=SC2086
timed second "$PMUTRACE" export postgresql "$T/a.perf.data" $opts --db "$(db one)"
report second "$rows" "$(pq "$(db one)" "SELECT pg_database_size('one')")"
# shellcheck disable=SC2086
timed noindex "$PMUTRACE" export postgresql "$T/a.perf.data" $opts --no-index --db "$(db noidx)"
report noindex "$rows" "$(pq "$(db noidx)" "SELECT pg_database_size('noidx')")"
# the default decode (newest perf: instructions samples too)
timed newest "$PMUTRACE" export postgresql "$T/a.perf.data" --db "$(db one)"
report newest "$(pq "$(db one)" "SELECT count(*) FROM samples WHERE run_id = 3")" \
	"$(pq "$(db one)" "SELECT pg_database_size('one')")"
# pprof of the same samples: aggregated, so a small file
# shellcheck disable=SC2086
timed pprof "$PMUTRACE" export pprof "$T/a.perf.data" $opts -o "$T/a.pb.gz"
report pprof "$rows" "$(wc -c <"$T/a.pb.gz")"

if ! command -v "$PERF" >/dev/null 2>&1 || [ ! -f "$SCRIPT" ] ||
	! /usr/bin/python3 -c 'import PySide2.QtSql as q, sys; q.QSqlDatabase.addDatabase("QPSQL").isValid() or sys.exit(1)' 2>/dev/null; then
	echo "perf's export-to-postgresql.py: not run (needs $PERF, $SCRIPT, PySide2 and" \
		"libqt5sql5-psql)"
	exit 0
fi
# perf's script creates the database itself and writes its COPY files into the folder
mkdir "$T/perf" && chmod 777 "$T/perf"
(cd "$T/perf" && PGHOST=$T PGPORT=54329 PGUSER=pmt timed perf "$PERF" script -i "$T/a.perf.data" \
	--itrace=bfmtaM -s "$SCRIPT" perfdb)
prow=$(pq "$(db perfdb)" "SELECT count(*) FROM samples WHERE id > 0")
report perf "$prow" "$(pq "$(db perfdb)" "SELECT pg_database_size('perfdb')")"
awk -v a="$(cut -d' ' -f1 "$T/perf.t")" -v b="$(cut -d' ' -f1 "$T/first.t")" \
	-v c="$(cut -d' ' -f1 "$T/noindex.t")" \
	'BEGIN { printf "pmutrace is %.1fx faster (wall), %.1fx without its indexes\n", a / b, a / c }'
