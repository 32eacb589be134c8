import MapbookSupport

/// A failure to read or write an archive, naming the file, what was being done and why.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The operating system refused to open, read, write, sync or rename a file; `errno`
        /// says why (`ENOENT`, `EACCES`, `ENOSPC`, ...).
        case io(errno: Int32)
        /// The path names a folder, device or other thing that is not a regular file.
        case notARegularFile
        /// The file is empty, too short, or has no end-of-central-directory record.
        case notAZip
        /// The file is not of the tile format asked for: no PMTiles magic number, a tile
        /// package of another kind.
        case wrongFormat
        /// The file ends before the data it describes: a partial download or copy.
        case truncated
        /// A structure is damaged: a bad signature, a local header that disagrees with the
        /// central directory, a forged offset, damaged deflate data or a PMTiles directory.
        case damaged
        /// An entry's size differs from what the central directory declares.
        case sizeMismatch
        /// An entry fails its CRC-32 check.
        case crcMismatch
        /// An entry is encrypted.
        case encrypted
        /// A compression method this reader does not implement.
        case unsupportedCompression
        /// A format version or feature this reader does not implement: spanned ZIP
        /// archives, PMTiles other than version 3.
        case unsupportedVersion
        /// An entry is compressed where it must be stored to be read in place.
        case notStored
        /// More bytes, entries or tiles than this reader accepts.
        case tooLarge
        /// An entry inflates past what it declares or claims an impossible ratio.
        case zipBomb
        /// An entry name that is absolute, climbs out with `..`, or is otherwise unsafe.
        case unsafeName
        /// Two entries of the same name written to one archive.
        case duplicateName
        /// A tile the archive cannot hold: off the grid, outside the package's levels,
        /// empty, or too large.
        case invalidTile
        /// The same tile added twice.
        case duplicateTile
        /// A tile the archive lists but whose data is missing.
        case missingTile
        /// An archive with no tiles to read or write.
        case noTiles
        /// The package holds no entry of the kind asked for, or none of that name.
        case missingEntry
        /// A tile package description that the writer refuses.
        case invalidDescription
        /// The archive's metadata is not what its format requires.
        case invalidMetadata
        /// The destination exists and replacing it was not asked for.
        case alreadyExists
        /// The writer was used after it was finished, aborted or closed.
        case closed
        /// A source delivered more or fewer bytes than it declared while being written.
        case sourceChanged
        /// zlib or libarchive could not allocate its state.
        case outOfMemory
        /// libarchive refused an operation; `message` gives its reason.
        case libarchive
        /// A database inside the archive (MBTiles) failed.
        case sqlite(SQLiteError.Kind)
        /// A file inside the archive is present but wrong.
        case packageFormat(PackageFormatError.Kind)
    }

    public var kind: Kind
    /// What was being done: "open", "read the central directory", "read entry", "write".
    public var operation: String
    /// The archive's path, with the entry in brackets when one is involved.
    public var path: String
    public var message: String

    public init(kind: Kind, operation: String, path: String, message: String) {
        self.kind = kind
        self.operation = operation
        self.path = path
        self.message = message
    }

    public var description: String { "Cannot \(operation) '\(path)': \(message)" }
}

extension ArchiveError {
    /// An error thrown while reading or writing an archive's contents, as an archive error
    /// that keeps its kind: an archive error as it is, a package file or database failure
    /// wrapped with its own kind.
    ///
    /// Only for code whose untyped `throws` can raise nothing else; any other error is a
    /// programming mistake and stops the program.
    package init(_ error: any Error, operation: String, path: String) {
        switch error {
        case let error as ArchiveError: self = error
        case let error as PackageFormatError:
            self.init(kind: .packageFormat(error.kind), operation: operation, path: error.path, message: error.message)
        case let error as SQLiteError:
            self.init(kind: .sqlite(error.kind), operation: operation, path: path, message: error.message)
        default: preconditionFailure("archive code threw an unexpected \(type(of: error)): \(error)")
        }
    }
}
