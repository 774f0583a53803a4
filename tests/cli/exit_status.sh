#!/bin/sh
# One exit-status policy for every command (README "Exit status"): 0 = all read, nothing
# on stderr; 2 = output written but data lost or damaged, said on stderr; 1 = fatal, the
# message names the file and the system's reason; 129 = usage error, as perf.
# Usage: exit_status.sh PMUTRACE
set -u
pmt=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() { # STATUS NAME CMD...: exact status; output expected for 0 and 2
	want=$1; name=$2; shift 2
	rc=0
	"$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" = "$want" ] || fail "$name: exit $rc, want $want ($(head -2 "$tmp/err"))"
	case $want in
	0) [ ! -s "$tmp/err" ] || fail "$name: exit 0 but stderr: $(head -2 "$tmp/err")"
	   [ -s "$tmp/out" ] || [ -n "${to_file:-}" ] || fail "$name: no output" ;;
	2) [ -s "$tmp/err" ] || fail "$name: exit 2 with a silent stderr"
	   [ -s "$tmp/out" ] || [ -n "${to_file:-}" ] || fail "$name: exit 2 without output" ;;
	*) [ -s "$tmp/err" ] || fail "$name: exit $want without a message" ;;
	esac
}

"$pmt" synth --records 5000 --context --seed 9 -o "$tmp/a.spe"
"$pmt" convert --raw "$tmp/a.spe" --midr 0x410fd0c0 -o "$tmp/ok.data"
"$pmt" convert --raw "$tmp/a.spe" --midr 0x410fd0c0 --pipe -o "$tmp/ok.pipe"
# damaged: a pipe-mode file cut inside its AUX data, and bytes no packet starts with
size=$(stat -c %s "$tmp/ok.pipe")
head -c $((size - 1000)) "$tmp/ok.pipe" >"$tmp/cut.pipe"
cp "$tmp/ok.data" "$tmp/bad.data"
printf '\003\003\003\003' | dd of="$tmp/bad.data" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null

for cmd in "script" "script --csv" "report --stdio" "dump"; do
	# shellcheck disable=SC2086
	expect 0 "$cmd clean" "$pmt" $cmd "$tmp/ok.data"
	# shellcheck disable=SC2086
	expect 2 "$cmd truncated" "$pmt" $cmd "$tmp/cut.pipe"
	# shellcheck disable=SC2086
	expect 2 "$cmd bad bytes" "$pmt" $cmd "$tmp/bad.data"
	# shellcheck disable=SC2086
	expect 1 "$cmd missing file" "$pmt" $cmd "$tmp/nope.data"
	grep -q "$tmp/nope.data: No such file or directory" "$tmp/err" ||
		fail "$cmd missing file: $(cat "$tmp/err")"
	# shellcheck disable=SC2086
	expect 129 "$cmd unknown option" "$pmt" $cmd --no-such-option "$tmp/ok.data"
done
to_file=1
expect 0 "convert clean" "$pmt" convert "$tmp/ok.data" -o "$tmp/copy.data"
[ -s "$tmp/copy.data" ] || fail "convert wrote nothing"
# perf's habits: -i FILE, and ./perf.data when no file is named
for cmd in script report dump; do
	"$pmt" $cmd "$tmp/ok.data" >"$tmp/a.out" 2>/dev/null
	"$pmt" $cmd -i "$tmp/ok.data" >"$tmp/b.out" 2>/dev/null
	cp "$tmp/ok.data" "$tmp/perf.data"
	(cd "$tmp" && "$pmt" $cmd) >"$tmp/c.out" 2>/dev/null
	cmp -s "$tmp/a.out" "$tmp/b.out" && cmp -s "$tmp/a.out" "$tmp/c.out" ||
		fail "$cmd: FILE, -i FILE and ./perf.data differ"
	rm "$tmp/perf.data"
done

# a byte-swapped perf.data is a perf.data for every command (dump refused it before)
"$pmt" convert "$tmp/ok.data" --swap -o "$tmp/swapped.data" || fail "convert --swap"
to_file=
expect 0 "dump swapped" "$pmt" dump "$tmp/swapped.data"
grep -c 'PERF_RECORD_AUXTRACE' "$tmp/out" >"$tmp/n1"
"$pmt" dump "$tmp/ok.data" | grep -c 'PERF_RECORD_AUXTRACE' >"$tmp/n2"
cmp -s "$tmp/n1" "$tmp/n2" || fail "dump of the swapped copy shows other records"
to_file=1
expect 1 "convert missing" "$pmt" convert "$tmp/nope.data" -o "$tmp/x.data"
expect 129 "convert without -o" "$pmt" convert "$tmp/ok.data"
expect 129 "synth bad option" "$pmt" synth --records
expect 129 "metrics without table" "$pmt" metrics --counts x.csv
expect 129 "unknown command" "$pmt" no-such-command
expect 129 "misspelt command" "$pmt" scirpt "$tmp/ok.data"
grep -q "unknown command 'scirpt'; did you mean script?" "$tmp/err" || fail "a misspelt command: $(cat "$tmp/err")"
expect 129 "an option before the command" "$pmt" -j1 script "$tmp/ok.data"
grep -q "'-j1' is an option: options go after the command ('pmutrace script -j1 ...')" "$tmp/err" ||
	fail "an option before the command: $(cat "$tmp/err")"
# an option of another command or format is refused, not ignored (issue 15 item 6)
expect 129 "script --json" "$pmt" script --json "$tmp/ok.data"
expect 129 "report --csv" "$pmt" report --csv "$tmp/ok.data"
expect 129 "report --jsonl" "$pmt" report --jsonl "$tmp/ok.data"
# a bad option value is a usage error too, as perf's parse_options makes it (perf script
# --itrace=Q exits 129)
to_file=
expect 129 "synth bad number" "$pmt" synth --records abc
expect 129 "synth bad mix" "$pmt" synth --mix nosuch
for cmd in script report "export sqlite"; do
	# shellcheck disable=SC2086
	expect 129 "$cmd bad --itrace" "$pmt" $cmd "$tmp/ok.data" --itrace=Q -o "$tmp/q.db"
done
expect 129 "convert bad value" "$pmt" convert --raw "$tmp/a.spe" --cpu x -o "$tmp/q.data"
mfix=$(dirname "$0")/../../fixtures/metrics
expect 129 "metrics percentile out of range" "$pmt" metrics --metrics "$mfix/tiny-metrics.json" \
	--counts "$mfix/counts-lock.csv" --retire-latency p0
# two output formats: the last won and the other was ignored
expect 129 "script two formats" "$pmt" script "$tmp/ok.data" --csv --jsonl
expect 129 "report two formats" "$pmt" report "$tmp/ok.data" --stdio --json
expect 129 "report --sort two formats" "$pmt" report "$tmp/ok.data" --sort sym --csv --json
expect 129 "metrics two formats" "$pmt" metrics --metrics "$mfix/tiny-metrics.json" \
	--counts "$mfix/counts-lock.csv" --csv --json
echo "OK: exit statuses 0, 1, 2 and 129 as documented"
