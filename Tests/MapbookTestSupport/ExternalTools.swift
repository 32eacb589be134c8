import Foundation
import Testing

/// Peer tools the interoperability tests check our output with: GDAL's `ogrinfo` (Debian's
/// gdal-bin), GDAL's `validate_gpkg.py` (fetched by tools/setup into .venv), librsvg and poppler.
public enum ExternalTools {
    public static let ogrinfo = "/usr/bin/ogrinfo"
    public static let validateGPKG = Fixtures.repositoryRoot.appendingPathComponent(".venv/validate_gpkg.py").path
    /// Debian's own GDAL 3.6 copy of the validator (python3-gdal), what most Linux GIS machines
    /// check a GeoPackage with.
    public static let debianValidateGPKG = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"

    /// CI (`CI=true`) has run tools/setup: a missing tool there is a failure, never a skip.
    public static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"

    public static var hasOgrinfo: Bool { FileManager.default.isExecutableFile(atPath: ogrinfo) }
    public static var hasValidator: Bool {
        FileManager.default.fileExists(atPath: validateGPKG) && FileManager.default.fileExists(atPath: debianValidateGPKG)
    }

    /// Skips when GDAL's ogrinfo is missing (tools/setup installs gdal-bin).
    public static var ogrinfoRequired: ConditionTrait {
        .enabled(if: hasOgrinfo || isCI, "GDAL's ogrinfo is not installed; run tools/setup")
    }

    /// librsvg's and poppler's rasterizers (Debian's librsvg2-bin and poppler-utils), which the
    /// render tests draw our SVG and PDF files with.
    public static let rsvgConvert = "/usr/bin/rsvg-convert"
    public static let pdftoppm = "/usr/bin/pdftoppm"

    /// Skips when rsvg-convert or pdftoppm is missing (tools/setup installs them).
    public static var vectorRasterizersRequired: ConditionTrait {
        let fm = FileManager.default
        return .enabled(if: (fm.isExecutableFile(atPath: rsvgConvert) && fm.isExecutableFile(atPath: pdftoppm)) || isCI, "rsvg-convert or pdftoppm is not installed; run tools/setup")
    }

    /// Zstandard's own tool (Debian's zstd), which applies the portal's entry patches too.
    public static let zstd = "/usr/bin/zstd"

    /// Skips when zstd is missing (tools/setup installs it).
    public static var zstdRequired: ConditionTrait {
        .enabled(if: FileManager.default.isExecutableFile(atPath: zstd) || isCI, "zstd is not installed; run tools/setup")
    }

    /// Skips when GDAL's validate_gpkg.py was not fetched or Debian's python3-gdal is missing
    /// (tools/setup does both).
    public static var validatorRequired: ConditionTrait {
        .enabled(if: hasValidator || isCI, "GDAL's validate_gpkg.py (.venv, or Debian's python3-gdal) is missing; run tools/setup")
    }

    /// The Python of the project's virtual environment (tools/setup makes it), with the
    /// `pmtiles` and `mapbox-vector-tile` packages the tile tests check archives with.
    public static let python = Fixtures.repositoryRoot.appendingPathComponent(".venv/bin/python").path

    /// Whether `.venv` has a Python that can import the peers the tile tests use.
    public static let hasPythonTilePeers: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(python, ["-c", "import pmtiles.reader, mapbox_vector_tile"]))?.status == 0
    }()

    /// Skips when `.venv` lacks Python or its `pmtiles` and `mapbox-vector-tile` packages.
    public static var pythonTilePeersRequired: ConditionTrait {
        .enabled(if: hasPythonTilePeers || isCI, "the pmtiles and mapbox-vector-tile Python packages are missing from .venv; run tools/setup")
    }

    /// Runs a Python script with the project's virtual environment; throws with its output on failure.
    public static func runPython(_ script: String, _ arguments: [String]) throws -> String {
        let (status, output) = try run(python, ["-c", script] + arguments)
        guard status == 0 else { throw ToolError(output: output) }
        return output
    }

    /// The layers `ogrinfo -so -al` lists in a vector tile source (a tile file, a folder of
    /// tiles, an MBTiles file), with their feature counts.
    public static func ogrLayers(_ path: String, options: [String] = []) throws -> [String: Int] {
        let (status, output) = try run(ogrinfo, ["-ro", "-so", "-al"] + options.flatMap { ["-oo", $0] } + [path])
        guard status == 0 else { throw ToolError(output: output) }
        var layers: [String: Int] = [:]
        var current: String?
        for line in output.split(separator: "\n") {
            if line.hasPrefix("Layer name: ") {
                current = String(line.dropFirst(12))
                layers[current!] = -1
            } else if line.hasPrefix("Feature Count: "), let current {
                layers[current] = Int(line.dropFirst(15)) ?? -1
            }
        }
        return layers
    }

    /// Runs a program and returns its exit status and combined output.
    public static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// GDAL's verdict on a GeoPackage, by GDAL 3.13's validator and by Debian's GDAL 3.6 one,
    /// and whether Debian's ogrinfo opens it without a warning: empty when all are content,
    /// else their complaints.
    public static func validateGeoPackage(_ path: String) throws -> String {
        var complaints = ""
        for validator in [validateGPKG, debianValidateGPKG] {
            let (status, output) = try run("/usr/bin/python3", [validator, path])
            if status != 0 { complaints += "\(validator): \(output)" }
        }
        let (_, opened) = try run(ogrinfo, ["-ro", "-so", path])
        if opened.contains("Warning") || opened.contains("ERROR") { complaints += "ogrinfo: \(opened)" }
        return complaints
    }

    /// What `ogrinfo -so` says about one layer: feature count, geometry type, fields.
    public struct LayerInfo: Equatable, Sendable {
        public var featureCount: Int
        public var geometry: String
        public var fields: [String]
    }

    public static func ogrLayerInfo(_ path: String, layer: String) throws -> LayerInfo {
        let (status, output) = try run(ogrinfo, ["-ro", "-so", path, layer])
        guard status == 0 else { throw ToolError(output: output) }
        var info = LayerInfo(featureCount: -1, geometry: "", fields: [])
        let ogrTypes = ["Integer", "Integer64", "Real", "String", "Date", "DateTime", "Time", "Binary", "IntegerList", "Integer64List", "RealList", "StringList"]
        for line in output.split(separator: "\n") {
            if line.hasPrefix("Feature Count: ") { info.featureCount = Int(line.dropFirst(15)) ?? -1; continue }
            if line.hasPrefix("Geometry: ") { info.geometry = String(line.dropFirst(10)); continue }
            // Field lines look like "name: String (15.0)" or "flag: Integer(Boolean) (0.0)".
            guard !line.hasPrefix(" "), let range = line.range(of: ": ", options: .backwards) else { continue }
            let type = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber }
            if ogrTypes.contains(String(type)), !line.hasPrefix("Layer name"), !line.hasPrefix("FID Column"), !line.hasPrefix("Geometry Column") {
                info.fields.append(String(line[..<range.lowerBound]))
            }
        }
        return info
    }

    public struct ToolError: Error, CustomStringConvertible {
        public var output: String
        public var description: String { output }
        public init(output: String) { self.output = output }
    }
}
