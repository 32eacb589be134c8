import MapbookPackage
import MapbookSupport

/// A device library file that cannot be read or written, or a request the library cannot
/// honour, naming the file and saying what to do.
public struct LibraryError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The operating system refused to create, open, read, lock, flush, rename or remove a
        /// file or folder; `errno` says why.
        case io(errno: Int32)
        /// The library's folder is a file or something else.
        case notAFolder
        /// A file far larger than any the library writes.
        case notALibraryFile
        /// The package does not open as a mobile map package; its own kind says why.
        case notAPackage(PackageFormatError.Kind)
        /// A library file (state, download record, credential) is not valid JSON.
        case json(JSONError.Kind)
        /// The library's state file lacks a mode, or a portal URL in portal mode.
        case invalidState
        /// A download record that is not an object, lacks a key, or is for another item.
        case invalidRecord
        /// A stored or given credential without a token or a valid key.
        case invalidCredential
        /// A URL that is not an http(s) portal URL, or carries a user name.
        case invalidPortalURL
        /// An item id that cannot be a file name.
        case invalidItemID
        /// The library's mode does not allow the request: downloads in device mode, a portal
        /// given in device mode or missing in portal mode, a package the mode hides.
        case wrongMode
        /// A download or credential for another portal than the library's.
        case wrongPortal
        /// A download record for another item than the one asked for.
        case wrongItem
        /// No downloaded file to store.
        case noDownload
        /// The download has fewer bytes than the item.
        case incompleteDownload
        /// The download has more bytes than the item, or another SHA-256.
        case damagedDownload
        /// No package of that name in the library.
        case noSuchPackage
        /// Several packages go by that name.
        case ambiguousName
        /// No trusted key has that fingerprint or name.
        case noSuchKey
    }

    public var kind: Kind
    /// The file or folder involved; the library's root when no single file is.
    public var path: String
    /// What is wrong and, where there is one, the remedy.
    public var message: String

    public var description: String { "'\(path)': \(message)" }
}
