#!/bin/sh
# Optional libraries are loaded by the commands that call them, not at start-up
# (pmutrace/dynlib.h): the dynamic loader's own trace (LD_DEBUG=libs, glibc) lists what a
# run loads. `report` loads none of libpq, libdebuginfod, libcapstone, libpfm or curl, also
# with DEBUGINFOD_URLS set while every file is found locally; a missing file with
# DEBUGINFOD_URLS set loads libdebuginfod. A library that cannot be loaded (an empty file
# of its soname first in LD_LIBRARY_PATH: the test's only hook, the loader's own rules) is
# named with the command that needed it: export postgresql and annotate fail (exit 1),
# --pfm-events too (129, as its other errors); debuginfod's is a warning (exit 2: files
# found nowhere else have no symbols).
#   lazy_libs.sh PMUTRACE SOURCE_DIR
set -u
pmt=$1 SRC=$2
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/tools/symbols_fixture.sh"
fixture_trace "$T/s"
export HOME="$T/home" DEBUGINFOD_CACHE_PATH="$T/dcache"
unset DEBUGINFOD_URLS
mkdir -p "$HOME" "$T/bad"
for so in libpq.so.5 libdebuginfod.so.1 libcapstone.so.4 libpfm.so.4; do
	: >"$T/bad/$so"
done

# loaded NAME: the sonames the last traced run looked up ("find library=NAME [0]; searching")
traced() {
	rm -f "$T"/ld.*
	LD_DEBUG=libs LD_DEBUG_OUTPUT="$T/ld" "$@"
}
loaded() { cat "$T"/ld.* | sed -n 's/.*find library=\([^ ;]*\).*/\1/p' | sort -u; }
optional='libpq|libdebuginfod|libcapstone|libpfm|libcurl|libgnutls|libssl|libkrb5'

traced "$pmt" report "$T/s/a.data" --symfs "$T/s/symfs" --sort sym,dso >"$T/r1" 2>"$T/e1" ||
	fail "report: exit $?: $(cat "$T/e1")"
# the trace itself must be there, or a run that loads nothing would pass
loaded | grep -qx libdw.so.1 || fail "LD_DEBUG=libs listed no libdw.so.1: $(loaded | tr '\n' ' ')"
grep -q 'lib_part_.* libfix\.so' "$T/r1" || fail "report: the fixtures' symbols are missing"
loaded | grep -E "$optional" && fail "report loaded the libraries above"

DEBUGINFOD_URLS=http://127.0.0.1:9 traced "$pmt" report "$T/s/a.data" --symfs "$T/s/symfs" \
	--sort sym,dso >"$T/r2" 2>"$T/e2" || fail "report with DEBUGINFOD_URLS: exit $?: $(cat "$T/e2")"
loaded | grep -E "$optional" && fail "report with every file found loaded the libraries above"
cmp -s "$T/r1" "$T/r2" || fail "DEBUGINFOD_URLS changed the report"

# no --symfs: the files are missing, so the server is asked (nothing listens on port 9)
DEBUGINFOD_URLS=http://127.0.0.1:9 traced "$pmt" report "$T/s/a.data" --sort sym,dso \
	>/dev/null 2>"$T/e3"
st=$?
loaded | grep -qx libdebuginfod.so.1 || fail "a missing file did not load libdebuginfod"
[ $st = 2 ] || fail "debuginfod without a server: exit $st, want 2: $(cat "$T/e3")"

# expect STATUS TEXT ENV... -- COMMAND...: the status and a line of stderr with TEXT
expect() {
	want=$1 text=$2
	shift 2
	env LD_LIBRARY_PATH="$T/bad" "$@" >"$T/out" 2>"$T/err"
	st=$?
	[ $st = "$want" ] || fail "$*: exit $st, want $want: $(cat "$T/err")"
	grep -qF -- "$text" "$T/err" || fail "$*: no '$text' in: $(cat "$T/err")"
}
expect 1 "export postgresql: cannot load libpq.so.5: " \
	"$pmt" export postgresql "$T/s/a.data" --db "dbname=none host=$T"
expect 1 "annotate: cannot load libcapstone.so.4: " \
	"$pmt" annotate "$T/s/a.data" --symfs "$T/s/symfs"
# record's event options fail as usage errors (129), libpfm4's own failures too
expect 129 "--pfm-events: cannot load libpfm.so.4: " \
	"$pmt" record --dry-run --pfm-events INST_RETIRED -- true
expect 2 "debuginfod: cannot load libdebuginfod.so.1: " DEBUGINFOD_URLS=http://127.0.0.1:9 \
	"$pmt" report "$T/s/a.data" --sort sym,dso
# once, not per file
[ "$(grep -c 'cannot load libdebuginfod' "$T/err")" = 1 ] ||
	fail "the debuginfod warning is not said once: $(cat "$T/err")"
echo "optional libraries: loaded by their commands only, missing ones named"
