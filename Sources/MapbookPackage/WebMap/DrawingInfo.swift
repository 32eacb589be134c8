import MapbookSupport

/// How a layer draws: its renderer, labels and transparency.
public struct DrawingInfo: JSONRecord {
    public var renderer: Renderer?
    public var labelingInfo: [JSONValue]?
    public var transparency: Double?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .model("renderer", { $0.renderer }, { $0.renderer = $1 }),
            .array("labelingInfo", { $0.labelingInfo }, { $0.labelingInfo = $1 }),
            .double("transparency", { $0.transparency }, { $0.transparency = $1 }),
        ]
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
