import MapbookSupport

/// A package file that is present but wrong: bad JSON, a missing key, an impossible value.
public struct PackageFormatError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The file is of another kind than expected: not a package, not a tile package, not a
        /// GeoPackage, not a locator of this type, an XML item file with the wrong root.
        case wrongFormat
        /// The file is not valid JSON.
        case json(JSONError.Kind)
        /// The file is not well-formed XML.
        case xml(XMLError.Kind)
        /// A database the file is or holds cannot be read.
        case sqlite(SQLiteError.Kind)
        /// The entry cannot be read from its archive.
        indirect case archive(ArchiveError.Kind)
        /// A required key, table, participant or list entry is absent.
        case missingKey
        /// A key this file type does not have (a typo, most likely).
        case unknownKey
        /// A value of the wrong JSON type, or outside what the format allows.
        case invalidValue
        /// A file the package should hold is not in it.
        case missingEntry
        /// A layer the file refers to is not in its database.
        case missingLayer
        /// A field the file refers to is not in its layer.
        case missingField
        /// A structure is damaged: a short bundle, a corrupt block of a locator index.
        case damaged
        /// A structure nests deeper than the format allows.
        case tooDeep
        /// An entry is compressed where it must be stored to be read in place.
        case notStored
        /// A format version this mapbook does not read.
        case unsupportedVersion
        /// A request for something the file does not offer, such as an unknown suggestion.
        case notOffered
        /// The package's signature is malformed, doubled, of another manifest or does not
        /// verify, or an entry differs from what the signed manifest records.
        case signature(SignatureError.Kind)
        /// The operating system refused to write the file; `errno` says why.
        case io(errno: Int32)
    }

    public var kind: Kind
    /// The file, as `package.mmpk[entry]` when inside a package.
    public var path: String
    public var message: String

    public init(kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "'\(path)': \(message)" }
}

extension PackageFormatError {
    /// An error thrown while reading a package file, as a package-format error that keeps its
    /// kind: a package-format error as it is, an archive, database, JSON or XML failure
    /// wrapped with its own kind and message.
    ///
    /// Only for code whose untyped `throws` can raise nothing else; any other error is a
    /// programming mistake and stops the program.
    package init(_ error: any Error, path: String) {
        switch error {
        case let error as PackageFormatError: self = error
        case let error as ArchiveError: self.init(kind: .archive(error.kind), path: path, message: error.description)
        case let error as SQLiteError: self.init(kind: .sqlite(error.kind), path: path, message: error.description)
        case let error as JSONError: self.init(kind: .json(error.kind), path: path, message: error.description)
        case let error as XMLError: self.init(kind: .xml(error.kind), path: path, message: error.description)
        case let error as SignatureError: self.init(kind: .signature(error.kind), path: error.path, message: error.message)
        default: preconditionFailure("package code threw an unexpected \(type(of: error)): \(error)")
        }
    }
}
