import MapbookSupport

/// A package's `Name.info`: Esri's item keys plus `locators`, `expiration` and `mapbook`
/// (DESIGN.md 3.1). Dates are epoch milliseconds, the extent is WGS84.
///
/// Keys it does not model are kept (see `JSONModel`).
public struct PackageManifest: JSONRecord {
    public var name: String?
    public var guid: String?
    public var version: String?
    public var created: Int64?
    public var modified: Int64?
    public var catalogPath: String?
    public var snippet: String?
    public var description: String?
    public var summary: String?
    public var title: String?
    public var tags: [String]?
    public var type: String?
    public var typeKeywords: [String]?
    /// The maps, in order: names of `.mmap` files (without extension) in the package folder.
    public var maps: [String]?
    /// The package thumbnail as a data URI.
    public var thumbnail: String?
    /// WGS84 extent, written `[[xmin, ymin], [xmax, ymax]]`.
    public var extent: BoundingBox?
    public var spatialReference: String?
    public var minScale: Double?
    public var maxScale: Double?
    public var accessInformation: String?
    public var licenseInfo: String?
    /// The package's locator: entry paths, normally one composite locator.
    public var locators: [String]?
    public var expiration: Expiration?
    public var mapbook: MapbookSection?
    public var original: JSONObject

    public static let mobileMapPackageType = "Mobile Map Package"

    public static var properties: [JSONProperty<Self>] {
        [
            .string("name", { $0.name }, { $0.name = $1 }), .string("guid", { $0.guid }, { $0.guid = $1 }),
            .string("version", { $0.version }, { $0.version = $1 }, from: { $0.stringValue ?? $0.doubleValue.map(JSONWriter.formatNumber) }),
            .int64("created", { $0.created }, { $0.created = $1 }, from: Self.milliseconds),
            .int64("modified", { $0.modified }, { $0.modified = $1 }, from: Self.milliseconds),
            .string("catalogpath", { $0.catalogPath }, { $0.catalogPath = $1 }),
            .string("snippet", { $0.snippet }, { $0.snippet = $1 }),
            .string("description", { $0.description }, { $0.description = $1 }),
            .string("summary", { $0.summary }, { $0.summary = $1 }), .string("title", { $0.title }, { $0.title = $1 }),
            // A comma-separated string stays one unless the tags change.
            JSONProperty(
                "tags", { $0.tags }, { $0.tags = $1 }, kind: .array(.string),
                from: { $0.stringsValue ?? $0.stringValue.map(Self.splitTags) },
                to: { .array($0.map(JSONValue.string)) }, keepingEquivalent: true),
            .string("type", { $0.type }, { $0.type = $1 }),
            .strings("typekeywords", { $0.typeKeywords }, { $0.typeKeywords = $1 }),
            .strings("maps", { $0.maps }, { $0.maps = $1 }),
            .string("thumbnail", { $0.thumbnail }, { $0.thumbnail = $1 }),
            // An extent written as an envelope object stays one unless it changes.
            JSONProperty(
                "extent", { $0.extent }, { $0.extent = $1 },
                kind: .tuple([.tuple([.number, .number]), .tuple([.number, .number])]), from: Self.parseExtent,
                to: { [[.double($0.minX), .double($0.minY)], [.double($0.maxX), .double($0.maxY)]] }, keepingEquivalent: true),
            .string("spatialreference", { $0.spatialReference }, { $0.spatialReference = $1 }),
            .double("minScale", { $0.minScale }, { $0.minScale = $1 }),
            .double("maxScale", { $0.maxScale }, { $0.maxScale = $1 }),
            .string("accessinformation", { $0.accessInformation }, { $0.accessInformation = $1 }),
            .string("licenseinfo", { $0.licenseInfo }, { $0.licenseInfo = $1 }),
            .strings("locators", { $0.locators }, { $0.locators = $1 }, from: { $0.stringsValue ?? $0.stringValue.map { [$0] } }),
            .model("expiration", { $0.expiration }, { $0.expiration = $1 }),
            .model("mapbook", { $0.mapbook }, { $0.mapbook = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init() {
        self.init(original: JSONObject())
    }

    /// Parses `.info` bytes.
    public static func parse(_ bytes: [UInt8], path: String) throws(PackageFormatError) -> PackageManifest {
        PackageManifest(json: try JSONParser.parseObject(bytes, path: path))
    }

    package static func splitTags(_ s: String) -> [String] {
        s.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// Reads a date that may be epoch ms as a number or a numeric string.
    static func milliseconds(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let i): return i
        case .number(let d): return Int64(exactly: d.rounded())
        case .string(let s): return Int64(s)
        default: return nil
        }
    }

    /// Reads `[[xmin, ymin], [xmax, ymax]]` or `{"xmin", ...}`.
    static func parseExtent(_ value: JSONValue) -> BoundingBox? {
        if let pairs = value.arrayValue, pairs.count == 2,
            let a = pairs[0].arrayValue?.compactMap({ $0.doubleValue }), a.count == 2,
            let b = pairs[1].arrayValue?.compactMap({ $0.doubleValue }), b.count == 2
        {
            return BoundingBox(minX: a[0], minY: a[1], maxX: b[0], maxY: b[1])
        }
        if let object = value.objectValue {
            return Envelope(json: object).bounds
        }
        return nil
    }
}

/// When a package expires and what happens then (DESIGN.md 3.1).
public struct Expiration: JSONRecord {
    public enum Kind: String, Sendable, CaseIterable {
        /// Warn, but let the user open the package.
        case allowExpiredAccess
        /// Refuse to open the package once expired.
        case preventExpiredAccess
    }

    /// Epoch milliseconds.
    public var dateTime: Int64?
    /// The raw `type`; see `kind`.
    public var type: String?
    public var message: String?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .int64("dateTime", { $0.dateTime }, { $0.dateTime = $1 }, from: PackageManifest.milliseconds),
            .string("type", { $0.type }, { $0.type = $1 }),
            .string("message", { $0.message }, { $0.message = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(dateTime: Int64, kind: Kind, message: String?) {
        self.init(original: JSONObject())
        self.dateTime = dateTime
        self.type = kind.rawValue
        self.message = message
    }

    public var kind: Kind? { type.flatMap(Kind.init(rawValue:)) }
}

/// Mapbook's own section of `.info`: the format version, the data folder and the size and
/// SHA-256 of every other entry, for integrity checks.
public struct MapbookSection: JSONRecord {
    public var formatVersion: Int?
    /// The folder holding maps and data (`p20`).
    public var folder: String?
    public var generator: String?
    public var original: JSONObject

    public static let currentFormatVersion = 1

    public static var properties: [JSONProperty<Self>] {
        [
            .int("formatVersion", { $0.formatVersion }, { $0.formatVersion = $1 }),
            .string("folder", { $0.folder }, { $0.folder = $1 }),
            .string("generator", { $0.generator }, { $0.generator = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    /// `entries` in archive order.
    public init(folder: String, generator: String, entries: [(String, EntryDigest)]) {
        self.init(original: JSONObject())
        self.formatVersion = Self.currentFormatVersion
        self.folder = folder
        self.generator = generator
        var ordered = JSONObject()
        for (path, digest) in entries {
            ordered[path] = ["size": .integer(digest.size ?? 0), "sha256": .string(digest.sha256 ?? "")]
        }
        original["entries"] = .object(ordered)
    }

    /// Entry path -> size and hash, decoded when asked for: opening a package does not need
    /// them, and a large package lists tens of thousands.
    public var entries: [String: EntryDigest]? {
        guard let object = original.object("entries") else { return nil }
        var map: [String: EntryDigest] = [:]
        map.reserveCapacity(object.count)
        for (path, value) in object {
            guard let o = value.objectValue else { continue }
            map[path] = EntryDigest(size: o.int64("size"), sha256: o.string("sha256"))
        }
        return map
    }
}

/// The recorded size and SHA-256 (lowercase hex) of one entry.
public struct EntryDigest: Sendable, Hashable {
    public var size: Int64?
    public var sha256: String?

    public init(size: Int64?, sha256: String?) {
        self.size = size
        self.sha256 = sha256
    }
}
