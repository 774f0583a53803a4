#!/bin/sh
# `pmutrace report --html` of a ~1M-sample trace: the page's size (and gzip'd), pmutrace's
# time to write it (against plain `report` and `report --sort sym,dso` of the same file),
# and headless chromium's time to load it and take a screenshot (not a test; prints figures).
#   bench/html_report.sh [PMUTRACE] [RECORDS] [CHROMIUM]
#   (default: build/cli/pmutrace, 400000 SPE records = ~1M samples, chromium)
# Wall, CPU seconds and peak RSS from bench/rusage.py; chromium's time is a whole process
# start, load, layout and PNG, minus the same for an empty page (its own start-up).
set -eu
PMUTRACE=${1:-build/cli/pmutrace}
RECORDS=${2:-400000}
CHROMIUM=${3:-chromium}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records "$RECORDS" --seed 5 --mix n1 -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd0c0 --pid 42 --comm app -o "$T/a.data"
samples=$("$PMUTRACE" report "$T/a.data" --json | python3 -c \
	'import json,sys; print(sum(g["samples"] for g in json.load(sys.stdin)["groups"]))')
echo "input: $RECORDS SPE records, $samples samples, $(wc -c <"$T/a.data") bytes of perf.data"

timed() { # NAME CMD...: prints wall/user/sys seconds and peak RSS
	name=$1
	shift
	python3 "$HERE/rusage.py" "$T/$name.ru" "$@" >/dev/null
	read -r wall user sys rss <"$T/$name.ru"
	echo "$name: wall $wall s, cpu $user+$sys s, peak RSS $((rss / 1024)) MB"
}
timed report "$PMUTRACE" report "$T/a.data"
timed report-sort "$PMUTRACE" report "$T/a.data" --sort sym,dso
timed report-html "$PMUTRACE" report "$T/a.data" --html "$T/a.html"
echo "page: $(wc -c <"$T/a.html") bytes, $(gzip -c "$T/a.html" | wc -c) gzip'd," \
	"$(grep -c '<svg' "$T/a.html") SVG charts"

if command -v "$CHROMIUM" >/dev/null; then
	printf '<!DOCTYPE html><title>x</title>\n' >"$T/empty.html"
	shot() { # NAME PAGE
		rm -rf "$T/profile"
		python3 "$HERE/rusage.py" "$T/$1.ru" "$CHROMIUM" --headless --disable-gpu --no-sandbox \
			--no-first-run --disable-extensions --disable-background-networking \
			--proxy-server=127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' \
			--user-data-dir="$T/profile" --window-size=1200,2600 \
			--screenshot="$T/$1.png" "file://$2" >/dev/null 2>&1
		read -r wall user sys rss <"$T/$1.ru"
		echo "$wall"
	}
	for i in 1 2 3; do
		e=$(shot empty "$T/empty.html")
		p=$(shot page "$T/a.html")
		echo "chromium run $i: page $p s, empty page $e s, the page's share $(echo "$p $e" |
			awk '{ printf "%.2f", $1 - $2 }') s; screenshot $(wc -c <"$T/page.png") bytes"
	done
else
	echo "chromium: not installed (apt-get install chromium)"
fi
