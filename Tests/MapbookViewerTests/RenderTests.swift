import Foundation
import MapbookData
import MapbookPackage
import MapbookPackager
import MapbookRender
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookViewer

/// Rendered views, looked at pixel by pixel: the Naperville sample's maps over their backdrop,
/// and Natural Earth's countries against what GDAL's rasterizer burns for the same polygons.
@Suite struct RenderTests {
    static let pictures = NSTemporaryDirectory() + "mapbook-render-tests"

    /// How many pixels of `canvas` have exactly `color`.
    static func count(_ color: RGBAColor, in canvas: MapCanvas) -> Int {
        countPixels(width: canvas.width, height: canvas.height) { canvas.pixel(x: $0, y: $1) == color }
    }

    /// What GDAL burns for the features of the GeoPackage `gpkg` over `extent` at 800 x 600
    /// pixels (red 255 inside, 0 outside): `gdal_rasterize` to `base`.tif, `gdal_translate` to
    /// `base`.png, read back.
    static func burn(_ gpkg: String, extent e: BoundingBox, to base: String) throws -> RasterImage {
        let (s1, o1) = try ExternalTools.run("/usr/bin/gdal_rasterize", [
            "-burn", "255", "-ot", "Byte", "-init", "0", "-te", "\(e.minX)", "\(e.minY)", "\(e.maxX)", "\(e.maxY)", "-ts", "800", "600",
            gpkg, base + ".tif",
        ])
        #expect(s1 == 0, "\(o1)")
        let (s2, o2) = try ExternalTools.run("/usr/bin/gdal_translate", ["-of", "PNG", base + ".tif", base + ".png"])
        #expect(s2 == 0, "\(o2)")
        return try RasterImage(png: Array(try Data(contentsOf: URL(fileURLWithPath: base + ".png"))))
    }

    /// Whether `pixel` is the red of the test labels (antialiased edges included).
    static func isRed(_ pixel: RGBAColor?) -> Bool {
        guard let p = pixel else { return false }
        return p.red > 200 && p.green < 90 && p.blue < 90
    }

    static func solidColors(_ layer: ViewerLayer) -> [RGBAColor] {
        (layer.classes?.legend ?? []).compactMap { entry in
            switch entry.symbol {
            case .simpleLine(let l): return l.color
            case .simpleMarker(let m): return m.color
            case .simpleFill(let f): return f.color
            default: return nil
            }
        }.filter { $0.alpha == 255 }
    }

    /// The one map of a package built in `dir` from its `places.geojson`: blue points of
    /// `size` points labelled as `labels` says (web-map label classes in the project's form),
    /// with the `extra` project keys (credits, a backdrop).
    static func placesMap(in dir: String, labels: String, size: Int = 4, extra: String = "") throws -> ViewerMap {
        try """
        title: Places
        crs: EPSG:3857
        \(extra)
        sources:
          places: { path: places.geojson }
        maps:
          - name: Places
            layers:
              - source: places
                renderer: { simple: { color: "#0000ff", size: \(size) } }
                labels: [\(labels)]
        """.write(toFile: dir + "/project.yaml", atomically: true, encoding: .utf8)
        _ = try Packager.build(try Project.load(path: dir + "/project.yaml"), output: dir + "/p.mmpk", timestamp: 1_767_225_600)
        return try MapSession(path: dir + "/p.mmpk").map(named: nil)
    }

    @Test func everyMapAtEveryBookmarkDrawsItsLayersOverTheBackdrop() throws {
        let session = try MapSession(path: try MapSessionTests.naperville.get())
        try FileManager.default.createDirectory(atPath: Self.pictures, withIntermediateDirectories: true)
        for (m, summary) in session.maps.enumerated() {
            let map = try session.map(named: summary.name)
            for (b, bookmark) in map.bookmarks.enumerated() {
                let view = try map.view(of: bookmark, width: 640, height: 480)
                let rendered = try map.render(view)
                try rendered.canvas.write(to: Self.pictures + "/naperville-\(m + 1)-\(b + 1).png")
                #expect(rendered.warnings.isEmpty && rendered.findings.isEmpty, "\(summary.name) at \(bookmark.name ?? ""): \(rendered.warnings) \(rendered.findings)")
                // The backdrop: residential lots are drawn in the style's colour.
                #expect(Self.count(RGBAColor(red: 0xF4, green: 0xF1, blue: 0xEA), in: rendered.canvas) > 1000, "\(summary.name) at \(bookmark.name ?? ""): no residential lots")
                // Each layer shown with features in the view draws in its classes' colours.
                for layer in map.layers where map.isShown(layer) && layer.isInScale(view.scale) {
                    let table = try map.featureSource(for: layer).table
                    guard try table.features(in: view.extent, fields: []).next() != nil else { continue }
                    let drawn = Self.solidColors(layer).reduce(0) { $0 + Self.count($1, in: rendered.canvas) }
                    #expect(drawn > 20, "\(summary.name) at \(bookmark.name ?? ""): layer \(layer.title) drew \(drawn) pixels")
                }
            }
        }
    }

    /// The operational layers drawn on a second thread beside the backdrop and laid over it
    /// give the picture drawn in turn: no pixel differs by more than the rounding of the
    /// channels, on every map at every bookmark and at the initial view (where the most
    /// features are), and the layers are there.
    @Test func layersDrawnBesideTheBackdropGiveThePictureDrawnInTurn() throws {
        let session = try MapSession(path: try MapSessionTests.naperville.get())
        for summary in session.maps {
            let map = try session.map(named: summary.name)
            var views = try map.bookmarks.map { try map.view(of: $0, width: 480, height: 360) }
            views.append(try map.initialView(width: 480, height: 360))
            for view in views {
                map.drawsLayersBesideBackdrop = true
                let beside = try map.render(view)
                map.drawsLayersBesideBackdrop = false
                let inTurn = try map.render(view)
                #expect(beside.warnings == inTurn.warnings && beside.findings == inTurn.findings)
                var differing = 0, worst = 0
                for y in 0..<view.height {
                    for x in 0..<view.width {
                        let a = beside.canvas.pixel(x: x, y: y)!, b = inTurn.canvas.pixel(x: x, y: y)!
                        let d = max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
                        if d > 0 { differing += 1 }
                        worst = max(worst, d)
                    }
                }
                // Each picture rounds premultiplied channels once per layer composited; where
                // many translucent features overlap (the initial views) that sums to 3 levels.
                #expect(worst <= 3, "\(summary.name) at 1:\(Int(view.scale)): a pixel differs by \(worst) levels (\(differing) differ)")
                let layerPixels = map.layers.filter { map.isShown($0) && $0.isInScale(view.scale) }
                    .flatMap(Self.solidColors).reduce(0) { $0 + Self.count($1, in: beside.canvas) }
                #expect(layerPixels > 100, "\(summary.name) at 1:\(Int(view.scale)): the layers drew \(layerPixels) pixels")
            }
        }
    }

    /// The same view written as SVG and as PDF, drawn by librsvg and poppler, shows what the
    /// PNG shows (under 2.5% of the pixels differ by more than antialiasing and font hinting
    /// do: the view is full of the mains' and the streets' names, whose glyphs each rasterizer
    /// hints its own way), and is vectors: no embedded picture of the map.
    @Test(ExternalTools.vectorRasterizersRequired)
    func svgAndPDFShowWhatThePNGShowsAsVectors() throws {
        let map = try MapSession(path: try MapSessionTests.naperville.get()).map(named: nil)
        let view = try map.view(of: try map.bookmark(named: "Downtown"), width: 640, height: 480)
        try withTemporaryDirectory { dir in
            let png = try map.render(view).canvas
            for format in [PictureFormat.svg, .pdf] {
                let rendered = try map.render(view, format: format)
                #expect(rendered.canvas.format == format)
                let path = dir + "/downtown.\(format.rawValue)"
                try rendered.canvas.write(to: path)
                let drawn = dir + "/downtown-\(format.rawValue)"
                let (status, output) = format == .svg
                    ? try ExternalTools.run(ExternalTools.rsvgConvert, [path, "-o", drawn + ".png"])
                    : try ExternalTools.run(ExternalTools.pdftoppm, ["-r", "96", "-png", "-singlefile", path, drawn])
                #expect(status == 0, "\(output)")
                let theirs = try RasterImage(png: Array(try Data(contentsOf: URL(fileURLWithPath: drawn + ".png"))))
                #expect(theirs.width == 640 && theirs.height == 480, "\(format): \(theirs.width) x \(theirs.height)")
                var differing = 0
                for y in 0..<480 {
                    for x in 0..<640 {
                        guard let a = png.pixel(x: x, y: y), let b = theirs.pixel(x: x, y: y) else { differing += 1; continue }
                        if max(abs(a.red - b.red), abs(a.green - b.green), abs(a.blue - b.blue)) > 48 { differing += 1 }
                    }
                }
                let share = Double(differing) / Double(640 * 480)
                #expect(share < 0.025, "\(format): \(differing) pixels differ from the PNG (\(share * 100)%)")
                let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
                let paths = text.ranges(of: "<path").count, images = text.ranges(of: "<image").count
                if format == .svg {
                    #expect(paths > 1000, "the SVG's features are paths")
                    #expect(images == 0, "the SVG embeds a picture")
                } else {
                    #expect(text.starts(with: "%PDF-"))
                }
            }
        }
    }

    /// Labels from `labelingInfo`: above their point, the first of two that would overlap kept
    /// and the other dropped, none for features the class's `where` leaves out, none outside
    /// the class's scale range.
    @Test func labelsStandAboveTheirPointsAndGiveWayToEachOther() throws {
        try withTemporaryDirectory { dir in
            // A and B 0.0002 degrees (about 22 m, 7 px at the view's scale) apart, C far off.
            try """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"NAME": "AAAA", "RANK": 1}, "geometry": {"type": "Point", "coordinates": [10.0, 50.0]}},
              {"type": "Feature", "properties": {"NAME": "BBBB", "RANK": 2}, "geometry": {"type": "Point", "coordinates": [10.0002, 50.0]}},
              {"type": "Feature", "properties": {"NAME": "CCCC", "RANK": 3}, "geometry": {"type": "Point", "coordinates": [10.01, 50.0]}}]}
            """.write(toFile: dir + "/places.geojson", atomically: true, encoding: .utf8)
            func render(_ labels: String) throws -> MapCanvas {
                let map = try Self.placesMap(in: dir, labels: labels)
                #expect(map.layers.allSatisfy { $0.definition.showLabels == true })
                let view = try map.view(centeredOn: Position(x: 10.005, y: 50.0), scale: 12_000, width: 600, height: 200)
                let rendered = try map.render(view, background: RGBAColor(red: 255, green: 255, blue: 255))
                #expect(rendered.warnings.isEmpty && rendered.findings.isEmpty, "\(rendered.warnings) \(rendered.findings)")
                return rendered.canvas
            }
            /// Red label pixels in columns `x0..<x1`, rows above the view's middle.
            func red(_ canvas: MapCanvas, _ x0: Int, _ x1: Int) -> Int {
                countPixels(width: canvas.width, height: canvas.height, columns: x0..<x1, rows: 0..<100) { Self.isRed(canvas.pixel(x: $0, y: $1)) }
            }
            let style = ##"size: 12, color: "#ff0000""##
            let all = try render("{ field: NAME, \(style) }")
            let a = try render("{ field: NAME, \(style), where: \"RANK = 1\" }")
            let aOnly = red(a, 0, 600)
            #expect(aOnly > 50, "A's label is drawn: \(aOnly) red pixels")
            // A (top left of the middle) keeps its label; B's would overlap it and is dropped;
            // C's is drawn, near C (x = 300 + 0.005 degrees, about 150 px right of A).
            #expect(red(all, 0, 300) == aOnly, "B's label overlapping A's was drawn")
            #expect(red(all, 400, 600) > 50, "C's label is missing")
            #expect(red(a, 400, 600) == 0, "where RANK = 1 drew C's label")
            let outOfScale = try render("{ field: NAME, \(style), min_scale: 5000 }")
            #expect(red(outOfScale, 0, 600) == 0, "a label class out of scale drew")
        }
    }

    /// Natural Earth's countries with a plain fill, against `gdal_rasterize` of the same
    /// polygons in Web Mercator over the same extent and size: apart from the pixels our
    /// antialiasing only partly covers, the same pixels are filled.
    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/natural-earth"), ExternalTools.ogrinfoRequired)
    func polygonsCoverThePixelsGDALBurns() throws {
        try withTemporaryDirectory { dir in
            let countries = Fixtures.path("natural-earth/110m/ne_110m_admin_0_countries.json")
            try """
            title: Countries
            crs: EPSG:3857
            sources:
              countries: { path: \(countries), title: Countries }
            maps:
              - name: World
                layers:
                  - source: countries
                    renderer: { type: simple, symbol: { type: esriSFS, style: esriSFSSolid, color: [200, 60, 40, 255], outline: { type: esriSLS, style: esriSLSNull, color: [0, 0, 0, 0], width: 0 } } }
            """.write(toFile: dir + "/project.yaml", atomically: true, encoding: .utf8)
            _ = try Packager.build(try Project.load(path: dir + "/project.yaml"), output: dir + "/c.mmpk", timestamp: 1_767_225_600)
            let map = try MapSession(path: dir + "/c.mmpk").map(named: nil)
            let fill = RGBAColor(red: 200, green: 60, blue: 40), background = RGBAColor(red: 255, green: 255, blue: 255)
            for (name, box) in [("Europe", BoundingBox(minX: -12, minY: 34, maxX: 32, maxY: 62)), ("Africa", BoundingBox(minX: -20, minY: -36, maxX: 52, maxY: 38))] {
                let view = try map.view(ofLongitudeLatitude: box, width: 800, height: 600)
                let ours = try map.render(view, background: background).canvas
                try ours.write(to: dir + "/\(name)-ours.png")
                let e = view.extent
                let (s1, o1) = try ExternalTools.run("/usr/bin/ogr2ogr", ["-t_srs", "EPSG:3857", dir + "/\(name).gpkg", countries])
                #expect(s1 == 0, "\(o1)")
                let theirs = try Self.burn(dir + "/\(name).gpkg", extent: e, to: dir + "/\(name)-gdal")
                var compared = 0, differing = 0, filled = 0
                for y in 0..<600 {
                    for x in 0..<800 {
                        guard let p = ours.pixel(x: x, y: y), let g = theirs.pixel(x: x, y: y) else { continue }
                        let burned = g.red > 127
                        // Pixels our antialiasing covers in part are edges: not compared.
                        guard p == fill || p == background else { continue }
                        compared += 1
                        if p == fill { filled += 1 }
                        if (p == fill) != burned { differing += 1 }
                    }
                }
                #expect(filled > 10_000, "\(name): \(filled) pixels filled")
                let share = Double(differing) / Double(compared)
                #expect(share < 0.01, "\(name): \(differing) of \(compared) pixels differ from gdal_rasterize (\(share * 100)%)")
            }
        }
    }

    /// Naperville's mains drawn 3 pt wide and its valves as 6 pt circles (4 and 8 px at 96
    /// DPI), against `gdal_rasterize` of the same features buffered by half that width
    /// (SpatiaLite's ST_Buffer through GDAL's SQLite dialect): of the pixels either one fills,
    /// apart from our antialiased edge pixels, under 1% differ.
    @Test(ExternalTools.ogrinfoRequired, arguments: [
        ("mains", "mains.geojson", "{ type: esriSLS, style: esriSLSSolid, color: [20, 60, 200, 255], width: 3 }", 3.0),
        ("valves", "valves.shp", "{ type: esriSMS, style: esriSMSCircle, color: [20, 60, 200, 255], size: 6 }", 6.0),
    ])
    func linesAndPointsCoverThePixelsOfTheirBufferAsGDALBurnsThem(layer: String, file: String, symbol: String, points: Double) throws {
        let naperville = try MapSessionTests.naperville.get()
        // The sample's data, generated beside the package by its script.
        let data = NSString(string: naperville).deletingLastPathComponent + "/data/" + file
        try #require(FileManager.default.fileExists(atPath: data), "\(data)")
        try withTemporaryDirectory { dir in
            try """
            title: Widths
            crs: EPSG:3857
            sources:
              \(layer): { path: \(data), title: \(layer) }
            maps:
              - name: Widths
                layers:
                  - source: \(layer)
                    renderer: { type: simple, symbol: \(symbol) }
            """.write(toFile: dir + "/project.yaml", atomically: true, encoding: .utf8)
            _ = try Packager.build(try Project.load(path: dir + "/project.yaml"), output: dir + "/m.mmpk", timestamp: 1_767_225_600)
            let map = try MapSession(path: dir + "/m.mmpk").map(named: nil)
            let view = try map.view(ofLongitudeLatitude: BoundingBox(minX: -88.165, minY: 41.745, maxX: -88.145, maxY: 41.760), width: 800, height: 600)
            let ink = RGBAColor(red: 20, green: 60, blue: 200), background = RGBAColor(red: 255, green: 255, blue: 255)
            let ours = try map.render(view, background: background).canvas
            let e = view.extent
            let halfWidth = points * 96 / 72 / 2 * view.resolution
            let source = file.hasSuffix(".shp") ? String(file.dropLast(4)) : layer
            let (s1, o1) = try ExternalTools.run("/usr/bin/ogr2ogr", [
                "-t_srs", "EPSG:3857", "-dialect", "SQLite", "-sql",
                "SELECT ST_Buffer(ST_Transform(\(file.hasSuffix(".shp") ? "Geometry" : "geometry"), 3857), \(halfWidth)) AS geometry FROM \(source)",
                dir + "/buffered.gpkg", data,
            ])
            #expect(s1 == 0, "\(o1)")
            let theirs = try Self.burn(dir + "/buffered.gpkg", extent: e, to: dir + "/burned")
            var either = 0, differing = 0
            for y in 0..<600 {
                for x in 0..<800 {
                    guard let p = ours.pixel(x: x, y: y), let g = theirs.pixel(x: x, y: y), p == ink || p == background else { continue }
                    let burned = g.red > 127
                    if p == ink || burned { either += 1 }
                    if (p == ink) != burned { differing += 1 }
                }
            }
            #expect(either > 1_000, "\(layer): \(either) pixels drawn")
            let share = Double(differing) / Double(either)
            #expect(share < 0.01, "\(layer): \(differing) of \(either) pixels differ from gdal_rasterize of the buffer (\(share * 100)%)")
        }
    }

    /// The map's own labels and the backdrop's are placed in one collision index, the map's
    /// first (they are drawn on top): basemap.de's "Köln" gives way to a map label at Köln,
    /// whether the layers are drawn beside the backdrop or after it, while its labels elsewhere
    /// ("Hamburg") stay.
    @Test(.enabled(if: Fixtures.available, "needs ../shared/fixtures/vtpk-basemapde"))
    func theBackdropsLabelsGiveWayToTheMapsOwn() throws {
        try withTemporaryDirectory { dir in
            try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
            try """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"NAME": "Over Köln"}, "geometry": {"type": "Point", "coordinates": [7.02, 50.9653]}}]}
            """.write(toFile: dir + "/places.geojson", atomically: true, encoding: .utf8)
            func render(labels: Bool, beside: Bool) throws -> (MapCanvas, MapView) {
                let map = try Self.placesMap(
                    in: dir, labels: labels ? ##"{ field: NAME, size: 12, color: "#ff0000", placement: center }"## : "", size: 6,
                    extra: "backdrop: { path: basemap.vtpk, title: basemap.de }")
                map.drawsLayersBesideBackdrop = beside
                let view = try map.view(centeredOn: Position(x: 12, y: 52), scale: 6_300_000, width: 1024, height: 768)
                return (try map.render(view).canvas, view)
            }
            /// Grey text pixels (the backdrop's city names) in `canvas` above and right of where
            /// (`longitude`, `latitude`) is drawn, clear of the map's marker there: x - box to
            /// x + 4 box, y - box to y - 8.
            func greyText(_ canvas: MapCanvas, _ view: MapView, longitude: Double, latitude: Double, box: Int = 40) -> Int {
                let (mx, my) = WebMercator.project(longitude: longitude, latitude: latitude)
                let x = Int((mx - view.extent.minX) / view.resolution), y = Int((view.extent.maxY - my) / view.resolution)
                var n = 0
                for py in max(y - box, 0)..<min(y - 8, canvas.height) {
                    for px in max(x - box, 0)..<min(x + 4 * box, canvas.width) {
                        guard let p = canvas.pixel(x: px, y: py) else { continue }
                        let (r, g, b) = (Int(p.red), Int(p.green), Int(p.blue))
                        if max(r, g, b) < 110 && abs(r - g) < 24 && abs(g - b) < 24 { n += 1 }
                    }
                }
                return n
            }
            let (alone, view) = try render(labels: false, beside: true)
            #expect(greyText(alone, view, longitude: 7.02, latitude: 50.9653) > 30, "without a map label at Köln, the backdrop labels Köln")
            try FileManager.default.createDirectory(atPath: Self.pictures, withIntermediateDirectories: true)
            for beside in [true, false] {
                let (canvas, view) = try render(labels: true, beside: beside)
                try canvas.write(to: Self.pictures + "/labels-collide-\(beside ? "beside" : "in-turn").png")
                #expect(greyText(canvas, view, longitude: 7.02, latitude: 50.9653) == 0, "beside \(beside): the backdrop's 'Köln' is drawn under the map's label")
                #expect(greyText(canvas, view, longitude: 10.0635, latitude: 53.5501) > 30, "beside \(beside): the backdrop's 'Hamburg' is missing")
            }
        }
    }

    /// No label is drawn under the credits in the bottom right corner: a label whose only
    /// place is there is dropped, and drawn where there are no credits.
    @Test func noLabelIsDrawnUnderTheCredits() throws {
        try withTemporaryDirectory { dir in
            // A point 120 px left of the bottom right corner, 14 px up, at 1:12,000 on 600 x 200:
            // its label, centred on it, fits in the corner only where the credits are.
            let center = WebMercator.project(longitude: 10, latitude: 50)
            let probe = try MapView(center: Position(x: center.x, y: center.y), scale: 12_000, width: 600, height: 200)
            let (lon, lat) = WebMercator.unproject(x: probe.extent.maxX - 120 * probe.resolution, y: probe.extent.minY + 14 * probe.resolution)
            try """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"NAME": "Cornerstone Plaza"}, "geometry": {"type": "Point", "coordinates": [\(lon), \(lat)]}}]}
            """.write(toFile: dir + "/places.geojson", atomically: true, encoding: .utf8)
            func redPixels(credits: String?) throws -> Int {
                let map = try Self.placesMap(
                    in: dir, labels: ##"{ field: NAME, size: 12, color: "#ff0000", placement: center }"##,
                    extra: credits.map { "credits: \"\($0)\"" } ?? "")
                let view = try map.view(centeredOn: Position(x: 10, y: 50), scale: 12_000, width: 600, height: 200)
                let canvas = try map.render(view, background: RGBAColor(red: 255, green: 255, blue: 255)).canvas
                try canvas.write(to: Self.pictures + "/credits-\(credits == nil ? "none" : "long").png")
                return countPixels(width: canvas.width, height: canvas.height) { Self.isRed(canvas.pixel(x: $0, y: $1)) }
            }
            try FileManager.default.createDirectory(atPath: Self.pictures, withIntermediateDirectories: true)
            #expect(try redPixels(credits: nil) > 50, "without credits the label is drawn in the corner")
            #expect(try redPixels(credits: "Data: the City of Naperville and the mapbook project's test suite") == 0, "a label is drawn under the credits")
        }
    }
}
