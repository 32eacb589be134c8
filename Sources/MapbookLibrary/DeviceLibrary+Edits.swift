import MapbookPackage
import MapbookSupport

extension DeviceLibrary {
    /// The folder of a package's working copy (`edits/<GUID>/`, docs/LIBRARY.md), created
    /// 0700 when missing. Keyed by the package's GUID, like the viewer's state, so edits follow
    /// the package whatever its file is called. A GUID is used as a file name only when it is
    /// hex digits, dashes and braces.
    public func editsFolder(packageGUID guid: String) throws -> String {
        guard !guid.isEmpty, guid.count <= 64, guid.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") || ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) || ($0 >= 97 && $0 <= 102) }) else {
            throw LibraryError(kind: .invalidState, path: root, message: "the package's GUID '\(guid)' cannot name a folder of edits; give the project a guid of hex digits")
        }
        let folder = root + "/edits/" + guid
        try withLock(creating: true) { try LibraryFiles.makeDirectories(folder) }
        return folder
    }

    /// The working copy's data of the package with `guid`, when this device has edited it;
    /// nil otherwise (nothing is created). What viewers read instead of the package's own
    /// `data.gpkg`, so every view shows the edited state.
    /// A copy made from other data than `entry` holds (the package was updated since) is not
    /// used.
    public func workingCopyData(packageGUID guid: String, dataEntry entry: ZipEntry) -> String? {
        guard let folder = existingEditsFolder(guid) else { return nil }
        let path = folder + "/data.gpkg"
        guard FileSystem.kind(path) == .file, let copy = try? SQLiteDatabase(readOnlyPath: path) else { return nil }
        defer { try? copy.close() }
        let base = (try? copy.scalar("SELECT base FROM \(ZipEntry.workingCopyBaseTable)"))??.text
        return base == entry.contentKey ? path : nil
    }

    /// Whether this device has a folder of edits for the package with `guid`; nothing is created.
    public func hasEditsFolder(packageGUID guid: String) -> Bool {
        existingEditsFolder(guid).map { FileSystem.kind($0) == .directory } ?? false
    }

    /// The folder of edits `guid` names, when the GUID can name one (nothing is created).
    private func existingEditsFolder(_ guid: String) -> String? {
        guard !guid.isEmpty, !guid.contains("/"), !guid.contains("..") else { return nil }
        return root + "/edits/" + guid
    }
}
