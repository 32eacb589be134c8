import Foundation

/// The bad inputs of the foundation issue, each built from a valid package with one defect.
public enum BadPackage: String, CaseIterable, Sendable, CustomStringConvertible {
    case truncated, wrongCRC, zipSlip, absoluteName, symlink, zipBomb, duplicateNames, missingInfo, mapNotJSON, pathToNowhere, notAZip

    public var description: String { rawValue }

    /// The validate finding that must be reported, by code.
    public var expectedCode: String {
        switch self {
        case .truncated: return "zip.structure"
        case .wrongCRC: return "zip.crc"
        case .zipSlip, .absoluteName: return "name.unsafe"
        case .symlink: return "entry.link"
        case .zipBomb: return "zip.ratio"
        case .duplicateNames: return "name.duplicate"
        case .missingInfo: return "manifest.missing"
        case .mapNotJSON: return "map.invalid"
        case .pathToNowhere: return "map.path"
        case .notAZip: return "zip.structure"
        }
    }

    /// Words the user-facing message must contain.
    public var expectedWords: String {
        switch self {
        case .truncated: return "truncated"
        case .wrongCRC: return "CRC"
        case .zipSlip: return ".."
        case .absoluteName: return "absolute"
        case .symlink: return "symbolic link"
        case .zipBomb: return "ZIP bomb"
        case .duplicateNames: return "p20/First Map.mmap"
        case .missingInfo: return ".info"
        case .mapNotJSON: return "JSON"
        case .pathToNowhere: return "nowhere.gpkg"
        case .notAZip: return "not a ZIP"
        }
    }

    /// Writes the bad package into `directory` and returns its path.
    public func make(in directory: String) throws -> String {
        let good = try TestPackages.makePackage(in: directory, name: "good.mmpk")
        let path = directory + "/\(rawValue).mmpk"
        var entries = try TestPackages.rawEntries(of: good)
        func index(_ name: String) -> Int { entries.firstIndex { $0.name == name }! }
        switch self {
        case .truncated:
            let bytes = try readFile(good)
            try writeFile(path, Array(bytes.prefix(bytes.count * 2 / 3)))
            return path
        case .wrongCRC:
            entries[index("p20/First Map.mmap")].crc = 0xDEAD_BEEF
        case .zipSlip:
            entries.append(.init(name: "p20/../../escaped.txt", text: "pwned"))
        case .absoluteName:
            entries.append(.init(name: "/tmp/mapbook-absolute.txt", text: "pwned"))
        case .symlink:
            entries.append(.init(name: "p20/link", data: Array("/etc/passwd".utf8), unixMode: 0o120777))
        case .zipBomb:
            let bomb = RawZip.zeroBomb(mebibytes: 2048)
            entries.append(.init(name: "p20/zeros.bin", data: bomb.deflated, method: 8, crc: bomb.crc, uncompressedSize: UInt32(1 << 31)))
        case .duplicateNames:
            entries.append(.init(name: "p20/First Map.mmap", text: #"{"map": {"operationalLayers": []}}"#))
        case .missingInfo:
            entries.remove(at: index("Sample.info"))
        case .mapNotJSON:
            entries[index("p20/Second Map.mmap")].data = Array("{ this is not json".utf8)
        case .pathToNowhere:
            let i = index("p20/Second Map.mmap")
            let text = String(decoding: entries[i].data, as: UTF8.self)
            entries[i].data = Array(text.replacingOccurrences(of: "file:./data.gpkg", with: "file:./nowhere.gpkg").utf8)
        case .notAZip:
            try writeFile(path, "PK this only looks like a zip\n" + String(repeating: "x", count: 500))
            return path
        }
        try RawZip(entries).write(to: path)
        return path
    }
}

