import MapbookSupport

/// The item description of one map in a package: the `item` half of a `.mmap`.
public struct MapItem: JSONModel {
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

    public init(json: JSONObject) {
        original = json
        guid = json.string("guid")
        name = json.string("name")
        title = json.string("title")
        snippet = json.string("snippet")
        summary = json.string("summary")
        description = json.string("description")
        type = json.string("type")
        tags = json.strings("tags")
        extent = json.model("extent")
        spatialReference = json.model("spatialReference")
        thumbnail = json.string("thumbnail")
    }

    public init(guid: String, name: String, title: String) {
        self.init(json: JSONObject())
        self.guid = guid
        self.name = name
        self.title = title
        self.type = "Mobile Map"
    }

    public var json: JSONObject {
        var o = original
        o.set("guid", guid)
        o.set("name", name)
        o.set("title", title)
        o.set("snippet", snippet)
        o.set("summary", summary)
        o.set("description", description)
        o.set("type", type)
        o.set("tags", tags)
        o.set("extent", extent)
        o.set("spatialReference", spatialReference)
        o.set("thumbnail", thumbnail)
        return o
    }
}
