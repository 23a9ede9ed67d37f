"""Rho's notebook runner for Python: reads JSON command lines from a pipe, runs each cell in a
fresh __main__ namespace, and prints its output and framed answers (STX RHO<nonce>#<seq> <json>
ETX) on stdout. Arguments: <command pipe> <settings.json>. Needs only the standard library."""

import ast
import io
import json
import linecache
import os
import signal
import sys
import threading
import traceback
import types
import warnings

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)
import rho_inspect  # noqa: E402  (the runner's own second file, next to it)

# Interrupt is SIGINT to the runner's group. Python installs KeyboardInterrupt only when SIGINT
# was not ignored at its start, and a service started in the background (nohup, `&` without job
# control) passes SIGINT ignored: install it explicitly.
signal.signal(signal.SIGINT, signal.default_int_handler)

sys.path.remove(_here)
# Like `python -c`: the working directory (the project folder) comes first on the path.
sys.path[0:0] = [""] if sys.path and sys.path[0] != "" else []

_fifo, _config = sys.argv[1], sys.argv[2]
with open(_config, encoding="utf-8") as f:
    CFG = json.load(f)
LIM = CFG["limits"]
PLOTS = os.path.join(CFG["stateDir"], "plots")
os.makedirs(PLOTS, exist_ok=True)
_out = sys.stdout
_lock = threading.Lock()
_state = {"seq": 0, "cell": 0, "answered": False}


def emit(msg):
    if msg.get("t") in ("end", "inspect"):
        _state["answered"] = True
    with _lock:
        _state["seq"] += 1
        _out.write("\x02RHO%s#%d %s\x03" % (CFG["nonce"], _state["seq"], json.dumps(msg)))
        _out.flush()


def out(stream, text):
    if text:
        emit({"t": "out", "stream": stream, "text": text})


class Framed(io.TextIOBase):
    """sys.stderr: its text travels framed on stdout, so it keeps its place among prints."""

    encoding = "utf-8"

    def __init__(self, stream):
        self.stream = stream

    def write(self, s):
        out(self.stream, s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        return 2

    def writable(self):
        return True


def show_warning(message, category, filename, lineno, file=None, line=None):
    out("warning", warnings.formatwarning(message, category, filename, lineno, line))


main = types.ModuleType("__main__")
main.__dict__["__builtins__"] = __builtins__
sys.modules["__main__"] = main
NS = main.__dict__
sys.stderr = Framed("stderr")
warnings.showwarning = show_warning


def run_cell(cell, code):
    _state["cell"] = cell
    name = "<cell %d>" % cell
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    outcome = "done"
    try:
        tree = ast.parse(code, filename=name)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, name, "exec"), NS)
        if last is not None:
            value = eval(compile(last, name, "eval"), NS)
            if value is not None:
                NS["_"] = value
                print(repr(value))
    except KeyboardInterrupt:
        outcome = "interrupted"
    except BaseException as e:  # noqa: BLE001 - a cell's SystemExit is an error, not the end
        tb = e.__traceback__.tb_next if e.__traceback__ else None
        out("error", "".join(traceback.format_exception(type(e), e, tb)))
        outcome = "error"
    save_figures(cell)
    listing = rho_inspect.variables(NS, LIM["maxVariables"])
    emit(dict({"t": "end", "cell": cell, "outcome": outcome}, **listing))


def save_figures(cell):
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    try:
        for k, num in enumerate(plt.get_fignums(), start=1):
            path = os.path.join(PLOTS, "cell-%d-figure-%d.png" % (cell, k))
            plt.figure(num).savefig(path, format="png")
            emit({"t": "plot", "cell": cell, "page": k, "path": path, "replaces": None})
    except Exception as e:  # noqa: BLE001
        out("stderr", "rho: saving the figures failed: %s\n" % e)
    finally:
        plt.close("all")


def inspect_cmd(cmd):
    try:
        value = rho_inspect.describe(NS, cmd["path"], int(cmd["offset"]), int(cmd["rows"]), cmd.get("sort"), LIM)
        value["afterCell"] = _state["cell"]
        answer = {"ok": True, "value": value}
    except rho_inspect.Missing as e:
        answer = {"ok": False, "error": "missing", "message": str(e)}
    except KeyboardInterrupt:
        answer = {"ok": False, "error": "interrupted", "message": "interrupted"}
    except Exception as e:  # noqa: BLE001
        answer = {"ok": False, "error": "failed", "message": "%s: %s" % (type(e).__name__, e)}
    emit(dict({"t": "inspect", "id": cmd["id"]}, **answer))


def serve():
    import platform

    pipe = open(_fifo, "rb")
    emit({"t": "ready", "version": "Python " + platform.python_version()})
    while True:
        try:
            line = pipe.readline()
        except KeyboardInterrupt:
            continue
        if not line:
            break  # the pipe closed: the supervisor is gone
        try:
            cmd = json.loads(line)
        except ValueError:
            continue
        _state["answered"] = False
        try:
            if cmd.get("op") == "run":
                run_cell(cmd["cell"], cmd["code"])
            elif cmd.get("op") == "inspect":
                inspect_cmd(cmd)
        except KeyboardInterrupt:
            pass
        # An interrupt outside the cell's own handler (while it was set up or listed) still ends it.
        if not _state["answered"] and cmd.get("op") == "run":
            emit({"t": "end", "cell": cmd["cell"], "outcome": "interrupted",
                  "variables": {"names": [], "omitted": 0}, "defined": [], "removed": None})
        elif not _state["answered"] and cmd.get("op") == "inspect":
            emit({"t": "inspect", "id": cmd["id"], "ok": False, "error": "interrupted", "message": "interrupted"})


serve()
