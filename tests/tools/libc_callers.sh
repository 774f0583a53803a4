# Sourced by the tests that move a perf record -g recording's libc callers to chosen
# addresses of libc (their 8 bytes rewritten), so that a rare case is there every run.
# Needs $T, $PERF73 and fail(); skips (exit 77) without libc6-dbg's file for this libc.

# $libc: this machine's libc.so.6; $dbg: its libc6-dbg file (symbols and lines)
libc_debug_file() {
	for t in nm readelf python3; do
		command -v $t >/dev/null || { echo "SKIP: no $t"; exit 77; }
	done
	libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null) || libc=
	[ -f "$libc" ] || { echo "SKIP: no x86-64 libc.so.6"; exit 77; }
	id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
	dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	[ -f "$dbg" ] || { echo "SKIP: no libc6-dbg (libc's symbols and lines)"; exit 77; }
}

# $T/r.data: a -g recording of ls -lR, with libc's text map in it ($libc_map)
libc_record() {
	perf record -q -g -e cpu-clock:u -c 50000 -o "$T/r.data" ls -lR /usr/share \
		>/dev/null 2>&1 || :
	[ -s "$T/r.data" ] || { echo "SKIP: perf record -g failed here"; exit 77; }
	libc_map=$("$PERF73" script -i "$T/r.data" --show-mmap-events 2>/dev/null |
		awk '/PERF_RECORD_MMAP2/ && / r-xp / && /libc\.so\.6$/ { print $6, "@", $8; exit }')
	[ -n "$libc_map" ] || fail "no libc r-xp map in the recording"
}

# The recording's libc callers by how often they come, fewest first; with "callers", only
# addresses that are never a sample's own
libc_callers() {
	"$PERF73" script -i "$T/r.data" -F ip,dso 2>/dev/null |
		awk -v only="$1" 'NF == 0 { first = 1; next }
		     first { first = 0; self[$1] = 1; if (only == "callers") next }
		     /libc\.so\.6\)$/ { n[$1]++ }
		     END { for (a in n) if (only != "callers" || !(a in self)) print n[a], a }' |
		sort -n | awk '{ print $2 }'
}

# $T/u.data: $T/r.data with each process address OLD=FILE_ADDR of the pairs given moved
# to libc's FILE_ADDR
libc_move() {
	python3 - "$T/r.data" "$T/u.data" "$libc_map" "$@" <<'PY'
import re, struct, sys
src, dst, mapdesc = sys.argv[1:4]
start, pgoff = re.match(r'\[(0x[0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+)', mapdesc).groups()
data = open(src, 'rb').read()
for pair in sys.argv[4:]:
    old, faddr = pair.split('=')
    new = int(start, 16) + int(faddr, 16) - int(pgoff, 16)
    data = data.replace(struct.pack('<Q', int(old, 16)), struct.pack('<Q', new))
open(dst, 'wb').write(data)
PY
}
