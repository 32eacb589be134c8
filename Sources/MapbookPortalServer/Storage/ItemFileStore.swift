/// A file the store holds for an item.
public struct StoredFile: Sendable, Equatable {
    /// Where it can be read.
    public var path: String
    public var name: String
    public var size: Int64
    /// Seconds since the epoch.
    public var modified: Int64
}

/// Where the portal keeps item files: each item's data file, its info files (the thumbnail)
/// and the parts of uploads in progress.
///
/// Behind a protocol so an object store can follow the disk (DESIGN.md section 7). Uploads are
/// written to a staging file first and moved into place only when complete, so a reader never
/// sees half a file.
public protocol ItemFileStore: Sendable {
    /// A new, empty staging file for an upload; commit it or remove it.
    func stagingFile() throws -> String
    /// Makes a staged file the item's data, replacing any earlier one in one step.
    func commitData(itemId: String, fileName: String, staged: String) throws
    func dataFile(itemId: String) -> StoredFile?
    /// Stores an info file (`thumbnail/thumbnail.png`) under the item.
    func putInfo(itemId: String, path: String, bytes: [UInt8]) throws
    func infoFile(itemId: String, path: String) -> StoredFile?
    /// Where part `number` (1-based) of an upload in progress goes.
    func partPath(itemId: String, number: Int) throws -> String
    /// The part numbers written so far, in order.
    func parts(itemId: String) -> [Int]
    func removeParts(itemId: String)
    /// Removes everything the item has.
    func remove(itemId: String)
    /// Removes staging files and parts left behind by a server that stopped mid-upload.
    func removeLeftovers(keeping: Set<String>)
}
