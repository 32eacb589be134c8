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
            .string("definitionExpression", \.definitionExpression), .double("minScale", \.minScale),
            .double("maxScale", \.maxScale), .model("drawingInfo", \.drawingInfo),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(drawingInfo: DrawingInfo?, definitionExpression: String? = nil) {
        self.init(original: JSONObject())
        self.drawingInfo = drawingInfo
        self.definitionExpression = definitionExpression
    }
}
