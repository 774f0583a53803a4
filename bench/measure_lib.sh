# Sourced by bench scripts (HERE and T set): measure LABEL CMD... runs CMD three times
# through rusage.py and prints the median run's wall and CPU seconds and max RSS.
measure() { # LABEL CMD...
	label=$1
	shift
	for r in 1 2 3; do
		python3 "$HERE/rusage.py" "$T/t$r" sh -c "$* >/dev/null 2>&1" || true
	done
	cat "$T/t1" "$T/t2" "$T/t3" | sort -n | sed -n 2p | {
		read -r wall user sys rss
		awk -v l="$label" -v w="$wall" -v c="$(echo "$user $sys" | awk '{print $1 + $2}')" \
			-v m="$rss" 'BEGIN { printf "%-34s wall %7.3f s  CPU %7.3f s  RSS %6.1f MB\n", l, w, c, m / 1024 }'
	}
}
