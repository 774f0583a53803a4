#!/bin/sh
# pmutrace export sqlite: the database holds exactly the samples `script --csv` prints for
# the same trace and options (every row and column, in order, read back with the sqlite3
# CLI, not with pmutrace), the branch stacks of --itrace=l, the damage counts of a damaged
# trace; its schema is the one decode/export/SCHEMA.md documents; a bad trace is a clear
# error that leaves no database (and an older one untouched); usage errors exit 129.
#   export_sqlite.sh PMUTRACE SOURCE_DIR
set -u
pmt=$1 src=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: the sqlite3 CLI is not installed (apt-get install sqlite3)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$src/tests/tools/exit_status.sh"

"$pmt" synth --records 20000 --mix n1 --context --seed 7 -o "$T/a.spe" &&
	"$pmt" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.perf.data" || fail "making the trace"
# a damaged raw buffer (as tests/diff/spe_bad_input.sh): 2 bytes no packet starts with over
# an OP_TYPE packet at 0x289
"$pmt" synth --records 50 --seed 1 --mix loads --record-size 64 -o "$T/bad.spe" || fail synth
printf '\003\003' | dd of="$T/bad.spe" bs=1 seek=649 conv=notrunc 2>/dev/null

# script --csv's columns from the database's own columns (hex as perf prints it)
cols="e.name, s.cpu, s.pid, s.tid, s.time, printf('0x%x', s.ip), printf('0x%x', s.addr),
	printf('0x%x', s.phys_addr), s.period, s.weight, s.issue_lat, s.xlat_lat,
	printf('0x%x', s.data_src), s.mem_op, s.mem_lvl, s.mem_snoop, s.mem_tlb, s.op,
	printf('0x%x', s.flags), printf('0x%x', s.aux_offset)"
q() { sqlite3 -batch -noheader -list -separator , "$@"; }

# check NAME WANT_RC ARGS...: export and script --csv with the same decode options agree
check() {
	name=$1 want=$2
	shift 2
	db=$T/$name.db
	pmt_ok "$T/$name.out" "$T/$name.err" "$pmt" export sqlite "$@" -o "$db"
	[ "$pmt_rc" = "$want" ] || fail "$name: exit $pmt_rc, want $want: $(cat "$T/$name.err")"
	[ -s "$T/$name.out" ] && fail "$name: export wrote to stdout"
	pmt_ok "$T/$name.csv" "$T/$name.cerr" "$pmt" script "$@" --csv
	sed 's/^pmutrace export:/pmutrace script:/' "$T/$name.err" | cmp -s - "$T/$name.cerr" ||
		fail "$name: stderr differs from script's: $(cat "$T/$name.err")"
	# every row and column, in decode order (the brstack column, when there, separately)
	tail -n +2 "$T/$name.csv" | cut -d, -f1-20 >"$T/$name.want"
	q "$db" "SELECT $cols FROM samples s JOIN events e ON e.id = s.event_id ORDER BY s.id" \
		>"$T/$name.got"
	[ -s "$T/$name.want" ] || fail "$name: script printed no samples"
	cmp -s "$T/$name.want" "$T/$name.got" ||
		fail "$name: rows differ from script --csv: $(diff "$T/$name.want" "$T/$name.got" | head -5)"
	# the same rows as a whole, sorted (a check that does not rely on order)
	sort "$T/$name.want" >"$T/$name.sw"
	sort "$T/$name.got" | cmp -s "$T/$name.sw" - || fail "$name: sorted rows differ"
	# samples per event
	cut -d, -f1 "$T/$name.want" | sort | uniq -c | awk '{ print $2 "," $1 }' >"$T/$name.cw"
	q "$db" "SELECT e.name, count(*) FROM samples s JOIN events e ON e.id = s.event_id
		GROUP BY e.name ORDER BY e.name" >"$T/$name.cg"
	cmp -s "$T/$name.cw" "$T/$name.cg" ||
		fail "$name: samples per event: $(paste -d' ' "$T/$name.cw" "$T/$name.cg")"
	# threads: every (pid, tid) of the samples with its count
	awk -F, '{ n[$3 "," $4]++ } END { for (k in n) print k "," n[k] }' "$T/$name.want" |
		sort >"$T/$name.tw"
	q "$db" "SELECT pid, tid, samples FROM threads" | sort >"$T/$name.tg"
	cmp -s "$T/$name.tw" "$T/$name.tg" || fail "$name: threads differ"
	# the indexes (built from keys sorted by the export, not by CREATE INDEX): SQLite's own
	# check of every entry against the table, and each index walked in its order and
	# searched in a range (upper-half values are negative) gives what a table scan gives
	[ "$(q "$db" "PRAGMA integrity_check")" = ok ] || fail "$name: integrity_check failed"
	for ix in samples_time:time samples_ip:ip samples_addr:addr samples_event:event_id; do
		c=${ix#*:}
		by() {
			q "$db" "SELECT group_concat(id) FROM (SELECT id FROM samples $1
				ORDER BY $c, id); SELECT count(*) FROM samples $1 WHERE $c < 0
				OR $c BETWEEN 2 AND 0x7fffffff"
		}
		[ "$(by "INDEXED BY ${ix%:*}")" = "$(by "NOT INDEXED")" ] ||
			fail "$name: index ${ix%:*} disagrees with the table"
	done
	# the samples table and its indexes are written as b-tree pages by pmutrace itself:
	# the same table, row for row, and the same schema as SQLite's own INSERTs make
	pmt_ok "$T/$name.api.out" "$T/$name.api.err" "$pmt" export sqlite "$@" --sqlite-api \
		-o "$T/$name.api.db"
	[ "$pmt_rc" = "$want" ] || fail "$name --sqlite-api: exit $pmt_rc, want $want"
	q "$db" ".dump samples" >"$T/$name.dump"
	q "$T/$name.api.db" ".dump samples" | cmp -s "$T/$name.dump" - ||
		fail "$name: .dump samples differs from --sqlite-api's"
	[ "$(grep -c '^INSERT INTO samples' "$T/$name.dump")" = "$(wc -l <"$T/$name.want")" ] ||
		fail "$name: .dump has not every row"
	echo "$name: $(wc -l <"$T/$name.want") rows equal"
}

check default 0 "$T/a.perf.data"
check perf61 0 "$T/a.perf.data" --itrace=bfmtaMi1i --perf-compat=6.1
check filtered 0 "$T/a.perf.data" --itrace=bl --time 20%-70%
check damaged 2 --raw "$T/bad.spe" --cpu 3 --tid 42
# kernel addresses (above 2^63: negative SQLite integers) in a timeless trace, with perf
# 6.1's all-zero first sample
"$pmt" synth --records 5000 --mix n1 --seed 5 --kernel-pct 30 -o "$T/k.spe" &&
	"$pmt" convert --raw "$T/k.spe" --timeless -o "$T/k.perf.data" || fail "making the kernel trace"
check kernel 0 "$T/k.perf.data" --perf-compat=6.1
[ "$(q "$T/kernel.db" "SELECT count(*) > 100 FROM samples WHERE ip < 0")" = 1 ] ||
	fail "kernel: no kernel ips"

# branch stacks: the brstack text script prints, rebuilt from branch_entries
# (bstack_event_str(): "-" or P/M then N; in_tx X; perf's branch type names)
awk -F, 'NR > 1 && $21 != "" { print NR - 1 "," $21 }' "$T/filtered.csv" >"$T/bs.want"
q "$T/filtered.db" "SELECT sample_id || ',' || group_concat(t, ' ') FROM (SELECT sample_id,
	printf('0x%x/0x%x/%s/%s/-/%d/%s/-', from_ip, to_ip,
		CASE WHEN branch_flags & 7 = 0 THEN '-' ELSE
			(CASE WHEN branch_flags & 2 THEN 'P' ELSE 'M' END) ||
			(CASE WHEN branch_flags & 4 THEN 'N' ELSE '' END) END,
		CASE WHEN branch_flags & 8 THEN 'X' ELSE '-' END, cycles,
		CASE branch_type WHEN 1 THEN 'COND' WHEN 2 THEN 'UNCOND' WHEN 3 THEN 'IND'
			WHEN 4 THEN 'CALL' WHEN 5 THEN 'IND_CALL' WHEN 6 THEN 'RET'
			WHEN 9 THEN 'COND_CALL' WHEN 10 THEN 'COND_RET' ELSE '' END) AS t
	FROM branch_entries ORDER BY sample_id, idx) GROUP BY sample_id ORDER BY sample_id" \
	>"$T/bs.got"
[ -s "$T/bs.want" ] || fail "--itrace=bl gave no branch stacks"
cmp -s "$T/bs.want" "$T/bs.got" ||
	fail "branch stacks differ: $(diff "$T/bs.want" "$T/bs.got" | head -5)"

# the damage script reports is in aux_loss: "2 bytes skipped in 1 ranges, 1 partial
# records dropped, first bad byte at AUX stream offset 0x289"
grep -q "2 bytes skipped in 1 ranges, 1 partial records dropped, first bad byte at AUX stream offset 0x289" \
	"$T/damaged.err" || fail "damaged: $(cat "$T/damaged.err")"
[ "$(q "$T/damaged.db" "SELECT bytes_skipped, bad_ranges, records_dropped,
	printf('0x%x', first_bad_offset) FROM aux_loss")" = "2,1,1,0x289" ] ||
	fail "aux_loss: $(q "$T/damaged.db" 'SELECT * FROM aux_loss')"
[ "$(q "$T/default.db" "SELECT bytes_skipped, first_bad_offset IS NULL FROM aux_loss")" = "0,1" ] ||
	fail "aux_loss of an intact trace"

# runs: where the data came from
[ "$(q "$T/default.db" "SELECT count(*), trace, pmutrace_version, perf_compat FROM runs")" = \
	"1,$T/a.perf.data,$("$pmt" --version),9999" ] || fail "runs: $(q "$T/default.db" 'SELECT * FROM runs')"
[ "$(q "$T/perf61.db" "SELECT perf_compat, record_cmdline LIKE 'convert --raw%' FROM runs")" = "601,1" ] ||
	fail "runs of perf61: $(q "$T/perf61.db" 'SELECT * FROM runs')"
[ "$(q "$T/perf61.db" "SELECT name FROM events WHERE id = 6")" = branch-miss ] ||
	fail "event names do not follow --perf-compat=6.1"

# the schema: SCHEMA.md's sql block is what sqlite3 .schema prints
awk '/^## The schema/ { s = 1 } s && /^```$/ { s = 0 } s == 2 { print } s && /^```sql$/ { s = 2 }' \
	"$src/decode/export/SCHEMA.md" >"$T/schema.want"
[ -s "$T/schema.want" ] || fail "no sql block in SCHEMA.md"
sqlite3 "$T/default.db" .schema >"$T/schema.got"
cmp -s "$T/schema.want" "$T/schema.got" ||
	fail "SCHEMA.md differs from the database: $(diff "$T/schema.want" "$T/schema.got" | head -8)"

# --no-index: the same rows, the schema without the indexes
"$pmt" export sqlite "$T/a.perf.data" --no-index -o "$T/noidx.db" || fail "--no-index"
grep -v '^CREATE INDEX' "$T/schema.want" >"$T/schema.noidx"
sqlite3 "$T/noidx.db" .schema | cmp -s "$T/schema.noidx" - || fail "--no-index: schema"
[ "$(q "$T/noidx.db" "ATTACH '$T/default.db' AS d; SELECT (SELECT count(*) FROM samples),
	(SELECT count(*) FROM d.samples), (SELECT count(*) FROM (SELECT * FROM samples EXCEPT
	SELECT * FROM d.samples))")" = "$(wc -l <"$T/default.want"),$(wc -l <"$T/default.want"),0" ] ||
	fail "--no-index: rows differ"

# the same trace as a pmutrace container and on stdin: the same samples
"$pmt" convert "$T/a.perf.data" --container -o "$T/a.ctr" || fail "convert --container"
"$pmt" export sqlite "$T/a.ctr" -o "$T/ctr.db" || fail "export of a container"
"$pmt" export sqlite - -o "$T/stdin.db" <"$T/a.perf.data" || fail "export of stdin"
for db in ctr stdin; do
	[ "$(q "$T/$db.db" "ATTACH '$T/default.db' AS d; SELECT (SELECT count(*) FROM samples),
		(SELECT count(*) FROM (SELECT * FROM samples EXCEPT SELECT * FROM d.samples))")" = \
		"$(wc -l <"$T/default.want"),0" ] || fail "$db: samples differ from the perf.data's"
done

# a bad trace: exit 1, the file named, no database (nor its temporary file); an older
# database at the target stays as it was
printf 'not a trace at all\n' >"$T/junk.data"
rc=0
"$pmt" export sqlite "$T/junk.data" -o "$T/junk.db" >/dev/null 2>"$T/junk.err" || rc=$?
[ $rc = 1 ] || fail "bad trace: exit $rc, want 1"
grep -q "junk.data: offset 0: not a perf.data file" "$T/junk.err" || fail "bad trace: $(cat "$T/junk.err")"
ls -a "$T" | grep -q 'junk\.db' && fail "a bad trace left $(ls -a "$T" | grep 'junk\.db')"
cp "$T/default.db" "$T/keep.db"
rc=0
"$pmt" export sqlite "$T/junk.data" -o "$T/keep.db" 2>/dev/null || rc=$?
[ $rc = 1 ] && cmp -s "$T/default.db" "$T/keep.db" || fail "a failed export changed the older database"
ls -a "$T" | grep -q '^\.keep\.db' && fail "a temporary file stayed"
# SIGTERM during the export: no database, no temporary file (an export that finished
# first is whole)
"$pmt" synth --records 200000 --mix n1 --seed 3 -o "$T/big.spe" &&
	"$pmt" convert --raw "$T/big.spe" -o "$T/big.data" || fail "making the big trace"
"$pmt" export sqlite "$T/big.data" -o "$T/term.db" 2>/dev/null &
pid=$!
sleep 0.3
kill -TERM $pid 2>/dev/null
rc=0
wait $pid || rc=$?
case $rc in
143) [ -e "$T/term.db" ] && fail "SIGTERM left term.db" ;;
0) [ "$(q "$T/term.db" "SELECT count(*) > 0 FROM aux_loss")" = 1 ] || fail "finished export incomplete" ;;
*) fail "SIGTERM: exit $rc" ;;
esac
ls -a "$T" | grep -q '^\.term\.db' && fail "SIGTERM left $(ls -a "$T" | grep '^\.term')"

# a write that fails (the file size limit, as a full disk would fail it) while the samples'
# pages are written: exit 1 with the reason, no database, no temporary or spill file
for lim in 8192 70000; do
	rc=0
	(ulimit -f $lim && trap '' XFSZ && exec "$pmt" export sqlite "$T/big.data" -o "$T/full.db") \
		>/dev/null 2>"$T/full.err" || rc=$?
	[ $rc = 1 ] || fail "file size limit $lim: exit $rc, want 1: $(cat "$T/full.err")"
	grep -q "File too large" "$T/full.err" || fail "file size limit $lim: $(cat "$T/full.err")"
	ls -a "$T" | grep -q 'full\.db' && fail "a failed write left $(ls -a "$T" | grep 'full\.db')"
done

# exporting again replaces the database (one run, not two)
"$pmt" export sqlite "$T/a.perf.data" -o "$T/keep.db" --cpu 0 || fail "re-export"
[ "$(q "$T/keep.db" "SELECT count(*) FROM runs")" = 1 ] || fail "re-export appended"

# usage errors: 129 with the reason
usage() {
	want=$1
	shift
	rc=0
	"$pmt" export "$@" >/dev/null 2>"$T/u.err" || rc=$?
	[ $rc = 129 ] || fail "export $*: exit $rc, want 129"
	grep -q -- "$want" "$T/u.err" || fail "export $*: $(cat "$T/u.err")"
}
usage "unknown format 'csv' (formats: sqlite, pprof, postgresql)" csv "$T/a.perf.data" -o "$T/x.db"
usage "no output: -o FILE.db" sqlite "$T/a.perf.data"
usage "a database is a file" sqlite "$T/a.perf.data" -o -
usage "the format comes first" -o "$T/x.db" sqlite "$T/a.perf.data"
usage "unrecognized option" sqlite "$T/a.perf.data" -o "$T/x.db" --csv
[ -e "$T/x.db" ] && fail "a usage error wrote a database"
echo "OK: export sqlite equals script --csv (5 cases; container and stdin too), schema as documented, errors and SIGTERM clean"
