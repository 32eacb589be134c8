import MapbookPackage
import MapbookSupport

/// What the library knows about a downloaded package: the sidecar `<itemId>.json` beside
/// `<itemId>.mmpk` (docs/LIBRARY.md).
///
/// The update check compares the portal item's `modified` with `itemModifiedAtDownload`, not
/// with the file's timestamp, which copying or restoring a backup changes (DESIGN.md section 7).
public struct DownloadRecord: Sendable, Equatable {
    /// The portal the package came from, as `DeviceLibrary.normalizedPortalURL` gives it.
    public var portalUrl: String
    public var itemId: String
    /// The item's title when it was downloaded.
    public var title: String
    /// The portal item's `modified` (epoch ms) when it was downloaded.
    public var itemModifiedAtDownload: Int64
    /// When the download finished (epoch ms).
    public var downloadedAt: Int64
    /// The package's size in bytes.
    public var size: Int64
    /// The package's SHA-256, lowercase hex.
    public var sha256: String
    /// The `ETag` the portal sent with the data, to resume a later download against.
    public var etag: String?

    public init(
        portalUrl: String, itemId: String, title: String, itemModifiedAtDownload: Int64, downloadedAt: Int64, size: Int64,
        sha256: String, etag: String? = nil
    ) {
        self.portalUrl = portalUrl
        self.itemId = itemId
        self.title = title
        self.itemModifiedAtDownload = itemModifiedAtDownload
        self.downloadedAt = downloadedAt
        self.size = size
        self.sha256 = sha256
        self.etag = etag
    }

    /// Whether the portal item, now modified at `itemModified` (epoch ms), is newer than the
    /// package downloaded.
    public func updateAvailable(itemModified: Int64) -> Bool {
        itemModified > itemModifiedAtDownload
    }

    public var jsonValue: JSONValue {
        .object([
            "portalUrl": .string(portalUrl),
            "itemId": .string(itemId),
            "title": .string(title),
            "itemModifiedAtDownload": .integer(itemModifiedAtDownload),
            "downloadedAt": .integer(downloadedAt),
            "size": .integer(size),
            "sha256": .string(sha256),
            "etag": etag.map(JSONValue.string) ?? .null,
        ])
    }

    /// Reads a record, checking every field; `path` names the sidecar in errors.
    public init(json: JSONValue, path: String) throws(LibraryError) {
        guard let o = json.objectValue else {
            throw LibraryError(kind: .invalidRecord, path: path, message: "a download record must be a JSON object, not \(json.kindName)")
        }
        func missing(_ key: String, _ what: String) -> LibraryError {
            LibraryError(kind: .invalidRecord, path: path, message: "the download record has no valid '\(key)' (\(what))")
        }
        guard let portalUrl = o.string("portalUrl"), !portalUrl.isEmpty else { throw missing("portalUrl", "the portal's URL") }
        guard let itemId = o.string("itemId") else { throw missing("itemId", "a string") }
        try ItemID.check(itemId, from: path)
        guard let modified = o.int64("itemModifiedAtDownload") else { throw missing("itemModifiedAtDownload", "epoch milliseconds") }
        guard let downloadedAt = o.int64("downloadedAt") else { throw missing("downloadedAt", "epoch milliseconds") }
        guard let size = o.int64("size"), size >= 0 else { throw missing("size", "a byte count") }
        guard let sha256 = o.string("sha256"), SHA256Digest.isHex(sha256) else { throw missing("sha256", "64 lowercase hex digits") }
        let etag: String?
        switch o["etag"] {
        case nil, .null?: etag = nil
        case .string(let s)?: etag = s
        default: throw missing("etag", "a string or null")
        }
        self.init(
            portalUrl: portalUrl, itemId: itemId, title: o.string("title") ?? "", itemModifiedAtDownload: modified,
            downloadedAt: downloadedAt, size: size, sha256: sha256, etag: etag)
    }
}
