#if canImport(Glibc)
import Glibc
#endif
import CMapbookLazy
import MapbookPackage
import MapbookSupport
import NIOCore
import NIOPosix

/// Item files in folders of the data directory:
///
///     items/<id>/<version>/<file name>  the item's data, one folder per version (`data`
///                                       for data stored before versions)
///     items/<id>/info/<path>            info files (thumbnail/thumbnail.png)
///     uploads/<id>/<part number>        parts of an upload in progress
///     staging/                          files being written
///
/// Every name that comes from a request is checked first (`PortalPaths`), so nothing is
/// written or read outside these folders.
public struct DiskItemFileStore: ItemFileStore {
    public let root: String

    public init(root: String) throws {
        self.root = root
        for dir in [root, "\(root)/items", "\(root)/uploads", "\(root)/staging"] { try Disk.makeDirectory(dir) }
    }

    private func itemDir(_ id: String) throws -> String {
        guard PortalPaths.isItemId(id) else { throw PortalStoreError(kind: .invalidName, path: root, message: "'\(id)' is not an item id") }
        return "\(root)/items/\(id)"
    }

    private func versionDir(_ id: String, _ version: String) throws -> String {
        guard PortalPaths.isFileName(version), version != "info" else {
            throw PortalStoreError(kind: .invalidName, path: root, message: "'\(version)' is not a data version")
        }
        return "\(try itemDir(id))/\(version)"
    }

    public func stagingFile() throws -> String {
        try Disk.scratchFile(in: "\(root)/staging")
    }

    /// Moves `staged` (a file in this store's staging folder, or a copy of another file) into
    /// a version folder made beside the others: renamed in, so never seen half-written.
    private func place(_ staged: String, itemId: String, version: String, fileName: String) throws {
        guard PortalPaths.isFileName(fileName) else { throw PortalStoreError(kind: .invalidName, path: root, message: "'\(fileName)' is not a file name") }
        let dir = try versionDir(itemId, version)
        try Disk.makeDirectory(try itemDir(itemId))
        let next = "\(dir).next"
        FileSystem.removeTree(next)
        try Disk.makeDirectory(next)
        guard rename(staged, "\(next)/\(fileName)") == 0 else {
            throw PortalStoreError(kind: .io(errno: errno), path: staged, message: "cannot move the upload into place: \(FileSystem.errorMessage())")
        }
        FileSystem.removeTree(dir)
        guard rename(next, dir) == 0 else {
            throw PortalStoreError(kind: .io(errno: errno), path: dir, message: "cannot store the item's data: \(FileSystem.errorMessage())")
        }
    }

    public func putData(itemId: String, version: String, fileName: String, from path: String) async throws {
        // A file of our own staging folder moves in; any other is copied first (the caller keeps it).
        if path.hasPrefix("\(root)/staging/") {
            try place(path, itemId: itemId, version: version, fileName: fileName)
        } else {
            let staged = try stagingFile()
            defer { unlink(staged) }
            _ = try await NIOThreadPool.singleton.runIfActive { try Self.copy([path], into: staged, limit: .max, number: { _ in 1 }) }
            try place(staged, itemId: itemId, version: version, fileName: fileName)
        }
    }

    public func putPart(itemId: String, number: Int, from path: String) async throws {
        guard PortalPaths.isItemId(itemId), number >= 1, number <= 10_000 else {
            throw PortalStoreError(kind: .partOutOfRange, path: root, message: "part \(number) of '\(itemId)' is out of range (1-10000)")
        }
        let dir = "\(root)/uploads/\(itemId)"
        try Disk.makeDirectory(dir)
        let staged = try stagingFile()
        defer { unlink(staged) }
        if path.hasPrefix("\(root)/staging/") {
            guard rename(path, staged) == 0 else { throw PortalStoreError(kind: .io(errno: errno), path: path, message: "cannot store part \(number): \(FileSystem.errorMessage())") }
        } else {
            _ = try await NIOThreadPool.singleton.runIfActive { try Self.copy([path], into: staged, limit: .max, number: { _ in number }) }
        }
        guard rename(staged, "\(dir)/\(number)") == 0 else {
            throw PortalStoreError(kind: .io(errno: errno), path: dir, message: "cannot store part \(number): \(FileSystem.errorMessage())")
        }
    }

    /// The joined file is on this machine already: `copyTo` is left alone.
    public func joinParts(itemId: String, version: String, fileName: String, parts: [UploadPart], limit: Int64, copyTo: String?) async throws -> JoinedData {
        guard PortalPaths.isItemId(itemId) else { throw PortalStoreError(kind: .invalidName, path: root, message: "'\(itemId)' is not an item id") }
        let paths = parts.map { "\(root)/uploads/\(itemId)/\($0.number)" }
        let staged = try stagingFile()
        defer { unlink(staged) }
        // Gigabytes may be copied: on NIO's thread pool, not the cooperative pool.
        let joined = try await NIOThreadPool.singleton.runIfActive { try Self.copy(paths, into: staged, limit: limit, number: { parts[$0].number }) }
        try place(staged, itemId: itemId, version: version, fileName: fileName)
        return joined
    }

    /// Copies `paths` in turn into `out`, hashing on the way.
    static func copy(_ paths: [String], into staged: String, limit: Int64, number: (Int) -> Int) throws -> JoinedData {
        let out = open(staged, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard out >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: staged, message: "cannot write: \(FileSystem.errorMessage())") }
        defer { close(out) }
        var digest = SHA256Digest()
        var size: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for (index, path) in paths.enumerated() {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: path, message: "cannot read part \(number(index)): \(FileSystem.errorMessage())") }
            defer { close(fd) }
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: path, message: "cannot read part \(number(index)): \(FileSystem.errorMessage())") }
                if n == 0 { break }
                size += Int64(n)
                if size > limit { throw PortalStoreError(kind: .tooLarge, path: path, message: "the file is larger than \(limit) bytes") }
                buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                var done = 0
                while done < n {
                    let w = buffer.withUnsafeBytes { write(out, $0.baseAddress! + done, n - done) }
                    if w < 0, errno == EINTR { continue }
                    guard w > 0 else { throw PortalStoreError(kind: .io(errno: errno), path: staged, message: "cannot write: \(FileSystem.errorMessage())") }
                    done += w
                }
            }
        }
        return JoinedData(size: size, sha256: digest.finalizeHex())
    }

    public func removeParts(itemId: String, numbers: [Int]) async {
        guard PortalPaths.isItemId(itemId) else { return }
        for n in numbers { unlink("\(root)/uploads/\(itemId)/\(n)") }
        rmdir("\(root)/uploads/\(itemId)")
    }

    public func dataFile(itemId: String, version: String, fileName: String, size: Int64?) async throws -> StoredFile? {
        guard PortalPaths.isFileName(fileName), let dir = try? versionDir(itemId, version) else { return nil }
        return Disk.stored("\(dir)/\(fileName)", name: fileName)
    }

    public func read(_ file: StoredFile, range: ClosedRange<Int64>?, _ each: (ByteBuffer) async throws -> Void) async throws {
        try await Self.read(path: file.location, size: file.size, range: range, each)
    }

    /// Streams `range` of the file at `path` (`size` bytes long) in chunks.
    ///
    /// What the page cache holds is lent from the file's mapping (`MappedItemFiles`): no copy,
    /// no buffer per request. Otherwise it is read right here, as nginx reads: `preadv2` with
    /// `RWF_NOWAIT` (`mapbook_pread_cached`) copies cached pages and refuses, rather than
    /// waits, when the disk would be needed. Only then does the read go to NIO's thread
    /// pool: on the threads that run the handlers (one per core) a read from a slow disk
    /// would hold up every other request until it returned, but a hop to the pool for every
    /// cached range cost a tenth of the ranges served a second (docs/PERFORMANCE.md, "Portal").
    static func read(path: String, size: Int64, range: ClosedRange<Int64>?, _ each: (ByteBuffer) async throws -> Void) async throws {
        var st = stat()
        var identity = stat(path, &st) == 0 ? MappedItemFiles.identity(st) : nil
        // Opened only for what the mapping cannot lend; then both read that one file.
        var fd: Int32 = -1
        var lentSome = false
        defer { if fd >= 0 { close(fd) } }
        var offset = range?.lowerBound ?? 0
        var left = range.map { $0.upperBound - $0.lowerBound + 1 } ?? size
        while left > 0 {
            let want = Int(min(Int64(Self.chunkBytes), left))
            if let identity, identity.size == size, let lent = MappedItemFiles.lend(path: path, identity: identity, offset: offset, count: want) {
                lentSome = true
                try await each(lent)
                offset += Int64(want)
                left -= Int64(want)
                continue
            }
            if fd < 0 {
                fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: path, message: "cannot read the item's file: \(FileSystem.errorMessage())") }
                // A new version renamed in since the first chunks were lent: the rest would be
                // another file's bytes under this one's length and validators.
                var opened = stat()
                if fstat(fd, &opened) == 0 {
                    if lentSome, MappedItemFiles.identity(opened) != identity {
                        throw PortalStoreError(kind: .io(errno: ESTALE), path: path, message: "the item's file was replaced while it was being read")
                    }
                    identity = MappedItemFiles.identity(opened)
                }
            }
            var chunk = ByteBufferAllocator().buffer(capacity: want)
            if !Self.fill(fd, into: &chunk, count: want, at: offset, waiting: false) {
                let (have, at, file) = (chunk, offset, fd)
                chunk = try await NIOThreadPool.singleton.runIfActive { () throws -> ByteBuffer in
                    var buffer = have
                    guard Self.fill(file, into: &buffer, count: want, at: at, waiting: true) else {
                        throw PortalStoreError(kind: .io(errno: errno), path: path, message: "the item's file ended early or could not be read: \(FileSystem.errorMessage())")
                    }
                    return buffer
                }
            }
            try await each(chunk)
            offset += Int64(want)
            left -= Int64(want)
        }
    }

    /// Appends to `buffer` the rest of `count` bytes at `offset` (what it holds counts): from
    /// the page cache only, stopping at the first page the disk must supply, or, `waiting`,
    /// from the disk. False when it stopped short: the file ended, a read failed (errno), or
    /// the cache did not hold a page.
    @discardableResult
    static func fill(_ fd: Int32, into buffer: inout ByteBuffer, count: Int, at offset: Int64, waiting: Bool) -> Bool {
        while buffer.readableBytes < count {
            let want = count - buffer.readableBytes
            var n = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
                let at = off_t(offset) + off_t(count - want)
                n = waiting ? pread(fd, raw.baseAddress!, want, at) : mapbook_pread_cached(fd, raw.baseAddress!, want, at)
                return max(0, n)
            }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
        }
        return true
    }

    /// The most read from a file at once: one chunk in flight per download.
    static let chunkBytes = 256 << 10

    public func randomAccess(_ file: StoredFile) throws -> RandomAccessFile {
        try RandomAccessFile(path: file.location)
    }

    public func dataFile(itemId: String, version: String) async throws -> StoredFile? {
        guard let dir = try? versionDir(itemId, version), let name = FileSystem.names(in: dir).first(where: PortalPaths.isFileName) else { return nil }
        return Disk.stored("\(dir)/\(name)", name: name)
    }

    public func withLocalCopy<T: Sendable>(_ file: StoredFile, _ body: (String) async throws -> T) async throws -> T {
        try await body(file.location)
    }

    public func removeData(itemId: String, version: String) async {
        guard let dir = try? versionDir(itemId, version) else { return }
        FileSystem.removeTree(dir)
    }

    public func putInfo(itemId: String, path: String, bytes: [UInt8]) async throws {
        guard PortalPaths.isInfoPath(path) else { throw PortalStoreError(kind: .invalidName, path: root, message: "'\(path)' is not an info file path") }
        var dir = "\(try itemDir(itemId))/info"
        try Disk.makeDirectory(try itemDir(itemId))
        try Disk.makeDirectory(dir)
        let components = path.split(separator: "/").map(String.init)
        for c in components.dropLast() {
            dir += "/\(c)"
            try Disk.makeDirectory(dir)
        }
        try Disk.writeAtomically(bytes, to: "\(dir)/\(components.last!)")
    }

    public func infoFile(itemId: String, path: String) async throws -> StoredFile? {
        guard PortalPaths.isInfoPath(path), let dir = try? itemDir(itemId) else { return nil }
        return Disk.stored("\(dir)/info/\(path)", name: String(path.split(separator: "/").last ?? ""))
    }

    public func removeInfo(itemId: String, path: String) async {
        guard PortalPaths.isInfoPath(path), let dir = try? itemDir(itemId) else { return }
        unlink("\(dir)/info/\(path)")
    }

    /// `items/<id>/sync/...`, checked as info paths are.
    private func objectPath(_ itemId: String, _ name: String) throws -> String {
        guard PortalPaths.isInfoPath(name), name.hasPrefix("sync/") else {
            throw PortalStoreError(kind: .invalidName, path: root, message: "'\(name)' is not an item object name")
        }
        return "\(try itemDir(itemId))/\(name)"
    }

    public func putObject(itemId: String, name: String, from path: String) async throws {
        let destination = try objectPath(itemId, name)
        try Disk.makeDirectories(FileSystem.parent(of: destination))
        let staged = try stagingFile()
        defer { unlink(staged) }
        _ = try await NIOThreadPool.singleton.runIfActive { try Self.copy([path], into: staged, limit: .max, number: { _ in 1 }) }
        guard rename(staged, destination) == 0 else {
            throw PortalStoreError(kind: .io(errno: errno), path: destination, message: "cannot store: \(FileSystem.errorMessage())")
        }
    }

    public func object(itemId: String, name: String) async throws -> StoredFile? {
        guard let path = try? objectPath(itemId, name) else { return nil }
        return Disk.stored(path, name: FileSystem.lastComponent(name))
    }

    public func removeObject(itemId: String, name: String) async {
        guard let path = try? objectPath(itemId, name) else { return }
        unlink(path)
    }

    public func remove(itemId: String) async {
        guard let dir = try? itemDir(itemId) else { return }
        FileSystem.removeTree(dir)
        FileSystem.removeTree("\(root)/uploads/\(itemId)")
    }

    @discardableResult
    public func sweep(keeping: [String: String], olderThan age: Int64) async throws -> Int {
        let before = Int64(time(nil)) - age
        var removed = 0
        func drop(_ path: String) {
            var st = stat()
            guard lstat(path, &st) == 0, Int64(st.st_mtim.tv_sec) <= before else { return }
            FileSystem.removeTree(path)
            removed += 1
        }
        for name in FileSystem.names(in: "\(root)/staging") { drop("\(root)/staging/\(name)") }
        for id in FileSystem.names(in: "\(root)/uploads") where keeping[id] == nil { drop("\(root)/uploads/\(id)") }
        for id in FileSystem.names(in: "\(root)/items") {
            guard let version = keeping[id] else {
                drop("\(root)/items/\(id)")
                continue
            }
            for name in FileSystem.names(in: "\(root)/items/\(id)") where name != "info" && name != "sync" && name != version {
                drop("\(root)/items/\(id)/\(name)")
            }
        }
        return removed
    }
}

/// What names from requests may be.
public enum PortalPaths {
    /// Item, group, folder and user ids: 32 lowercase hex digits, as the API makes them.
    public static func isItemId(_ s: String) -> Bool {
        s.utf8.count == 32 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// A single file name: no folders, no `..`, nothing unprintable, at most 255 bytes.
    public static func isFileName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 255 && s != "." && s != ".." && !s.hasPrefix(".")
            && s.unicodeScalars.allSatisfy { $0 != "/" && $0 != "\\" && $0.value >= 0x20 && $0.value != 0x7F }
    }

    /// A relative path of file names (`thumbnail/thumbnail.png`).
    public static func isInfoPath(_ s: String) -> Bool {
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        return !parts.isEmpty && parts.count <= 4 && parts.allSatisfy { isFileName(String($0)) }
    }
}

/// The file-system calls of the disk store that throw its own error, over the shared ones.
enum Disk {
    /// Makes `path` and any missing folders above it.
    static func makeDirectories(_ path: String) throws {
        let parent = FileSystem.parent(of: path)
        if !parent.isEmpty, parent != path, FileSystem.kind(parent) == nil { try makeDirectories(parent) }
        try makeDirectory(path)
    }

    static func makeDirectory(_ path: String) throws {
        let code = FileSystem.makeDirectory(path, mode: 0o755)
        if code != 0 {
            throw PortalStoreError(kind: .io(errno: code), path: path, message: "cannot create the folder: \(FileSystem.errorMessage(code))")
        }
    }

    /// Opens `path` for writing, made or emptied; the caller closes the descriptor.
    static func create(_ path: String, permissions: mode_t = 0o644) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: path, message: "cannot write: \(FileSystem.errorMessage())") }
        return fd
    }

    /// Writes all of `chunk` to `fd`, the file at `path`.
    static func write(_ chunk: ByteBuffer, to fd: Int32, path: String) throws {
        let failed = chunk.withUnsafeReadableBytes { FileSystem.writeAll($0, to: fd) }
        guard failed == 0 else { throw PortalStoreError(kind: .io(errno: failed), path: path, message: "cannot write: \(FileSystem.errorMessage(failed))") }
    }

    /// A new, empty file of a unique name in `dir`.
    static func scratchFile(in dir: String) throws -> String {
        var template = Array("\(dir)/upload-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: dir, message: "cannot create a staging file: \(FileSystem.errorMessage())") }
        close(fd)
        return String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    static func stored(_ path: String, name: String) -> StoredFile? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return StoredFile(location: path, name: name, size: Int64(st.st_size))
    }

    /// Writes `bytes` under a temporary name of its own, fsyncs and renames it into place.
    static func writeAtomically(_ bytes: [UInt8], to path: String, permissions: mode_t? = nil) throws {
        do {
            let file = try AtomicFile(destination: path, permissions: permissions)
            try file.write(bytes)
            try file.commit()
        } catch {
            throw PortalStoreError(kind: .file(error.kind), path: path, message: "cannot write: \(error.message)")
        }
    }
}
