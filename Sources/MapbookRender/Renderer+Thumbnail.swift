import MapbookPackage

extension Renderer {
    /// The renderer with its symbols drawn smaller, for a 200 x 133 overview where full-size
    /// markers would cover the map: markers at a third of their size, lines at half width.
    public func scaledForThumbnail() -> Renderer {
        func scale(_ symbol: Symbol?) -> Symbol? {
            switch symbol {
            case .simpleMarker(var m)?:
                m.size = max(2, (m.size ?? 8) / 3)
                if var outline = m.outline {
                    outline.width = (outline.width ?? 0.75) / 3
                    m.outline = outline
                }
                return .simpleMarker(m)
            case .simpleLine(var l)?:
                l.width = max(0.5, (l.width ?? 1) / 2)
                return .simpleLine(l)
            case .pictureMarker(var p)?:
                p.width = p.width.map { max(3, $0 / 3) }
                p.height = p.height.map { max(3, $0 / 3) }
                return .pictureMarker(p)
            default:
                return symbol
            }
        }
        switch self {
        case .simple(var r):
            r.symbol = scale(r.symbol)
            return .simple(r)
        case .uniqueValue(var r):
            r.defaultSymbol = scale(r.defaultSymbol)
            r.uniqueValueInfos = r.uniqueValueInfos?.map { var i = $0; i.symbol = scale(i.symbol); return i }
            return .uniqueValue(r)
        case .classBreaks(var r):
            r.defaultSymbol = scale(r.defaultSymbol)
            r.classBreakInfos = r.classBreakInfos?.map { var i = $0; i.symbol = scale(i.symbol); return i }
            return .classBreaks(r)
        case .other:
            return self
        }
    }
}
