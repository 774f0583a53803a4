#!/bin/sh
# Prints one line per command over a fixed matrix of inputs: "<case> <exit> <md5 of stdout> <md5 of stderr>"
# (and of the output file for commands that write one). A refactoring that must not change
# behaviour runs it with the binaries before and after and diffs the two listings:
# tests/tools/compare_builds.sh does both. Usage: output_digest.sh PMUTRACE [SHARED_DIR]
# (SHARED_DIR, else $PMT_SHARED_DIR: the third-party data; without it those cases are left out).
set -u
pmt=$1
shared=${2:-${PMT_SHARED_DIR:-}}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "$shared" ] && [ -d "$shared/data" ] || echo "note: no shared data folder: its cases are left out" >&2

run() { # case-name command...
	name=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sed "s|$tmp|TMP|g" "$tmp/err" >"$tmp/err2"
	printf '%s %s %s %s\n' "$name" "$rc" "$(md5sum <"$tmp/out" | cut -c1-32)" \
		"$(md5sum <"$tmp/err2" | cut -c1-32)"
}
run_file() { # case-name output-file command...: also the bytes of the file it writes
	name=$1 file=$2; shift 2
	rm -f "$file"
	run "$name" "$@"
	[ -e "$file" ] && printf '%s:file %s\n' "$name" "$(md5sum <"$file" | cut -c1-32)"
}

# inputs: synthetic traces over mixes and shapes, converted in several layouts
for spec in "n1 1 --context" "v2 2 --context" "hip12 3" "other 4 --sve" "n1 5 --no-timestamps"; do
	set -- $spec
	mix=$1; seed=$2; shift 2
	"$pmt" synth --records 3000 --mix "$mix" --seed "$seed" "$@" -o "$tmp/$mix$seed.spe"
	"$pmt" convert --raw "$tmp/$mix$seed.spe" --midr 0x410fd0c0 -o "$tmp/$mix$seed.data"
	"$pmt" convert --raw "$tmp/$mix$seed.spe" -o "$tmp/$mix$seed.nomidr.data"
	run "convert-v2:$mix$seed" "$pmt" convert --raw "$tmp/$mix$seed.spe" --spe-v2 --midr 0x410fd0c0 -o "$tmp/$mix$seed.v2.data"
	run "convert-swap:$mix$seed" "$pmt" convert "$tmp/$mix$seed.data" --swap -o "$tmp/$mix$seed.swap.data"
	run "convert-pipe:$mix$seed" "$pmt" convert "$tmp/$mix$seed.data" --pipe -o "$tmp/$mix$seed.pipe.data"
	for f in data nomidr.data v2.data swap.data pipe.data; do
		in="$tmp/$mix$seed.$f"
		# the recorded command line names the scratch folder: hash the bytes without it
		run "bytes:$mix$seed.$f" sed "s|$tmp|TMP|g" "$in"
		run "dump:$mix$seed.$f" "$pmt" dump "$in"
		run "script:$mix$seed.$f" "$pmt" script "$in"
		run "script-csv:$mix$seed.$f" "$pmt" script "$in" --itrace=bfmtaMi1il --csv
		run "script-jsonl:$mix$seed.$f" "$pmt" script "$in" --jsonl
		run "script-61:$mix$seed.$f" "$pmt" script "$in" --perf-compat=6.1 --itrace=bfmtaMi1i
		run "report:$mix$seed.$f" "$pmt" report "$in" --stdio
	done
	run "dump-raw:$mix$seed" "$pmt" dump --raw "$tmp/$mix$seed.spe"
	run "dump-legacy:$mix$seed" "$pmt" dump --raw --legacy61 "$tmp/$mix$seed.spe"
	run "script-raw:$mix$seed" "$pmt" script --raw "$tmp/$mix$seed.spe" --midr 0x410fd0c0 --csv
done
# damaged input
head -c 150000 "$tmp/n11.data" >"$tmp/trunc.data"
run "script:trunc" "$pmt" script "$tmp/trunc.data" --csv
run "dump:trunc" "$pmt" dump "$tmp/trunc.data"
run "report:trunc" "$pmt" report "$tmp/trunc.data" --stdio
# shared real buffers
for b in "$shared"/data/spe/*.bin "$shared"/data/spe/*.data; do
	[ -r "$b" ] || continue
	n=$(basename "$b")
	run "dump-raw:$n" "$pmt" dump --raw "$b"
	run "script-raw:$n" "$pmt" script --raw "$b" --midr 0x410fd0c0 --itrace=bfmtaMi1i --csv
	run "report-raw:$n" "$pmt" report --raw "$b" --stdio
	run "script-raw-61:$n" "$pmt" script --raw "$b" --perf-compat=6.1 --itrace=bfmtaMi1i \
		-F tid,cpu,period,event,addr,data_src,weight,ip,phys_addr
done
# metrics, calibrate
m=$src/fixtures/metrics
run metrics-csv "$pmt" metrics --metrics "$m/tiny-metrics.json" --counts "$m/perf-percpu.jsonl" --csv
run metrics-lock "$pmt" metrics --metrics "$m/tiny-metrics.json" --retire-latency "$m/retlat-intel.json" --counts "$m/counts-lock.csv" -M tma_lock_latency --csv
run metrics-json "$pmt" metrics --metrics "$m/tiny-metrics.json" --retire-latency "$m/retlat-intel.json" --counts "$m/counts-lock.csv" --json
run metrics-intel "$pmt" metrics --metrics "$m/tiny-intel-metrics.json" --counts "$m/perf-plain.csv" --csv
run metrics-percore "$pmt" metrics --metrics "$m/tiny-metrics.json" --counts "$m/perf-percore.csv" --csv
run metrics-interval "$pmt" metrics --metrics "$m/tiny-metrics.json" --counts "$m/perf-interval-percpu.csv" --csv
run metrics-topdown "$pmt" metrics --topdown --slots 1000000 --perf-metrics 0x40300C085F501040
run metrics-list "$pmt" metrics --metrics "$m/tiny-metrics.json" --list
if [ -r "$shared/data/tpebs/gnr-metrics.json" ]; then
	t=$shared/data/tpebs
	run metrics-gnr "$pmt" metrics --metrics "$t/gnr-metrics.json" --events "$t/gnr-events-with-RetirementLatency.json" --csv
	run metrics-gnr-intel "$pmt" metrics --metrics "$t/GNR_metrics_graniterapids_metrics.json" --retire-latency "$t/GNR_metrics_graniterapids_retire_latency.json" --csv
	run metrics-gnr-pmutools "$pmt" metrics --metrics "$t/gnr-metrics.json" --retire-latency "$t/gnr-retlat.json" --csv
fi

# every fixture: the raw SPE buffer, each metric table against each counts file, the event
# tables, and the fuzz corpora's traces (perf.data, containers), which include damaged ones
spe=$src/fixtures/spe/synth-n1-small.spe
run "dump-raw:fixture" "$pmt" dump --raw "$spe"
run "script-raw:fixture" "$pmt" script --raw "$spe" --midr 0x410fd0c0
run "script-raw-csv:fixture" "$pmt" script --raw "$spe" --midr 0x410fd0c0 --itrace=bfmtaMi1il --csv
run "script-raw-jsonl:fixture" "$pmt" script --raw "$spe" --jsonl --perf-compat=6.1
run "report-raw:fixture" "$pmt" report --raw "$spe" --stdio
for mt in "$m"/*metrics*.json; do
	mn=$(basename "$mt" .json)
	run "metrics-list:$mn" "$pmt" metrics --metrics "$mt" --list
	for c in "$m"/*.csv "$m"/*.jsonl; do
		run "metrics:$mn:$(basename "$c")" "$pmt" metrics --metrics "$mt" --counts "$c" --csv
	done
	for r in "$m"/retlat-*.json; do
		run "metrics-retlat:$mn:$(basename "$r")" "$pmt" metrics --metrics "$mt" --retire-latency "$r" --counts "$m/counts-lock.csv" --json
	done
done
for e in "$src"/fixtures/events/*.json; do
	run "metrics-events:$(basename "$e")" "$pmt" metrics --metrics "$m/tiny-metrics.json" --events "$e" --counts "$m/counts-tpebs-percpu.csv" --csv
done
corpus=$src/tests/fuzz/corpus
for c in "$corpus"/perfdata_samples/*; do
	n=$(basename "$c")
	tail -c +2 "$c" >"$tmp/$n" # the fuzz target's first byte picks options
	run "dump:corpus-$n" "$pmt" dump "$tmp/$n"
	run "script:corpus-$n" "$pmt" script "$tmp/$n"
	run "script-csv:corpus-$n" "$pmt" script "$tmp/$n" --csv
	run "report:corpus-$n" "$pmt" report "$tmp/$n" --stdio
	run_file "calibrate:corpus-$n" "$tmp/cal.json" "$pmt" calibrate "$tmp/$n" -o "$tmp/cal.json"
	run_file "calibrate-full:corpus-$n" "$tmp/cal.json" "$pmt" calibrate "$tmp/$n" -o "$tmp/cal.json" --full --format pmu-tools
	run_file "calibrate-compare:corpus-$n" "$tmp/cal.json" "$pmt" calibrate "$tmp/$n" -o "$tmp/cal.json" --compare "$m/retlat-intel.json"
	run "metrics-trace:corpus-$n" "$pmt" metrics "$tmp/$n" --metrics "$m/tiny-metrics.json" --retire-latency "$m/retlat-intel.json" --counts "$m/counts-lock.csv" --csv
done
for c in "$corpus"/perfdata/* "$corpus"/container/*; do
	n=$(basename "$c")
	run "dump:corpus-$n" "$pmt" dump "$c"
	run "script:corpus-$n" "$pmt" script "$c"
	run "report:corpus-$n" "$pmt" report "$c" --stdio
done
