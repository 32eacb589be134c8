import Foundation
import MapbookPackage
import Testing

/// The third-party test data in `../shared/fixtures`, beside the checkout.
///
/// Tests that need it carry `Fixtures.required`,
/// so `swift test` passes, skipping them with that reason, on a machine without the folder.
public enum Fixtures {
    /// The repository root, found from this file's location.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$MAPBOOK_FIXTURES`, else `../shared/fixtures` beside the repository.
    public static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["MAPBOOK_FIXTURES"] {
            return URL(fileURLWithPath: override)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    public static var available: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("README.md").path)
    }

    /// The trait for tests that read fixtures: skipped, with the reason, when they are absent.
    public static var required: ConditionTrait {
        .enabled(if: available, "needs the third-party fixtures in ../shared/fixtures, which are absent here")
    }

    /// The path of a fixture file, e.g. `path("esri-runtime-data/usa.geodatabase")`.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }
}

/// A fresh temporary folder, removed with everything in it when the body returns.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    return try body(dir.path)
}

public func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    return try await body(dir.path)
}

public final class TemporaryDirectory {
    public let path: String

    public init() throws {
        var template = Array((NSTemporaryDirectory() + "mapbook-test-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Reads a whole file.
public func readFile(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

public func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

public func writeFile(_ path: String, _ text: String) throws {
    try writeFile(path, Array(text.utf8))
}

/// Every path under `directory`, relative to it, sorted.
public func listTree(_ directory: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
    return (enumerator.allObjects as? [String] ?? []).sorted()
}

/// Zips a folder with every entry stored, through the toolkit's own writer (to make an
/// Esri `.vtpk` from its unpacked fixture folder).
public func zipStored(folder: String, to output: String, timestamp: Int64 = 1_700_000_000) throws {
    let file = try AtomicFile(destination: output)
    let zip = try ZipWriter(descriptor: file.descriptor, path: output)
    var isDirectory: ObjCBool = false
    for relative in listTree(folder) {
        let full = folder + "/" + relative
        guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
        let bytes = try readFile(full)
        try zip.beginEntry(name: relative, size: Int64(bytes.count), modificationTime: timestamp)
        try zip.write(bytes)
    }
    try zip.close()
    try file.commit()
}
