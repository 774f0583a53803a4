#!/bin/sh
# Files by build-id from a debuginfod server: a real one (elfutils' debuginfod, started
# here on a loopback port over a directory of the fixtures) serves the executable's debug
# file and the library; decoding with only DEBUGINFOD_URLS set gives what decoding with the
# files under --symfs gives; the client's cache answers a second run with the server gone;
# --debuginfod=URL overrides the environment, --no-debuginfod asks nobody; a build-id the
# server lacks is said on stderr.
#   debuginfod.sh PMUTRACE SOURCE_DIR
set -eu
pmt=$1
SRC=$2
command -v debuginfod >/dev/null || { echo "SKIP: debuginfod (the server) not installed"; exit 77; }
T=$(mktemp -d)
SRV=
trap '[ -z "$SRV" ] || kill $SRV 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/symbols_fixture.sh"
fixture_trace "$T"
export HOME="$T/nohome" DEBUGINFOD_CACHE_PATH="$T/cache"
unset DEBUGINFOD_URLS
F=comm,tid,ip,sym,symoff,dso,srcline
"$pmt" script "$T/a.data" --symfs "$T/symfs" -F $F >"$T/want"
grep -q ' work_[0-9]*+0x' "$T/want" && grep -q ' lib_part_[0-9]*+0x' "$T/want" ||
	fail "the fixture trace has no symbols even with --symfs"
# the server has the stripped executable with its debug file, and the library
mkdir -p "$T/srv"
cp "$T/fx/app.stripped" "$T/fx/app.debug" "$T/fx/libfix.so" "$T/srv/"
port=
for try in 1 2 3 4 5; do
	p=$((20000 + ($$ * 7 + try * 997) % 40000))
	debuginfod -p $p -F -d "$T/db.sqlite" -t 0 -g 0 "$T/srv" >"$T/srv.log" 2>&1 &
	SRV=$!
	sleep 0.5
	if kill -0 $SRV 2>/dev/null; then port=$p; break; fi
	SRV=
done
[ -n "$port" ] || { echo "SKIP: debuginfod did not start: $(tail -3 "$T/srv.log")"; exit 77; }
URL=http://127.0.0.1:$port
# wait until it has indexed both build-ids
for i in $(seq 100); do
	curl -sf -o /dev/null "$URL/buildid/$(bid "$T/fx/app")/debuginfo" &&
		curl -sf -o /dev/null "$URL/buildid/$(bid "$T/fx/libfix.so")/executable" && break
	sleep 0.2
done
[ "$i" -lt 100 ] || fail "debuginfod never served the fixtures: $(tail -5 "$T/srv.log")"

# no local files at all: only the server
DEBUGINFOD_URLS=$URL "$pmt" script "$T/a.data" -F $F >"$T/got" 2>"$T/err"
cmp -s "$T/want" "$T/got" || { echo "FAIL: symbols from debuginfod differ from --symfs:"; diff "$T/want" "$T/got" | head -6; exit 1; }
DEBUGINFOD_URLS=$URL "$pmt" report "$T/a.data" --sort sym,dso >"$T/got.rep" 2>/dev/null
"$pmt" report "$T/a.data" --symfs "$T/symfs" --sort sym,dso >"$T/want.rep"
cmp -s "$T/want.rep" "$T/got.rep" || fail "report --sort sym,dso from debuginfod differs"
ls "$T/cache" | grep -q . || fail "nothing in the client cache $T/cache"

# the server gone: the cache answers
kill $SRV; wait $SRV 2>/dev/null || true
SRV=
DEBUGINFOD_URLS=$URL "$pmt" script "$T/a.data" -F $F >"$T/got" 2>/dev/null
cmp -s "$T/want" "$T/got" || fail "the second run (server stopped) did not use the cache"

# --no-debuginfod asks nobody, the cache is no local path either
DEBUGINFOD_URLS=$URL "$pmt" script "$T/a.data" --no-debuginfod -F $F >"$T/none" 2>/dev/null
grep -q ' work_[0-9]*+0x' "$T/none" && fail "--no-debuginfod still found symbols"
# --debuginfod=URL without the environment; a fresh cache and a dead server: said why
rm -rf "$T/cache"
rc=0
"$pmt" script "$T/a.data" --debuginfod="$URL" -F $F >"$T/none" 2>"$T/err" || rc=$?
grep -q ' work_[0-9]*+0x' "$T/none" && fail "symbols without a server"
# one warning for the dead server, not one per file; exit 2: output short of what was asked
[ $rc = 2 ] && [ "$(grep -c "debuginfod ($URL): .*nowhere else have no symbols" "$T/err")" = 1 ] ||
	fail "dead server: exit $rc, stderr: $(cat "$T/err")"
echo "ok: $(grep -c . "$T/want") samples symbolized from debuginfod as from --symfs; cache reused"
