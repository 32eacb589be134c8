import MapbookSupport

/// How a layer draws: its renderer, labels and transparency.
public struct DrawingInfo: JSONModel {
    public var renderer: Renderer?
    public var labelingInfo: [JSONValue]?
    public var transparency: Double?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        renderer = json.model("renderer")
        labelingInfo = json.array("labelingInfo")
        transparency = json.double("transparency")
    }

    public init(renderer: Renderer) {
        self.init(json: JSONObject())
        self.renderer = renderer
    }

    /// The label classes of `labelingInfo`, in order (non-object entries are skipped).
    public var labelClasses: [LabelClass] {
        (labelingInfo ?? []).compactMap { $0.objectValue.map(LabelClass.init(json:)) }
    }

    public var json: JSONObject {
        var o = original
        o.set("renderer", renderer)
        o.set("labelingInfo", labelingInfo.map(JSONValue.array))
        o.set("transparency", transparency)
        return o
    }
}
