#!/bin/sh
# pmutrace report --html: one self-contained page whose figures are the report's.
#   report_html.sh PMUTRACE SOURCE_DIR content|render
# content: recordings of a simulated SPE PMU (tests/pmusim; two CPUs, an AUX storm with
# truncations and collisions, a data-ring overflow with LOST records) and, with the
# AArch64 cross binutils, the symbol fixtures' trace. Each page must fetch nothing (no
# scheme, script, import, url(), source or link outside the page), escape the trace's
# strings (a trace named with markup), and hold the numbers of report --json, report
# --sort sym,dso / mem / tlb --csv and script --csv of the same trace, and the AUX and
# LOST records perf 6.1's report -D lists (tests/cli/html_check.py).
# render: Debian's chromium, headless with the network cut (a proxy that does not exist,
# every host unresolvable, a net log of what it asked for), loads the page: a screenshot
# that is not blank, a DOM with the title and every section's heading, and no request
# but the page itself (tests/cli/html_render_check.py); and a TPEBS recording's page: the
# metric tree's nodes and retire-latency bars in Chromium's DOM against pmutrace metrics,
# calibrate and the event table (tests/cli/html_metric_check.py), its bars on screen; and
# a counting recording's page (per interval and CPU, a metric not counted) the same way.
set -u
pmt=$1 src=$2 mode=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler for the simulated PMU"; exit 77; }
if [ "$mode" = render ]; then
	CHROMIUM=${CHROMIUM:-chromium}
	command -v "$CHROMIUM" >/dev/null ||
		{ echo "SKIP: chromium is not installed (apt-get install chromium)"; exit 77; }
fi

# sim NAME 'ENV=V ...' 'RECORD OPTIONS': 1 s of the simulated PMU recorded into $T/NAME.data
sim() {
	# shellcheck disable=SC2086 # the lists split on purpose
	env SYSFS_PATH="$T/fs" PMUSIM_TYPE=8 PMUSIM_SPE="$T/a.spe" PMUSIM_LOG="$T/$1.log" $2 \
		LD_PRELOAD="$T/sim.so" "$pmt" record -q -e arm_spe_0// -a $3 --duration 1 \
		-o "$T/$1.data" 2>/dev/null
	[ -s "$T/$1.data" ] || fail "recording $1"
}
cc -shared -fPIC -O2 -o "$T/sim.so" "$src/tests/pmusim/pmusim.c" -ldl -lpthread || fail "pmusim"
sh "$src/tests/pmusim/fake_sysfs.sh" "$T/fs" 2 arm_spe_0:8:0-1:1024
"$pmt" synth --records 20000 --seed 3 --mix n1 -o "$T/a.spe" || fail synth
# a name with markup: the page's title and header carry it, escaped
name='x<b>&"'"'"'.data'
sim storm "PMUSIM_CHUNK=65536 PMUSIM_COLLIDE=5" "-m 4,2"
mv "$T/storm.data" "$T/$name"

# page TRACE OUT [OPTIONS]: report --html, and the self-containment checks
page() {
	trace=$1 out=$2
	shift 2
	"$pmt" report "$trace" --html "$out" "$@" >"$T/stdout" 2>"$T/stderr" ||
		fail "report --html $trace: exit $?: $(cat "$T/stderr")"
	[ -s "$T/stdout" ] && fail "report --html wrote to stdout"
	grep -qi '^<!DOCTYPE html>' "$out" || fail "$out: no doctype"
	# nothing from elsewhere: no URL scheme, script, stylesheet import, url(), source
	# attribute, link, frame, object or image; links only to the page's own sections
	if grep -Eion 'https?:|ftp:|file:|<script|@import|url\(|[^-]src=|<link|<iframe|<object|<embed|<img|href="[^#]' "$out" |
		head -3 | grep .; then
		fail "$out fetches or links to something outside itself"
	fi
}

# list_refs TRACE OPTIONS...: the text reports html_list_check.py compares a page with
list_refs() {
	trace=$1
	shift
	rm -rf "$T/lref"
	mkdir -p "$T/lref"
	"$pmt" report "$trace" --sort sym,dso --csv "$@" >"$T/lref/sym.csv" 2>/dev/null
	"$pmt" report "$trace" --sort sym,dso --json "$@" >"$T/lref/sym.json" 2>/dev/null
	"$pmt" report "$trace" --sort mem --csv "$@" >"$T/lref/mem.csv" 2>/dev/null
	"$pmt" report "$trace" --sort tlb --csv "$@" >"$T/lref/tlb.csv" 2>/dev/null
}

if [ "$mode" = render ]; then
	page "$T/$name" "$T/p.html"
	run_chromium() {
		rm -rf "$T/profile"
		timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --no-first-run \
			--disable-extensions --disable-background-networking \
			--proxy-server=127.0.0.1:9 \
			--host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$T/profile" \
			--window-size=1200,2600 "$@"
	}
	run_chromium --log-net-log="$T/net.json" --screenshot="$T/p.png" "file://$T/p.html" \
		>"$T/chr.out" 2>&1 || fail "chromium --screenshot: $(tail -3 "$T/chr.out")"
	[ -s "$T/p.png" ] || fail "chromium wrote no screenshot: $(tail -3 "$T/chr.out")"
	run_chromium --dump-dom "file://$T/p.html" >"$T/dom.html" 2>"$T/chr.err" ||
		fail "chromium --dump-dom: $(tail -3 "$T/chr.err")"
	python3 "$src/tests/cli/html_render_check.py" "$T/p.png" "$T/dom.html" "$T/net.json" ||
		fail "the rendered page"
	# the control: the same page with an image and a stylesheet from elsewhere is caught
	sed 's|<body>|<body><img src="http://example.invalid/x.png"><link rel="stylesheet" href="https://fonts.invalid/x.css">|' \
		"$T/p.html" >"$T/control.html"
	run_chromium --log-net-log="$T/control.json" --screenshot="$T/c.png" \
		"file://$T/control.html" >/dev/null 2>&1
	[ "$(python3 "$src/tests/cli/html_render_check.py" --requests "$T/control.json" | wc -l)" = 2 ] ||
		fail "the net log check misses a control page's two requests"
	# a page of --dsos as Chromium reads it: its DOM's tables and totals are the text
	# report's with the same list
	if command -v aarch64-linux-gnu-readelf >/dev/null; then
		. "$src/tests/tools/symbols_fixture.sh"
		SRC=$src
		fixture_trace "$T/fx"
		page "$T/fx/a.data" "$T/l.html" --symfs "$T/fx/symfs" --dsos libfix.so
		run_chromium --dump-dom "file://$T/l.html" >"$T/ldom.html" 2>"$T/chr.err" ||
			fail "chromium --dump-dom of the --dsos page: $(tail -3 "$T/chr.err")"
		list_refs "$T/fx/a.data" --symfs "$T/fx/symfs" --dsos libfix.so
		python3 "$src/tests/cli/html_list_check.py" "$T/ldom.html" "$T/lref" ||
			fail "the --dsos page as rendered differs from the text report"
	else
		echo "note: binutils-aarch64-linux-gnu missing: the --dsos page is not rendered"
	fi
	# the metric tree of a TPEBS recording (tests/pmusim's PEBS PMU, record --tpebs) as
	# Chromium renders it: its numbers are pmutrace metrics', calibrate's and the event
	# table's (tests/cli/html_metric_check.py); the bars' colours are on screen
	EVJ=$src/fixtures/events/gnr_tpebs.json
	sh "$src/tests/oracles/fake_intel_sysfs.sh" "$T/gnr" gnr >/dev/null
	env SYSFS_PATH="$T/gnr" PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_PEBS_SAMPLES=2000 PMUSIM_PEBS_SEED=11 PMUSIM_LOG="$T/t.log" \
		PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$T/sim.so" "$pmt" record -q --tpebs \
		-M tma_lock_latency --metrics "$src/fixtures/metrics/tiny-metrics.json" \
		--events "$EVJ" -a --duration 30 -o "$T/t.pmt" 2>/dev/null
	"$pmt" info "$T/t.pmt" | grep -q "LOCK_LOADS:p: 2000 samples" || fail "the TPEBS recording"
	printf '%s\n' "1000000,,MEM_INST_RETIRED.LOCK_LOADS,1000000,100.00,," \
		"2000000000,,CPU_CLK_UNHALTED.THREAD,1000000,100.00,," >"$T/c.csv"
	# three levels; tma_two adds an :R event the trace has no samples of (its default)
	cat >"$T/tree.json" <<'JSON'
[{"MetricName": "tma_backend", "MetricGroup": "TopdownL1", "ScaleUnit": "100%",
  "MetricExpr": "2 * MEM_INST_RETIRED.LOCK_LOADS * MEM_INST_RETIRED.LOCK_LOADS:R / CPU_CLK_UNHALTED.THREAD"},
 {"MetricName": "tma_lock", "MetricGroup": "TopdownL2;tma_backend_group", "ScaleUnit": "100%",
  "MetricExpr": "MEM_INST_RETIRED.LOCK_LOADS * MEM_INST_RETIRED.LOCK_LOADS:R / CPU_CLK_UNHALTED.THREAD"},
 {"MetricName": "tma_two", "MetricGroup": "TopdownL3;tma_lock_group", "ScaleUnit": "1cycles",
  "MetricExpr": "MEM_INST_RETIRED.LOCK_LOADS:R + MEM_LOAD_RETIRED.L3_HIT:R"}]
JSON
	opts="--metrics $T/tree.json --events $EVJ --counts $T/c.csv -M TopdownL1 -M TopdownL2 -M TopdownL3"
	# shellcheck disable=SC2086 # opts split on purpose
	"$pmt" metrics "$T/t.pmt" $opts --csv >"$T/m.csv" 2>/dev/null
	"$pmt" calibrate "$T/t.pmt" -o "$T/cal.json" >/dev/null 2>&1 || fail calibrate
	# exit 2: the warning that L3_HIT's latency is the table's default
	# shellcheck disable=SC2086
	"$pmt" report "$T/t.pmt" --html "$T/t.html" $opts 2>"$T/t.err"
	[ $? = 2 ] && [ "$(grep -vc 'no retire-latency samples for mem_load_retired.l3_hit' "$T/t.err")" = 0 ] ||
		fail "report --html of the TPEBS recording: $(cat "$T/t.err")"
	run_chromium --screenshot="$T/t.png" "file://$T/t.html" >/dev/null 2>&1
	run_chromium --dump-dom "file://$T/t.html" >"$T/tdom.html" 2>"$T/chr.err" ||
		fail "chromium --dump-dom of the metric page: $(tail -3 "$T/chr.err")"
	python3 "$src/tests/cli/html_metric_check.py" "$T/tdom.html" "$T/m.csv" "$T/tree.json" \
		"$EVJ" "$T/cal.json" || fail "the metric tree"
	python3 "$src/tests/cli/html_render_check.py" --colours "$T/t.png" 2f8f8f d9822b 999999 ||
		fail "the metric tree's bars are not on the screenshot"
	# a counting recording (stat -a -A -I 100): a group per interval and CPU, the per_msec
	# bars on one scale, cpus_utilized not counted (no duration_time)
	TM=$src/fixtures/metrics/tiny-metrics.json
	if "$pmt" stat -a -A -I 100 -e task-clock,context-switches -o "$T/s.pmt" -- sleep 0.35 \
		>/dev/null 2>&1; then
		"$pmt" metrics "$T/s.pmt" --metrics "$TM" -M Software --csv >"$T/s.csv" 2>/dev/null
		"$pmt" report "$T/s.pmt" --html "$T/s.html" --metrics "$TM" -M Software 2>/dev/null
		[ $? = 2 ] || fail "report --html of the counting recording: want exit 2 (not counted)"
		run_chromium --dump-dom "file://$T/s.html" >"$T/sdom.html" 2>"$T/chr.err" ||
			fail "chromium --dump-dom of the counting page: $(tail -3 "$T/chr.err")"
		python3 "$src/tests/cli/html_metric_check.py" "$T/sdom.html" "$T/s.csv" "$TM" ||
			fail "the counting recording's metric tree"
	else
		echo "note: perf_event_open refused: the counting recording's tree is not checked"
	fi
	echo "ok: rendered ($(wc -c <"$T/p.png") bytes of PNG), no request outside the page"
	exit 0
fi

page "$T/$name" "$T/storm.html"
grep -q 'x&lt;b&gt;&amp;&quot;&#39;.data' "$T/storm.html" || fail "the trace's name is not escaped"
grep -q 'x<b>&' "$T/storm.html" && fail "the trace's name is in the page unescaped"
# check TRACE PAGE [DECODE OPTIONS]: the page against the text outputs of the same trace
check() {
	trace=$1 html=$2
	shift 2
	rm -rf "$T/ref"
	mkdir -p "$T/ref"
	"$pmt" report "$trace" --json "$@" >"$T/ref/report.json" 2>/dev/null
	"$pmt" report "$trace" --sort sym,dso --csv "$@" >"$T/ref/sym.csv" 2>/dev/null
	"$pmt" report "$trace" --sort mem --csv "$@" >"$T/ref/mem.csv" 2>/dev/null
	"$pmt" report "$trace" --sort tlb --csv "$@" >"$T/ref/tlb.csv" 2>/dev/null
	"$pmt" script "$trace" --csv "$@" >"$T/ref/script.csv" 2>/dev/null
	if perf version >/dev/null 2>&1; then
		"$pmt" convert "$trace" -o "$T/ref/conv.perf.data" 2>/dev/null &&
			perf report -D -i "$T/ref/conv.perf.data" 2>/dev/null |
			grep -E 'PERF_RECORD_(AUX|LOST)[: ]' >"$T/ref/aux.txt"
	else
		echo "note: perf 6.1 missing: the losses are not checked against it"
	fi
	python3 "$src/tests/cli/html_check.py" "$html" "$T/ref" || fail "$html differs from the report"
}
check "$T/$name" "$T/storm.html"
grep -q 'class="loss" data-kind="AUX' "$T/storm.html" || fail "storm: no AUX loss drawn"

sim overflow "PMUSIM_CHUNK=256" "-m 1,64"
page "$T/overflow.data" "$T/overflow.html"
check "$T/overflow.data" "$T/overflow.html"
grep -q 'data-loss="lost" data-count="[1-9]' "$T/overflow.html" || fail "overflow: no LOST counted"

# the symbol fixtures: names from the ELF files through --symfs
if command -v aarch64-linux-gnu-readelf >/dev/null; then
	. "$src/tests/tools/symbols_fixture.sh"
	SRC=$src
	fixture_trace "$T/fx"
	page "$T/fx/a.data" "$T/fx.html" --symfs "$T/fx/symfs"
	check "$T/fx/a.data" "$T/fx.html" --symfs "$T/fx/symfs"
	grep -q 'data-sym="[a-z_]' "$T/fx.html" || fail "fixture: no symbol name in the page"
	# --comms, --dsos, --symbols: the page's tables and totals are the text report's
	# with the same lists (a file, the hottest symbol, both, a command list)
	top_sym=$("$pmt" report "$T/fx/a.data" --symfs "$T/fx/symfs" --sort sym --csv |
		awk -F, 'NR == 2 { print $5 }')
	[ -n "$top_sym" ] || fail "fixture: no symbol to list"
	for lists in "--dsos libfix.so" "--symbols $top_sym" "--dsos app --symbols $top_sym" \
		"--comms app,cat" "--dsos libfix.so,[unknown]"; do
		# shellcheck disable=SC2086 # the lists split on purpose
		page "$T/fx/a.data" "$T/l.html" --symfs "$T/fx/symfs" $lists
		list_refs "$T/fx/a.data" --symfs "$T/fx/symfs" $lists
		python3 "$src/tests/cli/html_list_check.py" "$T/l.html" "$T/lref" ||
			fail "--html $lists differs from the text report"
		# the lists count: the page is the unfiltered one only where they keep every
		# sample (the trace's one command)
		if cmp -s "$T/l.html" "$T/fx.html"; then
			[ "$lists" = "--comms app,cat" ] || fail "--html $lists: the page of every sample"
		else
			[ "$lists" = "--comms app,cat" ] && fail "--html $lists: samples left out"
		fi
	done
	# --top N: N entries per event (fewer where the event has fewer)
	page "$T/fx/a.data" "$T/top.html" --symfs "$T/fx/symfs" --top 3
	python3 - "$T/top.html" <<'PY' || fail "--top 3"
import re, sys
t = open(sys.argv[1]).read()
want = sum(min(3, int(n)) for n in re.findall(r'<details[^>]* data-entries="(\d+)"', t))
got = t.count('<g class="row sym"')
if not want or got != want:
    sys.exit(f'{got} rows, want {want}')
PY
else
	echo "note: binutils-aarch64-linux-gnu missing: the symbol fixture is not checked"
fi

# usage: --html takes no --sort; a bad path fails before decoding and leaves nothing
"$pmt" report "$T/overflow.data" --html "$T/x.html" --sort sym >/dev/null 2>&1
[ $? = 129 ] || fail "--html with --sort: want usage error 129"
"$pmt" report "$T/overflow.data" --html "$T/nodir/x.html" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q nodir "$T/err" || fail "--html into a missing folder: $(cat "$T/err")"
cp "$T/overflow.data" "$T/keep.data"
"$pmt" report "$T/overflow.data" --html "$T/overflow.data" >/dev/null 2>&1
[ $? = 1 ] && cmp -s "$T/overflow.data" "$T/keep.data" || fail "--html over its input"
ls -a "$T" | grep -q '^\.x\.html' && fail "a temporary page was left behind"
echo "ok: pages self-contained, figures equal the report's"
