/// A package in the device library, as `DeviceLibrary.list()` reports it.
///
/// A damaged or foreign file is an entry too, with `problem` saying what is wrong and what to
/// do, so one bad file never hides the others or stops the listing.
public struct LibraryEntry: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Copied in by hand (`mapbook library add`); shown in device mode.
        case sideloaded
        /// Downloaded from the portal; shown in portal mode.
        case downloaded
    }

    public var kind: Kind
    /// The file's name in the library: what `remove` takes (a download's item id works too).
    public var name: String
    public var path: String
    /// The package's title; the file name when it has none or cannot be read.
    public var title: String
    /// The portal item a download came from.
    public var itemId: String?
    /// A download's sidecar, when it could be read.
    public var record: DownloadRecord?
    /// The file's size in bytes.
    public var size: Int64
    /// What is wrong with the file and what to do, when something is; nil when it is fine.
    public var problem: String?

    public init(
        kind: Kind, name: String, path: String, title: String, itemId: String? = nil, record: DownloadRecord? = nil, size: Int64,
        problem: String? = nil
    ) {
        self.kind = kind
        self.name = name
        self.path = path
        self.title = title
        self.itemId = itemId
        self.record = record
        self.size = size
        self.problem = problem
    }
}
