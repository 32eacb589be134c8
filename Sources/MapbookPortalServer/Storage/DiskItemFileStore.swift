#if canImport(Glibc)
import Glibc
#endif

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
        guard PortalPaths.isItemId(id) else { throw PortalStoreError(path: root, message: "'\(id)' is not an item id") }
        return "\(root)/items/\(id)"
    }

    public func stagingFile() throws -> String {
        var template = Array("\(root)/staging/upload-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw PortalStoreError(path: "\(root)/staging", message: "cannot create a staging file: \(Disk.errorMessage())") }
        close(fd)
        return String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    public func commitData(itemId: String, fileName: String, staged: String) throws {
        guard PortalPaths.isFileName(fileName) else { throw PortalStoreError(path: root, message: "'\(fileName)' is not a file name") }
        let dir = try itemDir(itemId)
        try Disk.makeDirectory(dir)
        // The new data goes in beside the old under a fresh folder, then the folder is swapped:
        // a reader sees the old file or the new one, never none.
        let next = "\(dir)/data.next"
        Disk.removeTree(next)
        try Disk.makeDirectory(next)
        guard rename(staged, "\(next)/\(fileName)") == 0 else {
            throw PortalStoreError(path: staged, message: "cannot move the upload into place: \(Disk.errorMessage())")
        }
        let old = "\(dir)/data.old"
        Disk.removeTree(old)
        if Disk.exists("\(dir)/data"), rename("\(dir)/data", old) != 0 {
            throw PortalStoreError(path: dir, message: "cannot replace the item's data: \(Disk.errorMessage())")
        }
        guard rename(next, "\(dir)/data") == 0 else {
            throw PortalStoreError(path: dir, message: "cannot replace the item's data: \(Disk.errorMessage())")
        }
        Disk.removeTree(old)
    }

    public func dataFile(itemId: String) -> StoredFile? {
        guard let dir = try? itemDir(itemId), let name = Disk.list("\(dir)/data").first else { return nil }
        return Disk.stored("\(dir)/data/\(name)", name: name)
    }

    public func putInfo(itemId: String, path: String, bytes: [UInt8]) throws {
        guard PortalPaths.isInfoPath(path) else { throw PortalStoreError(path: root, message: "'\(path)' is not an info file path") }
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
            throw PortalStoreError(path: root, message: "part \(number) of '\(itemId)' is out of range (1-10000)")
        }
        let dir = "\(root)/uploads/\(itemId)"
        try Disk.makeDirectory(dir)
        return "\(dir)/\(number)"
    }

    public func parts(itemId: String) -> [Int] {
        guard PortalPaths.isItemId(itemId) else { return [] }
        return Disk.list("\(root)/uploads/\(itemId)").compactMap { Int($0) }.sorted()
    }

    public func removeParts(itemId: String) {
        guard PortalPaths.isItemId(itemId) else { return }
        Disk.removeTree("\(root)/uploads/\(itemId)")
    }

    public func remove(itemId: String) {
        guard let dir = try? itemDir(itemId) else { return }
        Disk.removeTree(dir)
        removeParts(itemId: itemId)
    }

    public func removeLeftovers(keeping: Set<String>) {
        for name in Disk.list("\(root)/staging") { Disk.removeTree("\(root)/staging/\(name)") }
        for id in Disk.list("\(root)/uploads") where !keeping.contains(id) { Disk.removeTree("\(root)/uploads/\(id)") }
        for id in Disk.list("\(root)/items") where !keeping.contains(id) { Disk.removeTree("\(root)/items/\(id)") }
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

/// The few file-system calls the disk store needs.
enum Disk {
    static func errorMessage() -> String { String(cString: strerror(errno)) }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw PortalStoreError(path: path, message: "cannot create the folder: \(errorMessage())")
        }
    }

    /// The names in a folder, sorted; none when it is missing.
    static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    static func stored(_ path: String, name: String) -> StoredFile? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return StoredFile(path: path, name: name, size: Int64(st.st_size), modified: Int64(st.st_mtim.tv_sec))
    }

    /// Removes a file, or a folder and all in it (symbolic links are removed, not followed).
    static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for child in list(path) { removeTree("\(path)/\(child)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let temp = path + ".tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PortalStoreError(path: path, message: "cannot write: \(errorMessage())") }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                close(fd)
                unlink(temp)
                throw PortalStoreError(path: path, message: "cannot write: \(errorMessage())")
            }
            done += n
        }
        fsync(fd)
        close(fd)
        guard rename(temp, path) == 0 else {
            unlink(temp)
            throw PortalStoreError(path: path, message: "cannot write: \(errorMessage())")
        }
    }
}
