#!/usr/bin/env python3
"""`gpuqual report` as a person sees it: render the slow-GPU fixture's report, check the HTML
references nothing outside itself (parsed, not grepped), open it in headless Chromium with the
flags docs/architecture.md requires on this closed network, and check the screenshot exists, is not blank and
shows the failing verdict's red. Chromium is a required component: missing, the test fails.

--keep PATH copies the screenshot there (docs/report-example.png is made this way)."""
import argparse
import html.parser
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib

# Headless and offline, for every Chromium these tests start (test_hostile_strings.py too).
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FAIL_RED = (0xCF, 0x22, 0x2E)   # html_chart.cpp status_color(fail): the verdict banner and the slow GPU's bar
PASS_GREEN = (0x1A, 0x7F, 0x37)


class ExternalRefs(html.parser.HTMLParser):
    """Collects everything that could make a browser or mail client fetch something."""

    def __init__(self):
        super().__init__()
        self.problems = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "img", "iframe", "object", "embed", "base", "form", "audio", "video", "source"):
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            value = value or ""
            if name in ("src", "srcset", "action", "background", "poster", "data") or name.startswith("on"):
                self.problems.append(f"{tag} {name}={value!r}")
            if name in ("href", "xlink:href") and not value.startswith("#"):
                self.problems.append(f"{tag} {name}={value!r}")
            if name == "style" and ("url(" in value or "@import" in value):
                self.problems.append(f"{tag} style={value!r}")
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style and ("url(" in data or "@import" in data):
            self.problems.append("url(/@import in <style>")


def decode_png(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = ihdr
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth} colour type {color} interlace {interlace}")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def near(c, ref, tol=12):
    return all(abs(a - b) <= tol for a, b in zip(c, ref))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuqual", required=True)
    ap.add_argument("--data", required=True, help="tests/data")
    ap.add_argument("--keep", help="copy the screenshot here")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("FAIL: chromium is not installed (scripts/install-deps.sh installs it)")
        return 1
    work = tempfile.mkdtemp(prefix="gpuqual-report-chromium-")
    try:
        page = os.path.join(work, "report.html")
        rc = subprocess.run([args.gpuqual, "report", os.path.join(args.data, "records", "synthetic-slow-gpu.json"),
                             "--baseline", os.path.join(args.data, "baselines", "h200-sxm-141gb.yaml"), "--html", page],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        if rc.returncode != 1:
            print(f"FAIL: gpuqual report exited {rc.returncode} (expected 1, the slow GPU fails)\n{rc.stderr}")
            return 1
        parser = ExternalRefs()
        with open(page, encoding="utf-8") as f:
            parser.feed(f.read())
        if parser.problems:
            print("FAIL: the report references something outside itself:", *parser.problems, sep="\n  ")
            return 1
        shot = os.path.join(work, "out.png")
        profile = os.path.join(work, "profile")
        os.mkdir(profile)
        cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1280,1600",
               "file://" + page]
        proc = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # chromium's own process group, started above
            proc.communicate()
            print("FAIL: chromium did not finish within 120 s")
            return 1
        if proc.returncode != 0 or not os.path.exists(shot):
            print(f"FAIL: chromium exited {proc.returncode}, screenshot {'present' if os.path.exists(shot) else 'missing'}\n"
                  + out.decode(errors="replace")[-3000:])
            return 1
        width, height, rows = decode_png(shot)
        colours, non_white, red, green = set(), 0, 0, 0
        for row in rows:
            for c in row:
                colours.add(c)
                non_white += c != (255, 255, 255)
                red += near(c, FAIL_RED)
                green += near(c, PASS_GREEN)
        total = width * height
        print(f"screenshot {width}x{height}: {len(colours)} colours, {100.0 * non_white / total:.1f}% non-white, "
              f"{red} fail-red px, {green} pass-green px")
        problems = []
        if (width, height) != (1280, 1600):
            problems.append(f"size {width}x{height}, expected 1280x1600")
        if len(colours) < 16 or non_white < total // 50:
            problems.append("blank or nearly blank")
        if red < 2000:
            problems.append("the failing verdict's red (banner, slow GPU's bar) is not on screen")
        if green < 200:
            problems.append("no passing GPU's green bar on screen")
        if args.keep:
            shutil.copyfile(shot, args.keep)
        if problems:
            print("FAIL:", *problems, sep="\n  ")
            return 1
        print("PASS")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
