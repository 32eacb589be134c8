#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookSupport

/// The locators of edited layers made again from the edited data, so search finds what was
/// added and changed and no longer finds what was deleted (issue 19).
///
/// A device rebuilds them beside its working copy when the copy has changed since the last
/// rebuild (its size and modification time are the stamp); the portal rebuilds them when it
/// publishes synchronised data as a new version. Only the participants over the given layers
/// and reading the given data entry are rebuilt: the rest stay as the package has them.
public enum LocatorRefresh {
    /// The rebuilt files of one participant.
    public struct Rebuilt: Sendable, Equatable {
        /// The participant's folder in the package (`p20/locators/trees-common`).
        public var entryFolder: String
        public var index: String
        public var definition: String
    }

    /// Rebuilds, into `folder/<participant folder name>/`, every single-field locator of
    /// `package` over one of `layers` of the data entry `dataEntry`, from `dataPath`. With
    /// `reuse`, a participant whose stamp matches `dataPath` is not built again.
    public static func rebuild(package: MobileMapPackage, dataEntry: String, dataPath: String, layers: Set<String>, into folder: String, reuse: Bool) throws -> [Rebuilt] {
        guard !layers.isEmpty else { return [] }
        let stamp = Self.stamp(dataPath)
        var rebuilt: [Rebuilt] = []
        for json in package.archive.entries where json.name.hasSuffix("/locator.json") {
            let base = String(json.name.dropLast("/locator.json".count))
            let definition = try LocatorDefinition.parse(try package.bytes(of: json, limit: 4 << 20), path: "\(package.path)[\(json.name)]")
            guard layers.contains(definition.layer), CompositeLocator.resolve(definition.data, in: base) == dataEntry else { continue }
            let out = folder + "/" + (base.split(separator: "/").last.map(String.init) ?? "locator")
            let files = Rebuilt(entryFolder: base, index: out + "/index.sqlite", definition: out + "/locator.json")
            if reuse, let kept = try? readSmall(out + "/stamp"), kept == stamp, FileSystem.kind(files.index) == .file, FileSystem.kind(files.definition) == .file {
                rebuilt.append(files)
                continue
            }
            try makeFolder(folder)
            try makeFolder(out)
            let spec = LocatorSpec(
                name: definition.name, layer: definition.layer, field: definition.field, displayField: definition.displayField,
                rankField: definition.rankField, outputFields: definition.outputFields, isAddress: definition.isAddress)
            let temporary = out + "/index.sqlite.tmp"
            unlink(temporary)
            let built = try LocatorBuilder.build(spec, geoPackage: dataPath, indexPath: temporary, dataEntry: definition.data)
            guard rename(temporary, files.index) == 0 else {
                let code = errno
                throw LocatorError(kind: .io(errno: code), path: files.index, message: "cannot be written: \(FileSystem.errorMessage(code))")
            }
            try AtomicFile.write(JSONWriter.bytes(built.definition.jsonValue), to: files.definition)
            try AtomicFile.write(Array(stamp.utf8), to: out + "/stamp")
            rebuilt.append(files)
        }
        return rebuilt
    }

    /// The package entries `rebuilt` replaces, for `PackageRewriter`.
    public static func entries(_ rebuilt: [Rebuilt]) -> [String: PackageContents.File.Source] {
        var entries: [String: PackageContents.File.Source] = [:]
        for r in rebuilt {
            entries[r.entryFolder + "/index.sqlite"] = .file(path: r.index)
            entries[r.entryFolder + "/locator.json"] = .file(path: r.definition)
        }
        return entries
    }

    /// Size and modification time in nanoseconds: a commit to the file changes them.
    static func stamp(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "" }
        return "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    static func makeFolder(_ path: String) throws {
        let code = FileSystem.makeDirectory(path, mode: 0o700)
        guard code == 0 else {
            throw LocatorError(kind: .io(errno: code), path: path, message: "cannot be made: \(FileSystem.errorMessage(code))")
        }
    }

    static func readSmall(_ path: String) throws -> String {
        String(decoding: try readFile(path), as: UTF8.self)
    }

    /// A small file's bytes (a definition, a stamp): at most 4 MB.
    static func readFile(_ path: String) throws -> [UInt8] {
        let file = try RandomAccessFile(path: path)
        return try file.read(at: 0, count: Int(min(file.size, 4 << 20)))
    }
}
