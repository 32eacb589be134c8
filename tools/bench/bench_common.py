"""What the Python benchmarks share: the repository, the binary and work folder from the
command line, a library of their own (MAPBOOK_HOME), running a command, percentiles."""
import math, os, subprocess, sys

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
