# Sourced by the stat tests: perf stat layouts with their numbers masked.
# Numbers differ between runs; their columns must not. A number keeps its right edge and
# becomes N (right-aligned columns), times and the workload's user/sys too.
mask() {
	python3 -c '
import re, sys
def m(mo):
    s = mo.group(0)
    return " " * (len(s) - 1) + "N"
for line in sys.stdin:
    # a counter that did not run in an interval is not a layout difference
    line = re.sub(r"[ ]*<not counted>", m, line)
    line = re.sub(r"(?<![A-Za-z_-])[ ]*[0-9][0-9.]*(?![A-Za-z])", m, line)
    sys.stdout.write(line)'
}

# CSV and JSON have no columns to keep: a number is N
mask_plain() { sed -E 's/<not counted>|[0-9][0-9.]*/N/g'; }
