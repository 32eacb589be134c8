import MapbookPackage
import MapbookSupport
import Synchronization

/// What a package item's page shows of the package itself: its maps with their layers,
/// bookmarks and thumbnails, its locators and its expiration, read once per stored version.
struct PackageSummary: Sendable {
    struct Map: Sendable {
        var name: String
        var snippet: String?
        var layers: [String]
        var bookmarks: [String]
        /// The map's thumbnail as image bytes (the map item carries it as a data URI).
        var thumbnail: [UInt8]?
    }

    var maps: [Map]
    var locators: [String]
    var expiration: Expiration?

    /// Reads an opened package.
    init(package: MobileMapPackage) throws {
        maps = try package.mapEntries.map { entry in
            let map = try package.map(entry)
            func titles(_ layers: [OperationalLayer]?) -> [String] {
                (layers ?? []).flatMap { layer in [layer.title ?? "Untitled layer"] + titles(layer.layers).map { "\(layer.title ?? "") / \($0)" } }
            }
            return Map(
                name: map.item.title ?? map.displayName, snippet: (map.item.snippet ?? map.item.summary).map { HTMLText.plain($0, collapsing: true) },
                layers: titles(map.map.operationalLayers), bookmarks: (map.map.bookmarks ?? []).map { $0.name ?? "Untitled bookmark" },
                thumbnail: map.item.thumbnail.flatMap(DataURI.decode))
        }
        locators = (package.manifest.locators ?? []).map { FileSystem.lastComponent($0) }
        expiration = package.manifest.expiration
    }
}

/// Package summaries by item id, for the version read; a new version is read again.
final class PackageSummaries: Sendable {
    private let kept = Mutex<[String: (version: String, summary: PackageSummary)]>([:])
    static let capacity = 256

    func summary(id: String, version: String) -> PackageSummary? {
        kept.withLock { $0[id] }.flatMap { $0.version == version ? $0.summary : nil }
    }

    func keep(_ summary: PackageSummary, id: String, version: String) {
        kept.withLock { kept in
            if kept.count >= Self.capacity, kept[id] == nil, let any = kept.keys.first { kept[any] = nil }
            kept[id] = (version, summary)
        }
    }
}
