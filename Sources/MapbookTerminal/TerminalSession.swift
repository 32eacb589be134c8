#if canImport(Glibc)
import Glibc
#endif

// The terminal's settings when the viewer took it over, for the signal handlers that give it
// back: a handler may only touch what is already set up (no Swift allocation), so these are
// plain globals filled before the handlers are installed.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var hasSavedSettings: Int32 = 0
/// Set by SIGWINCH; `takeResize()` reads and clears it.
nonisolated(unsafe) private var terminalResized: Int32 = 0

/// The escape sequences that leave the viewer's screen: mouse reports off, the cursor shown,
/// the main screen back.
private let leaveSequence: [UInt8] = Array("\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)

/// Gives the terminal back: async-signal-safe (`write` and `tcsetattr` only).
private func restoreTerminal() {
    leaveSequence.withUnsafeBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    if hasSavedSettings != 0 { tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedSettings) }
}

/// A full-screen session on the terminal: raw single-key input, the alternate screen, the
/// cursor hidden, mouse clicks, drags and the wheel reported (SGR encoding), and everything
/// given back on every way out: `leave()`, SIGTERM, SIGHUP, SIGINT (Ctrl-C arrives as a key
/// in raw mode; the signal only from `kill`), and a crash's SIGSEGV/SIGABRT.
public final class TerminalSession: Terminal {
    /// Throws when standard input or output is not a terminal: there is nothing to draw on.
    public init() throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(kind: .notATerminal, message: "mapbook view needs a terminal on standard input and output; to draw a map to a file or a pipe, use mapbook render")
        }
    }

    /// Takes the terminal over.
    ///
    /// The corresponding C functions are `tcgetattr`, `tcsetattr` and `signal`.
    public func enter() {
        tcgetattr(STDIN_FILENO, &savedSettings)
        hasSavedSettings = 1
        var raw = savedSettings
        // Keys one at a time, unechoed, Ctrl-C and Ctrl-Z as keys; output still turns "\n"
        // into "\r\n" (OPOST kept) so pictures print line by line.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        raw.c_cflag |= tcflag_t(CS8)
        // A read returns what has arrived within a tenth of a second (escape sequences come
        // whole), or nothing.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 1
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        for sig in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            signal(sig) { code in
                restoreTerminal()
                _exit(128 + code)
            }
        }
        for sig in [SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE] {
            signal(sig) { code in
                restoreTerminal()
                signal(code, SIG_DFL)
                raise(code)
            }
        }
        signal(SIGWINCH) { _ in terminalResized = 1 }
        // A parent may hand its signal mask down with these blocked (a thread pool's worker
        // that started us): they would never arrive, so the terminal would never be given
        // back on SIGTERM nor redrawn on a resize.
        var handled = sigset_t()
        sigemptyset(&handled)
        for sig in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGWINCH] { sigaddset(&handled, sig) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h\u{1B}[2J")
    }

    /// Gives the terminal back as it was.
    public func leave() {
        restoreTerminal()
        hasSavedSettings = 0
        for sig in [SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGWINCH] { signal(sig, SIG_DFL) }
    }

    /// The terminal's size: cells, and pixels when it says (0 otherwise).
    ///
    /// The corresponding C function is `ioctl` (`TIOCGWINSZ`).
    public func size() -> TerminalSize {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24, 0, 0) }
        return (Int(size.ws_col), Int(size.ws_row), Int(size.ws_xpixel), Int(size.ws_ypixel))
    }

    /// Writes text to the terminal, all of it.
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                isClosed = true
                return
            }
            offset += n
        }
    }

    /// The bytes typed since the last call, waiting up to `milliseconds` for the first; empty
    /// when none came (or a signal interrupted the wait).
    ///
    /// The corresponding C functions are `poll` and `read`.
    public func read(waiting milliseconds: Int32) -> [UInt8] {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
        if n > 0 { return Array(buffer.prefix(n)) }
        // Readable but nothing to read, or an error other than an interruption: the terminal
        // has gone (its window closed), and waiting on it would spin.
        if n == 0 || (errno != EINTR && errno != EAGAIN) { isClosed = true }
        return []
    }

    /// Whether a SIGWINCH came since the last call.
    public func takeResize() -> Bool {
        defer { terminalResized = 0 }
        return terminalResized != 0
    }

    /// Whether the terminal went away (hung up, closed); the viewer then stops.
    public private(set) var isClosed = false
}
