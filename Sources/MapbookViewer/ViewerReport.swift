import MapbookData
import MapbookRender
import MapbookSupport

/// What the viewer shows of a map as JSON and text lines: the table of contents, legends and
/// identified features. `mapbook toc`, `legend` and `identify` print it, the terminal viewer
/// shows it, and a web page asks for the same JSON.
public enum ViewerReport {
    /// "1:0 to 1:24,000"-style text for a layer's scale range; nil without one.
    public static func scaleRange(_ layer: ViewerLayer) -> String? {
        let outer = layer.minScale.flatMap { $0 > 0 ? $0 : nil }, inner = layer.maxScale.flatMap { $0 > 0 ? $0 : nil }
        switch (outer, inner) {
        case let (o?, i?): return "draws from 1:\(Format.scale(o)) to 1:\(Format.scale(i))"
        case let (o?, nil): return "draws in from 1:\(Format.scale(o))"
        case let (nil, i?): return "draws out from 1:\(Format.scale(i))"
        case (nil, nil): return nil
        }
    }

    /// A layer of the table of contents: its visibility here and in the map, scale range and
    /// whether it draws at `scale`, opacity, depth and legend.
    public static func layer(_ layer: ViewerLayer, scale: Double?) -> JSONValue {
        var o: JSONObject = [
            "id": .string(layer.id), "title": .string(layer.title), "type": .string(layer.type),
            "visible": .bool(layer.isVisible), "mapVisibility": .bool(layer.mapVisibility),
            "changedOnThisDevice": .bool(layer.isChangedByUser), "opacity": .double(layer.opacity), "depth": .int(layer.depth),
        ]
        if let s = layer.minScale { o["minScale"] = .double(s) }
        if let s = layer.maxScale { o["maxScale"] = .double(s) }
        if let scale { o["inScale"] = .bool(layer.isInScale(scale)) }
        o["legend"] = legend(layer.legend)
        return .object(o)
    }

    /// A layer's legend: sections with their field and entries, each a label and a symbol.
    public static func legend(_ sections: [LegendSection]) -> JSONValue {
        .array(sections.map { section in
            var o = JSONObject()
            if let heading = section.heading { o["field"] = .string(heading) }
            o["entries"] = .array(section.entries.map { .object(["label": .string($0.label), "symbol": $0.symbol.jsonValue]) })
            return .object(o)
        })
    }

    /// A layer's legend as lines under `indent`: a visual variable's field, then its entries.
    public static func legendLines(_ sections: [LegendSection], indent: String) -> [String] {
        var lines: [String] = []
        for section in sections {
            if let heading = section.heading { lines.append(indent + heading + ":") }
            for entry in section.entries {
                lines.append(indent + entry.symbol.legendDescription + (entry.label.isEmpty ? "" : "  " + entry.label))
            }
        }
        return lines
    }

    /// A feature found by identify: its layer, id, pop-up title, text, fields (shown and raw),
    /// related records and attachments.
    public static func identify(_ result: IdentifyResult) -> JSONValue {
        let popup = result.popup
        var o: JSONObject = [
            "layerId": .string(popup.layerID), "layer": .string(popup.layerTitle), "featureId": .integer(popup.featureID),
            "title": .string(popup.title), "distance": .double((result.distance * 1000).rounded() / 1000),
        ]
        if let text = popup.text { o["text"] = .string(text) }
        func fields(_ list: [Popup.Field]) -> JSONValue {
            .array(list.map { f in .object(["name": .string(f.name), "label": .string(f.label), "value": .string(f.value), "raw": Self.raw(f.raw)]) })
        }
        o["fields"] = fields(popup.fields)
        if !popup.related.isEmpty {
            o["related"] = .array(popup.related.map { group in
                .object(["table": .string(group.table), "records": .array(group.records.map { .object(["id": .integer($0.id), "fields": fields($0.fields)]) })])
            })
        }
        if !popup.attachments.isEmpty {
            o["attachments"] = .array(popup.attachments.map {
                .object(["id": .integer($0.id), "name": .string($0.name), "contentType": .string($0.contentType), "size": .integer($0.size)])
            })
        }
        return .object(o)
    }

    /// A field's value as JSON; blobs are left out.
    public static func raw(_ value: FieldValue) -> JSONValue {
        switch value {
        case .null, .blob: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        }
    }
}
