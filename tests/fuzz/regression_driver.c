/* Replays fuzz inputs through a target's LLVMFuzzerTestOneInput without libFuzzer, so that
 * the corpus and every past crash run under gcc and the sanitizer build in ctest.
 * Arguments are files or directories (read recursively one level). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, cap = 0;

	if (!fp) {
		fprintf(stderr, "cannot open %s\n", path);
		return 1;
	}
	for (;;) {
		if (size == cap) {
			uint8_t *p;

			cap = cap ? cap * 2 : 4096;
			p = realloc(data, cap);
			if (!p) {
				fclose(fp);
				free(data);
				return 1;
			}
			data = p;
		}
		size_t n = fread(data + size, 1, cap - size, fp);
		if (!n)
			break;
		size += n;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	int failures = 0, count = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *dir;
		struct dirent *de;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "missing corpus %s\n", argv[i]);
			failures++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failures += run_file(argv[i]);
			count++;
			continue;
		}
		dir = opendir(argv[i]);
		while (dir && (de = readdir(dir))) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			failures += run_file(path);
			count++;
		}
		if (dir)
			closedir(dir);
	}
	printf("replayed %d inputs\n", count);
	if (count == 0) {
		fprintf(stderr, "no inputs replayed\n");
		return 1;
	}
	return failures ? 1 : 0;
}
