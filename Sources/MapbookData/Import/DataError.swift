import MapbookPackage
import MapbookSupport

/// A source that cannot be read, naming the file, where in it, and what to do.
public struct DataError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The file cannot be opened or read: missing, a folder, no permission, cut short.
        case file(ArchiveError.Kind)
        /// The operating system refused to create or write a temporary file; `errno` says why.
        case io(errno: Int32)
        /// The file is not valid JSON.
        case json(JSONError.Kind)
        /// SQLite cannot read the database.
        case sqlite(SQLiteError.Kind)
        /// The GeoPackage's feature table cannot be opened.
        case featureTable(FeatureTableError.Kind)
        /// The coordinate system is unknown, or cannot be turned into the one needed.
        case crs(CRSError.Kind)
        /// The file is not of the format it is read as, or a variant this reader does not
        /// read: not a shapefile, not a GeoPackage, a dBASE 7 table, an undefined shape type.
        case unsupportedFormat
        /// A ZIP archive of shapefiles that libarchive cannot open.
        case notAZip
        /// libarchive failed while reading an archive of shapefiles.
        case libarchive
        /// The file ends before its header does.
        case truncated
        /// The file's own structure is inconsistent: header lengths, record counts, a failed
        /// SQLite integrity check.
        case damaged
        /// The file holds no data at all.
        case empty
        /// A JSON document that is not GeoJSON: a wrong root, a missing or misspelt type.
        case invalidGeoJSON
        /// A CSV quote left open until the end of the file.
        case unclosedQuote
        /// A CSV record past the size limit.
        case recordTooLong
        /// An option that cannot work: a bad delimiter, clashing geometry options, an
        /// encoding iconv does not know.
        case invalidOption
        /// An option names a column or field the source does not have.
        case noSuchColumn
        /// No column holds geometry, and none was named.
        case noGeometry
        /// No layer of the name asked for.
        case noSuchLayer
        /// The source holds no layer at all.
        case noLayers
        /// Several layers could be meant; one must be named.
        case ambiguousLayer
        /// Two layers of the same name in one archive.
        case duplicateLayer
        /// An archive entry is encrypted.
        case encrypted
        /// A file larger than this reader accepts, or an archive that expands past the limit.
        case tooLarge
        /// libarchive could not allocate its reader.
        case outOfMemory
    }

    public var kind: Kind
    public var path: String
    /// Where in the file: "line 12", "record 40", "feature 3", or empty.
    public var location: String
    public var message: String
    /// The JSON error underneath, when the file is not valid JSON: its kind says what is wrong.
    public var json: JSONError?

    public init(kind: Kind, path: String, location: String = "", message: String) {
        self.kind = kind
        self.path = path
        self.location = location
        self.message = message
    }

    /// A JSON file that cannot be read, keeping the JSON error.
    public init(_ json: JSONError) {
        self.init(kind: .json(json.kind), path: json.path ?? "", location: json.location, message: json.message)
        self.json = json
    }

    public var description: String {
        location.isEmpty ? "\(path): \(message)" : "\(path), \(location): \(message)"
    }
}
