#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport

/// Item files in folders of the data directory:
///
///     items/<id>/data/<file name>      the item's data
///     items/<id>/info/<path>           info files (thumbnail/thumbnail.png)
///     uploads/<id>/<part number>       parts of an upload in progress
///     staging/                         files being written
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

    public func stagingFile() throws -> String {
        var template = Array("\(root)/staging/upload-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw PortalStoreError(kind: .io(errno: errno), path: "\(root)/staging", message: "cannot create a staging file: \(FileSystem.errorMessage())") }
        close(fd)
        return String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    public func commitData(itemId: String, fileName: String, staged: String) throws {
        guard PortalPaths.isFileName(fileName) else { throw PortalStoreError(kind: .invalidName, path: root, message: "'\(fileName)' is not a file name") }
        let dir = try itemDir(itemId)
        try Disk.makeDirectory(dir)
        // The new data goes in beside the old under a fresh folder, then the folder is swapped:
        // a reader sees the old file or the new one, never none.
        let next = "\(dir)/data.next"
        FileSystem.removeTree(next)
        try Disk.makeDirectory(next)
        guard rename(staged, "\(next)/\(fileName)") == 0 else {
            throw PortalStoreError(kind: .io(errno: errno), path: staged, message: "cannot move the upload into place: \(FileSystem.errorMessage())")
        }
        let old = "\(dir)/data.old"
        FileSystem.removeTree(old)
        if FileSystem.kind("\(dir)/data") != nil, rename("\(dir)/data", old) != 0 {
            throw PortalStoreError(kind: .io(errno: errno), path: dir, message: "cannot replace the item's data: \(FileSystem.errorMessage())")
        }
        guard rename(next, "\(dir)/data") == 0 else {
            throw PortalStoreError(kind: .io(errno: errno), path: dir, message: "cannot replace the item's data: \(FileSystem.errorMessage())")
        }
        FileSystem.removeTree(old)
    }

    public func dataFile(itemId: String) -> StoredFile? {
        guard let dir = try? itemDir(itemId), let name = FileSystem.names(in: "\(dir)/data").first else { return nil }
        return Disk.stored("\(dir)/data/\(name)", name: name)
    }

    public func putInfo(itemId: String, path: String, bytes: [UInt8]) throws {
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

    public func infoFile(itemId: String, path: String) -> StoredFile? {
        guard PortalPaths.isInfoPath(path), let dir = try? itemDir(itemId) else { return nil }
        return Disk.stored("\(dir)/info/\(path)", name: String(path.split(separator: "/").last ?? ""))
    }

    public func partPath(itemId: String, number: Int) throws -> String {
        guard PortalPaths.isItemId(itemId), number >= 1, number <= 10_000 else {
            throw PortalStoreError(kind: .partOutOfRange, path: root, message: "part \(number) of '\(itemId)' is out of range (1-10000)")
        }
        let dir = "\(root)/uploads/\(itemId)"
        try Disk.makeDirectory(dir)
        return "\(dir)/\(number)"
    }

    public func parts(itemId: String) -> [Int] {
        guard PortalPaths.isItemId(itemId) else { return [] }
        return FileSystem.names(in: "\(root)/uploads/\(itemId)").compactMap { Int($0) }.sorted()
    }

    public func removeParts(itemId: String) {
        guard PortalPaths.isItemId(itemId) else { return }
        FileSystem.removeTree("\(root)/uploads/\(itemId)")
    }

    public func remove(itemId: String) {
        guard let dir = try? itemDir(itemId) else { return }
        FileSystem.removeTree(dir)
        removeParts(itemId: itemId)
    }

    public func removeLeftovers(keeping: Set<String>) {
        for name in FileSystem.names(in: "\(root)/staging") { FileSystem.removeTree("\(root)/staging/\(name)") }
        for id in FileSystem.names(in: "\(root)/uploads") where !keeping.contains(id) { FileSystem.removeTree("\(root)/uploads/\(id)") }
        for id in FileSystem.names(in: "\(root)/items") where !keeping.contains(id) { FileSystem.removeTree("\(root)/items/\(id)") }
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
    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw PortalStoreError(kind: .io(errno: errno), path: path, message: "cannot create the folder: \(FileSystem.errorMessage())")
        }
    }

    static func stored(_ path: String, name: String) -> StoredFile? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return StoredFile(path: path, name: name, size: Int64(st.st_size), modified: Int64(st.st_mtim.tv_sec))
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
