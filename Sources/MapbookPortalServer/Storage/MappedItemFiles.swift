#if canImport(Glibc)
import Glibc
#endif
@_spi(CustomByteBufferAllocator) import NIOCore
import Synchronization

/// Item files mapped into memory, lent to responses as `ByteBuffer`s over the mapping: a
/// download's range goes from the page cache to TLS without a copy into a buffer of its own
/// (over TLS no `sendfile`, and kTLS is not to be had through NIOSSL; issue 36).
///
/// A stored file never changes in place (a new version is renamed in beside it), so a mapping
/// stays true while the path names the same file: each lookup compares device, inode, size
/// and modification time with `stat`, and maps the new file when they differ. At most `limit`
/// files stay mapped, the least recently used let go first. A mapping let go is unmapped once
/// the last buffer lent from it is freed: the buffers' allocator counts them. Mapped read-only:
/// nothing on a response's way (Hummingbird, the HTTP encoder, NIOSSL) writes to a body's
/// bytes, and a write there (into a lent buffer's own bytes, or a slice's after its parent is
/// gone) would fault rather than change what later responses send. Lend only to such readers.
/// A buffer that grows into new storage is copied out of the mapping.
///
/// An operator who truncates a stored file while the server runs would make a read of a lost
/// page fault (SIGBUS), as with any reader of mapped files (SQLite's `mmap_size`, for one);
/// the portal's own writes never do.
enum MappedItemFiles {
    /// A file's identity as `stat` gives it.
    struct Identity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int
    }

    private struct Mapping {
        var path: String
        var identity: Identity
        var base: UInt
        var length: Int
        var lent = 0
        var used: UInt64 = 0

        func holds(_ pointer: UnsafeMutableRawPointer) -> Bool {
            let address = UInt(bitPattern: pointer)
            return address >= base && address < base + UInt(length)
        }
    }

    private struct State {
        var current: [String: Mapping] = [:]
        /// Let go, with buffers still lent.
        var retired: [Mapping] = []
        var clock: UInt64 = 0
    }

    static let limit = 64
    private static let state = Mutex(State())

    /// The allocator of lent buffers: freeing one returns it to its mapping; anything else
    /// (a buffer that grew, so left the mapping) is ordinary memory.
    static let allocator = ByteBufferAllocator(
        allocate: { malloc($0) },
        reallocate: { pointer, oldSize, newSize in
            guard let pointer, MappedItemFiles.isMapped(pointer) else { return realloc(pointer, newSize) }
            // Copied before it is counted back: the last buffer back unmaps a mapping let go.
            let fresh = malloc(newSize)
            if let fresh { memcpy(fresh, pointer, min(oldSize, newSize)) }
            _ = MappedItemFiles.returned(pointer)
            return fresh
        },
        deallocate: { pointer in
            if !MappedItemFiles.returned(pointer) { free(pointer) }
        },
        copy: { memcpy($0, $1, $2) }
    )

    /// `count` bytes at `offset` of the file at `path` as a buffer over its mapping, or nil
    /// when the page cache does not hold them all (the disk would block the caller), the file
    /// cannot be mapped, or the range is not inside it. `identity` is the file's, read just
    /// before.
    static func lend(path: String, identity: Identity, offset: Int64, count: Int) -> ByteBuffer? {
        guard count > 0, offset >= 0, offset + Int64(count) <= identity.size else { return nil }
        let mapped: UInt? = state.withLock { state in
            if let found = state.current[path], found.identity == identity {
                state.clock += 1
                state.current[path]!.used = state.clock
                return found.base
            }
            return nil
        }
        guard let base = mapped ?? map(path: path, identity: identity) else { return nil }
        let start = UnsafeMutableRawPointer(bitPattern: base + UInt(offset))!
        guard resident(start, count) else { return nil }
        let lent: Bool = state.withLock { state in
            // Let go (or replaced) in between: read the ordinary way.
            guard state.current[path]?.base == base, state.current[path]?.identity == identity else { return false }
            state.current[path]!.lent += 1
            return true
        }
        guard lent else { return nil }
        return ByteBuffer(takingOwnershipOf: UnsafeMutableRawBufferPointer(start: start, count: count), allocator: allocator)
    }

    /// Maps the file and keeps it, letting go of the least recently used beyond `limit`.
    private static func map(path: String, identity: Identity) -> UInt? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, Self.identity(st) == identity, identity.size > 0, let length = Int(exactly: identity.size) else { return nil }
        let pointer = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0)
        guard let pointer, pointer != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        let base = UInt(bitPattern: pointer)
        var unmap: [Mapping] = []
        state.withLock { state in
            state.clock += 1
            if let old = state.current.removeValue(forKey: path) { unmap += retire(old, in: &state) }
            state.current[path] = Mapping(path: path, identity: identity, base: base, length: length, used: state.clock)
            while state.current.count > limit, let oldest = state.current.min(by: { $0.value.used < $1.value.used }) {
                state.current.removeValue(forKey: oldest.key)
                unmap += retire(oldest.value, in: &state)
            }
        }
        for m in unmap { munmap(UnsafeMutableRawPointer(bitPattern: m.base), m.length) }
        return base
    }

    /// A mapping let go: unmapped now when nothing is lent from it (returned for the caller
    /// to unmap outside the lock), else when its last buffer is freed.
    private static func retire(_ mapping: Mapping, in state: inout State) -> [Mapping] {
        if mapping.lent == 0 { return [mapping] }
        state.retired.append(mapping)
        return []
    }

    private static func isMapped(_ pointer: UnsafeMutableRawPointer) -> Bool {
        state.withLock { state in state.current.values.contains { $0.holds(pointer) } || state.retired.contains { $0.holds(pointer) } }
    }

    /// Counts a lent buffer back; false when `pointer` is not in a mapping.
    private static func returned(_ pointer: UnsafeMutableRawPointer) -> Bool {
        var unmap: Mapping?
        let found: Bool = state.withLock { state in
            if let key = state.current.first(where: { $0.value.holds(pointer) })?.key {
                state.current[key]!.lent -= 1
                return true
            }
            if let i = state.retired.firstIndex(where: { $0.holds(pointer) }) {
                state.retired[i].lent -= 1
                if state.retired[i].lent == 0 { unmap = state.retired.remove(at: i) }
                return true
            }
            return false
        }
        if let unmap { munmap(UnsafeMutableRawPointer(bitPattern: unmap.base), unmap.length) }
        return found
    }

    /// Whether every page of the range is in the page cache (`mincore`).
    private static func resident(_ start: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let address = UInt(bitPattern: start)
        let first = address & ~UInt(page - 1)
        let pages = (Int(address - first) + count + page - 1) / page
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: pages) { vector in
            guard mincore(UnsafeMutableRawPointer(bitPattern: first), pages * page, vector.baseAddress) == 0 else { return false }
            return vector.allSatisfy { $0 & 1 == 1 }
        }
    }

    static func identity(_ st: stat) -> Identity {
        Identity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size), seconds: st.st_mtim.tv_sec, nanoseconds: st.st_mtim.tv_nsec)
    }

    /// The buffers lent from the file mapped for `path` and from its mappings let go (for tests).
    static func lent(path: String) -> (current: Int, retired: Int) {
        state.withLock { s in (s.current[path]?.lent ?? 0, s.retired.filter { $0.path == path }.reduce(0) { $0 + $1.lent }) }
    }
}
