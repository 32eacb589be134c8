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
            .string("guid", \.guid), .string("name", \.name), .string("title", \.title), .string("snippet", \.snippet),
            .string("summary", \.summary), .string("description", \.description), .string("type", \.type),
            .strings("tags", \.tags), .model("extent", \.extent), .model("spatialReference", \.spatialReference),
            .string("thumbnail", \.thumbnail),
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
