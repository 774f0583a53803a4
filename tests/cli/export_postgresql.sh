#!/bin/sh
# pmutrace export postgresql: a private PostgreSQL server (initdb + pg_ctl in a temporary
# folder, a Unix socket only, stopped at the end) receives two recordings, each a run of
# its own; read back with psql, every table of each run equals the SQLite export of the same
# trace read back with sqlite3 (samples row by row and column by column, events, threads,
# comms, dsos, symbols, branch_entries, aux_loss); run ids are 1 and 2; a third export that
# cannot connect fails clearly and adds nothing. The server refuses to run as root: as root
# the test runs it as the user postgres (or nobody); exit 77 when there is no server or no
# way to start one.   export_postgresql.sh PMUTRACE SOURCE_DIR
set -u
pmt=$1 SRC=$2
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
command -v sqlite3 >/dev/null 2>&1 || skip "the sqlite3 CLI is not installed"
. "$SRC/tests/tools/pg_server.sh"
T=$(mktemp -d)
stop() { pg_stop "$T"; rm -rf "$T"; }
trap stop EXIT
pg_start "$T" >"$T/why" 2>&1 || { head -n -1 "$T/why"; skip "$(tail -1 "$T/why")"; }
DB=$PMT_PG
pq() { psql -X -q -A -t -F, -v ON_ERROR_STOP=1 "$DB" -c "$1"; }
sq() { sqlite3 -batch -noheader -list -separator , "$@"; }

# recording 1: a synthetic trace with branch stacks; recording 2: the symbol fixtures
. "$SRC/tests/tools/symbols_fixture.sh"
fixture_trace "$T/s"
"$pmt" synth --records 20000 --mix n1 --context --seed 7 -o "$T/a.spe" &&
	"$pmt" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.data" || fail "making the trace"
"$pmt" export postgresql "$T/a.data" --itrace=bfmtaMl --db "$DB" || fail "export 1"
"$pmt" export postgresql "$T/s/a.data" --symfs "$T/s/symfs" --db "$DB" || fail "export 2"
"$pmt" export sqlite "$T/a.data" --itrace=bfmtaMl -o "$T/1.db" || fail "sqlite export 1"
"$pmt" export sqlite "$T/s/a.data" --symfs "$T/s/symfs" -o "$T/2.db" || fail "sqlite export 2"
[ "$(pq "SELECT string_agg(id || ':' || trace, ' ' ORDER BY id) FROM runs")" = \
	"1:$T/a.data 2:$T/s/a.data" ] || fail "runs: $(pq 'SELECT id, trace FROM runs')"
pq "SELECT command FROM runs" | grep -q 'user=pmt' && fail "runs.command holds the connection string"

# the same query on both sides: hex as perf prints it (to_hex and printf give the same
# two's complement digits)
hex_pg() { echo "'0x' || to_hex($1)"; }
hex_sq() { echo "printf('0x%x', $1)"; }
cols() {
	h=$1
	echo "e.name, s.cpu, s.pid, s.tid, s.time, $($h s.ip), $($h s.addr), $($h s.phys_addr),
		s.period, s.weight, s.issue_lat, s.xlat_lat, $($h s.data_src), s.mem_op, s.mem_lvl,
		s.mem_snoop, s.mem_tlb, s.op, s.op_bits, $($h s.flags), $($h s.aux_offset),
		s.comm_id, s.dso_id, s.symbol_id, s.sym_offset, s.call_path_id"
}
for run in 1 2; do
	w="s.run_id = $run AND"
	pq "SELECT s.id, $(cols hex_pg) FROM samples s JOIN events e ON e.run_id = s.run_id AND
		e.id = s.event_id WHERE s.run_id = $run ORDER BY s.id" >"$T/pg.$run"
	sq "$T/$run.db" "SELECT s.id, $(cols hex_sq) FROM samples s JOIN events e ON
		e.id = s.event_id ORDER BY s.id" >"$T/sq.$run"
	[ "$(wc -l <"$T/sq.$run")" -gt 1000 ] || fail "run $run: too few samples in SQLite"
	cmp -s "$T/sq.$run" "$T/pg.$run" ||
		fail "run $run: samples differ from SQLite's: $(diff "$T/sq.$run" "$T/pg.$run" | head -5)"
	for t in "events:id, name" "threads:id, pid, tid, samples" "comms:id, comm" \
		"dsos:id, short_name, long_name" "symbols:id, dso_id, sym_start, name" \
		"call_paths:id, parent_id, symbol_id, $(hex_sq ip)" \
		"branch_entries:sample_id, idx, $(hex_sq from_ip), $(hex_sq to_ip), cycles, branch_type, branch_flags" \
		"aux_loss:records, bytes_skipped, bad_ranges, records_dropped, first_bad_offset" \
		"aux_loss_ranges:id, kind, cpu, tid, time, aux_offset, aux_size, flags, lost, file_offset"; do
		tab=${t%%:*} c=${t#*:}
		sq "$T/$run.db" "SELECT $c FROM $tab ORDER BY 1, 2" >"$T/sqt"
		c=$(echo "$c" | sed "s/printf('0x%x', \([a-z_]*\))/'0x' || to_hex(\1)/g")
		pq "SELECT $c FROM $tab WHERE run_id = $run ORDER BY 1, 2" >"$T/pgt"
		cmp -s "$T/sqt" "$T/pgt" ||
			fail "run $run: $tab differs from SQLite's: $(diff "$T/sqt" "$T/pgt" | head -5)"
	done
done
[ "$(pq "SELECT count(*) FROM branch_entries WHERE run_id = 1")" -gt 1000 ] ||
	fail "run 1 has no branch stacks"
[ "$(pq "SELECT count(*) FROM symbols WHERE run_id = 2")" -gt 10 ] || fail "run 2 has no symbols"
# a figure across runs, as a team would query it: samples per run and event, from the view
pq "SELECT run_id, event, count(*), sum(weight) FROM samples_view GROUP BY 1, 2 ORDER BY 1, 2" >"$T/pgv"
for run in 1 2; do
	sq "$T/$run.db" "SELECT $run, event, count(*), sum(weight) FROM samples_view GROUP BY 1, 2 ORDER BY 1, 2"
done >"$T/sqv"
cmp -s "$T/sqv" "$T/pgv" || fail "samples_view figures differ: $(diff "$T/sqv" "$T/pgv" | head -5)"

# SCHEMA.md's PostgreSQL block is the schema: every table's columns and types in order and
# the indexes on samples
awk '/^## PostgreSQL/ { s = 1 } s && /^```$/ { s = 0 } s == 2 { print } s && /^```sql$/ { s = 2 }' \
	"$SRC/decode/export/SCHEMA.md" >"$T/pgschema"
awk '/^CREATE TABLE/ { tab = $6; next } /^\)/ { tab = ""; next }
	tab != "" && $1 != "PRIMARY" { t = $2 # a type of two words: DOUBLE PRECISION
		if ($2 == "DOUBLE") t = t " " $3
		sub(/,$/, "", t); print tab "." $1 "." tolower(t) }' "$T/pgschema" >"$T/cols.want"
[ "$(wc -l <"$T/cols.want")" -gt 60 ] || fail "SCHEMA.md: no PostgreSQL block"
pq "SELECT c.table_name || '.' || c.column_name || '.' || lower(c.data_type) FROM
	information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
	WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
	ORDER BY t.table_name = 'runs' DESC, c.table_name, c.ordinal_position" >"$T/cols.got"
# the document's order (runs first, then as created) against the database's (runs, then by name)
{ grep '^runs\.' "$T/cols.want"; grep -v '^runs\.' "$T/cols.want" | sort -s -t. -k1,1; } >"$T/cols.w2"
cmp -s "$T/cols.w2" "$T/cols.got" || fail "SCHEMA.md's columns differ from the database: $(diff "$T/cols.w2" "$T/cols.got" | head -5)"
sed -n 's/^CREATE \(UNIQUE \)\{0,1\}INDEX IF NOT EXISTS \([a-z_]*\) .*/\2/p' "$T/pgschema" | sort >"$T/idx.want"
pq "SELECT indexname FROM pg_indexes WHERE tablename = 'samples'" | sort >"$T/idx.got"
cmp -s "$T/idx.want" "$T/idx.got" || fail "indexes: $(cat "$T/idx.got")"

# no server at the address: a clear error, exit 1, and no run added
"$pmt" export postgresql "$T/a.data" --db "host=$T port=1 user=pmt dbname=postgres" \
	>"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "unreachable server: exit $rc, want 1"
grep -q 'PostgreSQL: cannot connect' "$T/err" || fail "unreachable server: $(cat "$T/err")"
grep -q 'port=1' "$T/err" && fail "the error repeats the connection string: $(cat "$T/err")"
[ "$(pq "SELECT count(*) FROM runs")" = 2 ] || fail "a failed export added a run"
# usage: --db belongs to postgresql, -o does not
"$pmt" export postgresql "$T/a.data" >/dev/null 2>&1; [ $? = 129 ] || fail "no --db: not a usage error"
"$pmt" export sqlite "$T/a.data" -o "$T/x.db" --db "$DB" >/dev/null 2>&1
[ $? = 129 ] || fail "sqlite --db: not a usage error"
echo "OK: two runs in one PostgreSQL database equal their SQLite exports table by table" \
	"($(wc -l <"$T/pg.1") + $(wc -l <"$T/pg.2") samples)"
