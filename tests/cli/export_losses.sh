#!/bin/sh
# pmutrace export: the trace's loss records in aux_loss_ranges. Two recordings of the
# simulated SPE PMU (tests/pmusim): an AUX storm (truncated, partial and collided AUX
# buffers) and a data-ring overflow (LOST records). The table's rows are perf 6.1's
# `report -D` PERF_RECORD_AUX lines with a truncated/partial/collision flag and its
# PERF_RECORD_LOST lines (CPU, time, file offset, AUX offset and size, flags, lost count),
# row for row; the counts per kind are `pmutrace info`'s; with a PostgreSQL server, the
# table of each run equals the SQLite export's.   export_losses.sh PMUTRACE SOURCE_DIR
set -u
pmt=$1 src=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: the sqlite3 CLI is not installed"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler for the simulated PMU"; exit 77; }
T=$(mktemp -d)
. "$src/tests/tools/pg_server.sh"
stop() { pg_stop "$T"; rm -rf "$T"; }
trap stop EXIT
sq() { sqlite3 -batch -noheader -list -separator ' ' "$@"; }

cc -shared -fPIC -O2 -o "$T/sim.so" "$src/tests/pmusim/pmusim.c" -ldl -lpthread || fail "pmusim"
sh "$src/tests/pmusim/fake_sysfs.sh" "$T/fs" 2 arm_spe_0:8:0-1:1024
"$pmt" synth --records 20000 --seed 3 --mix n1 -o "$T/a.spe" || fail synth
# sim NAME 'ENV=V ...' 'RECORD OPTIONS': 1 s of the simulated PMU, as perf.data
sim() {
	# shellcheck disable=SC2086 # the lists split on purpose
	env SYSFS_PATH="$T/fs" PMUSIM_TYPE=8 PMUSIM_SPE="$T/a.spe" PMUSIM_LOG="$T/$1.log" $2 \
		LD_PRELOAD="$T/sim.so" "$pmt" record -q -e arm_spe_0// -a $3 --duration 1 \
		-o "$T/$1.ctr" 2>/dev/null
	"$pmt" convert "$T/$1.ctr" -o "$T/$1.data" 2>/dev/null || fail "recording $1"
}
sim storm "PMUSIM_CHUNK=65536 PMUSIM_COLLIDE=5" "-m 4,2"
sim overflow "PMUSIM_CHUNK=256" "-m 1,64"

for t in storm overflow; do
	"$pmt" export sqlite "$T/$t.data" -o "$T/$t.db" 2>"$T/$t.err" ||
		fail "$t: export: $(cat "$T/$t.err")"
	# pmutrace info: "313 AUX records (156 truncated, 156 partial, 32 collisions); lost: 0
	# (LOST), 0 (LOST_SAMPLES)"
	"$pmt" info "$T/$t.data" | sed -n 's/.*(\([0-9]*\) truncated, \([0-9]*\) partial, \([0-9]*\) collisions); lost: \([0-9]*\) (LOST), \([0-9]*\) (LOST_SAMPLES).*/\1 \2 \3 \4 \5/p' >"$T/$t.info"
	[ -s "$T/$t.info" ] || fail "$t: pmutrace info printed no loss counts"
	sq "$T/$t.db" "SELECT total(kind LIKE '%truncated%'), total(kind LIKE '%partial%'),
		total(kind LIKE '%collision%'), total(CASE kind WHEN 'lost' THEN lost END),
		total(CASE kind WHEN 'lost_samples' THEN lost END) FROM aux_loss_ranges" |
		sed 's/\.0\b//g' >"$T/$t.gotn"
	cmp -s "$T/$t.info" "$T/$t.gotn" ||
		fail "$t: counts per kind $(cat "$T/$t.gotn") vs pmutrace info $(cat "$T/$t.info")"
	# the kind text and the flags agree
	[ "$(sq "$T/$t.db" "SELECT count(*) FROM aux_loss_ranges WHERE flags IS NOT NULL AND
		kind <> substr((CASE WHEN flags & 1 THEN ',truncated' ELSE '' END) ||
		(CASE WHEN flags & 4 THEN ',partial' ELSE '' END) ||
		(CASE WHEN flags & 8 THEN ',collision' ELSE '' END), 2)")" = 0 ] ||
		fail "$t: kind and flags disagree"
	echo "$t: $(cat "$T/$t.info") (truncated partial collision LOST LOST_SAMPLES) as pmutrace info"
done
[ "$(sq "$T/storm.db" "SELECT count(*) FROM aux_loss_ranges")" -gt 10 ] || fail "storm: no AUX losses"
[ "$(sq "$T/overflow.db" "SELECT count(*) FROM aux_loss_ranges WHERE kind = 'lost'")" -gt 0 ] ||
	fail "overflow: no LOST records"

# perf 6.1 report -D: every loss record, with its place in the file
if perf version >/dev/null 2>&1; then
	for t in storm overflow; do
		perf report -D -i "$T/$t.data" 2>/dev/null | awk '
			function hex(s,  v, i) {
				v = 0
				for (i = 3; i <= length(s); i++)
					v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v
			}
			# "0 21422400064487 0xc0a0 [0x40]: PERF_RECORD_AUX offset: 0x1fc0 size: 0
			#  flags: 0x5 [TP]" and "1 2142... 0xd2260 [0x38]: PERF_RECORD_LOST: id:1002: lost:962"
			$5 == "PERF_RECORD_AUX" && hex($11) % 2 + int(hex($11) / 4) % 4 {
				print $1, $2, hex($3), hex($7), hex($9), hex($11), "-" }
			$5 == "PERF_RECORD_LOST:" { sub(/lost:/, "", $7); print $1, $2, hex($3), "- - -", $7 }
			$5 == "PERF_RECORD_LOST_SAMPLES:" { print "lost_samples", $0 }' |
			sort -n -k3,3 >"$T/$t.want" # perf prints in time order, the table is file order
		sq "$T/$t.db" "SELECT cpu, time, file_offset, ifnull(aux_offset, '-'),
			ifnull(aux_size, '-'), ifnull(flags, '-'), ifnull(lost, '-')
			FROM aux_loss_ranges ORDER BY id" >"$T/$t.rows"
		[ -s "$T/$t.want" ] || fail "$t: perf report -D lists no loss"
		cmp -s "$T/$t.want" "$T/$t.rows" ||
			fail "$t: rows differ from perf report -D: $(diff "$T/$t.want" "$T/$t.rows" | head -5)"
		echo "$t: $(wc -l <"$T/$t.rows") rows equal perf 6.1 report -D's"
	done
else
	echo "note: perf 6.1 missing: the rows are not checked against report -D"
fi

# PostgreSQL: both recordings as runs of one database, the table as SQLite's
if pg_start "$T" >"$T/why" 2>&1; then
	n=0
	for t in storm overflow; do
		n=$((n + 1))
		"$pmt" export postgresql "$T/$t.data" --db "$PMT_PG" 2>"$T/pg.err" ||
			fail "$t: export postgresql: $(cat "$T/pg.err")"
		c="id, kind, cpu, tid, time, aux_offset, aux_size, flags, lost, file_offset"
		psql -X -q -A -t -F' ' -v ON_ERROR_STOP=1 "$PMT_PG" -c "SELECT $c FROM
			aux_loss_ranges WHERE run_id = $n ORDER BY id" >"$T/$t.pg"
		sq "$T/$t.db" "SELECT $c FROM aux_loss_ranges ORDER BY id" >"$T/$t.sq"
		cmp -s "$T/$t.sq" "$T/$t.pg" ||
			fail "$t: PostgreSQL's rows differ from SQLite's: $(diff "$T/$t.sq" "$T/$t.pg" | head -5)"
	done
	echo "PostgreSQL: the runs' aux_loss_ranges equal SQLite's"
else
	echo "note: no PostgreSQL server ($(tail -1 "$T/why")): its table is not checked"
fi
