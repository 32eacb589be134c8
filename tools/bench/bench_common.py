"""What the Python benchmarks share: the repository, the binary and work folder from the
command line, a library of their own (MAPBOOK_HOME), running a command, percentiles."""
import math, os, re, shutil, subprocess, sys

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
