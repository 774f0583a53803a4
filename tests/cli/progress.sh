#!/bin/sh
# Progress lines (issue 13 item 5): script, report and export draw one on stderr when it is
# a terminal (util-linux's `script` gives them a pty), with the AUX bytes decoded of the
# trace's size and its share, samples, MB/s, samples/s and an ETA; the line is cleared at the end;
# nothing is drawn when stderr is a file, unless --progress asks, and --no-progress keeps
# a terminal quiet.
#   progress.sh PMUTRACE
set -u
pmt=$1
command -v script >/dev/null || { echo "SKIP: util-linux's script is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# long enough to decode (report --sort resolves every sample) for several lines at 5/s: 400k
# records took report --sort 0.2 s once its address cache came, too few for a line
"$pmt" synth --records 2000000 --seed 5 --mix n1 -o "$T/a.spe" &&
	"$pmt" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.data" || fail "making the trace"
size=$(wc -c <"$T/a.data")
mb=$(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1e6 }')

# pty NAME CMD: run CMD (a shell line) with stdin, stdout and stderr on a pty; what the
# terminal got, one line per carriage return, into $T/NAME.tty
pty() {
	script -q -e -c "$2" /dev/null >"$T/$1.raw" </dev/null || fail "$1: exit $?: $(tail -c 300 "$T/$1.raw")"
	tr '\r' '\n' <"$T/$1.raw" >"$T/$1.tty"
}
# has_line NAME CMD [pipe]: its progress lines name the size, share and ETA (a pipe: the
# bytes and rates alone), and the last thing drawn clears the line
has_line() {
	if [ "${3:-}" = pipe ]; then
		re="^.\[K$2: [0-9.]+ MB, [0-9]+ samples, [0-9.]+ MB/s, [0-9]+ samples/s$"
	else
		re="^.\[K$2: [0-9.]+ MB of $mb \([0-9]+%\), [0-9]+ samples, [0-9.]+ MB/s, [0-9]+ samples/s, ETA [0-9]+ s$"
	fi
	grep -Eq "$re" "$T/$1.tty" || fail "$1: no progress line of $2: $(head -c 300 "$T/$1.tty")"
	tail -c 4 "$T/$1.raw" | od -An -c | tr -d ' \n' | grep -q '\\r033\[K$' ||
		fail "$1: the line is not cleared at the end: $(tail -c 120 "$T/$1.raw" | od -c | tail -4)"
}

pty report "'$pmt' report '$T/a.data' --sort sym,dso >'$T/report.out'"
has_line report report
grep -q "Samples:" "$T/report.out" || fail "report: no report on stdout"
# the report is the same with the line as without it
"$pmt" report "$T/a.data" --sort sym,dso 2>"$T/err" | cmp -s - "$T/report.out" || fail "report: output differs under a terminal"
[ -s "$T/err" ] && fail "report: stderr a file, yet: $(head -c 200 "$T/err")"

# script's CSV rows outrun 5 lines a second on a file: a pipe-mode trace that pauses
"$pmt" convert --raw "$T/a.spe" --midr 0x410fd0c0 --pipe -o "$T/p.data" || fail "pipe-mode trace"
pty script "{ head -c 8000000; sleep 0.5; cat; } <'$T/p.data' | '$pmt' script - --csv >/dev/null"
has_line script script pipe

pty export "'$pmt' export sqlite '$T/a.data' --no-index -o '$T/a.db'"
has_line export export

# off: stderr a file, and --no-progress on a terminal; on: --progress into a file
pty quiet "'$pmt' report '$T/a.data' --sort sym,dso --no-progress >/dev/null"
[ -s "$T/quiet.raw" ] && fail "--no-progress: the terminal got $(head -c 200 "$T/quiet.raw")"
pty tofile "'$pmt' report '$T/a.data' --sort sym,dso >/dev/null 2>'$T/tofile.err'"
[ -s "$T/tofile.err" ] || [ -s "$T/tofile.raw" ] && fail "stderr a file: the progress line was drawn"
"$pmt" report "$T/a.data" --sort sym,dso --progress >/dev/null 2>"$T/forced.raw"
tr '\r' '\n' <"$T/forced.raw" >"$T/forced.tty"
has_line forced report
echo "ok: progress lines on a terminal, none elsewhere"
