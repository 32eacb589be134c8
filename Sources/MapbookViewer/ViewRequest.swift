import MapbookData
import MapbookSupport

/// Where a user asks to look: a bookmark, a box of longitudes and latitudes, or a centre and
/// a scale, on a picture of a size. `render`, `identify` and `view` resolve it on a map, a
/// tile package alone on its Web Mercator extent; the web viewer will too.
public struct ViewRequest: Sendable {
    public var bookmark: String?
    /// WGS84 longitudes and latitudes.
    public var box: BoundingBox?
    public var center: LonLat?
    /// A scale denominator; with `center`, or alone to rescale a bookmark or the initial view.
    public var scale: Double?
    public var width: Int
    public var height: Int
    public var dpi: Double

    public init(bookmark: String? = nil, box: BoundingBox? = nil, center: LonLat? = nil, scale: Double? = nil, width: Int, height: Int, dpi: Double = 96) {
        self.bookmark = bookmark
        self.box = box
        self.center = center
        self.scale = scale
        self.width = width
        self.height = height
        self.dpi = dpi
    }

    /// The view on `map`: the bookmark, the box or the centre, else the map's initial view;
    /// `scale` alone keeps the centre of the bookmark or the initial view.
    public func view(of map: ViewerMap) throws(ViewerError) -> MapView {
        if let bookmark {
            return try rescaled(map.view(of: try map.bookmark(named: bookmark), width: width, height: height, dpi: dpi))
        }
        if let box {
            return try map.view(ofLongitudeLatitude: box, width: width, height: height, dpi: dpi)
        }
        if let center, let scale {
            return try map.view(centeredOn: Position(x: center.longitude, y: center.latitude), scale: scale, width: width, height: height, dpi: dpi)
        }
        return try rescaled(map.initialView(width: width, height: height, dpi: dpi))
    }

    /// The view on a Web Mercator backdrop alone (a `.vtpk`, which has no bookmarks): the box
    /// or the centre, else `fullExtent` (Web Mercator metres).
    public func webMercatorView(fullExtent: BoundingBox?) throws(ViewerError) -> MapView {
        guard bookmark == nil else { throw Self.invalid("a tile package has no bookmarks; give a box or a centre and a scale") }
        if let box {
            guard box.minX < box.maxX, box.minY < box.maxY, box.minY >= -90, box.maxY <= 90 else {
                throw Self.invalid("\(box.minX),\(box.minY),\(box.maxX),\(box.maxY) is not a box of longitudes and latitudes (XMIN,YMIN,XMAX,YMAX)")
            }
            return try MapView(extent: WebMercator.project(box), width: width, height: height, dpi: dpi)
        }
        if let center, let scale {
            let p = WebMercator.project(longitude: center.longitude, latitude: center.latitude)
            return try MapView(center: Position(x: p.x, y: p.y), scale: scale, width: width, height: height, dpi: dpi)
        }
        guard let fullExtent, fullExtent.hasArea else { throw Self.invalid("the tile package gives no extent; give a box or a centre and a scale") }
        return try rescaled(MapView(extent: fullExtent, width: width, height: height, dpi: dpi))
    }

    /// `view` at `scale`, around the same centre, when a scale is asked for.
    private func rescaled(_ view: MapView) throws(ViewerError) -> MapView {
        guard let scale else { return view }
        return try MapView(center: view.center, scale: scale, width: width, height: height, dpi: dpi, metresPerUnit: view.metresPerUnit)
    }

    private static func invalid(_ message: String) -> ViewerError {
        ViewerError(kind: .invalidView, path: "", message: message)
    }
}
