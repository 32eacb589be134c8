import MapbookSupport

/// A named place of a map: `{"name", "extent", "viewpoint"}` (web map specification).
public struct Bookmark: JSONRecord {
    public var name: String?
    public var extent: Envelope?
    public var viewpoint: Viewpoint?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [.string("name", \.name), .model("extent", \.extent), .model("viewpoint", \.viewpoint)]
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
