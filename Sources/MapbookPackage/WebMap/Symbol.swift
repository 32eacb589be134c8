import MapbookSupport

/// A web map symbol (`esriSMS`, `esriSLS`, `esriSFS`, `esriPMS`), or any other kind kept as is.
public enum Symbol: JSONModel {
    case simpleMarker(SimpleMarkerSymbol)
    case simpleLine(SimpleLineSymbol)
    case simpleFill(SimpleFillSymbol)
    case pictureMarker(PictureMarkerSymbol)
    /// A symbol type this toolkit does not model (text, CIM, 3D); kept unchanged.
    case other(JSONObject)

    public init(json: JSONObject) {
        switch json.string("type") {
        case "esriSMS": self = .simpleMarker(SimpleMarkerSymbol(json: json))
        case "esriSLS": self = .simpleLine(SimpleLineSymbol(json: json))
        case "esriSFS": self = .simpleFill(SimpleFillSymbol(json: json))
        case "esriPMS": self = .pictureMarker(PictureMarkerSymbol(json: json))
        default: self = .other(json)
        }
    }

    public var json: JSONObject {
        switch self {
        case .simpleMarker(let s): return s.json
        case .simpleLine(let s): return s.json
        case .simpleFill(let s): return s.json
        case .pictureMarker(let s): return s.json
        case .other(let o): return o
        }
    }

    public var typeName: String? { json.string("type") }
}

/// An RGBA colour as web maps write it: four integers 0-255.
public struct RGBAColor: Sendable, Hashable, CustomStringConvertible {
    public var red: Int
    public var green: Int
    public var blue: Int
    public var alpha: Int

    public init(red: Int, green: Int, blue: Int, alpha: Int = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Reads `[r, g, b]` or `[r, g, b, a]`.
    public init?(_ value: JSONValue?) {
        guard let items = value?.arrayValue, items.count == 3 || items.count == 4 else { return nil }
        let channels = items.compactMap(\.doubleValue)
        // Channels are 0-255; anything else is not a colour (and must not trap on conversion).
        guard channels.count == items.count, channels.allSatisfy({ $0 >= 0 && $0 <= 255 }) else { return nil }
        let c = channels.map { Int($0.rounded()) }
        self.init(red: c[0], green: c[1], blue: c[2], alpha: c.count == 4 ? c[3] : 255)
    }

    /// Parses "#rrggbb" or "#rrggbbaa".
    public init?(hex: String) {
        var s = Substring(hex)
        if s.hasPrefix("#") { s = s.dropFirst() }
        guard s.count == 6 || s.count == 8, let value = UInt32(s, radix: 16) else { return nil }
        if s.count == 6 {
            self.init(red: Int(value >> 16 & 0xFF), green: Int(value >> 8 & 0xFF), blue: Int(value & 0xFF))
        } else {
            self.init(red: Int(value >> 24 & 0xFF), green: Int(value >> 16 & 0xFF), blue: Int(value >> 8 & 0xFF), alpha: Int(value & 0xFF))
        }
    }

    public var jsonValue: JSONValue { [.int(red), .int(green), .int(blue), .int(alpha)] }

    public var description: String {
        func hex(_ v: Int) -> String {
            let s = String(max(0, min(255, v)), radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + hex(red) + hex(green) + hex(blue) + (alpha == 255 ? "" : hex(alpha))
    }
}

/// `esriSLS`: a line, or the outline of a marker or fill.
public struct SimpleLineSymbol: JSONModel {
    public var style: String?
    public var color: RGBAColor?
    public var width: Double?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        style = json.string("style")
        color = RGBAColor(json["color"])
        width = json.double("width")
    }

    public init(style: String = "esriSLSSolid", color: RGBAColor, width: Double) {
        self.init(json: ["type": "esriSLS"])
        self.style = style
        self.color = color
        self.width = width
    }

    public var json: JSONObject {
        var o = original
        o.set("type", "esriSLS")
        o.set("style", style)
        o.setColor("color", color)
        o.set("width", width)
        return o
    }
}

/// `esriSMS`: a circle, square, cross, x, diamond or triangle marker.
public struct SimpleMarkerSymbol: JSONModel {
    public var style: String?
    public var color: RGBAColor?
    public var size: Double?
    public var angle: Double?
    public var xoffset: Double?
    public var yoffset: Double?
    public var outline: SimpleLineSymbol?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        style = json.string("style")
        color = RGBAColor(json["color"])
        size = json.double("size")
        angle = json.double("angle")
        xoffset = json.double("xoffset")
        yoffset = json.double("yoffset")
        outline = json.model("outline")
    }

    public init(style: String = "esriSMSCircle", color: RGBAColor, size: Double, outline: SimpleLineSymbol? = nil) {
        self.init(json: ["type": "esriSMS"])
        self.style = style
        self.color = color
        self.size = size
        self.outline = outline
    }

    public var json: JSONObject {
        var o = original
        o.set("type", "esriSMS")
        o.set("style", style)
        o.setColor("color", color)
        o.set("size", size)
        o.set("angle", angle)
        o.set("xoffset", xoffset)
        o.set("yoffset", yoffset)
        o.set("outline", outline)
        return o
    }
}

/// `esriSFS`: a polygon fill with an optional outline.
public struct SimpleFillSymbol: JSONModel {
    public var style: String?
    public var color: RGBAColor?
    public var outline: SimpleLineSymbol?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        style = json.string("style")
        color = RGBAColor(json["color"])
        outline = json.model("outline")
    }

    public init(style: String = "esriSFSSolid", color: RGBAColor, outline: SimpleLineSymbol? = nil) {
        self.init(json: ["type": "esriSFS"])
        self.style = style
        self.color = color
        self.outline = outline
    }

    public var json: JSONObject {
        var o = original
        o.set("type", "esriSFS")
        o.set("style", style)
        o.setColor("color", color)
        o.set("outline", outline)
        return o
    }
}

/// `esriPMS`: a marker drawn from an image (base64 `imageData` or a `url`).
public struct PictureMarkerSymbol: JSONModel {
    public var url: String?
    public var imageData: String?
    public var contentType: String?
    public var width: Double?
    public var height: Double?
    public var angle: Double?
    public var xoffset: Double?
    public var yoffset: Double?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        url = json.string("url")
        imageData = json.string("imageData")
        contentType = json.string("contentType")
        width = json.double("width")
        height = json.double("height")
        angle = json.double("angle")
        xoffset = json.double("xoffset")
        yoffset = json.double("yoffset")
    }

    public var json: JSONObject {
        var o = original
        o.set("type", "esriPMS")
        o.set("url", url)
        o.set("imageData", imageData)
        o.set("contentType", contentType)
        o.set("width", width)
        o.set("height", height)
        o.set("angle", angle)
        o.set("xoffset", xoffset)
        o.set("yoffset", yoffset)
        return o
    }
}

extension JSONObject {
    /// Sets a colour unless it equals what the original holds, which may be a 3-channel array.
    mutating func setColor(_ key: String, _ color: RGBAColor?) {
        guard let color, color != RGBAColor(self[key]) else { return }
        self[key] = color.jsonValue
    }
}
