#if canImport(Glibc)
import Glibc
#endif
import MapbookEditing
import MapbookLibrary
import MapbookPackage

/// A package's edits on this device (issue 19): its working copy in the device library, and
/// who and when the tracking fields name, as `mapbook edit` and the viewer's edits record them.
public enum DeviceEdits {
    /// The working copy of `package` in `library`'s `edits/<GUID>/`, made on first use.
    /// Throws `EditError` (`notEditable`) for a package without a GUID.
    public static func workingCopy(of package: MobileMapPackage, library: DeviceLibrary, forSync: Bool = false) throws -> WorkingCopy {
        guard let guid = package.manifest.guid else {
            throw EditError(kind: .notEditable, layer: "", field: "", message: "\(package.path) has no GUID in its manifest, so its edits cannot be kept; build it again with mapbook create")
        }
        return try WorkingCopy(package: package, folder: try library.editsFolder(packageGUID: guid), forSync: forSync)
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
