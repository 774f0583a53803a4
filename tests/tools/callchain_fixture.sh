# Sourced by the call-chain tests (SRC: the source tree): callchain_fixture DIR builds
# fixtures/symbols for x86-64 into DIR/fx and records DIR/cc.data, perf 6.1's perf record
# -g (cpu-clock:u, frame pointers) of fx/callchain. It ends the test with 77 when there is
# no perf, no compiler, or perf record -g cannot record here, with 1 when the build fails.
callchain_fixture() {
	command -v perf >/dev/null || { echo "SKIP: no perf 6.1"; exit 77; }
	_rc=0
	sh "$SRC/fixtures/symbols/build.sh" x86_64 "$1/fx" >/dev/null || _rc=$?
	[ $_rc = 77 ] && { echo "SKIP: no compiler"; exit 77; }
	[ $_rc = 0 ] || { echo "FAIL: fixture build"; exit 1; }
	perf record -q -g -e cpu-clock:u -c 200000 -o "$1/cc.data" "$1/fx/callchain" 3000000 \
		>/dev/null 2>&1 || { echo "SKIP: perf record -g cannot record here"; exit 77; }
}
