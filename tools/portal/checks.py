"""The report the portal's client checks print: one line per check, and on the first failure
its name and exit status 1 (the Swift tests read these lines)."""

import sys


def check(name, condition, detail=""):
    if not condition:
        print(f"FAIL {name} {detail}".rstrip(), flush=True)
        sys.exit(1)
    print(f"ok   {name}", flush=True)
