import MapbookLibrary
import MapbookPortal
import MapbookPortalAPI
import MapbookSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A progress bar for a download or upload on stderr, rewritten in place; nothing at all when
/// stderr is not a terminal (logs and pipes get no carriage returns).
public final class TransferProgress: Sendable {
    private let label: String
    private let isTerminal = isatty(STDERR_FILENO) == 1
    /// The last percentage drawn, and whether anything was drawn.
    private let drawn = Mutex<(percent: Int, shown: Bool)>((-1, false))

    public init(_ label: String) {
        self.label = label
    }

    /// Draws `done` of `total` bytes (total unknown: the count alone).
    public func update(done: Int64, total: Int64?) {
        guard isTerminal else { return }
        let percent = total.map { $0 > 0 ? Int(done * 100 / $0) : 100 } ?? Int(done >> 20)
        let changed = drawn.withLock { state in
            guard state.percent != percent else { return false }
            state = (percent, true)
            return true
        }
        guard changed else { return }
        var line = "\r  \(label) "
        if let total, total > 0 {
            let width = 30
            let filled = min(width, Int(done * Int64(width) / total))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            line += "\(min(percent, 100))%  \(Format.bytes(done)) of \(Format.bytes(total))"
        } else {
            line += Format.bytes(done)
        }
        FileSystem.writeAll(line + "\u{1B}[K", to: STDERR_FILENO)
    }

    /// Clears the bar's line.
    public func finish() {
        let shown = drawn.withLock { state in
            defer { state.shown = false }
            return state.shown
        }
        if shown { FileSystem.writeAll("\r\u{1B}[K", to: STDERR_FILENO) }
    }
}

extension TransferProgress {
    /// Downloads `item` into the library with a bar on a terminal, saying on stderr when it
    /// resumes an interrupted download: what `portal download`, `portal update` and
    /// `library take-offline` show.
    public static func download(_ item: PortalItem, client: PortalClient, library: DeviceLibrary) async throws -> PackageDownloader.Outcome {
        let bar = TransferProgress(String(item.title.prefix(40)))
        let announced = Mutex(false)
        defer { bar.finish() }
        return try await PackageDownloader(client: client, library: library).download(item) { progress in
            if progress.resumedFrom > 0, !announced.withLock({ said in defer { said = true }; return said }) {
                bar.finish()
                let total = progress.total.map { " of \(Format.bytes($0))" } ?? ""
                FileSystem.writeAll("resuming the download of '\(item.title)' at \(Format.bytes(progress.resumedFrom))\(total)\n", to: STDERR_FILENO)
            }
            bar.update(done: progress.done, total: progress.total)
        }
    }
}
