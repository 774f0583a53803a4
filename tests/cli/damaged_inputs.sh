#!/bin/sh
# Every subcommand on missing, empty, wrong and damaged inputs (issue 15, "Errors a user
# can act on"; README "Exit status"). For each run:
# - no crash, no hang: the status is 0, 1, 2 or 129;
# - a line on stderr that says "error" never comes with status 0, nor does any stderr;
# - 1 and 2 come with a message that names the file at fault (as given), and a missing
#   file (named nope.*) is "No such file or directory", never unnoticed;
# - 1 means no usable output: nothing on stdout, no output file; 2 means there is output.
# Usage: damaged_inputs.sh PMUTRACE
set -u
pmt=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
M=$(cd "$(dirname "$0")/../../fixtures/metrics" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check NAME_IN_MESSAGE OUTFILE CMD...: OUTFILE is the command's output file, or - for stdout
check() {
	name=$1 out=$2
	shift 2
	rm -rf o.out o.db o.pb.gz o.html o.data o.pmt o.json
	rc=0
	timeout 60 "$@" >stdout 2>stderr || rc=$?
	what="$* (exit $rc)"
	case $rc in
	0 | 1 | 2 | 129) ;;
	*) fail "$what: crashed or hung"; return ;;
	esac
	if [ $rc = 0 ]; then
		[ -s stderr ] && fail "$what: exit 0 with stderr: $(head -1 stderr)"
		case $name in *nope*) fail "$what: the missing $name went unnoticed" ;; esac
		return
	fi
	[ -s stderr ] || { fail "$what: exit $rc without a message"; return; }
	if [ $rc = 129 ]; then
		case $name in *nope*) fail "$what: a missing $name is no usage error" ;; esac
		return
	fi
	grep -qF -- "$name" stderr || fail "$what: the message does not name $name: $(head -1 stderr)"
	case $name in
	*nope*) grep -q "No such file or directory" stderr ||
		fail "$what: a missing file is not 'No such file or directory': $(head -1 stderr)" ;;
	esac
	if [ $rc = 1 ]; then
		[ -s stdout ] && fail "$what: exit 1 (no usable output) but stdout has $(wc -c <stdout) bytes"
		[ "$out" != - ] && [ -e "$out" ] && fail "$what: exit 1 but $out was written"
	else
		# on stdout, no sample left is an output too
		[ "$out" = - ] || [ -s "$out" ] || fail "$what: exit 2 (output written) but there is no $out"
	fi
}

"$pmt" synth --records 5000 --context --seed 9 -o a.spe || exit 1
"$pmt" convert --raw a.spe --midr 0x410fd0c0 -o ok.data || exit 1
"$pmt" convert --raw a.spe --midr 0x410fd0c0 --pipe -o ok.pipe || exit 1
"$pmt" convert ok.data --container -o ok.pmt || exit 1
size=$(stat -c %s ok.data)
head -c $((size / 2)) ok.data >cut.data           # cut inside the AUX data
head -c 100 ok.data >head.data                    # cut inside the header
: >empty.data
echo '{"a": 1}' >text.data                        # not a trace at all
mkdir dir.data
cp ok.data hdr.data                               # data offset past the end
printf '\377\377\377\377\377\377\377\377' | dd of=hdr.data bs=1 seek=40 conv=notrunc 2>/dev/null
cp ok.data flip.data                              # 200 bit flips
python3 -c '
import random
b = bytearray(open("flip.data", "rb").read()); r = random.Random(5)
for i in range(200): b[r.randrange(len(b))] ^= 1 << r.randrange(8)
open("flip.data", "wb").write(b)'
size=$(stat -c %s ok.pipe)
head -c $((size - 1000)) ok.pipe >cut.pipe        # AUXTRACE shorter than announced
size=$(stat -c %s ok.pmt)
head -c $((size / 2)) ok.pmt >cut.pmt             # container cut inside a frame
cp ok.data bad.data                               # bytes that start no SPE packet
size=$(stat -c %s ok.data)
printf '\003\003\003\003' | dd of=bad.data bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null

for f in nope.data empty.data head.data text.data dir.data hdr.data cut.data flip.data \
	cut.pipe cut.pmt bad.data; do
	check $f - "$pmt" dump $f
	check $f - "$pmt" script $f
	check $f - "$pmt" script --csv $f
	check $f - "$pmt" script --jsonl $f
	check $f - "$pmt" report --stdio $f
	check $f - "$pmt" report --json $f
	check $f - "$pmt" report --sort dso --csv $f
	check $f o.html "$pmt" report $f --html o.html
	check $f - "$pmt" info $f
	check $f - "$pmt" annotate $f
	check $f o.db "$pmt" export sqlite $f -o o.db
	check $f o.pb.gz "$pmt" export pprof $f -o o.pb.gz
	check $f o.data "$pmt" convert $f -o o.data
	check $f o.pmt "$pmt" convert $f --container -o o.pmt
	check $f o.json "$pmt" calibrate $f -o o.json
	# the metric without an :R event: no retire latency taken from a table (exit 2 too)
	check $f - "$pmt" metrics $f --metrics "$M/tiny-metrics.json" -M tma_info_thread_clks
	check $f - "$pmt" metrics $f --metrics "$M/tiny-metrics.json" --counts "$M/counts-lock.csv" \
		-M tma_info_thread_clks
	check $f o.pmt "$pmt" bundle add $f /bin/true
done
for f in nope.data empty.data dir.data; do
	check $f - "$pmt" dump --raw $f
	check $f - "$pmt" script --raw $f
	check $f o.data "$pmt" convert --raw $f -o o.data
	check $f - "$pmt" symbols $f
done
check text.data - "$pmt" symbols text.data
grep -q "warning" stderr && fail "symbols text.data: exit $rc with a warning, not an error"
check text.data - "$pmt" symbols /bin/true text.data
[ $rc = 2 ] || fail "symbols /bin/true text.data: exit $rc, want 2 (the other file is listed)"
check nope.pmt o.out "$pmt" bundle extract nope.pmt /bin/true -o o.out
check ok.data o.out "$pmt" bundle extract ok.data /bin/true -o o.out
check /no/such/dir o.out "$pmt" synth --records 10 -o /no/such/dir/o.out

# metric tables, counts and retire-latency tables: missing, empty, not JSON, not a table
echo '{"not": "a metric table"}' >other.json
printf 'this,is,not\nperf,stat\n' >junk.csv
for t in nope.json empty.data text.data other.json dir.data; do
	check $t - "$pmt" metrics --metrics $t --counts "$M/counts-lock.csv"
	check $t - "$pmt" metrics --metrics $t --list
	check $t - "$pmt" metrics --metrics "$M/tiny-metrics.json" --counts "$M/counts-lock.csv" \
		--retire-latency $t -M tma_lock_latency
	check $t - "$pmt" calibrate ok.data -o o.json --compare $t
done
for c in nope.csv empty.data junk.csv dir.data; do
	check $c - "$pmt" metrics --metrics "$M/tiny-metrics.json" --counts $c \
		--retire-latency "$M/retlat-intel.json"
done

# files and folders named by options
for c in script annotate report; do
	check nope.txt - "$pmt" $c ok.data --kallsyms nope.txt
	check nope.dir - "$pmt" $c ok.data --symfs nope.dir
done
check nope.txt o.db "$pmt" export sqlite ok.data --kallsyms nope.txt -o o.db
check nope.elf o.pmt "$pmt" bundle add ok.pmt nope.elf
check nope.txt o.pmt "$pmt" bundle add ok.pmt --kallsyms nope.txt /bin/true
check nope.elf o.pmt "$pmt" convert ok.data --container --bundle nope.elf -o o.pmt
check nope.json - "$pmt" metrics --metrics "$M/tiny-metrics.json" --counts "$M/counts-lock.csv" \
	--events nope.json
check nope.json - "$pmt" record --events nope.json --dry-run -e cpu-clock -- true
check text.data - "$pmt" record --events text.data --dry-run -e cpu-clock -- true

[ $fails = 0 ] || { echo "$fails failures"; exit 1; }
echo "OK: every command on missing, empty, wrong and damaged inputs keeps the exit-status policy"
