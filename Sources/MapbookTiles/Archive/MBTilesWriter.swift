import MapbookPackage
import MapbookSupport

/// Writes an MBTiles 1.3 file: SQLite with a `metadata` table (name, format, bounds, center,
/// zooms and the `json` row holding `vector_layers`) and `tiles` in the TMS scheme, whose rows
/// count from the south (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md).
///
/// `tiles` is a view over `map` (coordinates to a tile id) and `images` (each distinct tile
/// once, its id the first 128 bits of its SHA-256), as tippecanoe and mb-util write it: the
/// all-land and all-sea tiles of a tile set are stored once. Readers query `tiles` as usual.
///
/// The database is built under a temporary name beside the destination, without a journal
/// (the rename is what makes the write atomic), and renamed into place by `finish()`.
public final class MBTilesWriter: WritableTileArchive {
    public let path: String
    public let metadata: TileArchiveMetadata
    private var output: AtomicFile?
    private var database: SQLiteDatabase?
    private var insert: SQLiteStatement?
    private var insertImage: SQLiteStatement?
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
                CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
                CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
                CREATE TABLE images (tile_data BLOB, tile_id TEXT);
                CREATE UNIQUE INDEX images_id ON images (tile_id);
                CREATE VIEW tiles AS
                    SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row,
                        images.tile_data AS tile_data
                    FROM map JOIN images ON images.tile_id = map.tile_id;
                BEGIN;
                """)
            insert = try database.prepare("INSERT INTO map (zoom_level, tile_column, tile_row, tile_id) VALUES (?, ?, ?, ?)")
            insertImage = try database.prepare("INSERT OR IGNORE INTO images (tile_data, tile_id) VALUES (?, ?)")
            self.output = output
            self.database = database
        } catch {
            throw TileArchiveError(error, operation: "create", path: path)
        }
    }

    public func addTile(_ bytes: [UInt8], at coordinate: TileCoordinate) throws(TileArchiveError) {
        guard let insert, let insertImage else { throw TileArchiveError(kind: .closed, operation: "add a tile to", path: path, message: "the file is already finished or aborted") }
        guard coordinate.isValid else {
            throw TileArchiveError(kind: .invalidTile, operation: "add a tile to", path: path, message: "\(coordinate) is not a tile of the Web Mercator grid")
        }
        // TMS rows count from the south.
        let row = coordinate.tilesPerSide - 1 - coordinate.y
        let id = String(SHA256Digest.hex(of: bytes).prefix(32))
        do {
            try insert.bind([.integer(Int64(coordinate.z)), .integer(Int64(coordinate.x)), .integer(Int64(row)), .text(id)])
            try insert.run()
            try insertImage.bind([.blob(bytes), .text(id)])
            try insertImage.run()
        } catch {
            if error.kind == .constraint {
                throw TileArchiveError(kind: .duplicateTile, operation: "add a tile to", path: path, message: "tile \(coordinate) was added twice")
            }
            throw TileArchiveError(kind: .sqlite(error.kind), operation: "add a tile to", path: path, message: error.message)
        }
        tileCount += 1
        zooms = zooms.map { min($0.lowerBound, coordinate.z)...max($0.upperBound, coordinate.z) } ?? coordinate.z...coordinate.z
    }

    public func finish() throws(TileArchiveError) {
        guard let database, let output else { throw TileArchiveError(kind: .closed, operation: "finish", path: path, message: "the file is already finished or aborted") }
        insert = nil
        insertImage = nil
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
        } catch let error as ArchiveError {
            throw error
        } catch {
            abort()
            throw TileArchiveError(error, operation: "write", path: path)
        }
    }

    public func abort() {
        insert = nil
        insertImage = nil
        try? database?.close()
        database = nil
        output?.discard()
        output = nil
    }
}
