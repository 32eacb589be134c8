import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTiles
import Synchronization
import Testing

@testable import MapbookViewer

/// A package whose file is not on this machine (the portal reads one in a bucket by ranged
/// requests): opened through `RemoteBytes`, its maps, its GeoPackage (through the range VFS's
/// callback) and its tiles read as from the file itself.
@Suite struct RemotePackageTests {
    /// A local file's bytes handed out as a remote file's would be, counting the reads; it
    /// fails every read after `failAfter` of them.
    final class CountingBytes: RemoteBytes {
        let file: RandomAccessFile
        let reads = Atomic<Int>(0)
        let failAfter: Int
        init(_ path: String, failAfter: Int = .max) throws {
            file = try RandomAccessFile(path: path)
            self.failAfter = failAfter
        }
        var name: String { "remote:" + file.path }
        var size: Int64 { file.size }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ArchiveError) {
            guard reads.add(1, ordering: .relaxed).newValue <= failAfter else {
                throw ArchiveError(kind: .io(errno: 5), operation: "read", path: name, message: "the object store is gone")
            }
            try file.read(into: buffer, at: offset)
        }
    }

    static func session(_ bytes: CountingBytes) throws -> MapSession {
        let archive = try ZipArchive(range: ByteRange(file: RandomAccessFile(remote: bytes)), displayPath: bytes.name)
        return try MapSession(package: try MobileMapPackage(archive: archive))
    }

    @Test func aRemotePackageDrawsTheSameFeatureTilesAsTheFile() throws {
        let path = try MapSessionTests.naperville.get()
        let bytes = try CountingBytes(path)
        let remote = try Self.session(bytes).map(named: nil)
        let local = try MapSession(path: path).map(named: nil)
        let mains = try local.layer(named: "Water Mains")
        let extent = try #require(try local.featureSource(for: mains).table.extent())
        let t = FeatureTileTests().tile(holding: Position(x: extent.center.x, y: extent.center.y), zoom: 15)
        let before = bytes.reads.load(ordering: .relaxed)
        let tile = try remote.featureTile(try remote.layer(named: "Water Mains"), tile: t)
        #expect(!tile.isEmpty)
        #expect(tile == (try local.featureTile(mains, tile: t)))
        #expect(bytes.reads.load(ordering: .relaxed) > before, "the GeoPackage's pages came through the remote reads")
    }

    @Test func aRemoteThatFailsGivesAnErrorNotACrash() throws {
        let path = try MapSessionTests.naperville.get()
        // Enough reads to open the package and its maps, not its data.
        let probe = try CountingBytes(path)
        _ = try Self.session(probe)
        let opened = probe.reads.load(ordering: .relaxed)
        let failing = try CountingBytes(path, failAfter: opened)
        let map = try Self.session(failing).map(named: nil)
        let error = #expect(throws: (any Error).self) { _ = try map.featureTile(try map.layer(named: "Water Mains"), tile: TileCoordinate(z: 15, x: 8_400, y: 12_200)) }
        // SQLite knows only that a read failed; the message a log shows says why.
        #expect(error.map { "\($0)" }?.contains("the object store is gone") == true, "\(String(describing: error))")
    }
}
