#!/usr/bin/env python3
"""Notebook round trip: `1+1` through kernel.run with waitMs (journaled, durable) against a bare pipe to the same interpreter.

Usage: notebook_e2e.py RHO_BINARY [N]. Starts its own service on temporary folders, prints the
p50/p90 of N calls per language and of N bare-pipe round trips, and the ratio. Jupyter is not
measured here (no jupyter_client in this environment).
"""
import json, os, statistics, subprocess, sys, tempfile, time, urllib.request

RHO = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 50


def call(url, token, op, body):
    req = urllib.request.Request(f"{url}api/v2/{op}", data=json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["value"]


def bare(cmd, prompt_code, marker):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
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


def pct(ts):
    ts = sorted(ts)
    return statistics.median(ts) * 1000, ts[int(len(ts) * 0.9)] * 1000


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
    url, token = c["url"], c["token"]
    if not url.endswith("/"):
        url += "/"
    pid = call(url, token, "project.create", {"name": "bench"})["id"]
    results = {}
    for lang in ["r", "python"]:
        call(url, token, "kernel.run", {"projectId": pid, "language": lang, "code": "1+1",
                                        "changeId": f"warm-{lang}", "waitMs": 60000})
        ts = []
        for i in range(N):
            t = time.perf_counter()
            cell = call(url, token, "kernel.run", {"projectId": pid, "language": lang, "code": "1+1",
                                                   "changeId": f"{lang}-{i}", "waitMs": 10000})
            ts.append(time.perf_counter() - t)
            assert cell["end"]["outcome"] == "done", cell
        results[lang] = pct(ts)
    results["r-pipe"] = pct(bare(["R", "--vanilla", "--slave"], "print(1+1); cat('END\\n')\n", "END"))
    results["python-pipe"] = pct(bare(["python3", "-u", "-i", "-q"], "print(1+1); print('END')\n", "END"))
    for k, (p50, p90) in results.items():
        print(f"{k}: p50 {p50:.1f} ms, p90 {p90:.1f} ms")
    for lang in ["r", "python"]:
        print(f"{lang}: kernel.run p50 - bare pipe p50 = {results[lang][0] - results[lang + '-pipe'][0]:.1f} ms")
finally:
    svc.terminate()
    svc.wait()
