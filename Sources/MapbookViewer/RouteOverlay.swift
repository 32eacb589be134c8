import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport

/// A route drawn over a map: a blue line on a white casing, the start green, the destination
/// red, stops between white. Places are WGS84 longitude/latitude.
public struct RouteOverlay: Sendable {
    public var path: [Position]
    public var stops: [Position]

    public init(path: [Position], stops: [Position]) {
        self.path = path
        self.stops = stops
    }

    /// A view of `map` that shows the whole route with a margin of a tenth on every side.
    public func view(on map: ViewerMap, width: Int, height: Int, dpi: Double = 96) throws(ViewerError) -> MapView {
        let points = try (path + stops).map { p throws(ViewerError) in try map.fromLongitudeLatitude(p) }
        var box = BoundingBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for p in points {
            box = BoundingBox(minX: min(box.minX, p.x), minY: min(box.minY, p.y), maxX: max(box.maxX, p.x), maxY: max(box.maxY, p.y))
        }
        // A route along one straight street still gets a square of margin around it.
        let side = max(box.maxX - box.minX, box.maxY - box.minY, 200 / map.metresPerUnit)
        let cx = (box.minX + box.maxX) / 2, cy = (box.minY + box.maxY) / 2
        let half = side * 0.6
        return try MapView(
            extent: BoundingBox(minX: cx - half, minY: cy - half, maxX: cx + half, maxY: cy + half), width: width, height: height, dpi: dpi,
            metresPerUnit: map.metresPerUnit)
    }

    /// `map` rendered in a `width` x `height` view that shows the whole route, the route
    /// drawn over it: what `mapbook route -o` writes.
    public func picture(on map: ViewerMap, width: Int, height: Int, format: PictureFormat) throws -> (rendered: RenderedView, view: MapView) {
        let view = try view(on: map, width: width, height: height)
        let rendered = try map.render(view, format: format)
        try draw(on: rendered.canvas, map: map)
        return (rendered, view)
    }

    /// `picture(on:width:height:format:)` written to `output` in its format: what `mapbook
    /// route -o` does. Returns what to say: the warnings, then the picture's size and scale.
    public func write(on map: ViewerMap, width: Int, height: Int, to output: String) throws -> [String] {
        let (rendered, view) = try picture(on: map, width: width, height: height, format: PictureFormat(path: output) ?? .png)
        return rendered.warnings.map { "warning: \($0)" } + [try rendered.canvas.write(to: output, dpi: view.dpi, scale: view.scale)]
    }

    /// Draws the route on `canvas`, a picture of `map`.
    public func draw(on canvas: MapCanvas, map: ViewerMap) throws(ViewerError) {
        let line = try path.map { p throws(ViewerError) in try map.fromLongitudeLatitude(p) }
        if line.count >= 2 {
            let geometry = Geometry(.lineString(line))
            canvas.draw(geometry, symbol: .simpleLine(SimpleLineSymbol(color: RGBAColor(red: 255, green: 255, blue: 255), width: 6)))
            canvas.draw(geometry, symbol: .simpleLine(SimpleLineSymbol(color: RGBAColor(red: 30, green: 100, blue: 220), width: 3.5)))
        }
        for (i, stop) in stops.enumerated() {
            let color = i == 0 ? RGBAColor(red: 40, green: 160, blue: 60) : i == stops.count - 1 ? RGBAColor(red: 210, green: 40, blue: 40) : RGBAColor(red: 255, green: 255, blue: 255)
            let outline = SimpleLineSymbol(color: i == 0 || i == stops.count - 1 ? RGBAColor(red: 255, green: 255, blue: 255) : RGBAColor(red: 30, green: 100, blue: 220), width: 2)
            canvas.draw(Geometry(.point(try map.fromLongitudeLatitude(stop))), symbol: .simpleMarker(SimpleMarkerSymbol(color: color, size: 11, outline: outline)))
        }
    }
}
