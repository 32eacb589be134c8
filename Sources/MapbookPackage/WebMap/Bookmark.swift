import MapbookSupport

/// A named place of a map: `{"name", "extent", "viewpoint"}` (web map specification).
public struct Bookmark: JSONModel {
    public var name: String?
    public var extent: Envelope?
    public var viewpoint: Viewpoint?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        name = json.string("name")
        extent = json.model("extent")
        viewpoint = json.model("viewpoint")
    }

    public init(name: String, extent: Envelope?, viewpoint: Viewpoint?) {
        self.init(json: JSONObject())
        self.name = name
        self.extent = extent
        self.viewpoint = viewpoint
    }

    public var json: JSONObject {
        var o = original
        o.set("name", name)
        o.set("extent", extent)
        o.set("viewpoint", viewpoint)
        return o
    }

    /// The rectangle the bookmark shows: its extent, or its viewpoint's target extent.
    public var effectiveExtent: Envelope? {
        extent ?? viewpoint?.targetExtent
    }
}
