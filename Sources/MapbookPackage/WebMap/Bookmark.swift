import MapbookSupport

/// A named place of a map: `{"name", "extent", "viewpoint"}` (web map specification).
public struct Bookmark: JSONRecord {
    public var name: String?
    public var extent: Envelope?
    public var viewpoint: Viewpoint?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .string("name", { $0.name }, { $0.name = $1 }),
            .model("extent", { $0.extent }, { $0.extent = $1 }),
            .model("viewpoint", { $0.viewpoint }, { $0.viewpoint = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(name: String, extent: Envelope?, viewpoint: Viewpoint?) {
        self.init(original: JSONObject())
        self.name = name
        self.extent = extent
        self.viewpoint = viewpoint
    }

    /// The rectangle the bookmark shows: its extent, or its viewpoint's target extent.
    public var effectiveExtent: Envelope? {
        extent ?? viewpoint?.targetExtent
    }
}
