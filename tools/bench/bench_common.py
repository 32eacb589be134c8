"""What the Python benchmarks share: the repository, the binary and work folder from the
command line, a library of their own (MAPBOOK_HOME), running a command, percentiles."""
import json, math, os, re, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
os.makedirs(WORK, exist_ok=True)
ENV = dict(os.environ, MAPBOOK_HOME=os.path.join(WORK, "home"))


def run(*arguments, **options):
    """A command's standard output; its failure raises."""
    return subprocess.run(arguments, check=True, capture_output=True, text=True, env=ENV, **options).stdout


def percentile(values, p):
    """The nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def start_portal(password="bench-password-1"):
    """A fresh portal in WORK/portal with alice (admin), served on a free loopback port, and
    this library signed in to it: (the server process, its origin, its data folder)."""
    data = os.path.join(WORK, "portal")
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(os.path.join(WORK, "home"), ignore_errors=True)
    run(BINARY, "portal", "user", "add", "alice", "--data", data, "--admin", "--password-stdin", input=password + "\n")
    server = subprocess.Popen([BINARY, "portal", "serve", "--data", data, "--self-signed", "--port", "0", "--stop-after", "3600", "--log-level", "error"],
                              env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    origin = re.search(r"(https://[^\s]+)", server.stdout.readline()).group(1)
    run(BINARY, "portal", "signin", origin, "--user", "alice", "--password-stdin", "--ca-cert", os.path.join(data, "tls/certificate.pem"), input=password + "\n")
    return server, origin, data


def median(values):
    return sorted(values)[len(values) // 2]


def whole_downloads(origin, data, item, runs, password="bench-password-1"):
    """The times of `runs` whole downloads of `item`, each into a fresh library signed in to
    the portal at `origin` (whose data folder is `data`)."""
    other = dict(ENV, MAPBOOK_HOME=os.path.join(WORK, "home-whole"))
    times = []
    for _ in range(runs):
        shutil.rmtree(other["MAPBOOK_HOME"], ignore_errors=True)
        subprocess.run([BINARY, "portal", "signin", origin, "--user", "alice", "--password-stdin", "--ca-cert", os.path.join(data, "tls/certificate.pem")],
                       input=password + "\n", text=True, env=other, check=True, capture_output=True)
        start = time.perf_counter()
        subprocess.run([BINARY, "portal", "download", item], env=other, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def rsync_delta(old, new, runs):
    """The peer of updates by delta: `rsync --no-whole-file --stats` of `new` onto a copy of
    `old`, both local, `runs` times: (its literal data, the bytes it would send; its times)."""
    literal, times = [], []
    for _ in range(runs):
        target = os.path.join(WORK, "rsync")
        shutil.rmtree(target, ignore_errors=True)
        os.makedirs(target)
        shutil.copy(old, os.path.join(target, os.path.basename(new)))
        start = time.perf_counter()
        out = subprocess.run(["rsync", "--no-whole-file", "--stats", new, target + "/"], check=True, capture_output=True, text=True).stdout
        times.append(time.perf_counter() - start)
        literal.append(int(re.search(r"Literal data: ([\d,]+)", out).group(1).replace(",", "")))
    return literal, times


def delta_table(size, runs, rows):
    """The table of an update's ways: rows of (label, bytes fetched, median seconds)."""
    print(f"| Way | Bytes fetched | Share of the file | Median time ({runs} runs) |")
    print("|:---|---:|---:|---:|")
    for label, fetched, seconds in rows:
        print(f"| {label} | {fetched:,} | {100 * fetched / size:.2f} % | {seconds * 1000:.0f} ms |")


def keep_held(item, name):
    """Copies the library's download of `item` and its record aside as WORK/name (and
    name.json), for `delta_updates` to start each run from; returns the copy's path."""
    downloads = os.path.join(ENV["MAPBOOK_HOME"], "downloads")
    kept = os.path.join(WORK, name)
    shutil.copy(os.path.join(downloads, item + ".mmpk"), kept)
    shutil.copy(os.path.join(downloads, item + ".json"), kept + ".json")
    return kept


def delta_updates(item, kept, runs, expected=None):
    """`mapbook portal update ITEM --json` `runs` times, the library's download of `item` put
    back to `kept` (`keep_held`) before each: (the times, the bytes fetched). Each must be an
    update by delta and, when `expected` names a file, give its bytes."""
    downloads = os.path.join(ENV["MAPBOOK_HOME"], "downloads")
    held = os.path.join(downloads, item + ".mmpk")
    times, fetched = [], []
    for _ in range(runs):
        shutil.copy(kept, held)
        shutil.copy(kept + ".json", os.path.join(downloads, item + ".json"))
        start = time.perf_counter()
        outcome = json.loads(run(BINARY, "portal", "update", item, "--json"))["updated"][0]
        times.append(time.perf_counter() - start)
        assert outcome["delta"], outcome
        fetched.append(outcome["fetchedBytes"])
        if expected:
            assert outcome["fileBytes"] == os.path.getsize(expected), outcome
            assert subprocess.run(["cmp", "-s", held, expected]).returncode == 0, f"the update must give {expected} byte for byte"
    return times, fetched
