#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every option that a program's --help defines is in its man page.

The pages and the programs were written by different hands and fell out of
step; this keeps them together.  An option is what a line of the help starts
with ("  -p, --period=US  ..."), so options only mentioned in a description
(cyclictest's, another command's) are not asked for.  Each option must appear
in the page's troff source, with troff's escaped hyphens read as hyphens.
usage: check-man-options.py BUILD_ROOT SOURCE_ROOT"""
import os
import re
import subprocess
import sys

# program in the build tree, the arguments that print a help, its man page
PAGES = (
    ("src/daemon/rtfd", [], "docs/man/rtfd.8"),
    ("src/ctl/rtfctl", [], "docs/man/rtfctl.1"),
    ("src/ctl/rtfctl", ["run"], "docs/man/rtfctl.1"),
    ("src/ctl/rtfctl", ["attach"], "docs/man/rtfctl.1"),
    ("src/ctl/rtfctl", ["top"], "docs/man/rtfctl.1"),
    ("tools/rtf-latency/rtf-latency", [], "docs/man/rtf-latency.1"),
    ("tools/rtf-bench/rtf-bench", [], "docs/man/rtf-bench.1"),
    ("tools/rtf-budget/rtf-budget", [], "docs/man/rtf-budget.1"),
    ("tools/rtf-sim/rtf-sim", [], "docs/man/rtf-sim.1"),
    ("apps/rtf-nexa/rtf-nexa", [], "apps/rtf-nexa/rtf-nexa.1"),
)

OPTION_LINE = re.compile(r"^ {1,8}(?:(-[A-Za-z0-9]), )?(--[a-z][a-z0-9-]*)")
COMMAND_LINE = re.compile(r"^  ([a-z]+)\b")


def troff_text(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"\\f(?:[BIRP]|\(..|\[[^]]*\])", "", text)   # font changes
    text = text.replace("\\-", "-").replace("\\&", "")
    return text


def appears(word, text):
    return re.search(r"(?<![A-Za-z0-9-])" + re.escape(word) + r"(?![A-Za-z0-9-])", text) is not None


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, source = sys.argv[1:]
    missing = []
    for program, sub, page in PAGES:
        exe = os.path.join(build, program)
        if not os.path.exists(exe):
            missing.append(f"{program}: not built")
            continue
        r = subprocess.run([exe] + sub + ["--help"], capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, RTF_SOCKET="/nonexistent"))
        name = " ".join([os.path.basename(program)] + sub)
        if r.returncode != 0 or "Usage:" not in r.stdout:
            missing.append(f"{name} --help: exit {r.returncode}: {r.stdout[:200]}{r.stderr[:200]}")
            continue
        page_path = os.path.join(source, page)
        if not os.path.exists(page_path):
            missing.append(f"{name}: no man page {page}")
            continue
        text = troff_text(page_path)
        words = []
        in_commands = False
        for line in r.stdout.splitlines():
            m = OPTION_LINE.match(line)
            if m:
                words += [w for w in m.groups() if w]
            # rtfctl's "Commands:" block: each command has its entry too
            if line.startswith("Commands:"):
                in_commands = True
            elif in_commands and not line.strip():
                in_commands = False
            elif in_commands:
                c = COMMAND_LINE.match(line)
                if c:
                    words.append(c.group(1))
        if not words:
            missing.append(f"{name} --help: no option found (has its format changed?)")
        for w in words:
            if not appears(w, text):
                missing.append(f"{name}: {w} is in --help but not in {page}")
    for m in missing:
        print(m)
    print(f"# {len(PAGES)} help texts checked, {len(missing)} problems")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
