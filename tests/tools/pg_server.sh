# Sourced by the PostgreSQL test and benchmark: a private server in a temporary folder.
# pg_start DIR starts one (initdb, trust, user pmt; a Unix socket in DIR only, so no port
# is shared with anyone) and sets PMT_PG to its conninfo; as root it runs the server as
# the user postgres or nobody (the server refuses root). pg_start returns 77 with the
# reason on stdout when there is no server or no way to run it; pg_stop DIR stops it.
pg_start() {
	_d=$1 _as=""
	command -v psql >/dev/null 2>&1 || { echo "psql is not installed (apt-get install postgresql)"; return 77; }
	_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -n "$_bin" ] && [ -x "$_bin/initdb" ] || _bin=$(dirname "$(command -v initdb 2>/dev/null || echo /x/x)")
	[ -x "$_bin/initdb" ] && [ -x "$_bin/pg_ctl" ] || { echo "no PostgreSQL server (apt-get install postgresql)"; return 77; }
	if [ "$(id -u)" = 0 ]; then
		for _u in postgres nobody; do
			id "$_u" >/dev/null 2>&1 && command -v runuser >/dev/null 2>&1 && { _as="runuser -u $_u --"; break; }
		done
		[ -n "$_as" ] || { echo "running as root without a postgres or nobody user for the server"; return 77; }
		chown "$_u" "$_d" || { echo "cannot give $_d to $_u"; return 77; }
	fi
	PG_AS=$_as PG_BIN=$_bin
	$_as "$_bin/initdb" -D "$_d/pg" -A trust -U pmt >"$_d/initdb.log" 2>&1 ||
		{ cat "$_d/initdb.log"; echo "initdb failed (above)"; return 77; }
	$_as "$_bin/pg_ctl" -D "$_d/pg" -o "-k $_d -p 54329 -c listen_addresses=''" -l "$_d/server.log" \
		-w start >/dev/null 2>&1 || { cat "$_d/server.log"; echo "the server did not start (above)"; return 77; }
	PMT_PG="host=$_d port=54329 user=pmt dbname=postgres"
}
pg_stop() {
	[ -n "${PG_BIN:-}" ] && $PG_AS "$PG_BIN/pg_ctl" -D "$1/pg" -m immediate -w stop >/dev/null 2>&1
	return 0
}
