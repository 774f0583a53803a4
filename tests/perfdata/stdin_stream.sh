#!/bin/sh
# `pmutrace script -` / `report -` / `dump -` read a pipe: a pipe-mode perf.data is streamed,
# a file-mode one is copied to a temporary file first. Every output must equal the run on
# the file path, for timed and timeless traces in many AUXTRACE chunks, for zstd-compressed
# records, and for stdin redirected from the file (mapped). A damaged pipe (record of size 0) must stop with an
# error naming the offset after the samples before it.
# usage: stdin_stream.sh PMUTRACE
set -eu
P=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
"$P" synth --records 40000 --seed 7 --mix n1 --context -o "$T/a.spe"
"$P" synth --records 20000 --seed 8 --mix v2 --no-timestamps -o "$T/b.spe"
"$P" convert --raw "$T/a.spe" --midr 0x410fd0c0 --chunk 100000 -o "$T/a.file"
"$P" convert --raw "$T/a.spe" --midr 0x410fd0c0 --chunk 100000 --pipe -o "$T/a.pipe"
"$P" convert --raw "$T/b.spe" --timeless --chunk 65536 --pipe -o "$T/b.pipe"
"$P" convert --raw "$T/b.spe" --timeless --chunk 65536 -o "$T/b.file"
# pipe mode with COMPRESSED records holding AUXTRACE records (AUX data that lives only
# until the next record: the session must copy it)
cp "$(dirname "$0")/../fuzz/corpus/perfdata/compressed.data" "$T/c.pipe"
for f in a.file a.pipe b.file b.pipe c.pipe; do
	for cmd in "script --csv" "script --itrace=i1i --perf-compat=6.1" "report --stdio" "dump"; do
		# shellcheck disable=SC2086
		rc1=0; "$P" $cmd "$T/$f" >"$T/path.out" 2>"$T/path.err0" || rc1=$?
		# messages name the input: the file, or "stdin"
		sed "s|$T/$f|stdin|g" "$T/path.err0" >"$T/path.err"
		# shellcheck disable=SC2086
		rc2=$(cat "$T/$f" | { r=0; "$P" $cmd - >"$T/pipe.out" 2>"$T/pipe.err" || r=$?; echo $r; })
		# shellcheck disable=SC2086
		rc3=0; "$P" $cmd - <"$T/$f" >"$T/redir.out" 2>"$T/redir.err" || rc3=$?
		if [ "$rc1" != "$rc2" ] || [ "$rc1" != "$rc3" ] || { [ "$rc1" != 0 ] && [ "$rc1" != 2 ]; }; then
			echo "FAIL: $cmd on $f: exit $rc1 (path), $rc2 (pipe), $rc3 (redirect)"
			fail=1
		fi
		if [ ! -s "$T/path.out" ] || ! cmp -s "$T/path.out" "$T/pipe.out" ||
			! cmp -s "$T/path.out" "$T/redir.out" ||
			! cmp -s "$T/path.err" "$T/pipe.err"; then
			echo "FAIL: $cmd on $f: stdin differs from the file path"
			diff "$T/path.out" "$T/pipe.out" | head -5
			fail=1
		fi
	done
done
# damage: zero the size of a record in the middle of the pipe-mode stream (dump prints a
# pipe's offsets as perf does, from after its 16-byte header; the file offset is 16 more)
off=$(( $(wc -c <"$T/a.pipe") / 2 ))
"$P" dump "$T/a.pipe" 2>/dev/null | awk -v o="$off" -v base=16 '
	/^0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_AUXTRACE/ {
		split($1, a, "x"); v = 0
		for (i = 1; i <= length(a[2]); i++) v = v * 16 + index("0123456789abcdef", substr(a[2], i, 1)) - 1
		if (v + base > o) { print v + base; exit } }' >"$T/recoff"
if [ -s "$T/recoff" ]; then
	r=$(cat "$T/recoff")
	cp "$T/a.pipe" "$T/bad.pipe"
	printf '\000\000' | dd of="$T/bad.pipe" bs=1 seek=$((r + 6)) conv=notrunc 2>/dev/null
	cat "$T/bad.pipe" | "$P" script - --csv >"$T/bad.csv" 2>"$T/bad.err" || true
	hex=$(printf '0x%x' "$r")
	if ! grep -q "record at $hex has size 0" "$T/bad.err" || [ "$(wc -l <"$T/bad.csv")" -lt 2 ]; then
		echo "FAIL: damaged pipe: expected an error at $hex and the samples before it"
		head -3 "$T/bad.err"
		fail=1
	fi
else
	echo "FAIL: no AUXTRACE record found in the dump of a.pipe"
	fail=1
fi
[ $fail = 0 ] && echo "OK: stdin (pipe and redirect) gives the file path's output"
exit $fail
