# Sourced by the shell tests. pmt_ok OUT ERR CMD...: runs a pmutrace command that must
# produce output and checks the exit-status rule (README "Exit status"): 0 with nothing on
# stderr, or 2 with the problems said on stderr; anything else fails the test. The status
# is left in $pmt_rc.
pmt_ok() {
	_out=$1
	_err=$2
	shift 2
	pmt_rc=0
	"$@" >"$_out" 2>"$_err" || pmt_rc=$?
	if [ "$pmt_rc" = 0 ] && [ -s "$_err" ]; then
		echo "FAIL: exit 0 but stderr says: $(head -3 "$_err")"
		exit 1
	fi
	if [ "$pmt_rc" = 2 ] && [ ! -s "$_err" ]; then
		echo "FAIL: exit 2 with nothing on stderr ($*)"
		exit 1
	fi
	if [ "$pmt_rc" != 0 ] && [ "$pmt_rc" != 2 ]; then
		echo "FAIL: exit $pmt_rc ($*): $(head -3 "$_err")"
		exit 1
	fi
	return 0
}
