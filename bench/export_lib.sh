# Sourced by the export benchmarks (T is their temporary folder).
# timed NAME CMD...: "wall user sys maxrss_kb" of CMD into $T/NAME.t (stdout, stderr kept)
timed() {
	name=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$T/$name.t" "$@" >"$T/$name.out" 2>"$T/$name.err" ||
		{ echo "$name failed: $(tail -3 "$T/$name.err")"; return 1; }
}
# report NAME ROWS BYTES: one line of figures; rows/s = rows / wall seconds
report() {
	read -r wall user sys rss <"$T/$1.t"
	awk -v n="$1" -v r="$2" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v b="$3" \
		'BEGIN { printf "%-10s %8d rows  %7.2f s wall  %7.2f s CPU  %9.0f rows/s  %6.0f MB RSS  %6.1f MB out\n",
			n, r, w, u + s, (w > 0 ? r / w : 0), m / 1024, b / 1e6 }'
}
