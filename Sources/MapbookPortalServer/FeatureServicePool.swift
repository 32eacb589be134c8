#if canImport(Glibc)
import Glibc
#endif
import MapbookEditing
import Synchronization

/// Feature services kept open between requests (issue 33): opening one reads every table's
/// schema and description, which cost a query about a third of its time. A request takes a
/// service of its copy out of the pool (or opens one), uses it alone, and puts it back.
///
/// A service is kept only while its copy's file is the one it opened, unchanged: a commit
/// (an applied edit, a sync) or a new copy changes the file's size or modification time, or
/// its inode, and the services opened before are closed and opened again, so their
/// descriptions and data are always the copy's.
final class FeatureServicePool: Sendable {
    /// The file's inode, size, modification time and SQLite's change counter (bytes 24-27 of
    /// the header, which every commit in rollback-journal mode increments: a commit within
    /// one tick of the clock that keeps the size still shows), and its write-ahead log's size
    /// and time if it has one. Services open the copy immutable, so SQLite itself never looks.
    struct Stamp: Equatable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changes: UInt32
        var log: Int64
    }

    /// Unchecked: a kept service is touched by one request at a time, taken out under the lock.
    private struct Kept: @unchecked Sendable {
        var service: FeatureService
        var stamp: Stamp
    }

    /// Idle services by copy.
    private let idle = Mutex<[String: [Kept]]>([:])
    /// At most this many idle services in all; a copy keeps at most `perCopy`.
    static let capacity = 32
    static let perCopy = 4

    /// Runs `body` with a service of the copy at `path`.
    func with<T>(_ path: String, _ body: (FeatureService) throws -> T) throws -> T {
        guard let stamp = Self.stamp(path) else { return try body(try FeatureService(path: path)) }
        let taken: Kept? = idle.withLock { idle in
            var kept = (idle[path] ?? []).filter { $0.stamp == stamp }
            let last = kept.popLast()
            idle[path] = kept.isEmpty ? nil : kept
            return last
        }
        let service = try taken?.service ?? FeatureService(path: path)
        let result = try body(service)
        service.settle()
        // Back in the pool only when the copy has not changed while it was read.
        if Self.stamp(path) == stamp {
            let kept = Kept(service: service, stamp: stamp)
            idle.withLock { idle in
                guard (idle[path]?.count ?? 0) < Self.perCopy else { return }
                if idle.values.reduce(0, { $0 + $1.count }) >= Self.capacity, let other = idle.keys.first(where: { $0 != path }) { idle[other] = nil }
                idle[path, default: []].append(kept)
            }
        }
        return result
    }

    /// Closes the idle services of copies under `folder` (an item removed).
    func forget(under folder: String) {
        idle.withLock { idle in
            for path in idle.keys where path.hasPrefix(folder + "/") { idle[path] = nil }
        }
    }

    static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        var log = stat()
        let logStamp = stat(path + "-wal", &log) == 0 ? Int64(log.st_size) ^ (Int64(log.st_mtim.tv_sec) << 20) ^ Int64(log.st_mtim.tv_nsec) : -1
        var counter: UInt32 = 0
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            var bytes = [UInt8](repeating: 0, count: 4)
            if pread(fd, &bytes, 4, 24) == 4 { counter = bytes.reduce(0) { $0 << 8 | UInt32($1) } }
            close(fd)
        }
        return Stamp(
            inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changes: counter, log: logStamp)
    }
}
