#if canImport(Glibc)
import Glibc
#endif
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import MapbookTiles
import NIOPosix

/// The Web Map items of a package with a feature service (issue 33, docs/PORTAL.md "Web
/// maps"): one per map of the package, its JSON the map's with the layers pointing at the
/// feature service and the backdrop at the package's vector tile service. Made (and made
/// again) when the package is published; a map the new version no longer has loses its item.
extension Portal {
    /// Marks the items made from package `packageId` (its feature service and web maps).
    static let sourceKeywordPrefix = "mapbookSource:"
    static func sourceKeyword(_ packageId: String) -> String { sourceKeywordPrefix + packageId }
    /// The package an item (a service, a web map) was made from, by its keyword.
    static func madeFrom(_ record: ItemRecord) -> String? {
        record.item.typeKeywords.first { $0.hasPrefix(sourceKeywordPrefix) }.map { String($0.dropFirst(sourceKeywordPrefix.count)) }
    }

    static let webMapType = "Web Map"

    /// The Web Map item of the map entry `entry` of package `packageId`.
    static func webMapItemId(_ packageId: String, entry: String) -> String {
        String(SHA256Digest.hex(of: Array("web-map:\(packageId):\(entry)".utf8)).prefix(32))
    }

    static func vectorTileServiceURL(_ packageId: String, baseURL: String) -> String { "\(baseURL)/rest/services/\(packageId)/VectorTileServer" }

    /// Makes the package's Web Map items from its maps (the package at `local`, on this
    /// machine); removes those of maps it no longer has.
    func updateWebMaps(for record: ItemRecord, package local: String, call: PortalRequest) async throws {
        let packageId = record.item.id
        var made = Set<String>()
        // Without a copy there is no service: `updateServiceItem` removed what was made from it.
        guard try await hasSyncCopy(packageId) else { return }
        do {
            let layers = try await withFeatureService(packageId) { service in
                Dictionary(service.layers.map { ($0.name.lowercased(), $0.id) }, uniquingKeysWith: { a, _ in a })
            }
            let serviceURL = Self.serviceURL(packageId, baseURL: call.baseURL), serviceItem = Self.serviceItemId(packageId)
            let tiles = Self.vectorTileServiceURL(packageId, baseURL: call.baseURL)
            let maps = try await NIOThreadPool.singleton.runIfActive { () throws -> [(entry: String, title: String, json: JSONValue)] in
                let package = try MobileMapPackage(path: local)
                let hasBackdrop = package.archive.entries.contains { $0.name.lowercased().hasSuffix(".vtpk") }
                return try package.mapEntries.map { entry in
                    let map = try package.map(entry)
                    let json = ServiceWebMap.make(
                        from: map.map, layers: layers, serviceURL: serviceURL, serviceItemId: serviceItem, vectorTileServiceURL: hasBackdrop ? tiles : nil)
                    return (entry.name, map.item.title ?? map.displayName, json)
                }
            }
            for map in maps {
                let id = Self.webMapItemId(packageId, entry: map.entry)
                made.insert(id)
                let existing = try await store.item(id)
                let now = TokenService.now()
                var item = existing?.item ?? PortalItem(
                    id: id, owner: record.item.owner, orgId: record.item.orgId, created: now, modified: now, title: map.title, type: Self.webMapType)
                item.typeKeywords = ["ArcGIS Online", "Explorer Web Map", "Map", "Online Map", "Web Map", Self.sourceKeyword(packageId)]
                item.extent = record.item.extent
                if existing == nil {
                    item.snippet = record.item.snippet
                    item.tags = record.item.tags
                    item.access = record.item.access
                    item.ownerFolder = record.item.ownerFolder
                }
                let bytes = JSONWriter.bytes(map.json, style: .compact)
                let staged = try files.stagingFile()
                defer { unlink(staged) }
                try Disk.writeAtomically(bytes, to: staged)
                let upload = UploadedFile(path: staged, name: "webmap.json", size: Int64(bytes.count), sha256: SHA256Digest.hex(of: bytes))
                let pending = ItemRecord(item: item, status: existing?.status ?? .uploading, groups: existing?.groups ?? record.groups, sha256: existing?.sha256, version: existing?.version)
                _ = try await finish(pending, data: upload, fileName: "webmap.json", call: call, isNew: existing == nil)
            }
        }
        try await removeItemsMade(from: packageId, keeping: made.union([Self.serviceItemId(packageId)]))
    }

    /// Removes the items made from the package (its feature service and web maps) but `kept`.
    func removeItemsMade(from packageId: String, keeping kept: Set<String> = []) async throws {
        for made in try await store.items() where made.item.typeKeywords.contains(Self.sourceKeyword(packageId)) && !kept.contains(made.item.id) {
            try await store.deleteItem(made.item.id)
            await files.remove(itemId: made.item.id)
        }
    }
}

extension Portal {
    /// The backdrop of package `packageId` (its first vector tile package) read in place; nil
    /// when it has none.
    func backdrop(_ packageId: String) async throws -> BackdropFiles? {
        guard let record = try await store.item(packageId), let opened = try await openPackage(record) else { return nil }
        return try await NIOThreadPool.singleton.runIfActive { try opened.backdrop() }
    }

    /// The item's package for its current version, opened in place (`OpenPackages`); nil when
    /// it has no data file.
    func openPackage(_ record: ItemRecord) async throws -> OpenPackages.Opened? {
        if let kept = openPackages.kept(id: record.item.id, version: record.dataVersion) { return kept }
        guard let name = record.item.name,
            let file = try await files.dataFile(itemId: record.item.id, version: record.dataVersion, fileName: name, size: nil)
        else { return nil }
        let access = try files.randomAccess(file)
        let opened = try await NIOThreadPool.singleton.runIfActive {
            try self.openPackages.open(id: record.item.id, version: record.dataVersion, modified: record.item.modified) {
                try MobileMapPackage(archive: try ZipArchive(range: ByteRange(file: access), displayPath: name))
            }
        }
        // The item may have been deleted, or given a new version, while this opened: what was
        // kept for it then is let go again (this request, checked before, still gets its answer).
        let now = try await store.item(record.item.id)
        if now?.dataVersion != record.dataVersion { openPackages.forget(record.item.id, version: record.dataVersion) }
        return opened
    }

    /// Lets go of what was kept open of the package.
    func forgetBackdrop(_ packageId: String) {
        openPackages.forget(packageId)
    }
}
