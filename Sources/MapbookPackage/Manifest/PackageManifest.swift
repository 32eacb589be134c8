import MapbookSupport

/// A package's `Name.info`: Esri's item keys plus `locators`, `expiration` and `mapbook`
/// (DESIGN.md 3.1). Dates are epoch milliseconds, the extent is WGS84.
///
/// Keys it does not model are kept (see `JSONModel`).
public struct PackageManifest: JSONModel {
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

    public init(json: JSONObject) {
        original = json
        name = json.string("name")
        guid = json.string("guid")
        version = json.string("version") ?? json["version"]?.doubleValue.map(JSONWriter.formatNumber)
        created = Self.milliseconds(json["created"])
        modified = Self.milliseconds(json["modified"])
        catalogPath = json.string("catalogpath")
        snippet = json.string("snippet")
        description = json.string("description")
        summary = json.string("summary")
        title = json.string("title")
        tags = json.strings("tags") ?? json.string("tags").map(Self.splitTags)
        type = json.string("type")
        typeKeywords = json.strings("typekeywords")
        maps = json.strings("maps")
        thumbnail = json.string("thumbnail")
        extent = Self.parseExtent(json["extent"])
        spatialReference = json.string("spatialreference")
        minScale = json.double("minScale")
        maxScale = json.double("maxScale")
        accessInformation = json.string("accessinformation")
        licenseInfo = json.string("licenseinfo")
        locators = json.strings("locators") ?? json.string("locators").map { [$0] }
        expiration = json.model("expiration")
        mapbook = json.model("mapbook")
    }

    public init() {
        self.init(json: JSONObject())
    }

    public var json: JSONObject {
        var o = original
        o.set("name", name)
        o.set("guid", guid)
        o.set("version", version)
        o.set("created", created)
        o.set("modified", modified)
        o.set("catalogpath", catalogPath)
        o.set("snippet", snippet)
        o.set("description", description)
        o.set("summary", summary)
        o.set("title", title)
        if let tags, tags != json0Tags { o.set("tags", tags) }
        o.set("type", type)
        o.set("typekeywords", typeKeywords)
        o.set("maps", maps)
        o.set("thumbnail", thumbnail)
        if let extent, extent != Self.parseExtent(original["extent"]) {
            o["extent"] = [[.double(extent.minX), .double(extent.minY)], [.double(extent.maxX), .double(extent.maxY)]]
        }
        o.set("spatialreference", spatialReference)
        o.set("minScale", minScale)
        o.set("maxScale", maxScale)
        o.set("accessinformation", accessInformation)
        o.set("licenseinfo", licenseInfo)
        o.set("locators", locators)
        o.set("expiration", expiration)
        o.set("mapbook", mapbook)
        return o
    }

    // Tags as the original held them, so a comma string is not rewritten as an array.
    private var json0Tags: [String]? {
        original.strings("tags") ?? original.string("tags").map(Self.splitTags)
    }

    /// Parses `.info` bytes.
    public static func parse(_ bytes: [UInt8], path: String) throws(PackageFormatError) -> PackageManifest {
        PackageManifest(json: try JSONParser.parseObject(bytes, path: path))
    }

    package static func splitTags(_ s: String) -> [String] {
        s.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// Reads a date that may be epoch ms as a number or a numeric string.
    static func milliseconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .integer(let i)?: return i
        case .number(let d)?: return Int64(exactly: d.rounded())
        case .string(let s)?: return Int64(s)
        default: return nil
        }
    }

    /// Reads `[[xmin, ymin], [xmax, ymax]]` or `{"xmin", ...}`.
    static func parseExtent(_ value: JSONValue?) -> BoundingBox? {
        if let pairs = value?.arrayValue, pairs.count == 2,
            let a = pairs[0].arrayValue?.compactMap(\.doubleValue), a.count == 2,
            let b = pairs[1].arrayValue?.compactMap(\.doubleValue), b.count == 2
        {
            return BoundingBox(minX: a[0], minY: a[1], maxX: b[0], maxY: b[1])
        }
        if let object = value?.objectValue {
            return Envelope(json: object).bounds
        }
        return nil
    }
}

/// When a package expires and what happens then (DESIGN.md 3.1).
public struct Expiration: JSONModel {
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

    public init(json: JSONObject) {
        original = json
        dateTime = PackageManifest.milliseconds(json["dateTime"])
        type = json.string("type")
        message = json.string("message")
    }

    public init(dateTime: Int64, kind: Kind, message: String?) {
        self.init(json: JSONObject())
        self.dateTime = dateTime
        self.type = kind.rawValue
        self.message = message
    }

    public var kind: Kind? { type.flatMap(Kind.init(rawValue:)) }

    public var json: JSONObject {
        var o = original
        o.set("dateTime", dateTime)
        o.set("type", type)
        o.set("message", message)
        return o
    }
}

/// Mapbook's own section of `.info`: the format version, the data folder and the size and
/// SHA-256 of every other entry, for integrity checks.
public struct MapbookSection: JSONModel {
    public var formatVersion: Int?
    /// The folder holding maps and data (`p20`).
    public var folder: String?
    public var generator: String?
    public var original: JSONObject

    public static let currentFormatVersion = 1

    public init(json: JSONObject) {
        original = json
        formatVersion = json.int("formatVersion")
        folder = json.string("folder")
        generator = json.string("generator")
    }

    /// `entries` in archive order.
    public init(folder: String, generator: String, entries: [(String, EntryDigest)]) {
        self.init(json: JSONObject())
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

    public var json: JSONObject {
        var o = original
        o.set("formatVersion", formatVersion)
        o.set("folder", folder)
        o.set("generator", generator)
        return o
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
