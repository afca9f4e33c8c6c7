# SPDX-License-Identifier: LGPL-2.1-or-later
"""The pieces of the integration tests: the build, a private rtfd, a librtf
client driven line by line (testclient), and polling helpers."""
import glob
import json
import os
import select
import signal
import socket
import subprocess
import time

import pytest

SRC_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 10.0          # seconds: a limit for things that normally take milliseconds
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


# ---- the build ---------------------------------------------------------------

def find_build_dir():
    env = os.environ.get("RTF_BUILD_DIR")
    if env:
        return os.path.abspath(env)
    candidates = [d for d in glob.glob(os.path.join(SRC_DIR, "build*"))
                  if os.path.exists(os.path.join(d, "src", "daemon", "rtfd"))]
    if not candidates:
        return None
    return max(candidates, key=lambda d: os.path.getmtime(os.path.join(d, "src", "daemon", "rtfd")))


class Build:
    def __init__(self, path):
        self.path = path
        self.rtfd = os.path.join(path, "src", "daemon", "rtfd")
        self.rtfctl = os.path.join(path, "src", "ctl", "rtfctl")
        self.plugindir = os.path.join(path, "plugins")
        self.libdir = os.path.join(path, "src", "lib")
        self.listing1 = os.path.join(path, "examples", "listing1")
        self.testclient = os.path.join(path, "tests", "integration", "testclient")

    def plugin(self, name):
        return os.path.join(self.plugindir, name + ".so")


def compile_testclient(build, outdir):
    """For a build whose tests/meson.build does not yet include integration/."""
    out = os.path.join(outdir, "testclient")
    cmd = ["cc", "-std=gnu11", "-D_GNU_SOURCE", "-O1", "-I", os.path.join(SRC_DIR, "include"),
           os.path.join(SRC_DIR, "tests", "integration", "testclient.c"), "-o", out,
           "-L", build.libdir, "-Wl,-rpath," + build.libdir, "-lrtf", "-ljson-c", "-pthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail("cannot build the test client:\n" + r.stderr)
    os.chmod(outdir, 0o755)
    return out


# ---- helpers -------------------------------------------------------------------

def wait_for(predicate, timeout=TIMEOUT, interval=0.05, what="condition"):
    """Poll until predicate() is truthy; return its value or fail."""
    end = time.monotonic() + timeout
    while True:
        v = predicate()
        if v:
            return v
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(interval)


def write_root_file(path, text, mode=0o644):
    """Root-owned, by default not group/other-writable, replaced atomically."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.chown(tmp, 0, 0)
    os.chmod(tmp, mode)
    os.rename(tmp, path)


def start_with_policy(rtfd, tmp_path, config, policy):
    """rtfd (the fixture) with `policy` as its --acl file (root-owned, 0644), kept in d.acl."""
    path = str(tmp_path / "acl.conf")
    write_root_file(path, policy)
    d = rtfd(config, args=("--acl", path))
    d.acl = path
    return d


class Client:
    """One testclient process: one librtf connection, one JSON line per command."""

    def __init__(self, build, socket_path, user=None, connect=True):
        env = dict(os.environ, RTF_SOCKET=socket_path, RTF_TIMEOUT_MS="5000")
        cmd = (NOBODY if user == "nobody" else []) + [build.testclient]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     text=True, bufsize=1)
        self.pid = self.proc.pid
        self.threads = {}
        if connect:
            r = self.cmd("connect")
            assert r["result"] == 0, r

    def cmd(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT + 5)
        if not ready:
            pytest.fail(f"test client did not answer '{line}'")
        out = self.proc.stdout.readline()
        if not out:
            pytest.fail(f"test client died on '{line}' (exit {self.proc.poll()})")
        return json.loads(out)

    @staticmethod
    def _kv(kw):
        return " ".join(f"{k}={v}" for k, v in kw.items())

    def create(self, name, **kw):
        return self.cmd(f"create {name} {self._kv(kw)}")

    def change(self, name, **kw):
        return self.cmd(f"change {name} {self._kv(kw)}")

    def release(self, name):
        return self.cmd(f"release {name}")

    def attach(self, name, target):
        return self.cmd(f"attach {name} {target}")

    def detach(self, name):
        return self.cmd(f"detach {name}")

    def thread(self, name, spin=False):
        r = self.cmd(f"{'spin' if spin else 'thread'} {name}")
        assert "tid" in r, r
        self.threads[name] = r["tid"]
        return r["tid"]

    def exit_thread(self, name):
        r = self.cmd(f"exit {name}")
        assert r.get("exited"), r
        return r["tid"]

    def quit(self):
        if self.proc.poll() is None:
            try:
                self.cmd("quit")
            except Exception:
                pass
            self.proc.wait(timeout=TIMEOUT)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT)


class Daemon:
    """A private rtfd: its own socket, config file and log, in its own directory."""

    def __init__(self, build, workdir):
        self.build = build
        self.dir = workdir
        self.socket = os.path.join(workdir, "rtfd.sock")
        self.config = os.path.join(workdir, "rtfd.conf")
        self.log_path = os.path.join(workdir, "rtfd.log")
        self.proc = None
        self.clients = []
        self.children = []
        self.returncode = None

    # -- lifetime
    def command(self, args=(), config=True):
        cmd = [self.build.rtfd, "--socket", self.socket, "--plugindir", self.build.plugindir,
               "--foreground", "-v"]
        if config:
            cmd += ["--config", self.config]
        if "--acl" not in args and "-a" not in args:
            # Hermetic: never the machine's /etc/rtf/acl.conf.  Empty = only root.
            acl = os.path.join(self.dir, "acl.conf")
            if not os.path.exists(acl):
                write_root_file(acl, "")
            cmd += ["--acl", acl]
        return cmd + list(args)

    def start(self, config_text=None, args=(), env=None, wait=True, config_mode=0o644):
        if config_text is not None:
            write_root_file(self.config, config_text, config_mode)
        e = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "NOTIFY_SOCKET", "LISTEN_FDS",
                                                              "LISTEN_PID", "RTFD_TEST_INJECT_STUCK")}
        e.update(env or {})
        self.logf = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.command(args, config=config_text is not None),
                                     stdin=subprocess.DEVNULL, stdout=self.logf, stderr=subprocess.STDOUT,
                                     env=e)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self):
        def ready():
            if self.proc.poll() is not None:
                pytest.fail(f"rtfd exited with {self.proc.returncode} at start:\n{self.log()}")
            if not os.path.exists(self.socket):
                return False
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                s.connect(self.socket)
                return True
            except OSError:
                return False
            finally:
                s.close()
        wait_for(ready, what="rtfd's socket")
        wait_for(lambda: "ready" in self.log(), what="rtfd to log 'ready'")

    def wait_exit(self, timeout=TIMEOUT):
        try:
            self.returncode = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.returncode = self.proc.wait()
            self.logf.close()
            pytest.fail("rtfd did not exit in time")
        self.logf.close()
        return self.returncode

    def shutdown(self):
        """For teardown, never raises: clients and helpers killed, rtfd sent
        SIGTERM (SIGKILL if it hangs).  Returns a list of problems."""
        problems = []
        try:
            self.cleanup_children()
        except Exception as e:      # noqa: BLE001 - teardown must go on
            problems.append(f"cleaning up clients: {e!r}")
        if self.proc is None or self.returncode is not None:
            return problems
        if self.proc.poll() is not None:
            problems.append(f"rtfd died during the test (exit status {self.proc.returncode})")
        else:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                problems.append("rtfd did not stop on SIGTERM (killed)")
            else:
                if self.proc.returncode != 0:
                    problems.append(f"rtfd exited with {self.proc.returncode} on SIGTERM")
        self.returncode = self.proc.returncode
        self.logf.close()
        return problems

    def stop(self):
        """SIGTERM; returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.wait_exit()
        return rc

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def reload(self, config_text, config_mode=0o644):
        write_root_file(self.config, config_text, config_mode)
        mark = len(self.log())
        self.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "Configuration" in self.log()[mark:] and "reloaded" in self.log()[mark:]
                 or "Reload failed" in self.log()[mark:], what="rtfd to finish the reload")
        return self.log()[mark:]

    # -- what it says
    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def wait_log(self, text, start=0, timeout=TIMEOUT):
        return wait_for(lambda: text in self.log()[start:], timeout=timeout, what=f"'{text}' in rtfd's log")

    def ctl(self, what, json_output=True, user=None, check=True):
        cmd = (NOBODY if user == "nobody" else []) + [self.build.rtfctl, "--socket", self.socket]
        if json_output:
            cmd.append("--json")
        r = subprocess.run(cmd + [what], capture_output=True, text=True, timeout=TIMEOUT)
        if check:
            assert r.returncode == 0, f"rtfctl {what} failed: {r.stderr}"
        if not json_output:
            return r.stdout
        return json.loads(r.stdout)

    def tasks(self):
        return self.ctl("tasks")["tasks"]

    def task(self, spec_id):
        for t in self.tasks():
            if t["id"] == spec_id:
                return t
        return None

    def cores(self):
        return self.ctl("status")["cores"]

    # -- its clients and helper processes, cleaned up before rtfd stops
    def client(self, **kw):
        c = Client(self.build, self.socket, **kw)
        self.clients.append(c)
        return c

    def spawn(self, argv, **kw):
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, **kw)
        self.children.append(p)
        return p

    def cleanup_children(self):
        for c in self.clients:
            c.kill()
        for p in self.children:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=TIMEOUT)

# ---- configurations used by several tests ---------------------------------------

PARTITIONED = "EDF EDF.so 100-100 1\nFP FP.so 1-99 0\n"
GLOBAL = "EDF EDF.so 100-100 all\nFP FP.so 1-99 all\n"
