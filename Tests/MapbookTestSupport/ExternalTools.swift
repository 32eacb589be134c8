import Foundation
import Testing

/// Peer tools the interoperability tests check our output with: GDAL's `ogrinfo` (Debian's
/// gdal-bin) and GDAL's `validate_gpkg.py` (fetched by tools/setup into .venv).
public enum ExternalTools {
    public static let ogrinfo = "/usr/bin/ogrinfo"
    public static let validateGPKG = Fixtures.repositoryRoot.appendingPathComponent(".venv/validate_gpkg.py").path

    public static var hasOgrinfo: Bool { FileManager.default.isExecutableFile(atPath: ogrinfo) }
    public static var hasValidator: Bool { FileManager.default.fileExists(atPath: validateGPKG) }

    /// Skips when GDAL's ogrinfo is missing (tools/setup installs gdal-bin).
    public static var ogrinfoRequired: ConditionTrait {
        .enabled(if: hasOgrinfo, "GDAL's ogrinfo is not installed; run tools/setup")
    }

    /// Skips when GDAL's validate_gpkg.py was not fetched (tools/setup does it).
    public static var validatorRequired: ConditionTrait {
        .enabled(if: hasValidator, "GDAL's validate_gpkg.py is missing from .venv; run tools/setup")
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

    /// GDAL's verdict on a GeoPackage: empty when valid, else its complaints.
    public static func validateGeoPackage(_ path: String) throws -> String {
        let (status, output) = try run("/usr/bin/python3", [validateGPKG, path])
        return status == 0 ? "" : output
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
    }
}
