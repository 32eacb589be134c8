import MapbookSupport

/// A CSS colour as MapLibre styles write it: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`,
/// `rgb()`, `rgba()`, `hsl()`, `hsla()` or one of the CSS named colours; channels 0-1, not
/// premultiplied.
public struct StyleColor: Sendable, Equatable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = min(max(red, 0), 1)
        self.green = min(max(green, 0), 1)
        self.blue = min(max(blue, 0), 1)
        self.alpha = min(max(alpha, 0), 1)
    }

    public init?(text: String) {
        let s = text.lowercased().filter { !$0.isWhitespace }
        if s.hasPrefix("#") {
            let hex = Array(s.dropFirst())
            func digit(_ c: Character) -> Double? { c.hexDigitValue.map(Double.init) }
            switch hex.count {
            case 3, 4:
                let v = hex.compactMap(digit)
                guard v.count == hex.count else { return nil }
                self.init(red: v[0] * 17 / 255, green: v[1] * 17 / 255, blue: v[2] * 17 / 255, alpha: hex.count == 4 ? v[3] * 17 / 255 : 1)
            case 6, 8:
                let v = hex.compactMap(digit)
                guard v.count == hex.count else { return nil }
                func pair(_ i: Int) -> Double { (v[i] * 16 + v[i + 1]) / 255 }
                self.init(red: pair(0), green: pair(2), blue: pair(4), alpha: hex.count == 8 ? pair(6) : 1)
            default:
                return nil
            }
            return
        }
        if let open = s.firstIndex(of: "("), s.hasSuffix(")") {
            let name = String(s[..<open])
            let parts = s[s.index(after: open)..<s.index(before: s.endIndex)].split(separator: ",").map(String.init)
            func channel(_ p: String, scale: Double) -> Double? {
                p.hasSuffix("%") ? Double(p.dropLast()).map { $0 / 100 } : Double(p).map { $0 / scale }
            }
            switch name {
            case "rgb", "rgba":
                guard parts.count == 3 || parts.count == 4,
                    let r = channel(parts[0], scale: 255), let g = channel(parts[1], scale: 255), let b = channel(parts[2], scale: 255)
                else { return nil }
                let a = parts.count == 4 ? channel(parts[3], scale: 1) : 1
                guard let a else { return nil }
                self.init(red: r, green: g, blue: b, alpha: a)
            case "hsl", "hsla":
                guard parts.count == 3 || parts.count == 4, let h = Double(parts[0].replacingAll("deg", with: "")),
                    let sat = channel(parts[1], scale: 100), let light = channel(parts[2], scale: 100)
                else { return nil }
                let a = parts.count == 4 ? channel(parts[3], scale: 1) : 1
                guard let a else { return nil }
                let (r, g, b) = Self.rgb(hue: h, saturation: sat, lightness: light)
                self.init(red: r, green: g, blue: b, alpha: a)
            default:
                return nil
            }
            return
        }
        guard let named = Self.named[s] else { return nil }
        self = named
    }

    /// HSL to RGB (CSS Color 3, section 4.2.4).
    static func rgb(hue: Double, saturation s: Double, lightness l: Double) -> (Double, Double, Double) {
        let h = ((hue.truncatingRemainder(dividingBy: 360)) + 360).truncatingRemainder(dividingBy: 360) / 360
        let m2 = l <= 0.5 ? l * (s + 1) : l + s - l * s
        let m1 = l * 2 - m2
        func channel(_ x: Double) -> Double {
            var h = x
            if h < 0 { h += 1 }
            if h > 1 { h -= 1 }
            if h * 6 < 1 { return m1 + (m2 - m1) * h * 6 }
            if h * 2 < 1 { return m2 }
            if h * 3 < 2 { return m1 + (m2 - m1) * (2.0 / 3 - h) * 6 }
            return m1
        }
        return (channel(h + 1.0 / 3), channel(h), channel(h - 1.0 / 3))
    }

    /// Between this colour and `other`, `t` of the way (each channel, alpha too).
    public func mixed(with other: StyleColor, _ t: Double) -> StyleColor {
        StyleColor(
            red: red + (other.red - red) * t, green: green + (other.green - green) * t,
            blue: blue + (other.blue - blue) * t, alpha: alpha + (other.alpha - alpha) * t)
    }

    /// "rgba(r,g,b,a)" with whole channels, as expressions hand colours on.
    public var text: String {
        func c(_ v: Double) -> Int { Int((v * 255).rounded()) }
        return "rgba(\(c(red)),\(c(green)),\(c(blue)),\(Double(Int((alpha * 1000).rounded())) / 1000))"
    }

    /// The same colour with its alpha multiplied by `opacity`.
    public func fading(_ opacity: Double) -> StyleColor {
        StyleColor(red: red, green: green, blue: blue, alpha: alpha * min(max(opacity, 0), 1))
    }

    public static let black = StyleColor(red: 0, green: 0, blue: 0)
    public static let transparent = StyleColor(red: 0, green: 0, blue: 0, alpha: 0)

    static let named: [String: StyleColor] = {
        let table: [(String, UInt32)] = [
            ("black", 0x000000), ("white", 0xFFFFFF), ("red", 0xFF0000), ("green", 0x008000), ("blue", 0x0000FF),
            ("yellow", 0xFFFF00), ("cyan", 0x00FFFF), ("aqua", 0x00FFFF), ("magenta", 0xFF00FF), ("fuchsia", 0xFF00FF),
            ("gray", 0x808080), ("grey", 0x808080), ("silver", 0xC0C0C0), ("maroon", 0x800000), ("olive", 0x808000),
            ("lime", 0x00FF00), ("teal", 0x008080), ("navy", 0x000080), ("purple", 0x800080), ("orange", 0xFFA500),
            ("brown", 0xA52A2A), ("pink", 0xFFC0CB), ("gold", 0xFFD700), ("beige", 0xF5F5DC), ("tan", 0xD2B48C),
            ("khaki", 0xF0E68C), ("ivory", 0xFFFFF0), ("lightgray", 0xD3D3D3), ("lightgrey", 0xD3D3D3), ("darkgray", 0xA9A9A9),
            ("darkgrey", 0xA9A9A9), ("dimgray", 0x696969), ("gainsboro", 0xDCDCDC), ("whitesmoke", 0xF5F5F5), ("lightblue", 0xADD8E6),
            ("skyblue", 0x87CEEB), ("steelblue", 0x4682B4), ("darkblue", 0x00008B), ("lightgreen", 0x90EE90), ("darkgreen", 0x006400),
            ("forestgreen", 0x228B22), ("seagreen", 0x2E8B57), ("darkred", 0x8B0000), ("crimson", 0xDC143C), ("salmon", 0xFA8072),
            ("coral", 0xFF7F50), ("tomato", 0xFF6347), ("orangered", 0xFF4500), ("violet", 0xEE82EE), ("indigo", 0x4B0082),
            ("lavender", 0xE6E6FA), ("linen", 0xFAF0E6), ("wheat", 0xF5DEB3), ("chocolate", 0xD2691E), ("sienna", 0xA0522D),
            ("peru", 0xCD853F), ("lightyellow", 0xFFFFE0), ("honeydew", 0xF0FFF0), ("mintcream", 0xF5FFFA), ("azure", 0xF0FFFF),
            ("aliceblue", 0xF0F8FF), ("snow", 0xFFFAFA), ("seashell", 0xFFF5EE), ("oldlace", 0xFDF5E6), ("floralwhite", 0xFFFAF0),
        ]
        var out: [String: StyleColor] = ["transparent": .transparent]
        for (name, v) in table {
            out[name] = StyleColor(red: Double(v >> 16 & 0xFF) / 255, green: Double(v >> 8 & 0xFF) / 255, blue: Double(v & 0xFF) / 255)
        }
        return out
    }()
}
