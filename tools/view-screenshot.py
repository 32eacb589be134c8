#!/usr/bin/env python3
"""The README's screenshot of `mapbook view`: the viewer run in a real terminal (tmux), keys
sent as a user types them, the screen captured with its colours (`tmux capture-pane -e`) and
drawn cell by cell into a PNG. Block and sextant symbols (what libchafa draws maps with) are
drawn as the rectangles they stand for, as terminals such as kitty and foot draw them; other
characters come from DejaVu Sans Mono, else Noto Sans Symbols 2.

  .venv/bin/python tools/view-screenshot.py MAPBOOK PACKAGE OUT.png [--keys "/ 3 1 Space S Space W a"]
"""
import argparse, os, re, subprocess, sys, tempfile, time
from PIL import Image, ImageDraw, ImageFont

COLUMNS, ROWS, CELL_W, CELL_H = 120, 36, 9, 18
FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf"]
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
PALETTE16 = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
             (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67), (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255)]
DEFAULT_FG, DEFAULT_BG = (229, 229, 229), (24, 24, 24)


def color256(n):
    if n < 16:
        return PALETTE16[n]
    if n < 232:
        n -= 16
        levels = [0, 95, 135, 175, 215, 255]
        return (levels[n // 36], levels[n // 6 % 6], levels[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def tmux(socket, *args):
    return subprocess.run(["tmux", "-L", socket] + list(args), check=True, capture_output=True, text=True).stdout


def capture(mapbook, package, keys):
    socket = "mapbook-shot-%d" % os.getpid()
    home = tempfile.mkdtemp(prefix="mapbook-shot-")
    tmux(socket, "new-session", "-d", "-s", "s", "-x", str(COLUMNS), "-y", str(ROWS), "TERM=xterm-256color bash --norc --noprofile")
    try:
        tmux(socket, "send-keys", "-t", "s", "MAPBOOK_HOME=%s %s view %s --terminal-mode truecolor" % (home, mapbook, package), "Enter")
        time.sleep(3)
        for key in keys:
            tmux(socket, "send-keys", "-t", "s", key)
            time.sleep(0.4)
        time.sleep(2)
        return tmux(socket, "capture-pane", "-e", "-p", "-t", "s")
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)


def cells(text):
    """(character, foreground, background, bold) per cell, row by row."""
    grid = []
    fg, bg, bold, reverse = None, None, False, False
    for line in text.split("\n")[:ROWS]:
        row = []
        for token in re.findall(r"\x1b\[[0-9;]*m|.", line):
            if token.startswith("\x1b["):
                codes = [int(c) if c else 0 for c in token[2:-1].split(";")]
                i = 0
                while i < len(codes):
                    c = codes[i]
                    if c == 0: fg, bg, bold, reverse = None, None, False, False
                    elif c == 1: bold = True
                    elif c == 22: bold = False
                    elif c == 7: reverse = True
                    elif c == 27: reverse = False
                    elif 30 <= c <= 37: fg = PALETTE16[c - 30]
                    elif 90 <= c <= 97: fg = PALETTE16[c - 90 + 8]
                    elif 40 <= c <= 47: bg = PALETTE16[c - 40]
                    elif 100 <= c <= 107: bg = PALETTE16[c - 100 + 8]
                    elif c == 39: fg = None
                    elif c == 49: bg = None
                    elif c in (38, 48) and i + 1 < len(codes):
                        if codes[i + 1] == 2 and i + 4 < len(codes):
                            value = tuple(codes[i + 2:i + 5]); i += 4
                        elif codes[i + 1] == 5 and i + 2 < len(codes):
                            value = color256(codes[i + 2]); i += 2
                        else:
                            value = None
                        if c == 38: fg = value
                        else: bg = value
                    i += 1
                continue
            f, b = fg or DEFAULT_FG, bg or DEFAULT_BG
            if reverse: f, b = b, f
            row.append((token, f, b, bold))
        grid.append(row)
    return grid


def blocks(ch):
    """The filled parts of a block or sextant symbol as (x0, y0, x1, y1) fractions; None if not one."""
    o = ord(ch)
    if o == 0x2588: return [(0, 0, 1, 1)]
    if 0x2581 <= o <= 0x2587: return [(0, 1 - (o - 0x2580) / 8, 1, 1)]  # lower eighths
    if 0x2589 <= o <= 0x258F: return [(0, 0, (0x2590 - o) / 8, 1)]  # left eighths
    if o == 0x2580: return [(0, 0, 1, 0.5)]
    if o == 0x2590: return [(0.5, 0, 1, 1)]
    if o == 0x2594: return [(0, 0, 1, 1 / 8)]
    if o == 0x2595: return [(7 / 8, 0, 1, 1)]
    quads = {0x2596: "3", 0x2597: "4", 0x2598: "1", 0x2599: "134", 0x259A: "14", 0x259B: "123", 0x259C: "124", 0x259D: "2", 0x259E: "23", 0x259F: "234"}
    if o in quads:
        spots = {"1": (0, 0, .5, .5), "2": (.5, 0, 1, .5), "3": (0, .5, .5, 1), "4": (.5, .5, 1, 1)}
        return [spots[q] for q in quads[o]]
    if 0x1FB00 <= o <= 0x1FB3B:
        # Sextants skip the patterns that are half blocks (21 and 42).
        n = o - 0x1FB00 + 1
        if n >= 21: n += 1
        if n >= 42: n += 1
        return [((b % 2) / 2, (b // 2) / 3, (b % 2) / 2 + .5, (b // 2) / 3 + 1 / 3) for b in range(6) if n >> b & 1]
    return None


def draw(grid, out):
    image = Image.new("RGB", (COLUMNS * CELL_W, ROWS * CELL_H), DEFAULT_BG)
    pen = ImageDraw.Draw(image)
    fonts = [ImageFont.truetype(f, 15) for f in FONTS if os.path.exists(f)]
    bold = ImageFont.truetype(BOLD, 15) if os.path.exists(BOLD) else fonts[0]
    for y, row in enumerate(grid):
        for x, (ch, fg, bg, is_bold) in enumerate(row[:COLUMNS]):
            x0, y0 = x * CELL_W, y * CELL_H
            pen.rectangle([x0, y0, x0 + CELL_W - 1, y0 + CELL_H - 1], fill=bg)
            parts = blocks(ch)
            if parts is not None:
                for a, b, c, d in parts:
                    pen.rectangle([x0 + round(a * CELL_W), y0 + round(b * CELL_H), x0 + round(c * CELL_W) - 1, y0 + round(d * CELL_H) - 1], fill=fg)
            elif ch != " ":
                font = bold if is_bold else next((f for f in fonts if f.getmask(ch).getbbox()), fonts[0])
                pen.text((x0, y0 + 1), ch, fill=fg, font=font)
    image.save(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mapbook")
    parser.add_argument("package")
    parser.add_argument("out")
    parser.add_argument("--keys", default="/ 3 1 Space S Space W a")
    args = parser.parse_args()
    text = capture(os.path.abspath(args.mapbook), os.path.abspath(args.package), args.keys.split())
    draw(cells(text), args.out)
    print("wrote", args.out)


main()
