/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * main() for the fuzz harnesses when built without libFuzzer: every file
 * named on the command line, and every file in a directory named there, goes
 * once through LLVMFuzzerTestOneInput(), so the corpus (seeds and crash
 * reproducers) runs as a plain regression test.  A harness that finds a bug
 * aborts, which fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger than any input the parsers accept, so their size limits are reached. */
#define REPLAY_INPUT_MAX (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned replayed;

/* Reads the whole file into a buffer of exactly its size, so that ASan sees overreads. */
static int replay_fd(int fd, const char *name) {
        struct stat st;
        uint8_t *data;
        size_t size, done = 0;

        if (fstat(fd, &st) < 0) {
                int r = -errno;

                fprintf(stderr, "%s: %s\n", name, strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                fprintf(stderr, "%s: not a regular file\n", name);
                return -EINVAL;
        }
        if (st.st_size < 0 || (uint64_t)st.st_size > REPLAY_INPUT_MAX) {
                fprintf(stderr, "%s: larger than %u bytes\n", name, REPLAY_INPUT_MAX);
                return -EFBIG;
        }
        size = (size_t)st.st_size;
        data = malloc(size > 0 ? size : 1);
        if (!data)
                return -ENOMEM;

        while (done < size) {
                ssize_t n = read(fd, data + done, size - done);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        int r = n < 0 ? -errno : -EIO;

                        fprintf(stderr, "%s: %s\n", name, strerror(-r));
                        free(data);
                        return r;
                }
                done += (size_t)n;
        }

        fprintf(stderr, "replay %s (%zu bytes)\n", name, size);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        replayed++;
        return 0;
}

static int replay_dir(int dfd, const char *dirname) {
        struct dirent **entries;
        int n, r = 0;

        /* Sorted, so that a failure reproduces in the same order. */
        n = scandirat(dfd, ".", &entries, NULL, alphasort);
        if (n < 0) {
                r = -errno;
                fprintf(stderr, "%s: %s\n", dirname, strerror(-r));
                return r;
        }
        for (int i = 0; i < n; i++) {
                const char *name = entries[i]->d_name;
                char path[4096];
                int fd;

                if (name[0] == '.') {
                        free(entries[i]);
                        continue;
                }
                snprintf(path, sizeof(path), "%s/%s", dirname, name);
                fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
                if (fd < 0) {
                        r = -errno;
                        fprintf(stderr, "%s: %s\n", path, strerror(-r));
                } else {
                        struct stat st;

                        /* Subdirectories (e.g. a crashes/ folder) are not walked. */
                        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
                                fprintf(stderr, "%s: directory, skipped\n", path);
                        else if (replay_fd(fd, path) < 0)
                                r = -EIO;
                        close(fd);
                }
                free(entries[i]);
        }
        free(entries);
        return r;
}

int main(int argc, char **argv) {
        int r = 0;

        if (argc < 2) {
                fprintf(stderr, "Usage: %s FILE|DIRECTORY...\n", argv[0]);
                return EXIT_FAILURE;
        }

        for (int i = 1; i < argc; i++) {
                struct stat st;
                int fd;

                /* libFuzzer options, so that the same command line works for both builds. */
                if (argv[i][0] == '-')
                        continue;

                fd = open(argv[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);
                if (fd < 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
                        r = -1;
                        continue;
                }
                if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
                        if (replay_dir(fd, argv[i]) < 0)
                                r = -1;
                } else if (replay_fd(fd, argv[i]) < 0)
                        r = -1;
                close(fd);
        }

        fprintf(stderr, "%u inputs replayed\n", replayed);
        /* An empty corpus means the test is wired to the wrong place, not that all is well. */
        if (replayed == 0)
                r = -1;
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
