/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

extern char **environ;

const char *plot_python(void) {
        const char *p = getenv("RTF_PYTHON");

        if (p && *p)
                return p;
        return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

const char *plot_script(const char *env_override, const char *name, char *buf, size_t size) {
        const char *script = env_override ? getenv(env_override) : NULL;

        if (script && *script)
                return script;
        snprintf(buf, size, "%s/%s", RTF_PLOT_DIR, name);
        if (access(buf, R_OK) != 0)
                snprintf(buf, size, "%s/%s", RTF_SOURCE_PLOT_DIR, name);
        return buf;
}

int plot_run(const char *tool, const char *script, json_object *doc, const char *out) {
        char dir[64], data[96];
        const char *python = plot_python();
        char *argv[] = { (char *)python, (char *)script, data, (char *)out, NULL };
        int r = -1, status = -1;
        pid_t pid;

        snprintf(dir, sizeof(dir), "/tmp/%s-plot-XXXXXX", tool);
        if (!mkdtemp(dir)) {
                fprintf(stderr, "%s: --plot: cannot make a directory in /tmp: %s\n", tool, strerror(errno));
                return -1;
        }
        snprintf(data, sizeof(data), "%s/plot.json", dir);
        if (json_object_to_file_ext(data, doc, JSON_C_TO_STRING_PLAIN) < 0) {
                fprintf(stderr, "%s: --plot: cannot write %s\n", tool, data);
                goto out;
        }
        /* The tool's own output comes before the script's. */
        fflush(stdout);
        r = posix_spawnp(&pid, python, NULL, NULL, argv, environ);
        if (r != 0) {
                fprintf(stderr, "%s: --plot: cannot run %s: %s (set RTF_PYTHON)\n", tool, python, strerror(r));
                r = -1;
                goto out;
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        status = -1;
                        break;
                }
        r = 0;
        if (status != 0) {
                fprintf(stderr, "%s: --plot: %s not written (%s %s failed)\n", tool, out, python, script);
                r = -1;
        }
out:
        unlink(data);
        rmdir(dir);
        return r;
}
