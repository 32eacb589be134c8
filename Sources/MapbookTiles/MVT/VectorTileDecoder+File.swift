import MapbookPackage
import MapbookSupport

extension VectorTileDecoder {
    /// The bytes of the tile file at `path` (gzipped or not), refused with `MVTError`
    /// (`tooLarge`) past the inflate limit: a file that large is not a tile, whatever it holds.
    public static func readTile(path: String) throws -> [UInt8] {
        let file = try RandomAccessFile(path: path)
        guard file.size <= Int64(Gzip.defaultInflateLimit) else {
            throw MVTError(kind: .tooLarge, source: path, message: "the file is \(Format.count(file.size)) bytes, more than a tile may be (\(Gzip.defaultInflateLimit >> 20) MiB)")
        }
        return try file.read(at: 0, count: Int(file.size))
    }
}
