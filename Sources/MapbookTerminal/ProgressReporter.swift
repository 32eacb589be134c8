#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// Prints import progress on a terminal (stderr), rewriting one line; silent otherwise.
public final class ProgressReporter: @unchecked Sendable {
    // Used from the importing thread only; the class exists to hold the last line's length.
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var shown = false

    public init() {}

    /// `count` is the features read so far; a negative count makes `source` a status line
    /// (the backdrop's steps: features read into the tiler, the zoom guess, each zoom).
    public func update(_ source: String, _ count: Int) {
        if count < 0 {
            let text = isTerminal ? "\r  \(source)\u{1B}[K" : "\(source)\n"
            FileSystem.writeAll(text, to: STDERR_FILENO)
            shown = isTerminal
            return
        }
        guard isTerminal else {
            // Logs get a plain line now and then rather than carriage returns.
            if count % 100_000 == 0 {
                let text = "importing \(source): \(count) features\n"
                FileSystem.writeAll(text, to: STDERR_FILENO)
            }
            return
        }
        let text = "\r  importing \(source): \(Format.count(Int64(count))) features\u{1B}[K"
        FileSystem.writeAll(text, to: STDERR_FILENO)
        shown = true
    }

    public func finish() {
        guard shown else { return }
        FileSystem.writeAll("\r\u{1B}[K", to: STDERR_FILENO)
        shown = false
    }
}
