# Reads "paste -d '\n' THEIRS OURS" (perf's line, then pmutrace's) and prints perf's line
# where the pair differs only by a known difference of names, else pmutrace's.
# ld.so's _dl_find_object_from_map (inlined from dl-find_object.h): perf 7.3 has named
# dl-find_object.c for rows bookworm's libdw (pmutrace's here) names dl-find_object.h, the
# same line (CI runs: 107), a start-up frame a live recording samples by chance; not
# reproduced on demand (both libdw versions' dwfl_module_getsrc name the header for every
# address of the function). With plt=1 also: decode/symbols names some of libc's .plt
# entries offset_0xN@plt where perf 7.3 has NAME@plt.
NR % 2 == 1 { theirs = $0; next }
{
	t = theirs; o = $0
	if (t ~ /dl-find_object\.c:[0-9]+/ && o ~ /dl-find_object\.h:[0-9]+/) {
		gsub(/dl-find_object\.[ch]:/, "dl-find_object.?:", t)
		gsub(/dl-find_object\.[ch]:/, "dl-find_object.?:", o)
		if (t == o) { print theirs; next }
	}
	if (plt && t ~ /@plt$/ && o ~ /offset_0x[0-9a-f]+@plt$/) {
		sub(/[^ ]+@plt$/, "", t); sub(/offset_0x[0-9a-f]+@plt$/, "", o)
		if (t == o) { print theirs; next }
	}
	print
}
