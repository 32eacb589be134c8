import MapbookSupport

/// How a layer draws: its renderer, labels and transparency.
public struct DrawingInfo: JSONRecord {
    public var renderer: Renderer?
    public var labelingInfo: [JSONValue]?
    public var transparency: Double?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [.model("renderer", \.renderer), .array("labelingInfo", \.labelingInfo), .double("transparency", \.transparency)]
    }

    public init(original: JSONObject) { self.original = original }

    public init(renderer: Renderer) {
        self.init(original: JSONObject())
        self.renderer = renderer
    }

    /// The label classes of `labelingInfo`, in order (non-object entries are skipped).
    public var labelClasses: [LabelClass] {
        (labelingInfo ?? []).compactMap { $0.objectValue.map(LabelClass.init(json:)) }
    }
}
