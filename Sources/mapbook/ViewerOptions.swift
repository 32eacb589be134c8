#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import MapbookData
import MapbookLibrary
import MapbookRender
import MapbookSupport
import MapbookViewer

/// The package and map every viewer command starts from.
struct MapOptions: ParsableArguments {
    @Argument(help: "The package (.mmpk).")
    var path: String

    @Option(name: .long, help: ArgumentHelp("The map, by title, name or number from 1 (default: the first).", valueName: "MAP"))
    var map: String?

    /// Opens the package and the map, with this device's layer visibility.
    func open() throws -> ViewerMap {
        try ViewerCommand.attempt {
            let session = try MapSession(path: path, library: LibraryCommand.library())
            try PackageAccess.check(session.package)
            return try session.map(named: map)
        }
    }
}

/// Where a command looks: a bookmark, a box or a centre and scale, on a picture of a size.
struct ViewOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Look at a bookmark of the map.", valueName: "NAME"))
    var bookmark: String?

    // Unconditional: western longitudes start with a minus sign.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Look at a box of WGS84 longitudes and latitudes.", valueName: "XMIN,YMIN,XMAX,YMAX"))
    var bbox: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Centre the view on a WGS84 longitude and latitude (with --scale).", valueName: "LON,LAT"))
    var center: String?

    // Unconditional, so that a negative scale is refused for what it is, not as a missing value.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The scale denominator, as Esri tiling schemes count map units (24000 for 1:24,000).", valueName: "S"), transform: ViewOptions.parseScale)
    var scale: Double?

    /// A scale denominator: a positive number.
    static func parseScale(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value > 0 else {
            throw ValidationError("'\(text)' is not a scale: give a positive scale denominator (24000 for 1:24,000)")
        }
        return value
    }

    static let defaultSize = "1024x768"

    @Option(name: .long, help: ArgumentHelp("The picture's size in pixels.", valueName: "WxH"))
    var size = ViewOptions.defaultSize

    @Option(name: .long, help: "Dots per inch of the picture.")
    var dpi: Double = 96

    /// Width and height from `--size`.
    func pixels() throws -> (width: Int, height: Int) {
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw ViewerCommand.usage("--size '\(size)' is not WIDTHxHEIGHT in pixels, such as 1024x768")
        }
        return (w, h)
    }

    /// `--bbox` as four numbers, or nil when it is not given.
    func longitudeLatitudeBox() throws -> BoundingBox? {
        guard let bbox else { return nil }
        let numbers = bbox.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimming(" ")) }
        guard numbers.count == 4, let a = numbers[0], let b = numbers[1], let c = numbers[2], let d = numbers[3] else {
            throw ViewerCommand.usage("--bbox '\(bbox)' is not XMIN,YMIN,XMAX,YMAX in longitudes and latitudes")
        }
        return BoundingBox(minX: a, minY: b, maxX: c, maxY: d)
    }

    /// `--center` (longitude, latitude) with its `--scale`, or nil when `--center` is not given.
    func centerAndScale() throws -> (Position, Double)? {
        guard let center else { return nil }
        guard let lonLat = LonLat(argument: center) else { throw ViewerCommand.usage("--center '\(center)': \(LonLat.problem(center) ?? "not LON,LAT")") }
        guard let scale else { throw ViewerCommand.usage("--center needs --scale") }
        return (Position(x: lonLat.longitude, y: lonLat.latitude), scale)
    }

    /// The view these options name on a Web Mercator backdrop alone (a `.vtpk`): a box or a
    /// centre and scale, else `fullExtent` (Web Mercator metres).
    func webMercatorView(fullExtent: BoundingBox?) throws -> MapView {
        let (width, height) = try pixels()
        return try ViewerCommand.attempt {
            guard bookmark == nil else { throw ViewerCommand.usage("a tile package has no bookmarks; give --bbox or --center and --scale") }
            if let box = try longitudeLatitudeBox() {
                guard box.minX < box.maxX, box.minY < box.maxY, box.minY >= -90, box.maxY <= 90 else {
                    throw ViewerCommand.usage("--bbox '\(bbox ?? "")' is not XMIN,YMIN,XMAX,YMAX in longitudes and latitudes")
                }
                return try MapView(extent: WebMercator.project(box), width: width, height: height, dpi: dpi)
            }
            if let (lonLat, scale) = try centerAndScale() {
                let p = WebMercator.project(longitude: lonLat.x, latitude: lonLat.y)
                return try MapView(center: Position(x: p.x, y: p.y), scale: scale, width: width, height: height, dpi: dpi)
            }
            guard let fullExtent, fullExtent.hasArea else { throw ViewerCommand.usage("the tile package gives no extent; give --bbox or --center and --scale") }
            var view = try MapView(extent: fullExtent, width: width, height: height, dpi: dpi)
            if let scale { view = try MapView(center: view.center, scale: scale, width: width, height: height, dpi: dpi) }
            return view
        }
    }

    /// The view these options name on `map`; the map's initial view when none is given.
    func view(of map: ViewerMap) throws -> MapView {
        let (width, height) = try pixels()
        return try ViewerCommand.attempt {
            let chosen = [bookmark != nil, bbox != nil, center != nil].filter { $0 }.count
            guard chosen <= 1 else { throw ViewerCommand.usage("give one of --bookmark, --bbox and --center") }
            if let bookmark {
                var view = try map.view(of: try map.bookmark(named: bookmark), width: width, height: height, dpi: dpi)
                if let scale { view = try MapView(center: view.center, scale: scale, width: width, height: height, dpi: dpi, metresPerUnit: view.metresPerUnit) }
                return view
            }
            if let box = try longitudeLatitudeBox() {
                return try map.view(ofLongitudeLatitude: box, width: width, height: height, dpi: dpi)
            }
            if let (lonLat, scale) = try centerAndScale() {
                return try map.view(centeredOn: lonLat, scale: scale, width: width, height: height, dpi: dpi)
            }
            var view = try map.initialView(width: width, height: height, dpi: dpi)
            if let scale { view = try MapView(center: view.center, scale: scale, width: width, height: height, dpi: dpi, metresPerUnit: view.metresPerUnit) }
            return view
        }
    }
}

/// What the viewer commands share: error reporting and legends as text.
enum ViewerCommand {
    /// A usage error: printed as `error: ...`, exit status 64 (EX_USAGE).
    struct Usage: Error, CustomStringConvertible {
        var description: String
    }

    static func usage(_ message: String) -> Usage { Usage(description: message) }

    /// How pictures print on this terminal: `override` (a `--terminal-mode`), else what the
    /// terminal's environment says it shows (none with `NO_COLOR`).
    static func terminalMode(_ override: String?) -> TerminalPicture.Mode {
        var environment: [String: String] = [:]
        for key in ["NO_COLOR", "TERM", "TERM_PROGRAM", "LC_TERMINAL", "KITTY_WINDOW_ID", "COLORTERM"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        return override.flatMap(TerminalPicture.Mode.init(rawValue:)) ?? TerminalPicture.detect(environment: environment)
    }

    /// Runs `body`; a request that is wrong exits 64 with its message (and the choices), a
    /// package that cannot be read exits 1.
    static func attempt<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let exit as ExitCode {
            throw exit
        } catch let usage as Usage {
            Output.error("error: \(usage)")
            throw ExitCode(64)
        } catch let error as ViewerError {
            Output.error("error: \(error)")
            throw error.isUsage ? ExitCode(64) : ExitCode.failure
        } catch {
            Output.error("error: \(error)")
            throw ExitCode.failure
        }
    }
}
