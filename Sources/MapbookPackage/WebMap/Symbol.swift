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
        let channels = items.compactMap { $0.doubleValue }
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
public struct SimpleLineSymbol: JSONRecord {
    public var style: String?
    public var color: RGBAColor?
    public var width: Double?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "esriSLS"),
            .string("style", { $0.style }, { $0.style = $1 }),
            .color("color", { $0.color }, { $0.color = $1 }),
            .double("width", { $0.width }, { $0.width = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(style: String = "esriSLSSolid", color: RGBAColor, width: Double) {
        self.init(original: ["type": "esriSLS"])
        self.style = style
        self.color = color
        self.width = width
    }
}

/// `esriSMS`: a circle, square, cross, x, diamond or triangle marker.
public struct SimpleMarkerSymbol: JSONRecord {
    public var style: String?
    public var color: RGBAColor?
    public var size: Double?
    public var angle: Double?
    public var xoffset: Double?
    public var yoffset: Double?
    public var outline: SimpleLineSymbol?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "esriSMS"),
            .string("style", { $0.style }, { $0.style = $1 }),
            .color("color", { $0.color }, { $0.color = $1 }),
            .double("size", { $0.size }, { $0.size = $1 }),
            .double("angle", { $0.angle }, { $0.angle = $1 }),
            .double("xoffset", { $0.xoffset }, { $0.xoffset = $1 }),
            .double("yoffset", { $0.yoffset }, { $0.yoffset = $1 }),
            .model("outline", { $0.outline }, { $0.outline = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(style: String = "esriSMSCircle", color: RGBAColor, size: Double, outline: SimpleLineSymbol? = nil) {
        self.init(original: ["type": "esriSMS"])
        self.style = style
        self.color = color
        self.size = size
        self.outline = outline
    }
}

/// `esriSFS`: a polygon fill with an optional outline.
public struct SimpleFillSymbol: JSONRecord {
    public var style: String?
    public var color: RGBAColor?
    public var outline: SimpleLineSymbol?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "esriSFS"),
            .string("style", { $0.style }, { $0.style = $1 }),
            .color("color", { $0.color }, { $0.color = $1 }),
            .model("outline", { $0.outline }, { $0.outline = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(style: String = "esriSFSSolid", color: RGBAColor, outline: SimpleLineSymbol? = nil) {
        self.init(original: ["type": "esriSFS"])
        self.style = style
        self.color = color
        self.outline = outline
    }
}

/// `esriPMS`: a marker drawn from an image (base64 `imageData` or a `url`).
public struct PictureMarkerSymbol: JSONRecord {
    public var url: String?
    public var imageData: String?
    public var contentType: String?
    public var width: Double?
    public var height: Double?
    public var angle: Double?
    public var xoffset: Double?
    public var yoffset: Double?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .constant("type", "esriPMS"),
            .string("url", { $0.url }, { $0.url = $1 }),
            .string("imageData", { $0.imageData }, { $0.imageData = $1 }),
            .string("contentType", { $0.contentType }, { $0.contentType = $1 }),
            .double("width", { $0.width }, { $0.width = $1 }),
            .double("height", { $0.height }, { $0.height = $1 }),
            .double("angle", { $0.angle }, { $0.angle = $1 }),
            .double("xoffset", { $0.xoffset }, { $0.xoffset = $1 }),
            .double("yoffset", { $0.yoffset }, { $0.yoffset = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }
}
