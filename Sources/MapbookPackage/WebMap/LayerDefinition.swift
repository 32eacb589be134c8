import MapbookSupport

/// A layer's definition inside a web map: a filter, scale range and drawing info.
public struct LayerDefinition: JSONRecord {
    public var definitionExpression: String?
    public var minScale: Double?
    public var maxScale: Double?
    public var drawingInfo: DrawingInfo?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .string("definitionExpression", { $0.definitionExpression }, { $0.definitionExpression = $1 }),
            .double("minScale", { $0.minScale }, { $0.minScale = $1 }),
            .double("maxScale", { $0.maxScale }, { $0.maxScale = $1 }),
            .model("drawingInfo", { $0.drawingInfo }, { $0.drawingInfo = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(drawingInfo: DrawingInfo?, definitionExpression: String? = nil) {
        self.init(original: JSONObject())
        self.drawingInfo = drawingInfo
        self.definitionExpression = definitionExpression
    }
}
