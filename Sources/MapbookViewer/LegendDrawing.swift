import MapbookPackage
import MapbookRender
import MapbookSupport

/// A legend as a picture: each layer's title, then its entries, each a swatch drawn with its
/// real symbol (fills, lines, markers, picture markers) and its label; a visual variable's
/// entries under the field they read.
public enum LegendDrawing {
    /// One row of the legend.
    enum Row {
        case title(String)
        case heading(String)
        case entry(Symbol, String)
    }

    static func rows(_ layers: [ViewerLayer]) -> [Row] {
        var rows: [Row] = []
        for layer in layers {
            rows.append(.title(layer.title))
            for section in layer.legend {
                if let heading = section.heading { rows.append(.heading(heading)) }
                for entry in section.entries { rows.append(.entry(entry.symbol, entry.label)) }
            }
        }
        return rows
    }

    /// `picture` of `view` on `map` with the legend of the layers it draws (shown here and in
    /// scale, top first) beside it, on the right, as `mapbook render --legend` writes it.
    public static func beside(_ picture: MapCanvas, view: MapView, map: ViewerMap, format: PictureFormat = .png) throws -> MapCanvas {
        let shown = map.legendLayers.filter { $0.isInScale(view.scale) }
        let legend = try draw(Array(shown), dpi: view.dpi, maxHeight: view.height, format: format)
        let width = view.width + legend.width
        let whole = try MapCanvas(
            width: width, height: view.height, extent: BoundingBox(minX: 0, minY: 0, maxX: Double(width), maxY: Double(view.height)),
            background: RGBAColor(red: 255, green: 255, blue: 255), format: format)
        whole.draw(picture, x: 0, y: 0)
        whole.draw(legend, x: Double(view.width), y: 0)
        return whole
    }

    /// The legend of `layers` (top first) on a white canvas sized to fit, at `dpi`.
    public static func draw(_ layers: [ViewerLayer], dpi: Double = 96, maxHeight: Int? = nil, format: PictureFormat = .png) throws -> MapCanvas {
        let r = dpi / 96
        let rows = rows(layers)
        let pad = 8 * r, swatch = 20 * r, gap = 6 * r
        // Measure on a scratch canvas, then draw on one of the right size.
        let scratch = try MapCanvas(width: 1, height: 1, extent: BoundingBox(minX: 0, minY: 0, maxX: 1, maxY: 1))
        var width = 120 * r, height = pad
        for row in rows {
            switch row {
            case .title(let t):
                let s = scratch.textSize(t, size: 13 * r, font: "Noto Sans Bold")
                width = max(width, s.width + 2 * pad)
                height += s.height + gap
            case .heading(let t):
                let s = scratch.textSize(t, size: 11 * r, font: "Noto Sans Italic")
                width = max(width, s.width + 2 * pad + swatch)
                height += s.height + gap / 2
            case .entry(_, let label):
                let s = scratch.textSize(label.isEmpty ? " " : label, size: 12 * r)
                width = max(width, 2 * pad + swatch + gap + s.width)
                height += max(swatch, s.height) + gap / 2
            }
        }
        height += pad
        let w = Int(width.rounded(.up)), h = min(Int(height.rounded(.up)), maxHeight ?? Int.max)
        let canvas = try MapCanvas(width: w, height: max(h, 1), extent: BoundingBox(minX: 0, minY: 0, maxX: Double(w), maxY: Double(max(h, 1))), format: format)
        var y = pad
        let ink = RGBAColor(red: 30, green: 30, blue: 30)
        for row in rows {
            switch row {
            case .title(let t):
                y += canvas.drawText(t, x: pad, y: y, size: 13 * r, font: "Noto Sans Bold", color: ink).height + gap
            case .heading(let t):
                y += canvas.drawText(t, x: pad + swatch / 2, y: y, size: 11 * r, font: "Noto Sans Italic", color: ink).height + gap / 2
            case .entry(let symbol, let label):
                let s = canvas.textSize(label.isEmpty ? " " : label, size: 12 * r)
                let rowHeight = max(swatch, s.height)
                canvas.drawSwatch(symbol, x: pad, y: y + (rowHeight - swatch) / 2, width: swatch, height: swatch)
                canvas.drawText(label, x: pad + swatch + gap, y: y + (rowHeight - s.height) / 2, size: 12 * r, color: ink)
                y += rowHeight + gap / 2
            }
        }
        return canvas
    }
}

extension ViewerMap {
    /// The layers a legend shows: those shown on this device that have legend entries, top
    /// first.
    public var legendLayers: [ViewerLayer] {
        layers.reversed().filter { isShown($0) && !$0.legend.isEmpty }
    }
}
