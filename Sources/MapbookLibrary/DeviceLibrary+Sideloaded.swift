import MapbookPackage
import MapbookSupport

/// Sideloaded packages: copied into `sideloaded/` and shown in device mode.
extension DeviceLibrary {
    /// Copies the package at `path` into the library and returns its entry.
    ///
    /// The package must open as a mobile map package. The copy is written to a temporary
    /// file and renamed, so the library never holds half a package; a name already taken gets
    /// a number (`Water-2.mmpk`). The package is added in either mode, but shows only in
    /// device mode.
    @discardableResult
    public func addSideloaded(_ path: String) throws -> LibraryEntry {
        let title: String
        do {
            // A signed package is checked whole: one changed after signing never enters.
            title = Self.title(of: try verifiedFiles.open(path), fileName: FileSystem.lastComponent(path))
        } catch {
            throw LibraryError(kind: .notAPackage(Self.packageKind(error, opening: path)), path: path, message: "cannot be added to the library: \(Self.reason(error, opening: path))")
        }
        return try withLock(creating: true) {
            try LibraryFiles.makeDirectories(sideloadedFolder)
            let name = uniqueSideloadedName(Self.sideloadedName(forSource: path))
            let destination = sideloadedFolder + "/" + name
            try LibraryFiles.copy(path, to: destination)
            if let copy = try? MobileMapPackage(path: destination), copy.signature.isSigned { verifiedFiles.remember(copy) }
            return LibraryEntry(kind: .sideloaded, name: name, path: destination, title: title, size: FileSystem.size(destination) ?? 0)
        }
    }

    /// Why the package at `path` did not open, without repeating its path, which the
    /// package module's errors start with.
    static func reason(_ error: any Error, opening path: String) -> String {
        switch error {
        case let error as PackageFormatError where error.path == path: return error.message
        case let error as ArchiveError where error.path == path: return error.message
        default: return "\(error)"
        }
    }

    /// What is wrong with the package at `path` that did not open.
    static func packageKind(_ error: any Error, opening path: String) -> PackageFormatError.Kind {
        PackageFormatError(error, path: path).kind
    }

    /// The package's title: the manifest's title, else its name, else the file name.
    static func title(of package: MobileMapPackage, fileName: String) -> String {
        let manifest = package.manifest
        return [manifest.title, manifest.name].compactMap { $0 }.first { !$0.isEmpty } ?? stem(fileName)
    }

    /// A safe file name for a package copied from `source`: its own name as `.mmpk`, not
    /// hidden (a leading dot would make it look like a temporary file), no control characters,
    /// short enough for any file system.
    static func sideloadedName(forSource source: String) -> String {
        let file = FileSystem.lastComponent(source)
        var base = file.lowercased().hasSuffix(".mmpk") ? String(file.dropLast(5)) : file
        while base.hasPrefix(".") { base.removeFirst() }
        base = String(base.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "_" : Character($0) })
        while base.utf8.count > 200 { base.removeLast() }
        return (base.isEmpty ? "package" : base) + ".mmpk"
    }

    /// `name`, or `stem-2.mmpk`, `stem-3.mmpk`... when it is taken. Runs under the lock, so
    /// the name stays free until the copy is renamed to it.
    func uniqueSideloadedName(_ name: String) -> String {
        guard FileSystem.kind(sideloadedFolder + "/" + name) != nil else { return name }
        let base = Self.stem(name)
        var n = 2
        while FileSystem.kind("\(sideloadedFolder)/\(base)-\(n).mmpk") != nil { n += 1 }
        return "\(base)-\(n).mmpk"
    }

    /// Every file in `sideloaded/`, as entries; ones that are not packages carry a problem.
    func scanSideloaded() -> [LibraryEntry] {
        FileSystem.names(in: sideloadedFolder).filter { !$0.hasPrefix(".") }.map { name in
            let path = sideloadedFolder + "/" + name
            let size = FileSystem.size(path) ?? 0
            func problem(_ text: String) -> LibraryEntry {
                LibraryEntry(kind: .sideloaded, name: name, path: path, title: name, size: size, problem: text)
            }
            guard FileSystem.kind(path) == .file else {
                return problem("is not a package file but a folder or link; move it out of the library")
            }
            guard name.lowercased().hasSuffix(".mmpk") else {
                return problem("is not a .mmpk package; move it out of the library and add packages with `mapbook library add`")
            }
            do {
                let package = try MobileMapPackage(path: path)
                return LibraryEntry(kind: .sideloaded, name: name, path: path, title: Self.title(of: package, fileName: name), size: size)
            } catch {
                return problem(
                    "does not open as a mobile map package (\(Self.reason(error, opening: path))); remove it with `mapbook library remove \(name)` and add a good copy")
            }
        }
    }
}
