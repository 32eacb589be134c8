import MapbookData
import MapbookPackage
import MapbookSupport

/// A web map renderer made ready to pick the symbol of each feature of a layer.
///
/// The renderer's classes are `RendererClasses`, the same reading the backdrop's vector tile
/// styles compile into MapLibre expressions, so a feature gets the same class in both.
/// A feature no class takes gets the default symbol, which may be nil: then it is not drawn.
/// Other renderer types (heatmap, dictionary) give no symbol.
public struct LayerStyle: Sendable {
    public let renderer: Renderer
    /// The renderer's classes, legend and the rules that place a feature in them.
    public let classes: RendererClasses

    public init(renderer: Renderer) {
        self.renderer = renderer
        classes = RendererClasses(renderer)
    }

    /// The symbol of a feature with `attributes` (field name to value), or nil when the
    /// feature is not drawn.
    ///
    /// Field names match exactly, else ignoring case (GeoPackage column names are case-insensitive).
    public func symbol(for attributes: [String: FieldValue]) -> Symbol? {
        classes.symbol { Self.value($0, in: attributes).rendererValue }
    }

    /// The symbol of `feature`, as `symbol(for:)` picks it from its attributes.
    public func symbol(for feature: MapFeature) -> Symbol? {
        classes.symbol { feature.value(of: $0).rendererValue }
    }

    /// The value of `field` in `attributes`, matching the name exactly, else ignoring case;
    /// `.null` when absent.
    static func value(_ field: String, in attributes: [String: FieldValue]) -> FieldValue {
        if let value = attributes[field] { return value }
        let lowered = field.lowercased()
        return attributes.first { $0.key.lowercased() == lowered }?.value ?? .null
    }
}

extension FieldValue {
    /// The value as renderers read it; a blob has no value to class by.
    var rendererValue: JSONValue {
        switch self {
        case .null, .blob: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .number(d)
        case .text(let s): return .string(s)
        }
    }
}
