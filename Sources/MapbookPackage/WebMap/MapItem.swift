import MapbookSupport

/// The item description of one map in a package: the `item` half of a `.mmap`.
public struct MapItem: JSONRecord {
    public var guid: String?
    public var name: String?
    public var title: String?
    public var snippet: String?
    public var summary: String?
    public var description: String?
    public var type: String?
    public var tags: [String]?
    public var extent: Envelope?
    public var spatialReference: SpatialReference?
    /// A data URI (`data:image/png;base64,...`) or a path inside the package.
    public var thumbnail: String?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .string("guid", { $0.guid }, { $0.guid = $1 }),
            .string("name", { $0.name }, { $0.name = $1 }),
            .string("title", { $0.title }, { $0.title = $1 }),
            .string("snippet", { $0.snippet }, { $0.snippet = $1 }),
            .string("summary", { $0.summary }, { $0.summary = $1 }),
            .string("description", { $0.description }, { $0.description = $1 }),
            .string("type", { $0.type }, { $0.type = $1 }),
            .strings("tags", { $0.tags }, { $0.tags = $1 }),
            .model("extent", { $0.extent }, { $0.extent = $1 }),
            .model("spatialReference", { $0.spatialReference }, { $0.spatialReference = $1 }),
            .string("thumbnail", { $0.thumbnail }, { $0.thumbnail = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(guid: String, name: String, title: String) {
        self.init(original: JSONObject())
        self.guid = guid
        self.name = name
        self.title = title
        self.type = "Mobile Map"
    }
}
