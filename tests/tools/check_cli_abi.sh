#!/bin/sh
# Fails when a file of cli/ names perf's ABI (PERF_RECORD_* record types, perf_event_attr):
# a command parses, wires and reports; what perf's records and attrs hold is the libraries'
# business (CONTRIBUTING.md, "A subcommand"). The manual pages may name them: they explain
# perf's terms to users. Usage: check_cli_abi.sh SOURCE_DIR
set -u
cd "$1" || exit 2
if grep -nE 'PERF_RECORD_|perf_event_attr' $(find cli -name '*.[ch]' | sort); then
	echo "cli: perf's ABI named above; move the logic into a library (formats/perfdata, record)"
	exit 1
fi
echo "cli: no PERF_RECORD_* or perf_event_attr"
