#!/usr/bin/env python3
"""Syscalls per operation on the service's side: `strace -f -c` attached to a running `rho` while N `kernel.run`s of `1+1` (with waitMs) per language, or N `console.run`s of `true` followed to their recorded exit, go through it.

Usage: path_counts.py RHO_BINARY [N] [kernel|console]. Starts its own service on temporary
folders, warms it (sessions started), attaches strace (on PATH) only for the measured calls, and
prints fdatasync, futex, epoll_wait, write, read, poll per operation: counts, which a loaded
machine does not change (decisions 0515, 0608). The console run traces only fdatasync and fsync of
the service's own threads (not its children): ptrace on the guard and its shell would slow them
past the guard's few ms of start hold.
"""
import http.client, json, os, signal, subprocess, sys, tempfile, time, urllib.parse

RHO = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 50
WHAT = sys.argv[3] if len(sys.argv) > 3 else "kernel"
SYSCALLS = ["fdatasync", "fsync", "futex", "epoll_wait", "write", "read", "execve", "poll"]


class Service:
    def __init__(self, url, token):
        u = urllib.parse.urlparse(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port)
        self.token = token

    def call(self, op, body, local=False):
        h = {"Content-Type": "application/json"}
        if not local:
            h["Authorization"] = f"Bearer {self.token}"
        self.conn.request("POST", f"/api/v2/{op}", body=json.dumps(body), headers=h)
        r = self.conn.getresponse()
        d = json.loads(r.read())
        if r.status != 200:
            raise RuntimeError(f"{op}: {r.status} {d}")
        return d["value"]


def counts(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 5 and f[-1] in SYSCALLS and f[3].isdigit():
            out[f[-1]] = int(f[3])
    return out


root, state = tempfile.mkdtemp(), tempfile.mkdtemp()
svc = subprocess.Popen([RHO, "--root", root, "--state-dir", state, "--port", "0"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    conn = os.path.join(state, "connection.json")
    for _ in range(300):
        if os.path.exists(conn):
            break
        time.sleep(0.1)
    time.sleep(0.5)
    c = json.load(open(conn))
    s = Service(c["url"], c["token"])
    pid = s.call("project.create", {"name": "counts"})["id"]

    def cell(lang, change):
        v = s.call("kernel.run", {"projectId": pid, "language": lang, "code": "1+1",
                                  "changeId": change, "waitMs": 60000})
        assert v["end"]["outcome"] == "done", v

    def command(change):
        r = s.call("console.run", {"projectId": pid, "changeId": change, "command": "true"}, local=True)
        while True:
            recs = s.call("console.list", {"projectId": pid}, local=True)["commands"]
            if next(x for x in recs if x["commandId"] == r["commandId"])["state"] == "exited":
                return
            time.sleep(0.0005)

    plans = [("python", lambda i: cell("python", f"p{i}")), ("r", lambda i: cell("r", f"r{i}"))] \
        if WHAT == "kernel" else [("console true", command)]
    for name, op in plans:
        for i in range(3):
            op(f"warm-{name}-{i}")
        out = tempfile.mktemp(suffix=".strace")
        trace = ["strace", "-f", "-c", "-o", out, "-p", str(svc.pid)]
        if WHAT == "console":
            # Every thread of the service, not its children: ptrace on the guard and its shell
            # would slow them past the guard's start hold.
            tasks = sorted(os.listdir(f"/proc/{svc.pid}/task"))
            trace = ["strace", "-c", "-o", out, "-e", "trace=fdatasync,fsync"] + \
                [a for t in tasks for a in ("-p", t)]
        st = subprocess.Popen(trace, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        for i in range(N):
            op(f"{name}-{i}")
        st.send_signal(signal.SIGINT)
        st.wait()
        per = {k: v / N for k, v in counts(out).items()}
        print(f"{name}: " + ", ".join(f"{k} {per[k]:.1f}" for k in SYSCALLS if k in per) + f" per operation ({N})")
finally:
    svc.terminate()
    svc.wait()
