import CMapbookVFS
import Synchronization

/// The reads of databases that lie in a file not on this machine (a package in an object
/// store, read by ranged requests): the "mapbook-range" VFS calls back here with the source's
/// number, which names the function that reads it.
enum SQLiteRemoteSources {
    /// Fills the buffer with the bytes at the offset; false when they cannot be read.
    typealias Read = @Sendable (UnsafeMutableRawBufferPointer, Int64) -> Bool

    private static let sources = Mutex<(next: Int64, reads: [Int64: Read])>((1, [:]))

    /// Installs the VFS's reader, once.
    private static let installed: Bool = {
        mapbook_vfs_set_reader { source, buffer, amount, offset in
            guard let buffer, amount >= 0, let read = SQLiteRemoteSources.sources.withLock({ $0.reads[source] }) else { return 1 }
            return read(UnsafeMutableRawBufferPointer(start: buffer, count: Int(amount)), offset) ? 0 : 1
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
        _ = sources.withLock { $0.reads.removeValue(forKey: number) }
    }
}
