#!/bin/sh
# Every subcommand `pmutrace help` lists has a manual page, and every long option its
# --help names is described in that page, so the pages cannot fall behind the code. With the pages built (lowdown),
# each renders without warnings. `pmutrace help CMD` prints CMD's help.
#   man_pages.sh PMUTRACE SOURCE_DIR BUILT_MAN_DIR
set -u
pmt=$1 src=$2 built=$3
fail() { echo "FAIL: $*"; exit 1; }
cmds=$("$pmt" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ "$(echo "$cmds" | wc -w)" -ge 14 ] || fail "pmutrace help lists only: $cmds"
for cmd in $cmds; do
	page=$src/cli/man/pmutrace-$cmd.1.md
	[ -f "$page" ] || fail "no manual page for $cmd ($page)"
	for opt in $("$pmt" "$cmd" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -q -- "$opt\\b" "$page" || fail "pmutrace-$cmd.1.md does not describe $opt"
	done
	grep -q "^# EXIT STATUS" "$page" || fail "pmutrace-$cmd.1.md has no EXIT STATUS"
	"$pmt" help "$cmd" | cmp -s - "$("$pmt" "$cmd" --help >"${TMPDIR:-/tmp}/pmt-help.$$"; echo "${TMPDIR:-/tmp}/pmt-help.$$")" ||
		fail "pmutrace help $cmd differs from $cmd --help"
	rm -f "${TMPDIR:-/tmp}/pmt-help.$$"
	if [ -f "$built/pmutrace-$cmd.1" ] && command -v man >/dev/null 2>&1; then
		w=$(MANWIDTH=80 man --warnings -l "$built/pmutrace-$cmd.1" 2>&1 >/dev/null)
		[ -z "$w" ] || fail "pmutrace-$cmd.1 renders with warnings: $w"
	fi
done
echo "OK: every command's options are in its manual page"
