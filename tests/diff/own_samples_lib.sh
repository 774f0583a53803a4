# Sourced by the tests of a trace's own samples (plain_vs_perf.sh, pebs_vs_perf.sh,
# spe_mix_vs_perf.sh): a scratch folder, fail, the perf 6.1 check, and `same WHAT`, which
# compares $tmp/want (perf's) with $tmp/got (pmutrace's) and fails on a difference or an
# empty output.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "SKIP: perf not installed"; exit 77; }
same() {
	cmp -s "$tmp/want" "$tmp/got" || { diff "$tmp/want" "$tmp/got" | head; fail "$1"; }
	[ -s "$tmp/got" ] || fail "$1: empty"
}
