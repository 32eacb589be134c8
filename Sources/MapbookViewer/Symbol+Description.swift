import MapbookPackage
import MapbookSupport

extension Symbol {
    /// "● circle #e31a1c 8 pt, outline #ffffff 1 pt" and the like.
    public var legendDescription: String {
        func color(_ c: RGBAColor?) -> String { c?.description ?? "none" }
        func points(_ d: Double?) -> String { d.map { Format.number(($0 * 100).rounded() / 100) + " pt" } ?? "" }
        switch self {
        case .simpleMarker(let m):
            let shape = (m.style ?? "esriSMSCircle").replacingAll("esriSMS", with: "").lowercased()
            let glyph = ["circle": "●", "square": "■", "diamond": "◆", "triangle": "▲", "cross": "✚", "x": "✖"][shape] ?? "●"
            var text = "\(glyph) \(shape) \(color(m.color)) \(points(m.size))"
            if let o = m.outline, o.style != "esriSLSNull", (o.width ?? 0) > 0 { text += ", outline \(color(o.color)) \(points(o.width))" }
            return text
        case .simpleLine(let l):
            let style = (l.style ?? "esriSLSSolid").replacingAll("esriSLS", with: "").lowercased()
            return "\(style == "solid" ? "━" : "┅") \(style) line \(color(l.color)) \(points(l.width))"
        case .simpleFill(let f):
            let style = (f.style ?? "esriSFSSolid").replacingAll("esriSFS", with: "").lowercased()
            var text = "■ \(style == "solid" ? "" : style + " ")fill \(color(f.color))"
            if let o = f.outline, o.style != "esriSLSNull", (o.width ?? 0) > 0 { text += ", outline \(color(o.color)) \(points(o.width))" }
            return text
        case .pictureMarker(let p):
            return "▣ picture \(p.contentType ?? "image") \(points(p.width)) x \(points(p.height))"
        case .other(let o):
            return "? \(o.string("type") ?? "unknown") symbol"
        }
    }
}
