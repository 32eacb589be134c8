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

    /// The request these options make.
    func request() throws -> ViewRequest {
        try ViewRequest.parse(bookmark: bookmark, bbox: bbox, center: center, scale: scale, size: size, dpi: dpi)
    }

    /// The view these options name on `map`; the map's initial view when none is given.
    func view(of map: ViewerMap) throws -> MapView {
        try ViewerCommand.attempt { try request().view(of: map) }
    }
}

/// What the viewer commands share: error reporting and legends as text.
enum ViewerCommand {
    /// A usage error: printed as `error: ...`, exit status 64 (EX_USAGE).
    struct Usage: Error, CustomStringConvertible {
        var description: String
    }

    static func usage(_ message: String) -> Usage { Usage(description: message) }

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
