# Sourced by differential tests: $PERF (default: perf on PATH) must run, else the test
# skips (exit 77); $T is a temporary folder, removed on exit.
PERF=${PERF:-perf}
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run (tests/oracles/setup builds perf 7.3)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
