#!/usr/bin/env python3
"""Notebook through the service: `1+1` via kernel.run with waitMs (journaled, durable) against Jupyter and a bare pipe; the listing after a cell defining 200 values; kernel.inspect of a 1,000,000-row frame.

Usage: notebook_e2e.py RHO_BINARY [N]. Starts its own service on temporary folders and prints, in
one run, the p50/p90 of N calls per language, of N Jupyter round trips (jupyter_client executing
`1+1` on ipykernel, or IRkernel for R when the bench venv has it; RHO_BENCH_VENV, default
/work/venv-bench) and of N bare-pipe round trips to the same interpreters (the floor), then each
ratio. Then, through the service (kernel.run and kernel.inspect over one kept-alive HTTP
connection, as a browser holds one): a cell that defines 200 values against an empty cell in the
same session (goal: the difference under 10 ms), and kernel.inspect of the first page of a
1,000,000-row data frame (goal under 50 ms) and of its page sorted by a numeric column (goal
under 1.5 s), in R and Python. The service's Python is the bench venv's when it exists (pandas
for the Python frame), else python3 from PATH.
"""
import http.client, json, os, statistics, subprocess, sys, tempfile, time, urllib.parse

RHO = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 50
VENV = os.environ.get("RHO_BENCH_VENV", "/work/venv-bench")
VENV_PY = os.path.join(VENV, "bin", "python")
PYTHON = VENV_PY if os.path.exists(VENV_PY) else "python3"


class Service:
    """One kept-alive HTTP connection to the service, as the operator (opened again when the
    service closed it while idle; every call here is safe to repeat: a changeId or a read)."""

    def __init__(self, url, token):
        u = urllib.parse.urlparse(url)
        self.host, self.port = u.hostname, u.port
        self.conn = http.client.HTTPConnection(self.host, self.port)
        self.token = token

    def call(self, op, body):
        for attempt in (1, 2):
            try:
                self.conn.request("POST", f"/api/v2/{op}", body=json.dumps(body),
                                  headers={"Authorization": f"Bearer {self.token}",
                                           "Content-Type": "application/json"})
                r = self.conn.getresponse()
                break
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                if attempt == 2:
                    raise
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port)
        data = json.loads(r.read())
        if r.status != 200:
            raise RuntimeError(f"{op}: {r.status} {data}")
        return data["value"]


def bare(cmd, prompt_code, marker):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, bufsize=1)
    times = []
    for _ in range(N + 5):
        t = time.perf_counter()
        p.stdin.write(prompt_code)
        p.stdin.flush()
        while marker not in p.stdout.readline():
            pass
        times.append(time.perf_counter() - t)
    p.kill()
    return times[5:]


# Runs in the bench venv: N+5 `1+1` round trips (execute_request to its execute_reply and the
# kernel's idle status), the first 5 dropped; prints the seconds as JSON, or why it cannot.
JUPYTER = r"""
import json, sys, time
from jupyter_client.kernelspec import NoSuchKernel
from jupyter_client.manager import start_new_kernel
name, n = sys.argv[1], int(sys.argv[2])
try:
    km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
except NoSuchKernel:
    print(json.dumps({"unavailable": f"no Jupyter kernel {name!r} in the bench venv"}))
    sys.exit(0)
times = []
try:
    for _ in range(n + 5):
        t = time.perf_counter()
        reply = kc.execute_interactive("1+1", store_history=False, timeout=30, output_hook=lambda m: None)
        times.append(time.perf_counter() - t)
        assert reply["content"]["status"] == "ok", reply
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
print(json.dumps({"times": times[5:]}))
"""


def jupyter(kernel):
    if not os.path.exists(VENV_PY):
        return None, f"no bench venv at {VENV}"
    r = subprocess.run([VENV_PY, "-c", JUPYTER, kernel, str(N)], capture_output=True, text=True, timeout=600)
    try:
        out = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, f"jupyter_client failed: {r.stderr.strip()[-300:]}"
    return out.get("times"), out.get("unavailable")


def pct(ts):
    ts = sorted(ts)
    return statistics.median(ts) * 1000, ts[int(len(ts) * 0.9)] * 1000


DEFINE_200 = {
    "r": "for (i in 1:200) assign(paste0('v', i), runif(10))",
    "python": "import random\nfor i in range(200):\n    globals()['v%d' % i] = [random.random() for _ in range(10)]",
}
BIG = {
    "r": "big <- data.frame(x = runif(1e6), y = sample(letters, 1e6, TRUE), z = 1:1e6)",
    "python": "import numpy as np, pandas as pd\nbig = pd.DataFrame({'x': np.random.rand(10**6), 'y': np.random.choice(list('abc'), 10**6), 'z': np.arange(10**6)})",
}


def cells(svc, pid, lang, code, tag, n):
    """n cells of `code`, each a new changeId, timed through kernel.run with waitMs."""
    ts = []
    for i in range(n):
        t = time.perf_counter()
        cell = svc.call("kernel.run", {"projectId": pid, "language": lang, "code": code,
                                       "changeId": f"{tag}-{lang}-{i}", "waitMs": 60000})
        ts.append(time.perf_counter() - t)
        assert cell["end"]["outcome"] == "done", cell
    return ts


def readings(svc, pid, lang, n, sort):
    ts = []
    for _ in range(n):
        body = {"projectId": pid, "language": lang, "path": "big"}
        if sort:
            body["sort"] = {"column": "x"}
        t = time.perf_counter()
        r = svc.call("kernel.inspect", body)
        ts.append(time.perf_counter() - t)
        assert r["answer"] == "value" and r["value"]["total"] == 1000000, r
        assert len(r["value"]["page"]["rows"]) == 50, r
        if sort:
            assert "sortRefused" not in r["value"], r
    return ts


root, state = tempfile.mkdtemp(), tempfile.mkdtemp()
svc_proc = subprocess.Popen([RHO, "--root", root, "--state-dir", state, "--port", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, RHO_PYTHON=PYTHON) if PYTHON == VENV_PY else None)
try:
    conn = os.path.join(state, "connection.json")
    for _ in range(300):
        if os.path.exists(conn):
            break
        time.sleep(0.1)
    time.sleep(0.5)
    c = json.load(open(conn))
    svc = Service(c["url"], c["token"])
    pid = svc.call("project.create", {"name": "bench"})["id"]
    results = {}
    for lang in ["r", "python"]:
        cells(svc, pid, lang, "1+1", "warm", 5)
        results[lang] = pct(cells(svc, pid, lang, "1+1", "one", N))
    results["r-pipe"] = pct(bare(["R", "--vanilla", "--slave"], "print(1+1); cat('END\\n')\n", "END"))
    results["python-pipe"] = pct(bare([PYTHON, "-u", "-i", "-q"], "print(1+1); print('END')\n", "END"))
    missing = {}
    for lang, kernel in [("r", "ir"), ("python", "python3")]:
        times, why = jupyter(kernel)
        if times:
            results[lang + "-jupyter"] = pct(times)
        else:
            missing[lang] = why
    # The listing after a cell that defines 200 values, against an empty cell in the same
    # session (200 values present, unchanged), then the 1,000,000-row frame.
    listing = {}
    for lang in ["r", "python"]:
        m = max(10, N // 2)
        results[lang + "-define-200"] = pct(cells(svc, pid, lang, DEFINE_200[lang], "def", m))
        results[lang + "-empty-cell"] = pct(cells(svc, pid, lang, "1+1", "empty", m))
        listing[lang] = results[lang + "-define-200"][0] - results[lang + "-empty-cell"][0]
        if lang == "python":
            try:
                cells(svc, pid, lang, "import pandas", "pandas", 1)
            except (RuntimeError, AssertionError) as e:
                missing["python-frame"] = f"the service's Python ({PYTHON}) has no pandas: {e}"[:300]
                continue
        cells(svc, pid, lang, BIG[lang], "big", 1)
        results[lang + "-inspect-first-page"] = pct(readings(svc, pid, lang, m, False))
        results[lang + "-inspect-sorted"] = pct(readings(svc, pid, lang, max(5, N // 10), True))
    print(f"python: {PYTHON}")
    for k, (p50, p90) in results.items():
        print(f"{k}: p50 {p50:.1f} ms, p90 {p90:.1f} ms")
    for lang in ["r", "python"]:
        pipe = results[lang + "-pipe"][0]
        line = f"{lang}: kernel.run p50 - bare pipe p50 = {results[lang][0] - pipe:.1f} ms (goal <= 5)"
        if lang + "-jupyter" in results:
            line += f"; kernel.run / Jupyter p50 = {results[lang][0] / results[lang + '-jupyter'][0]:.2f}x (goal <= 0.3)"
        else:
            line += f"; Jupyter unavailable: {missing[lang]}"
        print(line)
        print(f"{lang}: listing after a cell defining 200 values, over an empty cell, p50 = {listing[lang]:.1f} ms (goal < 10)")
        if lang + "-inspect-first-page" in results:
            print(f"{lang}: kernel.inspect first page of 1,000,000 rows p50 = {results[lang + '-inspect-first-page'][0]:.1f} ms (goal < 50);"
                  f" sorted by a number p50 = {results[lang + '-inspect-sorted'][0]:.1f} ms (goal < 1500)")
        elif lang == "python":
            print(f"python: 1,000,000-row frame unavailable: {missing.get('python-frame')}")
finally:
    svc_proc.terminate()
    svc_proc.wait()
