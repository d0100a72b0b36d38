/* replay_main.c - a plain main() for any harness: calls it on every file
 * named on the command line, walking directories (no symlinks followed), so
 * the whole corpus runs under gcc + ASan/UBSan in the ordinary tests without
 * libFuzzer. Prints one line per directory and a total. */
#define _DEFAULT_SOURCE
#include "fuzz_common.h"

#include <dirent.h>
#include <sys/stat.h>

static size_t n_files;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return 1;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        cap *= 2;
        uint8_t *nb = realloc(buf, cap);
        if (!nb)
            free(buf);
        buf = nb;
    }
    fclose(f);
    /* an exactly-sized copy so ASan sees any read past the end */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    n_files++;
    return 0;
}

static int walk(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        fprintf(stderr, "replay: cannot stat %s\n", path);
        return 1;
    }
    if (S_ISLNK(sb.st_mode))
        return 0;
    if (!S_ISDIR(sb.st_mode))
        return S_ISREG(sb.st_mode) ? run_file(path) : 0;
    DIR *d = opendir(path);
    if (!d)
        return 1;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(n);
        if (!child) {
            rc = 1;
            break;
        }
        snprintf(child, n, "%s/%s", path, e->d_name);
        rc |= walk(child);
        free(child);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= walk(argv[i]);
    printf("replay: %zu files\n", n_files);
    return rc;
}
