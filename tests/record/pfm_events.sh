#!/bin/sh
# --pfm-events through the CLI (issue 11 d): libpfm4 as the knl model (LIBPFM_FORCE_PMU),
# `pmutrace record --dry-run -v` prints the attrs. Expected values by hand from the
# libpfm_intel_knl(3) page and Intel's PERFEVTSEL layout (tests/unit/session/
# test_pfm_events.c has the derivation); the evsel__config rules are perf 7.3's (a period
# from libpfm4 wins over -c, --pfm-events and -e keep their order, no default cycles).
# perf itself cannot be the oracle: Debian's perf 6.1 and the perf 7.3 oracle are both
# built without libpfm4 (HAVE_LIBPFM OFF: "unknown option `pfm-events'").
#   pfm_events.sh PMUTRACE
set -u
P=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export LIBPFM_FORCE_PMU=knl
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# "field value" lines of attr block N (1-based) of a -v printout
# ("{ sample_period, sample_freq } 5000" as "{ 5000")
attr() { awk -v n="$2" '/^perf_event_attr:/ { b++; next } /^-----/ { next } b == n { print $1, ($1 == "{" ? $NF : $2) }' "$1"; }
has() { attr "$1" "$2" | grep -qx "$3" || bad "$4: attr $2 has no '$3': $(attr "$1" "$2" | tr '\n' ';')"; }
hasnt() { attr "$1" "$2" | grep -q "^$3 " && bad "$4: attr $2 has $3"; }

cd "$T" || exit 1
# a group of the page's modifier and offcore examples, with -c
"$P" record --dry-run -v -c 10007 --pfm-events '{INST_RETIRED:i:e:c=3:u,OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR}' -- true >o1 2>e1 || bad "group: exit $?: $(cat e1)"
[ "$(grep -c '^perf_event_attr:' o1)" = 2 ] || bad "group: $(grep -c '^perf_event_attr:' o1) attrs, want 2 (no default cycles)"
has o1 1 "type 4" group
has o1 1 "config 0x38400c0" group          # 0xc0 | E 1<<18 | INV 1<<23 | CMASK 3<<24
has o1 1 "exclude_kernel 1" group          # :u
hasnt o1 1 exclude_user group
has o1 1 "exclude_guest 1" group           # libpfm4's perf_event default
has o1 1 "{ 10007" group                   # -c: sample_period, not freq
hasnt o1 1 freq group
has o1 1 "mmap 1" group                    # the first event tracks (a workload)
has o1 2 "config 0x1b7" group              # OFFCORE_RESPONSE_0: 0xB7, umask 1
has o1 2 "{ 0x80800022" group              # config1: ANY_RFO 1|5, DDR_NEAR 23|31
hasnt o1 2 exclude_kernel group

# libpfm4's period= is the event's: -c does not replace it (perf's is_libpfm_event)
"$P" record --dry-run -v -c 10007 --pfm-events 'INST_RETIRED:period=5000,UNHALTED_CORE_CYCLES:t' -- true >o2 2>e2 || bad "period: exit $?: $(cat e2)"
has o2 1 "{ 5000" period
has o2 2 "{ 10007" period
has o2 2 "config 0x20003c" period          # t: ANY bit 21 on 0x3C

# -e and --pfm-events in command-line order; precise from libpfm4
"$P" record --dry-run -v -e cpu-clock --pfm-events 'INST_RETIRED:precise=2' -e task-clock -- true >o3 2>e3 || bad "order: exit $?: $(cat e3)"
has o3 1 "type 1" order
has o3 2 "type 4" order
has o3 2 "precise_ip 2" order
has o3 3 "type 1" order
has o3 3 "config 0x1" order           # task-clock

# refusals: usage status, the event named, libpfm4's message
refuse() { # STRING BAD_EVENT LIBPFM_MESSAGE
	"$P" record --dry-run -v --pfm-events "$1" -- true >/dev/null 2>err
	rc=$?
	[ $rc = 129 ] || bad "'$1' exited $rc, want 129"
	grep -qF "event '$2'" err || bad "'$1': the message does not name '$2': $(cat err)"
	grep -qF "libpfm4: $3" err || bad "'$1': not libpfm4's '$3': $(cat err)"
}
refuse 'OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR:ANY_RESPONSE' 'OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR:ANY_RESPONSE' 'invalid combination of model specific features'
refuse 'INST_RETIRED,INST_RETIRED:c=256' 'INST_RETIRED:c=256' 'invalid event attribute value'
refuse 'INST_RETIRED:t' 'INST_RETIRED:t' 'invalid event attribute'
refuse 'INST_RETIRED:e' 'INST_RETIRED:e' 'invalid event attribute'
refuse 'OFFCORE_RESPONSE_1:DMND_DATA_RD:OUTSTANDING' 'OFFCORE_RESPONSE_1:DMND_DATA_RD:OUTSTANDING' 'invalid event attribute'
refuse 'NO_SUCH_EVENT' 'NO_SUCH_EVENT' 'event not found'
"$P" record --dry-run --pfm-events '{INST_RETIRED,{INST_RETIRED}}' -- true 2>err >/dev/null
grep -q "nested event groups not supported" err || bad "nested group: $(cat err)"

# the real kernel, with libpfm4's perf PMU (the host's own tables): a software event's
# samples reach the container with libpfm4's period, and perf 6.1 reads them back
loop='i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'
env -u LIBPFM_FORCE_PMU "$P" record -q -c 7 --pfm-events 'perf::PERF_COUNT_SW_CPU_CLOCK:period=100000' -o k.data -- sh -c "$loop" 2>e4
rc=$?
if [ $rc != 0 ] && grep -q "no permission\|not supported" e4; then
	echo "note: perf_event_open not allowed here, real-kernel part skipped: $(cat e4)"
elif [ $rc != 0 ]; then
	bad "real kernel: exit $rc: $(cat e4)"
elif command -v perf >/dev/null && command -v zstd >/dev/null; then
	zstd -dc k.data | perf script -i - -F period 2>/dev/null | sort | uniq -c >k.periods
	[ "$(awk '{ print $2 }' k.periods)" = 100000 ] || bad "real kernel: periods $(tr '\n' ' ' <k.periods), want only 100000"
	[ "$(awk '{ print $1 }' k.periods)" -gt 10 ] 2>/dev/null || bad "real kernel: only $(awk '{ print $1 }' k.periods) samples"
	# a group opens (its member with the leader's fd) and both sample at their periods
	env -u LIBPFM_FORCE_PMU "$P" record -q --pfm-events '{perf::PERF_COUNT_SW_CPU_CLOCK:period=100000,perf::PERF_COUNT_SW_TASK_CLOCK:period=200000}' -o g.data -- sh -c "$loop" 2>e5 ||
		bad "real kernel group: exit $?: $(cat e5)"
	zstd -dc g.data | perf script -i - -F period 2>/dev/null | awk '{ print $1 }' | sort -u | tr '\n' ' ' >g.periods
	[ "$(cat g.periods)" = "100000 200000 " ] || bad "real kernel group: periods '$(cat g.periods)', want 100000 and 200000"
	# the member is opened with its leader's fd, per CPU (tests/pmusim/fail_open.c logs)
	if cc -shared -fPIC -O2 -o fail.so "$HERE/../pmusim/fail_open.c" -ldl; then
		env -u LIBPFM_FORCE_PMU PMT_OPEN_LOG="$PWD/opens" LD_PRELOAD="$PWD/fail.so" "$P" record -q -C 0 --duration 0.1 \
			--pfm-events '{perf::PERF_COUNT_SW_CPU_CLOCK,perf::PERF_COUNT_SW_TASK_CLOCK}' -o o.data 2>e6 || bad "group opens: $(cat e6)"
		leader=$(awk '$1 == 1 && $2 == 0 && $4 == -1 { print $6 }' opens)
		member=$(awk '$1 == 1 && $2 == "0x1" { print $4 }' opens)
		[ -n "$leader" ] && [ "$member" = "$leader" ] || bad "group opens: member's group_fd '$member', leader's fd '$leader': $(cat opens)"
	fi
fi

[ $fail = 0 ] && echo "pfm_events: all checks passed"
exit $((fail != 0))
