import CArchive
import MapbookPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookSupport

/// The shapefiles in a ZIP archive, and the copying of one of them out for reading.
///
/// A zipped shapefile is extracted, not read in memory: its `.shp` and `.dbf` may be
/// gigabytes, and the readers need positioned reads (the `.shx` points anywhere in the
/// `.shp`), which a deflated entry cannot give. Only the chosen shapefile's `.shp`, `.shx`,
/// `.dbf`, `.prj` and `.cpg` are written, under names made here (`layer.shp`, ...), into a
/// fresh private folder: no entry name ever becomes a path, so `..` or absolute names cannot
/// write anywhere, and entries with such names are not even considered.
enum ShapefileZip {
    /// One shapefile in an archive.
    struct Layer: Sendable, Equatable {
        /// The base name of its `.shp` entry, without folder or extension.
        var name: String
        /// The entry path without the extension (`folder/name`).
        var stem: String
        /// Entry names by lower-case extension (`shp`, `dbf`, ...).
        var members: [String: String]
    }

    /// The extensions copied out: the geometry, its index, the attributes, the coordinate
    /// system and the code page. Spatial indexes (`.sbn`, `.qix`) and metadata are not read.
    static let memberExtensions: Set<String> = ["shp", "shx", "dbf", "prj", "cpg"]

    /// The shapefiles in the archive at `path`, in entry order.
    static func layers(in path: String) throws(DataError) -> [Layer] {
        let reader = try ZipEntryReader(path: path)
        var stems: [String: Int] = [:]
        var layers: [Layer] = []
        var pending: [(stem: String, ext: String, name: String)] = []
        while let entry = try reader.next() {
            guard entry.isRegularFile, EntryName.problem(entry.name) == nil else { continue }
            let components = entry.name.split(separator: "/")
            // macOS zips carry AppleDouble shadows (`__MACOSX/x/._name.shp`): not shapefiles.
            guard let last = components.last, !components.contains("__MACOSX"), !last.hasPrefix("._") else { continue }
            guard let dot = entry.name.lastIndex(of: "."), dot > entry.name.startIndex else { continue }
            let ext = entry.name[entry.name.index(after: dot)...].lowercased()
            guard memberExtensions.contains(ext) else { continue }
            let stem = String(entry.name[..<dot])
            if ext == "shp" {
                guard stems[stem.lowercased()] == nil else {
                    throw DataError(kind: .duplicateLayer, path: path, message: "the archive holds the shapefile '\(stem)' twice (entry '\(entry.name)')")
                }
                stems[stem.lowercased()] = layers.count
                let base = stem.split(separator: "/").last.map(String.init) ?? stem
                layers.append(Layer(name: base, stem: stem, members: ["shp": entry.name]))
            } else {
                pending.append((stem, ext, entry.name))
            }
        }
        // Members may come before their .shp; siblings match case-insensitively, as on disk.
        for member in pending {
            guard let index = stems[member.stem.lowercased()] else { continue }
            if layers[index].members[member.ext] == nil { layers[index].members[member.ext] = member.name }
        }
        return layers
    }

    /// Picks the shapefile named `layer` (its base name or its path without extension, any
    /// case), or the only one when `layer` is nil, and copies it out.
    static func extract(_ path: String, layer: String?) throws(DataError) -> Extraction {
        let layers = try layers(in: path)
        let chosen: Layer
        let names = layers.map(\.stem).joined(separator: ", ")
        if let layer {
            let wanted = layer.lowercased()
            let matches = layers.filter { $0.name.lowercased() == wanted || $0.stem.lowercased() == wanted }
            if matches.isEmpty {
                throw DataError(kind: .noSuchLayer, path: path, message: layers.isEmpty
                    ? "the archive holds no shapefile (no .shp entry), so there is no layer '\(layer)'"
                    : "the archive holds no shapefile named '\(layer)'; it holds: \(names)")
            }
            guard matches.count == 1 else {
                throw DataError(kind: .ambiguousLayer, path: path, message: "several shapefiles are named '\(layer)': \(matches.map(\.stem).joined(separator: ", ")); give the path without extension")
            }
            chosen = matches[0]
        } else {
            if layers.isEmpty {
                throw DataError(kind: .noLayers, path: path, message: "the archive holds no shapefile (no .shp entry)\(try entrySummary(path))")
            }
            guard layers.count == 1 else {
                throw DataError(kind: .ambiguousLayer, path: path, message: "the archive holds \(layers.count) shapefiles: \(names); choose one with the layer name")
            }
            chosen = layers[0]
        }
        return try Extraction(archivePath: path, layer: chosen)
    }

    /// "; it holds: a.txt, b.csv" for a message, at most ten names.
    private static func entrySummary(_ path: String) throws(DataError) -> String {
        let reader = try ZipEntryReader(path: path)
        var names: [String] = []
        var count = 0
        while let entry = try reader.next() {
            count += 1
            if names.count < 10 { names.append(entry.name) }
        }
        if count == 0 { return "; it is empty" }
        return "; it holds: " + names.joined(separator: ", ") + (count > names.count ? ", and \(count - names.count) more" : "")
    }

    /// One shapefile copied out of an archive into a private folder, removed with its files
    /// when this object goes away.
    final class Extraction {
        let layer: Layer
        let directory: String
        /// The extracted files by lower-case extension.
        private(set) var files: [String: String] = [:]

        /// The corresponding C function for the folder is `mkdtemp`.
        init(archivePath: String, layer: Layer) throws(DataError) {
            self.layer = layer
            let temporary = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array("\(temporary)/mapbook-shapefile-XXXXXX".utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
                throw DataError(kind: .io(errno: errno), path: archivePath, message: "cannot create a temporary folder in '\(temporary)': \(FileSystem.errorMessage())")
            }
            directory = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
            do throws(DataError) {
                let wanted = Dictionary(uniqueKeysWithValues: layer.members.map { ($0.value, $0.key) })
                let reader = try ZipEntryReader(path: archivePath)
                var budget = ExtractionLimits().maximumTotalSize
                while let entry = try reader.next() {
                    guard entry.isRegularFile, let ext = wanted[entry.name], files[ext] == nil else { continue }
                    let target = "\(directory)/layer.\(ext)"
                    // Recorded first, so a partly written file is removed too.
                    files[ext] = target
                    try reader.copyData(of: entry, to: target, budget: &budget)
                }
                guard files["shp"] != nil else {
                    throw DataError(kind: .damaged, path: archivePath, message: "entry '\(layer.members["shp"] ?? "")' could not be found again while extracting")
                }
            } catch {
                remove()
                throw error
            }
        }

        deinit { remove() }

        private func remove() {
            for file in files.values { unlink(file) }
            files = [:]
            rmdir(directory)
        }
    }
}

/// Reads a ZIP archive's entries in order through libarchive. Not Sendable: one handle.
private final class ZipEntryReader {
    struct Entry {
        var name: String
        var isRegularFile: Bool
        var isEncrypted: Bool
    }

    private let path: String
    private let archive: OpaquePointer

    /// The corresponding C functions are `archive_read_new`, `archive_read_support_format_zip`
    /// and `archive_read_open_filename`.
    init(path: String) throws(DataError) {
        self.path = path
        guard let a = archive_read_new() else {
            throw DataError(kind: .outOfMemory, path: path, message: "libarchive could not allocate a reader")
        }
        archive_read_support_format_zip(a)
        guard archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK else {
            let message = archive_error_string(a).map { String(cString: $0) } ?? "unknown error"
            archive_read_free(a)
            throw DataError(kind: .notAZip, path: path, message: "cannot open as a ZIP archive: \(message)")
        }
        archive = a
    }

    deinit { archive_read_free(archive) }

    private func failure(_ what: String) -> DataError {
        let message = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        return DataError(kind: .libarchive, path: path, message: "\(what): \(message)")
    }

    /// The next entry's header, or nil at the end.
    ///
    /// The corresponding C function is `archive_read_next_header`.
    func next() throws(DataError) -> Entry? {
        var entry: OpaquePointer?
        let status = archive_read_next_header(archive, &entry)
        if status == ARCHIVE_EOF { return nil }
        guard status >= ARCHIVE_WARN, let entry else { throw failure("cannot read the next entry") }
        let raw = archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry)
        let name = raw.map { String(cString: $0) } ?? ""
        return Entry(
            name: name,
            isRegularFile: archive_entry_filetype(entry) == 0o100000,  // AE_IFREG, a cast macro Swift cannot import
            isEncrypted: archive_entry_is_encrypted(entry) != 0)
    }

    /// Copies the current entry's data into a new file at `target`, taking its size from `budget`.
    ///
    /// The corresponding C function is `archive_read_data`.
    func copyData(of entry: Entry, to target: String, budget: inout Int64) throws(DataError) {
        let label = "\(path)[\(entry.name)]"
        if entry.isEncrypted {
            throw DataError(kind: .encrypted, path: label, message: "the entry is encrypted; unzip it with its password first")
        }
        // O_EXCL and O_NOFOLLOW: write only a file created here, in a folder made here.
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DataError(kind: .io(errno: errno), path: label, message: "cannot create '\(target)': \(FileSystem.errorMessage())")
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
            if n == 0 { return }
            guard n > 0 else { throw failure("cannot read entry '\(entry.name)'") }
            budget -= Int64(n)
            guard budget >= 0 else {
                throw DataError(kind: .tooLarge, path: label, message: "the shapefile expands to more than \(ExtractionLimits().maximumTotalSize) bytes, past the extraction limit: a ZIP bomb?")
            }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + written, n - written) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else {
                    throw DataError(kind: .io(errno: errno), path: label, message: "cannot write '\(target)': \(FileSystem.errorMessage())")
                }
                written += w
            }
        }
    }
}
