import CMapbookVFS
import Synchronization

/// The reads of databases that lie in a file not on this machine (a package in an object
/// store, read by ranged requests): the "mapbook-range" VFS calls back here with the source's
/// number, which names the function that reads it.
enum SQLiteRemoteSources {
    /// Fills the buffer with the bytes at the offset; nil when it did, else why they cannot
    /// be read (kept for the error SQLite's `SQLITE_IOERR_READ` becomes).
    typealias Read = @Sendable (UnsafeMutableRawBufferPointer, Int64) -> String?

    private struct State {
        var next: Int64 = 1
        var reads: [Int64: Read] = [:]
        /// The last failed read's cause, by source, until an error takes it.
        var failures: [Int64: String] = [:]
    }

    private static let sources = Mutex(State())

    /// Installs the VFS's reader, once.
    private static let installed: Bool = {
        mapbook_vfs_set_reader { source, buffer, amount, offset in
            guard let buffer, amount >= 0, let read = SQLiteRemoteSources.sources.withLock({ $0.reads[source] }) else { return 1 }
            guard let failure = read(UnsafeMutableRawBufferPointer(start: buffer, count: Int(amount)), offset) else { return 0 }
            SQLiteRemoteSources.sources.withLock { $0.failures[source] = failure }
            return 1
        }
        return true
    }()

    /// Numbers `read` for a database's URI (`source=N`) until `remove`.
    static func add(_ read: @escaping Read) -> Int64 {
        _ = installed
        return sources.withLock { state in
            let number = state.next
            state.next += 1
            state.reads[number] = read
            return number
        }
    }

    static func remove(_ number: Int64) {
        sources.withLock {
            $0.reads[number] = nil
            $0.failures[number] = nil
        }
    }

    /// Why the last read of source `number` failed, once; nil when none failed since.
    static func takeFailure(_ number: Int64) -> String? {
        sources.withLock { $0.failures.removeValue(forKey: number) }
    }
}
