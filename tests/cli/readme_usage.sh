#!/bin/sh
# Every line of README's Usage block that needs no PMU hardware runs, from a scratch copy of
# the working directory layout (fixtures/ beside it), with `pmutrace` being the built binary;
# a "prints: TEXT" note must appear in that line's output. The README says which exit 2.
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
echo "OK: $n README usage lines run and print what the README says"
