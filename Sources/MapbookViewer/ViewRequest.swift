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

    /// The request the viewer commands' options make (`--bookmark`, `--bbox XMIN,YMIN,XMAX,YMAX`
    /// in degrees, `--center LON,LAT` with `--scale`, `--size WxH`, `--dpi`); an
    /// `invalidView` error for text that is not a box, a place, a size or one choice.
    public static func parse(bookmark: String?, bbox: String?, center: String?, scale: Double?, size: String, dpi: Double) throws(ViewerError) -> ViewRequest {
        func usage(_ message: String) -> ViewerError { ViewerError(kind: .invalidView, path: "", message: message) }
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw usage("--size '\(size)' is not WIDTHxHEIGHT in pixels, such as 1024x768")
        }
        guard [bookmark != nil, bbox != nil, center != nil].filter({ $0 }).count <= 1 else { throw usage("give one of --bookmark, --bbox and --center") }
        var request = ViewRequest(bookmark: bookmark, scale: scale, width: width, height: height, dpi: dpi)
        if let bbox {
            let numbers = bbox.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimming(" ")) }
            guard numbers.count == 4, let a = numbers[0], let b = numbers[1], let c = numbers[2], let d = numbers[3] else {
                throw usage("--bbox '\(bbox)' is not XMIN,YMIN,XMAX,YMAX in longitudes and latitudes")
            }
            request.box = BoundingBox(minX: a, minY: b, maxX: c, maxY: d)
        }
        if let center {
            guard let lonLat = LonLat(argument: center) else { throw usage("--center '\(center)': \(LonLat.problem(center) ?? "not LON,LAT")") }
            guard scale != nil else { throw usage("--center needs --scale") }
            request.center = lonLat
        }
        return request
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
