#!/bin/sh
# Usage: run_vec.sh SPE_VEC PMUTRACE FILE.vec WORKDIR
# One golden vector file: library checks (decode, describe, re-encode, truncation), then the
# CLI: `pmutrace dump --raw` of the compiled bytes must print exactly the expected lines.
set -u
vec=$1 pmt=$2 in=$3 w=$4
name=$(basename "$in" .vec)
mkdir -p "$w" || exit 1
opts=$("$vec" compile "$in" "$w/$name.bin" "$w/$name.exp") || { echo "FAIL: compile"; exit 1; }
"$vec" check "$in" || exit 1
# shellcheck disable=SC2086
"$pmt" dump --raw $opts "$w/$name.bin" > "$w/$name.out" 2> "$w/$name.err"
if ! diff -u "$w/$name.exp" "$w/$name.out"; then
	echo "FAIL: $name: pmutrace dump$opts differs (-expected +got)"
	exit 1
fi
echo "OK: $name: dump$opts matches $(wc -l < "$w/$name.exp") expected lines"
