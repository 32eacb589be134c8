#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookEditing
import MapbookLibrary
import MapbookPackage

/// A package's edits on this device (issue 19): its working copy in the device library, and
/// who and when the tracking fields name, as `mapbook edit` and the viewer's edits record them.
public enum DeviceEdits {
    /// The working copy of `package` in `library`'s `edits/<GUID>/`, made on first use.
    /// Throws `EditError` (`notEditable`) for a package without a GUID.
    public static func workingCopy(of package: MobileMapPackage, library: DeviceLibrary, forSync: Bool = false) throws -> WorkingCopy {
        try WorkingCopy(package: package, folder: try library.editsFolder(packageGUID: WorkingCopy.guid(of: package)), forSync: forSync)
    }

    /// One edit of `layer` (its table, or its title in a map) of `package`, made by `body`
    /// on the working copy with the layer's table. Nothing is written until an edit is
    /// accepted: the layer is checked in the package itself first (editable; `place`, if
    /// any, inside the extent), and a working copy made for an edit that is then refused is
    /// removed.
    public static func edit(
        _ package: MobileMapPackage, layer: String, place: Geometry? = nil, library: DeviceLibrary,
        _ body: (WorkingCopy, String) throws -> WorkingCopy.Change
    ) throws -> WorkingCopy.Change {
        let table = try WorkingCopy.table(named: layer, in: package)
        try WorkingCopy.checkEditable(package: package, layer: table)
        if let place { try WorkingCopy.checkInside(place, package: package, layer: table) }
        let guid = package.manifest.guid ?? ""
        let hadCopy = library.hasEditsFolder(packageGUID: guid)
        let copy = try workingCopy(of: package, library: library)
        do {
            return try body(copy, table)
        } catch {
            if !hadCopy, let folder = try? library.editsFolder(packageGUID: guid) { _ = try? WorkingCopy.discard(folder: folder) }
            throw error
        }
    }

    /// Who the tracking fields name: the user signed in to `library`'s portal, else the login
    /// name (`USER`, `LOGNAME`).
    public static func user(library: DeviceLibrary) -> String {
        if let credential = try? library.credential() { return credential.username }
        for key in ["USER", "LOGNAME"] { if let v = getenv(key) { return String(cString: v) } }
        return "unknown"
    }

    /// Now, in Unix seconds, as the tracking fields take it.
    public static func now() -> Int64 { Int64(time(nil)) }
}
