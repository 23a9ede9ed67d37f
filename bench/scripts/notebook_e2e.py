#!/usr/bin/env python3
"""Notebook round trip: `1+1` through kernel.run with waitMs (journaled, durable) against Jupyter and a bare pipe to the same interpreter.

Usage: notebook_e2e.py RHO_BINARY [N]. Starts its own service on temporary folders and prints, in
one run, the p50/p90 of N calls per language, of N Jupyter round trips (jupyter_client executing
`1+1` on ipykernel, or IRkernel for R when the bench venv has it; RHO_BENCH_VENV, default
/work/venv-bench) and of N bare-pipe round trips (the floor), then each ratio.
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


VENV = os.environ.get("RHO_BENCH_VENV", "/work/venv-bench")

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
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        return None, f"no bench venv at {VENV}"
    r = subprocess.run([py, "-c", JUPYTER, kernel, str(N)], capture_output=True, text=True, timeout=600)
    try:
        out = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, f"jupyter_client failed: {r.stderr.strip()[-300:]}"
    return out.get("times"), out.get("unavailable")


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
    missing = {}
    for lang, kernel in [("r", "ir"), ("python", "python3")]:
        times, why = jupyter(kernel)
        if times:
            results[lang + "-jupyter"] = pct(times)
        else:
            missing[lang] = why
    for k, (p50, p90) in results.items():
        print(f"{k}: p50 {p50:.1f} ms, p90 {p90:.1f} ms")
    for lang in ["r", "python"]:
        pipe = results[lang + "-pipe"][0]
        line = f"{lang}: kernel.run p50 - bare pipe p50 = {results[lang][0] - pipe:.1f} ms"
        if lang + "-jupyter" in results:
            line += f"; kernel.run / Jupyter p50 = {results[lang][0] / results[lang + '-jupyter'][0]:.2f}x"
        else:
            line += f"; Jupyter unavailable: {missing[lang]}"
        print(line)
finally:
    svc.terminate()
    svc.wait()
