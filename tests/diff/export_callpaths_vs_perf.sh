#!/bin/sh
# export sqlite's call paths against perf 6.1's own exporter (export-to-sqlite.py with its
# call-graph tables; it needs PySide2's QtSql): real -g recordings of
# fixtures/symbols/callchain.c (perf 6.1's, and pmutrace record -g's container read by perf
# through zstd -dc). perf builds the call_paths tree root first and numbers its nodes as
# they first appear, so the nodes are the same rows: each node's id, its parent's id and
# its path of symbol names (the address where no symbol holds a frame) are equal, and each
# sample's call path is the same path, sample by sample. perf's placeholder row 0 is left
# out. With a PostgreSQL server (tests/tools/pg_server.sh), the same traces exported there
# give the same call_paths rows and samples.call_path_id as SQLite, also into a database
# made before the column existed.
# perf 7.3's exporter (its trixie root's script, run with tests/tools/qtsql_shim for the
# PySide2 it lacks) on the same files: pmutrace's default (newest) export, the functions
# inlined at a frame's address as nodes below it, equal.
#   export_callpaths_vs_perf.sh PMUTRACE SOURCE_DIR [PERF73]
set -u
pmt=$1 SRC=$2 PERF73=${3:-}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/perf_export_script.sh"
perf_export_script
T=$(mktemp -d)
PG_BIN=""
. "$SRC/tests/tools/pg_server.sh"
trap 'pg_stop "$T"; rm -rf "$T"' EXIT
. "$SRC/tests/tools/callchain_fixture.sh"
callchain_fixture "$T"
"$pmt" record -q --no-bundle -g -e cpu-clock:u -c 200000 -o "$T/own.pmt" -- \
	"$T/fx/callchain" 1000000 || fail "pmutrace record -g failed where perf record -g worked"
command -v zstd >/dev/null 2>&1 || skip "zstd not installed"
zstd -q -dc "$T/own.pmt" >"$T/own.data" || fail "zstd -dc of pmutrace's container"

q() { sqlite3 -batch -noheader -list -separator , "$@"; }
# NODES ROOT: every node below the root as "id,parent,path" (names root first, ';'
# between); a frame without a symbol is its hex address. ROOT is the root's id.
paths_sql() {
	echo "WITH RECURSIVE t(id, parent, path) AS (
		SELECT c.id, c.parent_id, coalesce(y.name, printf('0x%x', c.ip)) FROM call_paths c
			LEFT JOIN symbols y ON y.id = c.symbol_id AND c.symbol_id > 0
			WHERE c.parent_id = $1 AND c.id != $1
		UNION ALL
		SELECT c.id, c.parent_id, t.path || ';' || coalesce(y.name, printf('0x%x', c.ip))
			FROM call_paths c JOIN t ON c.parent_id = t.id
			LEFT JOIN symbols y ON y.id = c.symbol_id AND c.symbol_id > 0)"
}
# same TRACE PERFDB PMTDB WHO: the nodes and each sample's path equal
same() {
	q "$2" "$(paths_sql 1) SELECT id, parent, path FROM t ORDER BY id" >"$T/perf.nodes"
	q "$3" "$(paths_sql "(SELECT id FROM call_paths WHERE parent_id IS NULL)")
		SELECT id, parent, path FROM t ORDER BY id" >"$T/pmt.nodes"
	[ "$(wc -l <"$T/perf.nodes")" -ge 5 ] || fail "$1: $4 exported no call paths"
	grep -q 'main;level_top;level_' "$T/perf.nodes" || fail "$1: $4's paths miss the fixture's chain"
	cmp -s "$T/perf.nodes" "$T/pmt.nodes" || fail "$1: call_paths differ from $4's" \
		"(id,parent,path; perf < > pmutrace): $(diff "$T/perf.nodes" "$T/pmt.nodes" | head -6)"
	q "$2" "$(paths_sql 1) SELECT coalesce(t.path, '-') FROM samples s
		LEFT JOIN t ON t.id = s.call_path_id WHERE s.id > 0 ORDER BY s.id" >"$T/perf.samples"
	q "$3" "$(paths_sql "(SELECT id FROM call_paths WHERE parent_id IS NULL)")
		SELECT coalesce(t.path, '-') FROM samples s LEFT JOIN t ON t.id = s.call_path_id
		ORDER BY s.id" >"$T/pmt.samples"
	cmp -s "$T/perf.samples" "$T/pmt.samples" || fail "$1: the samples' call paths differ" \
		"from $4's (perf < > pmutrace): $(diff "$T/perf.samples" "$T/pmt.samples" | head -6)"
}
# perf 7.3's script, in the oracles' trixie root: its python there has no PySide2, so
# tests/tools/qtsql_shim stands in for QtSql (it only stores the rows perf computes)
root73=""
if [ -x "$PERF73" ]; then
	root73=$(cd "$(dirname "$PERF73")/../trixie" 2>/dev/null && pwd) || root73=""
	[ -f "$root73/usr/lib/perf-core/scripts/python/export-to-sqlite.py" ] || root73=""
	# its python's own sqlite3 module, which the shim uses
	[ -n "$root73" ] && ! ls -d "$root73"/usr/lib/python3*/sqlite3 >/dev/null 2>&1 && root73=""
fi
n=0 inl=0
for tr in cc own; do
	# perf's 'callchains' alone stops in trace_begin (its call_query is made for 'calls'
	# only): 'calls' too, whose table stays empty without branch samples
	perf script -i "$T/$tr.data" -s "$script" "$T/$tr.perf.db" all calls callchains \
		>"$T/perf.out" 2>&1 || fail "perf's export of $tr: $(tail -3 "$T/perf.out")"
	"$pmt" export sqlite "$T/$tr.data" --perf-compat=6.1 -o "$T/$tr.db" ||
		fail "pmutrace export sqlite of $tr"
	# perf's root is row 1 (its parent the placeholder row 0), pmutrace's the row without
	# a parent
	same "$tr" "$T/$tr.perf.db" "$T/$tr.db" "perf 6.1"
	n=$((n + $(wc -l <"$T/pmt.samples")))
	[ -n "$root73" ] || continue
	# perf 7.3 adds the functions inlined at a frame's address as nodes below it
	PYTHONHOME=$root73/usr PYTHONPATH=$SRC/tests/tools/qtsql_shim "$PERF73" script \
		-i "$T/$tr.data" -s "$root73/usr/lib/perf-core/scripts/python/export-to-sqlite.py" \
		"$T/$tr.p73.db" all calls callchains >"$T/perf.out" 2>&1 ||
		fail "perf 7.3's export of $tr: $(tail -3 "$T/perf.out")"
	"$pmt" export sqlite "$T/$tr.data" -o "$T/$tr.73.db" || fail "pmutrace export sqlite of $tr"
	same "$tr" "$T/$tr.p73.db" "$T/$tr.73.db" "perf 7.3"
	grep -q ';level_leaf;mix_in$' "$T/pmt.nodes" || fail "$tr: no node of the inlined mix_in"
	inl=$((inl + 1))
done

# PostgreSQL: the same rows as SQLite
pg=""
if pg_start "$T" >"$T/why" 2>&1; then
	pq() { psql -X -q -A -t -F, -v ON_ERROR_STOP=1 "$PMT_PG" -c "$1"; }
	run=0
	# TRACE:COMPAT:SQLITE-DB, the newest model (inlined nodes) when it was exported
	runs="cc:6.1:cc.db own:6.1:own.db"
	[ -f "$T/cc.73.db" ] && runs="$runs cc:newest:cc.73.db"
	for r in $runs; do
		run=$((run + 1)) tr=${r%%:*} db=${r##*:} compat=${r#*:}
		compat=${compat%%:*}
		"$pmt" export postgresql "$T/$tr.data" --perf-compat=$compat --db "$PMT_PG" ||
			fail "pmutrace export postgresql of $tr"
		for c in "call_paths:id, parent_id, symbol_id, ip" "samples:id, call_path_id" \
			"symbols:id, dso_id, sym_start, name"; do
			tab=${c%%:*} cols=${c#*:}
			q "$T/$db" "SELECT $cols FROM $tab ORDER BY id" >"$T/sq.rows"
			pq "SELECT $cols FROM $tab WHERE run_id = $run ORDER BY id" >"$T/pg.rows"
			[ -s "$T/sq.rows" ] || fail "$r: SQLite's $tab is empty"
			cmp -s "$T/sq.rows" "$T/pg.rows" || fail "$r: PostgreSQL's $tab differs from SQLite's:" \
				"$(diff "$T/sq.rows" "$T/pg.rows" | head -6)"
		done
	done
	# a database made before call paths were exported: the next export adds the column
	# and the table
	pq "ALTER TABLE samples DROP COLUMN call_path_id; DROP TABLE call_paths" ||
		fail "cannot make an old database"
	"$pmt" export postgresql "$T/cc.data" --perf-compat=6.1 --db "$PMT_PG" ||
		fail "export postgresql into a database without call_path_id"
	run=$((run + 1))
	[ "$(pq "SELECT count(*) FROM samples WHERE run_id = $run AND call_path_id IS NOT NULL")" = \
		"$(q "$T/cc.db" "SELECT count(*) FROM samples WHERE call_path_id IS NOT NULL")" ] ||
		fail "an old database: the new run's samples lack their call paths"
	pg=", PostgreSQL's equal SQLite's"
else
	echo "note: no PostgreSQL server, its part is skipped: $(tail -1 "$T/why")"
fi
w73=" (perf 7.3's not run: no oracle, or no python with sqlite3 in its root)"
[ $inl = 0 ] || w73=" and perf 7.3's with inlined nodes"
echo "OK: call paths of $n samples (two -g recordings) equal perf 6.1's export-to-sqlite.py$w73$pg"
