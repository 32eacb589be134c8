import MapbookData
import MapbookPackage
import MapbookSupport

/// A mistake in a project file, naming the file, the key and the line.
public struct ProjectError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The project file or an input (a source, an image, a search-quality file) cannot
        /// be opened or read.
        case file(ArchiveError.Kind)
        /// A file is not UTF-8 text.
        case notUTF8
        /// A file holds nothing.
        case empty
        /// A file is not valid YAML or JSON.
        case syntax
        /// A key appears twice in one mapping.
        case duplicateKey
        /// A value of the wrong type: a list where a mapping belongs, text for a number.
        case wrongType
        /// A required key or list entry is missing.
        case missingKey
        /// A key the project file does not have (a typo, most likely).
        case unknownKey
        /// Two keys that exclude each other, or one key given twice under two spellings.
        case conflictingKeys
        /// A value outside what the key allows: a range, a colour, a date, a name, a method.
        case invalidValue
        /// Two maps, locators or listed fields with the same name.
        case duplicateName
        /// A layer or backdrop names a source the project does not have.
        case unknownSource
        /// Something this version of mapbook does not do: a data format, a CRS, a YAML
        /// alias, an Esri mobile geodatabase where data must be imported.
        case unsupported
        /// A field the project names is not a column of its table.
        case noSuchColumn
        /// A table the project names is not in its database.
        case noSuchTable
        /// A database with several tables, where the project does not say which.
        case ambiguousTable
        /// A table without geometry where shapes are needed.
        case noGeometry
        /// A database with changes still in its write-ahead log or journal.
        case pendingChanges
        /// An image that is not PNG or JPEG.
        case notAnImage
        /// The output would overwrite an input.
        case outputIsInput
        /// No extent is given and none can be worked out.
        case noExtent
        /// PROJ does not know the coordinate system given.
        case unknownCRS
        /// A source has problems, and `--strict` is on.
        case strictProblems
        /// A source database cannot be opened.
        case sqlite(SQLiteError.Kind)
        /// A source, tile package or locator file is present but wrong.
        case packageFormat(PackageFormatError.Kind)
        /// A source table cannot be opened or filtered.
        case featureTable(FeatureTableError.Kind)
        /// A source file cannot be imported.
        case data(DataError.Kind)
        /// The package built fails `validate`: a defect of mapbook, never written.
        case invalidPackage
        /// A step ran past the time limit the project gives it (a network's hierarchy).
        case timeLimit
    }

    public var kind: Kind
    public var file: String
    /// Where in the document: `maps[1].layers[0].source`.
    public var key: String
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(kind: Kind, file: String, key: String, line: Int?, column: Int? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.key = key
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        var location = file
        if let line { location += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        return "\(location): " + (key.isEmpty ? "" : "\(key): ") + message
    }
}
