#!/bin/sh
# pmutrace export sqlite with symbols: on a trace whose PCs fall in the project's AArch64
# fixtures (an executable and a shared library mapped by build-id MMAP2 records, found
# under --symfs) and in an unmapped kernel, every sample's comm, tid, ip, symbol+offset and
# dso read back from comms, symbols and dsos equal `pmutrace script -F
# comm,tid,ip,sym,symoff,dso` (which diff.symbols checks against perf 6.1 and 7.3), and
# each comm, dso and symbol has one row.   export_sqlite_symbols.sh PMUTRACE SOURCE_DIR
set -u
pmt=$1 SRC=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: the sqlite3 CLI is not installed"; exit 77; }
. "$SRC/tests/tools/symbols_fixture.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_trace "$T"

"$pmt" script "$T/a.data" --symfs "$T/symfs" -F comm,tid,ip,sym,symoff,dso |
	awk '{ $1 = $1; print }' >"$T/want" || fail script
"$pmt" export sqlite "$T/a.data" --symfs "$T/symfs" -o "$T/a.db" || fail export
sqlite3 -batch -noheader "$T/a.db" "SELECT c.comm || ' ' || s.tid || ' ' || printf('%x', s.ip)
	|| ' ' || coalesce(y.name || '+0x' || printf('%x', s.sym_offset), '[unknown]')
	|| ' (' || coalesce(d.long_name, '[unknown]') || ')'
	FROM samples s LEFT JOIN comms c ON c.id = s.comm_id LEFT JOIN symbols y ON y.id = s.symbol_id
	LEFT JOIN dsos d ON d.id = s.dso_id ORDER BY s.id" >"$T/got"
[ -s "$T/want" ] || fail "script printed nothing"
cmp -s "$T/want" "$T/got" || fail "symbols differ from script: $(diff "$T/want" "$T/got" | head -5)"
grep -q ' work_[0-9]*+0x' "$T/got" || fail "no sample resolved"
# one row per comm, dso and symbol (a name in two files is two symbols); a symbol's dso is
# the one of its samples
nsym=$(sed -n 's/.* \([^ ]*\)+0x[0-9a-f]* (\(.*\))$/\1 \2/p' "$T/want" | sort -u | wc -l)
[ "$(sqlite3 "$T/a.db" "SELECT (SELECT count(*) FROM comms) || ',' ||
	(SELECT count(DISTINCT comm) FROM comms) || ',' || (SELECT group_concat(long_name, ' ') FROM
	(SELECT long_name FROM dsos ORDER BY id)) || ',' || (SELECT count(*) FROM symbols) || ',' ||
	(SELECT count(DISTINCT dso_id || name) FROM symbols) || ',' ||
	(SELECT count(*) FROM samples s JOIN symbols y ON y.id = s.symbol_id WHERE y.dso_id != s.dso_id)")" = \
	"1,1,/usr/bin/app /usr/lib/libfix.so,$nsym,$nsym,0" ] ||
	fail "comms/dsos/symbols rows: $(sqlite3 "$T/a.db" 'SELECT count(*) FROM comms; SELECT * FROM dsos; SELECT count(*) FROM symbols')"
echo "OK: $(wc -l <"$T/got") samples' comm, symbol, offset and dso equal script -F"
