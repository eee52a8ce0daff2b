"""exec_run_python's warm interpreter: runs inside the bubblewrap sandbox that
apps/mcp-fs-server/src/exec-python/ starts, imports the data libraries once, then forks one
throw-away child per run. One run at a time: every process in this PID namespace other than
bwrap's init and this zygote belongs to the current run, so `kill(-1, SIGKILL)` ends all of it,
detached (setsid) grandchildren included.

Protocol: one JSON request per line on stdin; one JSON line per event on stdout
({"type": "ready"}, {"type": "result", ...}). The child never sees stdin or stdout.
"""

import ast
import builtins
import ctypes
import errno
import gc
import io
import json
import linecache
import os
import resource
import selectors
import shutil
import signal
import string
import sys
import time
import traceback

T0 = time.monotonic()
MISSING = []
for _name in ("numpy", "pandas", "matplotlib", "openpyxl"):
    try:
        __import__(_name)
    except Exception as _err:  # noqa: BLE001 -- any failure means the module is unusable
        MISSING.append(f"{_name} ({type(_err).__name__}: {_err})")
if MISSING:
    sys.stdout.write(json.dumps({"type": "fatal", "message": "missing Python modules: " + ", ".join(MISSING)}) + "\n")
    sys.exit(3)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import openpyxl  # noqa: E402
import pandas as pd  # noqa: E402

USER_FILE = "<code>"
WORKSPACE = "/workspace"
ASSETS = WORKSPACE + "/generated_assets"
MAX_LOG_BYTES = 64 * 1024
MAX_RESULT_BYTES = 256 * 1024
MAX_CHANNEL_BYTES = 2 * 1024 * 1024
MAX_OUTPUT_PATHS = 500
FSIZE_BYTES = 100 * 1024 * 1024
# generated_assets is a bind of a real folder shared with other runs (no sized tmpfs, no quota), so
# the supervisor totals the disk use of the files this run opened for writing there and stops it.
MAX_RUN_BYTES = 200 * 1024 * 1024
MAX_OPEN_FILES = 256
MAX_PROCESSES = 64

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


def warm_up():
    """Runs the code paths a typical chart takes once, so the first real run does not pay for them."""
    frame = pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]})
    buf = io.BytesIO()
    book = openpyxl.Workbook()
    book.active.append(["a", "b"])
    book.active.append(["x", 1])
    book.save(buf)
    buf.seek(0)
    pd.read_excel(buf)
    buf.seek(0)
    list(openpyxl.load_workbook(buf, read_only=True, data_only=True).worksheets[0].iter_rows(values_only=True))
    fig, ax = plt.subplots()
    ax.pie(frame["b"], labels=frame["a"], autopct="%1.0f%%")
    ax.bar(frame["a"], frame["b"])
    # Glyphs of every printable ASCII character, in the sizes of titles, labels and ticks, are cached.
    ax.set_title(string.ascii_letters + string.digits + string.punctuation)
    ax.set_xlabel(string.ascii_letters + string.digits)
    ax.text(0, 0, string.ascii_letters, fontsize=8)
    fig.savefig(io.BytesIO(), format="png")
    fig.savefig(io.BytesIO(), format="svg")
    plt.close("all")
    frame.describe().to_csv(io.StringIO())


def vm_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1])
    return 0


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


# ---- the child: one run -------------------------------------------------------------------------


def set_limits(req, base_kb):
    # Address space: what the pre-imported libraries already map, plus memoryMb for the run.
    mem = base_kb * 1024 + int(req["memoryMb"]) * 1024 * 1024
    cpu = int(req["timeoutMs"] / 1000) + 1
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE_BYTES, FSIZE_BYTES))
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))
    resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def watch_writes(channel):
    """Reports every file opened for writing (or renamed into place) under generated_assets at once,
    so the server can list it even when the run is killed later. The server re-checks each path."""
    seen = set()
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def report(path):
        if not isinstance(path, (str, bytes)) or len(seen) >= MAX_OUTPUT_PATHS:
            return
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        full = os.path.normpath(os.path.join(os.getcwd(), path))
        if not full.startswith(ASSETS + "/") or full in seen:
            return
        seen.add(full)
        try:
            os.write(channel, ("W" + json.dumps(full[len(ASSETS) + 1 :]) + "\n").encode())
        except OSError:
            pass

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & write_flags
            ):
                report(path)
        elif event in ("os.rename", "shutil.copyfile", "shutil.copytree", "os.link"):
            report(args[1])

    sys.addaudithook(hook)


def to_json(value):
    """The value as JSON text where it is plain data, else None (the caller falls back to repr)."""

    def default(o):
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, (set, frozenset, tuple)):
            return list(o)
        raise TypeError

    try:
        return json.dumps(value, default=default, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def user_traceback(exc):
    """The traceback's frames in the user's code (not the zygote's, not the libraries'), and the
    line it failed at: the innermost frame of the user's code."""
    frames = traceback.extract_tb(exc.__traceback__)
    kept = [f for f in frames if f.filename == USER_FILE]
    line = kept[-1].lineno if kept else None
    if len(kept) > 12:
        kept = kept[:4] + kept[-8:]
    text = "".join(traceback.format_list(kept)) if kept else ""
    summary = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return line, ("Traceback (most recent call last):\n" + text + summary) if text else summary


def run_code(code):
    linecache.cache[USER_FILE] = (len(code), None, code.splitlines(True), USER_FILE)
    try:
        tree = ast.parse(code, USER_FILE)
    except SyntaxError as e:
        return {"error": {"kind": "syntax", "message": f"{e.msg} (line {e.lineno})", "line": e.lineno}}
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    scope = {"__name__": "__main__", "__builtins__": builtins, "pd": pd, "np": np, "plt": plt}
    try:
        exec(compile(tree, USER_FILE, "exec"), scope)
        value = eval(compile(last, USER_FILE, "eval"), scope) if last is not None else None
    except SystemExit as e:
        if e.code in (None, 0):
            return {}
        return {"error": {"kind": "runtime", "message": f"The code called exit({e.code!r})."}}
    except MemoryError as e:
        line, _ = user_traceback(e)
        return {"error": {"kind": "memory", "message": "MemoryError", "line": line}}
    except BaseException as e:  # noqa: BLE001 -- every failure of user code is reported, none escapes
        line, text = user_traceback(e)
        kind = "runtime"
        if isinstance(e, OSError) and e.errno == errno.EFBIG:
            kind, text = "limit", f"{text}\nFiles are limited to {FSIZE_BYTES // 1048576} MB each."
        elif isinstance(e, OSError) and e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            kind, text = "policy", f"{text}\nOnly generated_assets/ is writable; project files are read-only."
        err = {"kind": kind, "message": text}
        if line is not None:
            err["line"] = line
        return {"error": err}
    finally:
        plt.close("all")
    if value is None:
        return {}
    text = to_json(value)
    if text is None:
        text = json.dumps(repr(value))
    if len(text) > MAX_RESULT_BYTES:
        return {"error": {"kind": "limit", "message": f"The final expression's value is {len(text)} bytes as JSON."}}
    return {"resultJson": text}


def child_main(req, out_w, res_w, base_kb):
    os.setsid()
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    os.closerange(3, res_w)
    os.closerange(res_w + 1, 1 << 16)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", buffering=1, closefd=False, errors="backslashreplace")
    sys.stderr = open(2, "w", buffering=1, closefd=False, errors="backslashreplace")
    libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    # A file over RLIMIT_FSIZE then fails with EFBIG instead of killing the run.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as in any Python program: BrokenPipeError
    set_limits(req, base_kb)
    watch_writes(res_w)
    outcome = run_code(req["code"])
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 -- a broken stream must not hide the outcome
            pass
    os.write(res_w, ("R" + json.dumps(outcome) + "\n").encode())
    os._exit(0)


# ---- the zygote: supervises one run at a time -----------------------------------------------------


def kill_run():
    """Kills every process of the run (all but init and us in this PID namespace) and reaps them.
    False when some did not go within about 300 ms: the server then replaces the whole sandbox."""
    for _ in range(300):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG) != (0, 0):
                pass
        except ChildProcessError:
            return True
        time.sleep(0.001)
    return False


def count_processes():
    """Processes in this PID namespace besides bwrap's init and the zygote."""
    return sum(1 for name in os.listdir("/proc") if name.isdigit()) - 2


def clean_scratch():
    """Nothing a run leaves in /tmp or /dev/shm reaches the next run."""
    for base in ("/tmp", "/dev/shm"):
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            p = os.path.join(base, name)
            try:
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    os.unlink(p)
            except OSError:
                pass
    # System V IPC objects outlive their processes; remove the run's (the namespace is ours alone).
    for table, fn in (("shm", "shmctl"), ("sem", "semctl"), ("msg", "msgctl")):
        try:
            with open(f"/proc/sysvipc/{table}") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            ident = int(row.split()[1])
            if fn == "semctl":
                libc.semctl(ident, 0, 0)  # IPC_RMID
            else:
                getattr(libc, fn)(ident, 0, None)


def describe_exit(status, cpu_s):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU:
            return {"kind": "timeout", "message": f"CPU time limit of {cpu_s} s reached."}
        if sig == signal.SIGKILL:
            return {"kind": "memory", "message": "The run was killed (out of memory)."}
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return {"kind": "runtime", "message": f"The Python process crashed ({name}) before finishing."}
    return {"kind": "runtime", "message": f"The Python process exited (status {os.WEXITSTATUS(status)}) before finishing."}


def fork_spare(base_kb):
    """Forks the next run's child ahead of time, blocked until its request arrives on a pipe, so
    the fork (copying the page tables of a process holding pandas and matplotlib) is off the
    critical path of the call."""
    req_r, req_w = os.pipe()
    out_r, out_w = os.pipe()
    res_r, res_w = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            for fd in (req_w, out_r, res_r):
                os.close(fd)
            chunks = []
            while chunk := os.read(req_r, 1 << 16):
                chunks.append(chunk)
            child_main(json.loads(b"".join(chunks)), out_w, res_w, base_kb)
        finally:
            os._exit(70)
    for fd in (req_r, out_w, res_w):
        os.close(fd)
    return {"pid": pid, "req": req_w, "out": out_r, "res": res_r}


def written_bytes(channel):
    """Disk use of the files the run reported opening for writing under generated_assets."""
    total = 0
    for line in channel.decode("utf-8", "replace").splitlines():
        if line.startswith("W"):
            try:
                total += os.stat(os.path.join(ASSETS, json.loads(line[1:]))).st_blocks * 512
            except (OSError, ValueError):
                pass
    return total


def supervise(req, spare):
    started = time.monotonic()
    pid, out_r, res_r = spare["pid"], spare["out"], spare["res"]
    data = json.dumps(req).encode()
    try:
        while data:
            data = data[os.write(spare["req"], data) :]
    except OSError:
        pass  # the spare died; its exit status tells what happened
    os.close(spare["req"])
    deadline = started + req["timeoutMs"] / 1000
    logs = bytearray()
    logs_truncated = False
    channel = bytearray()

    def take(fd, which):
        nonlocal logs, logs_truncated, channel
        chunk = os.read(fd, 65536)
        if which == "out":
            room = MAX_LOG_BYTES - len(logs)
            if room > 0:
                logs += chunk[:room]
            if len(chunk) > room:
                logs_truncated = True
        elif len(channel) < MAX_CHANNEL_BYTES:
            channel += chunk
        return chunk

    # The run ends when the child exits (its pidfd turns readable), not when the pipes close: a
    # detached grandchild may hold them open. Anything it left is killed before the pipes are drained.
    pidfd = os.pidfd_open(pid)
    sel = selectors.DefaultSelector()
    sel.register(out_r, selectors.EVENT_READ, "out")
    sel.register(res_r, selectors.EVENT_READ, "res")
    sel.register(pidfd, selectors.EVENT_READ, "exit")
    status, timed_out, too_many, too_big = None, False, False, False
    next_count = 0.0
    while status is None and not too_many and not too_big:
        now = time.monotonic()
        remaining = deadline - now
        if remaining <= 0:
            timed_out = True
            break
        # RLIMIT_NPROC does not bind when the server runs as root (the kernel exempts root's
        # processes), so the run's processes are also counted here, every 20 ms.
        if now >= next_count:
            next_count = now + 0.02
            too_many = count_processes() > MAX_PROCESSES
            too_big = written_bytes(channel) > MAX_RUN_BYTES
        for key, _ in sel.select(min(remaining, 0.02)):
            if key.data == "exit":
                status = os.waitpid(pid, 0)[1]
            elif not take(key.fd, key.data):
                sel.unregister(key.fd)
    converged = kill_run()
    # Every writer is dead now: read what is left up to end of file.
    for fd, which in ((out_r, "out"), (res_r, "res")):
        os.set_blocking(fd, False)
        try:
            while take(fd, which):
                pass
        except BlockingIOError:
            pass
        os.close(fd)
    os.close(pidfd)
    sel.close()
    clean_scratch()
    # The cap is checked every 20 ms while the run goes on; a run that crossed it between two checks
    # and ended first is over it all the same.
    too_big = too_big or (not too_many and not timed_out and written_bytes(channel) > MAX_RUN_BYTES)

    outputs, outcome = [], None
    for line in channel.decode("utf-8", "replace").splitlines():
        if line.startswith("W"):
            try:
                outputs.append(json.loads(line[1:]))
            except ValueError:
                pass
        elif line.startswith("R"):
            try:
                outcome = json.loads(line[1:])
            except ValueError:
                outcome = None
    cpu_s = int(req["timeoutMs"] / 1000) + 1
    if too_big:
        outcome = {
            "error": {
                "kind": "limit",
                "message": f"The run wrote more than {MAX_RUN_BYTES // 1048576} MB under generated_assets and was stopped; "
                "the files it wrote so far are kept. Write fewer or smaller files.",
            }
        }
    elif too_many:
        outcome = {"error": {"kind": "limit", "message": f"The run started more than {MAX_PROCESSES} processes and was stopped."}}
    elif timed_out:
        outcome = {"error": {"kind": "timeout", "message": f"Time limit of {req['timeoutMs']} ms reached."}}
    elif outcome is None or not isinstance(outcome, dict):
        outcome = {"error": describe_exit(status, cpu_s)}
    return {
        "type": "result",
        "id": req["id"],
        **{k: v for k, v in outcome.items() if k in ("resultJson", "error")},
        "logs": logs.decode("utf-8", "replace"),
        "logsTruncated": logs_truncated,
        "outputs": outputs[:MAX_OUTPUT_PATHS],
        "runMs": round((time.monotonic() - started) * 1000, 2),
        "dirty": not converged,
    }


def main():
    warm_up()
    # Runs cannot read or trace this process, and their orphans become our children to reap.
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # Objects that exist now are never collected: a child's garbage collections then do not walk
    # (and copy-on-write) the whole pre-imported heap.
    gc.collect()
    gc.freeze()
    base_kb = vm_kb()
    spare = fork_spare(base_kb)
    send({"type": "ready", "warmupMs": round((time.monotonic() - T0) * 1000), "vmKb": base_kb})
    for line in sys.stdin:
        try:
            req = json.loads(line)
        except ValueError:
            continue
        if req.get("type") == "run":
            send(supervise(req, spare))
            spare = fork_spare(base_kb)


if __name__ == "__main__":
    main()
