#!/bin/sh
# Every line of README's Usage block that needs no PMU hardware runs, from a scratch copy of
# the working directory layout (fixtures/ beside it), with `pmutrace` being the built binary;
# a "prints: TEXT" note must appear in that line's output. The README says which exit 2.
# The two other sh blocks (Two commands, the Exports query) run too.
#   readme_usage.sh PMUTRACE SOURCE_DIR
set -u
pmt=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/bin"
ln -s "$pmt" "$tmp/bin/pmutrace"
ln -s "$src/fixtures" "$tmp/fixtures"
sed -n '/^## Usage/,/^```$/p' "$src/README.md" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d' >"$tmp/lines"
[ -s "$tmp/lines" ] || fail "no Usage block in README.md"
n=0
while IFS= read -r line; do
	case $line in *"needs SPE hardware"*|*"needs an Intel PMU"*|*"needs the PEBS recording"*|*"needs a PostgreSQL server"*) continue ;; esac
	cmd=${line%%#*}
	want=
	case $line in *"prints: "*) want=${line##*prints: } ;; esac
	(cd "$tmp" && PATH="$tmp/bin:$PATH" sh -c "$cmd") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case $cmd in *"metrics --metrics"*) [ $rc = 2 ] || fail "$cmd: exit $rc, README says 2" ;;
	*) [ $rc = 0 ] || fail "$cmd: exit $rc: $(head -2 "$tmp/err")" ;; esac
	if [ -n "$want" ]; then
		grep -qF -- "$want" "$tmp/out" || fail "$cmd: README says it prints '$want'; it printed: $(head -3 "$tmp/out")"
	fi
	n=$((n + 1))
done <"$tmp/lines"
[ $n -ge 8 ] || fail "only $n README lines ran"

# The other sh blocks: "Two commands" dumps the packets of the bundled trace (its build
# steps are this build), and the Exports query lists the 10 loads of highest latency of
# the a.db the Usage block wrote.
sed -n '/^## Two commands/,/^## /p' "$src/README.md" | sed -n '/^```sh$/,/^```$/p' |
	grep -o './build/cli/pmutrace dump .*' >"$tmp/two"
[ -s "$tmp/two" ] || fail "no dump example in README's Two commands"
(cd "$src" && sh -c "$(sed "s|./build/cli/pmutrace|$pmt|" "$tmp/two")") >"$tmp/out" 2>"$tmp/err" ||
	fail "$(cat "$tmp/two"): exit $?: $(head -2 "$tmp/err")"
head -1 "$tmp/out" | grep -q '^\. \.\.\. ARM SPE data: size' &&
	[ "$(grep -c '^\.  [0-9a-f]\{8\}: ' "$tmp/out")" = 9 ] ||
	fail "$(cat "$tmp/two"): not perf -D's SPE header and 9 packets: $(head -3 "$tmp/out")"
sed -n '/^- \*\*Exports\.\*\*/,/^  ```$/p' "$src/README.md" | sed -n '/^  ```sh$/,/^  ```$/p' |
	sed '1d;$d' >"$tmp/query"
[ -s "$tmp/query" ] || fail "no sqlite3 query in README's Exports"
(cd "$tmp" && sh "$tmp/query") >"$tmp/out" 2>"$tmp/err" || fail "the Exports query: exit $?: $(head -2 "$tmp/err")"
[ "$(grep -c '^0x[0-9a-f]*|0x[0-9a-f]*|[0-9][0-9]*|' "$tmp/out")" = 10 ] ||
	fail "the Exports query does not list 10 loads: $(head -3 "$tmp/out")"
n=$((n + 2))
echo "OK: $n README examples run and print what the README says"
