#!/usr/bin/env python3
"""How quickly `mapbook view` answers keys (issue 16), measured from outside as a terminal
sees it: the viewer runs in a pseudo-terminal of 200 x 60 cells (8 x 16 pixel cells, so a
1600 x 944 pixel map), keys are written to it, and the time runs until the frame they asked for
has been written whole (every frame ends with the end of a synchronized update, ESC [ ? 2026 l).

  tools/bench/view-latency.py MAPBOOK PACKAGE [--mode truecolor] [--rounds 40] [--text "31 S Washington St"] [--bookmark]

--bookmark measures at the map's first bookmark (b, Enter) rather than its initial view.

Prints, for opening the package to its first frame, panning, zooming, and each character of a
search typed one at a time (suggestions), the median, 90th percentile and worst in ms.
"""
import argparse, fcntl, os, pty, select, statistics, struct, sys, tempfile, termios, time

END = b"\x1b[?2026l"


class Viewer:
    def __init__(self, argv, columns, rows, env):
        self.started = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, columns * 8, rows * 16))
        self.buffer = b""

    def frame(self, timeout=30.0):
        """Waits for the end of the next frame; returns the time it was read."""
        deadline = time.perf_counter() + timeout
        while END not in self.buffer:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SystemExit("no frame within %.0f s" % timeout)
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 1 << 20)
                except OSError:
                    raise SystemExit("the viewer stopped")
                self.buffer += chunk
        at = time.perf_counter()
        self.buffer = self.buffer[self.buffer.index(END) + len(END):]
        return at

    def key(self, data):
        """Sends a key and returns the ms until its frame is written."""
        self.buffer = b""
        sent = time.perf_counter()
        os.write(self.fd, data)
        return (self.frame() - sent) * 1000

    def close(self):
        os.write(self.fd, b"q")
        # Read what the viewer writes as it leaves: a terminal is not closed with output unread.
        while True:
            try:
                if not os.read(self.fd, 1 << 20):
                    break
            except OSError:
                break
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def report(name, values):
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    print("%-34s n=%-4d median %7.1f ms   p90 %7.1f ms   worst %7.1f ms" % (name, len(values), statistics.median(values), p90, values[-1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mapbook")
    parser.add_argument("package")
    parser.add_argument("--mode", default="truecolor")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--text", default="31 S Washington St")
    parser.add_argument("--columns", type=int, default=200)
    parser.add_argument("--rows", type=int, default=60)
    parser.add_argument("--bookmark", action="store_true")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="mapbook-view-bench-")
    env = dict(os.environ, TERM="xterm-256color", MAPBOOK_HOME=home)
    argv = [args.mapbook, "view", args.package, "--terminal-mode", args.mode]

    opens = []
    for _ in range(5):
        viewer = Viewer(argv, args.columns, args.rows, env)
        opens.append((viewer.frame() - viewer.started) * 1000)
        viewer.close()

    viewer = Viewer(argv, args.columns, args.rows, env)
    viewer.frame()
    if args.bookmark:
        viewer.key(b"b")
        viewer.key(b"\r")
    pans, zooms, suggestions = [], [], []
    arrows = [b"\x1b[D", b"\x1b[A", b"\x1b[C", b"\x1b[B"]
    for i in range(args.rounds):
        pans.append(viewer.key(arrows[i % 4]))
    for i in range(args.rounds):
        zooms.append(viewer.key(b"+" if i % 2 == 0 else b"-"))
    for _ in range(max(args.rounds // len(args.text), 3)):
        viewer.key(b"/")
        for c in args.text:
            suggestions.append(viewer.key(c.encode()))
        viewer.key(b"\x1b")
    viewer.close()
    print("mapbook view, %d x %d cells, --terminal-mode %s, %s%s" % (args.columns, args.rows, args.mode, os.path.basename(args.package), ", first bookmark" if args.bookmark else ", initial view"))
    report("open to first frame", opens)
    report("pan (arrow keys)", pans)
    report("zoom (+ and -)", zooms)
    report("suggestions, per character typed", suggestions)


main()
