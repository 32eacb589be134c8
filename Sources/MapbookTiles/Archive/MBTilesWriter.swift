import CSQLite
import MapbookPackage

/// Writes an MBTiles 1.3 file: SQLite with a `metadata` table (name, format, bounds, center,
/// zooms and the `json` row holding `vector_layers`) and a `tiles` table in the TMS scheme,
/// whose rows count from the south (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md).
///
/// The database is built under a temporary name beside the destination, without a journal
/// (the rename is what makes the write atomic), and renamed into place by `finish()`.
public final class MBTilesWriter: WritableTileArchive {
    public let path: String
    public let metadata: TileArchiveMetadata
    private var output: AtomicFile?
    private var database: SQLiteDatabase?
    private var insert: SQLiteStatement?
    private var zooms: ClosedRange<Int>?
    public private(set) var tileCount = 0

    public init(path: String, metadata: TileArchiveMetadata) throws(TileArchiveError) {
        self.path = path
        self.metadata = metadata
        do {
            let output = try AtomicFile(destination: path)
            let database = try SQLiteDatabase(writablePath: output.temporaryPath)
            try database.execute("""
                PRAGMA journal_mode = OFF;
                PRAGMA synchronous = OFF;
                PRAGMA application_id = 0x4d504258;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                BEGIN;
                """)
            insert = try database.prepare("INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)")
            self.output = output
            self.database = database
        } catch let error as SQLiteError {
            throw TileArchiveError(operation: "create", path: path, message: error.message)
        } catch let error as ArchiveError {
            throw TileArchiveError(operation: "create", path: path, message: error.message)
        } catch {
            throw TileArchiveError(operation: "create", path: path, message: "\(error)")
        }
    }

    public func addTile(_ bytes: [UInt8], at coordinate: TileCoordinate) throws(TileArchiveError) {
        guard let insert else { throw TileArchiveError(operation: "add a tile to", path: path, message: "the file is already finished or aborted") }
        guard coordinate.isValid else {
            throw TileArchiveError(operation: "add a tile to", path: path, message: "\(coordinate) is not a tile of the Web Mercator grid")
        }
        // TMS rows count from the south.
        let row = coordinate.tilesPerSide - 1 - coordinate.y
        do {
            try insert.bind([.integer(Int64(coordinate.z)), .integer(Int64(coordinate.x)), .integer(Int64(row)), .blob(bytes)])
            try insert.run()
        } catch {
            if error.code & 0xFF == SQLITE_CONSTRAINT {
                throw TileArchiveError(operation: "add a tile to", path: path, message: "tile \(coordinate) was added twice")
            }
            throw TileArchiveError(operation: "add a tile to", path: path, message: error.message)
        }
        tileCount += 1
        zooms = zooms.map { min($0.lowerBound, coordinate.z)...max($0.upperBound, coordinate.z) } ?? coordinate.z...coordinate.z
    }

    public func finish() throws(TileArchiveError) {
        guard let database, let output else { throw TileArchiveError(operation: "finish", path: path, message: "the file is already finished or aborted") }
        insert = nil
        var meta = metadata
        if let zooms {
            meta.minZoom = zooms.lowerBound
            meta.maxZoom = zooms.upperBound
        }
        do {
            let statement = try database.prepare("INSERT INTO metadata (name, value) VALUES (?, ?)")
            for (name, value) in meta.mbtilesRows {
                try statement.bind([.text(name), .text(value)])
                try statement.run()
            }
            try database.execute("COMMIT")
            try database.close()
            self.database = nil
            self.output = nil
            try output.commit()
        } catch let error as SQLiteError {
            abort()
            throw TileArchiveError(operation: "write", path: path, message: error.message)
        } catch let error as ArchiveError {
            throw TileArchiveError(operation: "write", path: path, message: error.message)
        } catch {
            abort()
            throw TileArchiveError(operation: "write", path: path, message: "\(error)")
        }
    }

    public func abort() {
        insert = nil
        try? database?.close()
        database = nil
        output?.discard()
        output = nil
    }
}
