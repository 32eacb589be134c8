"""What the browser checks share: a check line, `mapbook serve` started on a free loopback
port, plain HTTP requests, polling the page, and Debian's chromium through Playwright."""
import json, re, signal, ssl, subprocess, time, urllib.error, urllib.parse, urllib.request, uuid

failures = []


def check(what, condition, why=""):
    """Prints `ok WHAT` or `FAIL WHAT: WHY` (the test collects the FAIL lines)."""
    if condition:
        print("ok", what, flush=True)
    else:
        print("FAIL", what + (": " + why if why else ""), flush=True)
        failures.append(what)
    return condition


class Server:
    """`mapbook serve ARGUMENTS` on a free port; it stops by itself after 15 minutes if the
    check that started it dies."""

    def __init__(self, binary, env, *arguments):
        self.process = subprocess.Popen([binary, "serve", *arguments, "--port", "0", "--stop-after", "900"], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r"(https?://\S+)", line)
        if not match:
            raise RuntimeError("mapbook serve printed no address: " + line + self.process.stderr.read())
        self.address = match.group(1)
        self.origin = re.match(r"https?://[^/]+", self.address).group(0)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def fetch(url, method="GET", headers=None, context=None):
    request = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, context=context) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def wait(page, predicate, seconds=20):
    """Polls `predicate` (a function's source) in the page: wait_for_function evaluates a string,
    which the pages' Content-Security-Policy forbids."""
    start = time.time()
    while time.time() - start < seconds:
        if page.evaluate(predicate):
            return True
        time.sleep(0.05)
    return False


def launch(playwright):
    """Debian's chromium (never a downloaded browser), with software WebGL."""
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--enable-unsafe-swiftshader"])


def finish():
    print("all checks passed" if not failures else f"{len(failures)} checks failed")
    return 1 if failures else 0


SIZES = [(1280, 800, "desktop"), (360, 740, "phone"), (1920, 1080, "wide")]


def drawn_share(png_path, background=(0xF2, 0xEF, 0xE9)):
    """The share of pixels in a screenshot that differ from the map's background."""
    from PIL import Image
    image = Image.open(png_path).convert("RGB")
    pixels = list(image.get_flattened_data() if hasattr(image, "get_flattened_data") else image.getdata())
    drawn = sum(1 for p in pixels if max(abs(p[i] - background[i]) for i in range(3)) > 24)
    return drawn / len(pixels)


def sized_context(browser, width, height, size):
    """A browser context at a desktop or phone size, trusting the portal's self-signed
    certificate (the checks run against a portal on loopback)."""
    return browser.new_context(viewport={"width": width, "height": height}, is_mobile=size == "phone",
                               has_touch=size == "phone", ignore_https_errors=True)


def form_post(url, fields, files=None, context=None):
    """A form POST (multipart when there are `files`, {field: (name, bytes)}); the JSON answer."""
    if files:
        boundary = "----mapbook-check-" + uuid.uuid4().hex
        body = b""
        for key, value in fields.items():
            body += f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
        for key, (name, data) in files.items():
            body += (f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"; filename="{name}"\r\n'
                     'Content-Type: application/octet-stream\r\n\r\n').encode() + data + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        headers = {"Content-Type": "multipart/form-data; boundary=" + boundary}
    else:
        body = urllib.parse.urlencode(fields).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, context=context) as response:
        return json.loads(response.read())


def insecure_context():
    """An SSL context that trusts any certificate: for a test portal on loopback with its
    self-signed one."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def watched_page(context, origin):
    """A new page and what the checks listen for on it: dialogs (dismissed: a script from
    data ran), Content-Security-Policy violations, and requests to any host but `origin`."""
    page = context.new_page()
    dialogs, violations, elsewhere = [], [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("request", lambda r: elsewhere.append(r.url) if not r.url.startswith(origin) and not r.url.startswith(("data:", "blob:")) else None)
    return page, dialogs, violations, elsewhere
