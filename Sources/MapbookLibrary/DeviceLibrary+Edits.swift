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
}
