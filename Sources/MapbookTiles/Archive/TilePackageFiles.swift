import MapbookPackage
import MapbookSupport

/// The resources of a tile package (style, sprites, fonts), by their path under the
/// package's root folder.
public struct TilePackageFiles: Sendable {
    public let archive: ZipArchive
    /// The folder holding `root.json` and `resources/`, with a trailing `/` (or empty).
    public let prefix: String

    public init(_ package: TilePackage) {
        archive = package.archive
        let folder = FileSystem.parent(of: package.rootEntryName)
        prefix = folder == "." || folder.isEmpty ? "" : folder + "/"
    }

    /// A file under `resources/`; nil when the package has none there.
    public func resource(_ path: String) throws -> [UInt8]? {
        try file("resources/" + path)
    }

    /// A file under the package's root folder (`root.json`, `resources/...`); nil when none.
    public func file(_ path: String) throws -> [UInt8]? {
        guard !path.split(separator: "/").contains(".."), let entry = archive.entry(named: prefix + path) else { return nil }
        return try archive.read(entry, limit: 64 << 20)
    }
}
