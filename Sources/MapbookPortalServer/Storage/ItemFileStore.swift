#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport
import NIOCore

/// A file the store holds for an item.
public struct StoredFile: Sendable, Equatable {
    /// Where the store finds it: a path on disk, an object's key.
    public var location: String
    public var name: String
    public var size: Int64
}

/// What joining an upload's parts gave: the data's size and SHA-256, and whether the store
/// also wrote the bytes to the local file it was given.
public struct JoinedData: Sendable, Equatable {
    public var size: Int64
    public var sha256: String
    public var copied = false
}

/// Where the portal keeps item files: each item's data file (in versions), its info files
/// (the thumbnail) and the parts of uploads in progress.
///
/// Files are streams and byte ranges, never paths handed out, so the store can be a folder
/// (`DiskItemFileStore`, the embedded default) or an S3 bucket shared by several portal
/// processes (`S3ItemFileStore`). A new data file is stored under a version of its own and
/// becomes the item's only when the item's record names that version (`ItemRecord.version`),
/// so a reader sees the old file or the new one, never half of one, and an upload cut short
/// leaves nothing visible.
///
/// Parts are kept by number; which parts exist is recorded in the `PortalStore`, which every
/// process shares.
public protocol ItemFileStore: Sendable {
    /// A new, empty scratch file on this machine for a request's body; the caller removes it.
    func stagingFile() throws -> String

    /// Stores the local file at `path` as the item's data under `version`.
    func putData(itemId: String, version: String, fileName: String, from path: String) async throws
    /// Stores the local file at `path` as part `number` (1-10000) of the item's upload.
    func putPart(itemId: String, number: Int, from path: String) async throws
    /// Joins `parts` (numbered 1...n, in order) into the item's data under `version`, hashing
    /// on the way; refused with a 413-shaped error beyond `limit` bytes. The parts stay. A
    /// store whose files are not on this machine also writes the bytes to `copyTo` when given
    /// (the validator's copy, made in the same pass; `JoinedData.copied`).
    func joinParts(itemId: String, version: String, fileName: String, parts: [UploadPart], limit: Int64, copyTo: String?) async throws -> JoinedData
    func removeParts(itemId: String, numbers: [Int]) async

    /// The item's data file `fileName` under `version` (`ItemRecord.dataVersion`), if there is
    /// one. `size`, when the item's record gives it, spares an object store the request that
    /// would ask (a download is then one ranged GET).
    func dataFile(itemId: String, version: String, fileName: String, size: Int64?) async throws -> StoredFile?
    /// The data file stored under `version`, whatever its name (a multipart update names the
    /// item's new file before its parts arrive); nil when there is none.
    func dataFile(itemId: String, version: String) async throws -> StoredFile?
    /// Streams `range` (all of it when nil) of a file this store returned to `each`.
    func read(_ file: StoredFile, range: ClosedRange<Int64>?, _ each: (ByteBuffer) async throws -> Void) async throws
    /// Calls `body` with a path on this machine holding the file's bytes: the file itself on
    /// disk, or a temporary copy removed afterwards (for the package validator and SQLite,
    /// which read files by path).
    func withLocalCopy<T: Sendable>(_ file: StoredFile, _ body: (String) async throws -> T) async throws -> T
    /// The file opened for reads in place: on disk the file itself, in a bucket its bytes by
    /// ranged requests (`S3RemoteBytes`), nothing copied.
    func randomAccess(_ file: StoredFile) throws -> RandomAccessFile
    /// Removes one version of the item's data.
    func removeData(itemId: String, version: String) async

    /// Stores an info file (`thumbnail/thumbnail.png`) under the item.
    func putInfo(itemId: String, path: String, bytes: [UInt8]) async throws
    func infoFile(itemId: String, path: String) async throws -> StoredFile?
    /// Removes an info file (an entry patch `portal gc` prunes); nothing when there is none.
    func removeInfo(itemId: String, path: String) async

    /// Stores the local file at `path` as the item's private object `name` (`sync/...`: the
    /// authoritative copy of an editable item and its attachments), never served as a file of
    /// the item.
    func putObject(itemId: String, name: String, from path: String) async throws
    func object(itemId: String, name: String) async throws -> StoredFile?
    func removeObject(itemId: String, name: String) async

    /// Removes everything the item has.
    func remove(itemId: String) async
    /// Removes what no item references: data versions other than those in `keeping` (item id
    /// to the version its record names), parts, info files and objects of items not in it, abandoned
    /// multipart uploads and scratch files, when last written more than `age` seconds ago
    /// (another process may be writing a newer one). Returns how many files or objects went.
    @discardableResult
    func sweep(keeping: [String: String], olderThan age: Int64) async throws -> Int
}

extension ItemFileStore {
    /// An info file's bytes, nil when the item has none at `path` or it is larger than `limit`.
    func infoBytes(itemId: String, path: String, limit: Int64 = 64 << 20) async throws -> [UInt8]? {
        guard let file = try await infoFile(itemId: itemId, path: path), file.size <= limit else { return nil }
        var bytes: [UInt8] = []
        try await read(file, range: nil) { bytes.append(contentsOf: $0.readableBytesView) }
        return bytes
    }

    /// Writes a stored file's bytes to the local file `path` (made or emptied).
    func download(_ file: StoredFile, to path: String) async throws {
        let fd = try Disk.create(path)
        defer { close(fd) }
        try await read(file, range: nil) { try Disk.write($0, to: fd, path: path) }
    }
}
