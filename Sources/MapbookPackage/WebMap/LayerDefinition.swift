import MapbookSupport

/// A layer's definition inside a web map: a filter, scale range and drawing info.
public struct LayerDefinition: JSONModel {
    public var definitionExpression: String?
    public var minScale: Double?
    public var maxScale: Double?
    public var drawingInfo: DrawingInfo?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        definitionExpression = json.string("definitionExpression")
        minScale = json.double("minScale")
        maxScale = json.double("maxScale")
        drawingInfo = json.model("drawingInfo")
    }

    public init(drawingInfo: DrawingInfo?, definitionExpression: String? = nil) {
        self.init(json: JSONObject())
        self.drawingInfo = drawingInfo
        self.definitionExpression = definitionExpression
    }

    public var json: JSONObject {
        var o = original
        o.set("definitionExpression", definitionExpression)
        o.set("minScale", minScale)
        o.set("maxScale", maxScale)
        o.set("drawingInfo", drawingInfo)
        return o
    }
}
