#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import MapbookPackage
import MapbookSupport
import NIOCore
import NIOHTTP1
import Synchronization

/// A stored file in the bucket read in place by ranged GETs (docs/PORTAL.md "Map previews"):
/// a package's backdrop tiles and GeoPackage pages are read where they lie, nothing is
/// copied to this machine. Reads go by blocks of `blockSize`, kept in a cache all such files
/// share, so the bundle indexes and database pages a map reads again and again are fetched
/// once; the missing blocks of one read are fetched in one request. A large read (a whole
/// tile bundle, a big blob) is fetched straight into the caller's buffer in bounded pieces and
/// not cached: it would push out everything the maps read again.
///
/// Reads block the calling thread. They wait on NIO's event loops, not on Swift's
/// cooperative threads, so they cannot starve the requests they wait for; callers run them on
/// `NIOThreadPool` as other file reads.
final class S3RemoteBytes: RemoteBytes {
    let client: S3Client
    let key: String
    let size: Int64

    static let blockSize: Int64 = 128 << 10
    /// 64 MiB of blocks across every file.
    static let cache = BlockCache(capacity: Int((64 << 20) / blockSize))
    /// Reads of more blocks than this (2 MiB, a 32nd of the cache) go around the cache.
    static let largestCachedRead: Int64 = 16
    /// A read around the cache is fetched in requests of at most this many bytes.
    static let pieceSize = 4 << 20

    init(client: S3Client, key: String, size: Int64) {
        self.client = client
        self.key = key
        self.size = size
    }

    var name: String { "s3://\(client.bucket)/\(key)" }
    /// The object's name in the shared cache: its store's endpoint and bucket too, for two
    /// stores in one process (`portal migrate`).
    var cacheKey: String { "\(client.endpoint)/\(client.bucket)/\(key)" }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ArchiveError) {
        guard buffer.count > 0 else { return }
        guard offset >= 0, offset <= size, Int64(buffer.count) <= size - offset else {
            throw ArchiveError(kind: .truncated, operation: "read", path: name, message: "bytes \(offset)..<\(offset + Int64(buffer.count)) lie past the end of the object (\(size) bytes)")
        }
        let first = offset / Self.blockSize, last = (offset + Int64(buffer.count) - 1) / Self.blockSize
        guard last - first < Self.largestCachedRead else { return try readAround(into: buffer, at: offset) }
        var blocks: [Int64: [UInt8]] = [:]
        var missing: [Int64] = []
        for index in first...last {
            if let cached = Self.cache.block(cacheKey, index) { blocks[index] = cached } else { missing.append(index) }
        }
        // Runs of missing blocks, one request each.
        var start = 0
        while start < missing.count {
            var end = start
            while end + 1 < missing.count, missing[end + 1] == missing[end] + 1 { end += 1 }
            let lower = missing[start] * Self.blockSize, upper = min(size, (missing[end] + 1) * Self.blockSize) - 1
            let bytes = try fetch(lower...upper)
            for index in missing[start]...missing[end] {
                let from = Int(index * Self.blockSize - lower)
                let block = Array(bytes[from..<min(bytes.count, from + Int(Self.blockSize))])
                Self.cache.keep(cacheKey, index, block)
                blocks[index] = block
            }
            start = end + 1
        }
        var written = 0
        var position = offset
        while written < buffer.count {
            let index = position / Self.blockSize
            guard let block = blocks[index] else { break }
            let from = Int(position - index * Self.blockSize)
            let count = min(block.count - from, buffer.count - written)
            guard count > 0 else { break }
            block.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: buffer[written..<(written + count)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: source[from..<(from + count)]))
            }
            written += count
            position += Int64(count)
        }
        guard written == buffer.count else {
            throw ArchiveError(kind: .truncated, operation: "read", path: name, message: "the object store gave \(written) of \(buffer.count) bytes at \(offset)")
        }
    }

    /// Fills `buffer` by ranged GETs of at most `pieceSize` bytes, one at a time, keeping
    /// nothing: memory stays at one piece beside the buffer.
    private func readAround(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ArchiveError) {
        var done = 0
        while done < buffer.count {
            let count = min(Self.pieceSize, buffer.count - done)
            let lower = offset + Int64(done)
            let bytes = try fetch(lower...(lower + Int64(count) - 1))
            bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[done..<(done + count)]).copyMemory(from: $0) }
            done += count
        }
    }

    /// One ranged GET, waited for on this thread.
    func fetch(_ range: ClosedRange<Int64>) throws(ArchiveError) -> [UInt8] {
        let expected = Int(range.upperBound - range.lowerBound + 1)
        do {
            let response = try client.getNow(key, range: range)
            guard let bytes = response, bytes.count == expected else {
                throw ArchiveError(kind: .truncated, operation: "read", path: name, message: response == nil ? "the object is gone from the bucket" : "the object store gave \(response!.count) of \(expected) bytes")
            }
            return bytes
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(kind: .io(errno: EIO), operation: "read", path: name, message: "\(error)")
        }
    }
}

/// Blocks of remote files by file and number, the least recently used let go first.
final class BlockCache: Sendable {
    private struct State {
        var blocks: [String: (bytes: [UInt8], used: UInt64)] = [:]
        var clock: UInt64 = 0
    }
    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func block(_ key: String, _ index: Int64) -> [UInt8]? {
        state.withLock { state in
            guard let found = state.blocks["\(index):\(key)"] else { return nil }
            state.clock += 1
            state.blocks["\(index):\(key)"]?.used = state.clock
            return found.bytes
        }
    }

    func keep(_ key: String, _ index: Int64, _ bytes: [UInt8]) {
        state.withLock { state in
            state.clock += 1
            state.blocks["\(index):\(key)"] = (bytes, state.clock)
            if state.blocks.count > capacity {
                // Let the oldest eighth go at once, so eviction is rare.
                let oldest = state.blocks.sorted { $0.value.used < $1.value.used }.prefix(max(1, capacity / 8))
                for (name, _) in oldest { state.blocks[name] = nil }
            }
        }
    }
}
