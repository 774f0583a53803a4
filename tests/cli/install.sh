#!/bin/sh
# Issue 15: `cmake --install BUILD --prefix DIR` installs the binary, a manual page per
# command `pmutrace help` lists (and pmutrace.1), and bash completion that completes the
# commands (the same list as `pmutrace help`), `help CMD`, and a command's long options.
#   install.sh BUILD_DIR
set -u
B=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cmake --install "$B" --prefix "$T/p" >"$T/log" 2>&1 || { echo "FAIL: cmake --install: $(tail -3 "$T/log")"; exit 1; }
P=$T/p/bin/pmutrace
[ -x "$P" ] || { echo "FAIL: no bin/pmutrace"; exit 1; }
cmds=$("$P" help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ "$(echo "$cmds" | wc -w)" -ge 14 ] || bad "pmutrace help lists only: $cmds"
for c in "" $cmds; do
	page=$T/p/share/man/man1/pmutrace${c:+-$c}.1
	[ -s "$page" ] || { bad "no $page"; continue; }
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q "pmutrace" || bad "man -l $page shows nothing"
	fi
done
C=$T/p/share/bash-completion/completions/pmutrace
[ -s "$C" ] || { echo "FAIL: no bash completion"; exit 1; }
command -v bash >/dev/null || { [ $fail = 0 ] && echo "OK (no bash to try the completion)"; exit $fail; }
complete_words() { # WORDS...: what the completion offers for the last one
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pmutrace; echo "${COMPREPLY[*]}"' \
		_ "$C" "$@"
}
[ "$(complete_words "$P" '' | tr ' ' '\n' | grep -v -- '^-' | grep -vx help | sort)" = "$(echo "$cmds" | sort)" ] ||
	bad "the completion's commands $(complete_words "$P" '') are not pmutrace help's $(echo $cmds)"
[ "$(complete_words "$P" sc)" = script ] || bad "pmutrace sc<TAB>: $(complete_words "$P" sc)"
[ "$(complete_words "$P" help rep)" = report ] || bad "pmutrace help rep<TAB>: $(complete_words "$P" help rep)"
complete_words "$P" script --itr | grep -qx -- --itrace || bad "pmutrace script --itr<TAB>: $(complete_words "$P" script --itr)"
complete_words "$P" dump --mi | grep -qx -- --midr || bad "pmutrace dump --mi<TAB>: $(complete_words "$P" dump --mi)"
[ $fail = 0 ] || exit 1
echo "OK: binary, $(echo $cmds | wc -w) + 1 manual pages and bash completion installed; completion completes"
