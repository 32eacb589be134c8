import MapbookData
import MapbookPackage

extension Renderer {
    /// The symbol of a feature with `attributes`, or nil when it is not drawn.
    ///
    /// Prepares the renderer on every call; to symbolise many features, make a `LayerStyle`
    /// once and ask it.
    public func symbol(for attributes: [String: FieldValue]) -> Symbol? {
        LayerStyle(renderer: self).symbol(for: attributes)
    }
}
