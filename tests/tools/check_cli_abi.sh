#!/bin/sh
# Fails when a file of cli/ names perf's ABI: PERF_RECORD_* record types, perf_event_attr,
# or any constant of pmutrace/perf_abi.h (records, features, attr fields, sample bits). A
# command parses, wires and reports; what perf's records and attrs hold is the libraries'
# business (CONTRIBUTING.md, "A subcommand"). The manual pages may name them: they explain
# perf's terms to users. Usage: check_cli_abi.sh SOURCE_DIR
set -u
cd "$1" || exit 2
abi=formats/perfdata/include/pmutrace/perf_abi.h
names=$(mktemp)
trap 'rm -f "$names"' EXIT
# the constants perf_abi.h defines (#define NAME, or NAME = in an enum)
{ grep -oE '#define[[:space:]]+PMT_[A-Z0-9_]+' "$abi" | awk '{ print $2 }'
  grep -oE 'PMT_[A-Z0-9_]+[[:space:]]*=' "$abi" | tr -d ' =\t'; } | sort -u >"$names"
[ -s "$names" ] || { echo "no constants found in $abi"; exit 2; }
files=$(find cli -name '*.[ch]' | sort)
bad=0
grep -nE 'PERF_RECORD_|perf_event_attr' $files && bad=1
grep -nwFf "$names" $files && bad=1
if [ $bad = 1 ]; then
	echo "cli: perf's ABI named above; move the logic into a library (formats/perfdata, record)"
	exit 1
fi
echo "cli: no PERF_RECORD_*, perf_event_attr or perf_abi.h constant"
