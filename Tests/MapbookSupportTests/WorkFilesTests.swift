import Foundation
import Synchronization
import Testing

@testable import MapbookSupport

@Suite struct WorkFilesTests {
    /// A build's thread goes on making its GeoPackage's journal over and over while an
    /// interruption removes its work folder (what `create` met on CI, issue 34's CI run): once
    /// `remove` returns, the folder is gone and the thread can make nothing in it any more.
    @Test func aFolderBeingWrittenIsGoneForGood() throws {
        let folder = NSTemporaryDirectory() + "/workfiles-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        WorkFiles.register(folder)
        FileManager.default.createFile(atPath: folder + "/data.gpkg", contents: Data([1, 2, 3]))
        let stop = Atomic<Bool>(false)
        let made = Atomic<Int>(0)
        let writer = Thread {
            // Like SQLite's rollback journal: made at a transaction's start, removed at its end.
            while !stop.load(ordering: .relaxed) {
                let fd = open(folder + "/data.gpkg-journal", O_CREAT | O_WRONLY, 0o644)
                if fd >= 0 {
                    close(fd)
                    made.add(1, ordering: .relaxed)
                }
                unlink(folder + "/data.gpkg-journal")
            }
        }
        writer.start()
        while made.load(ordering: .relaxed) < 100 { usleep(100) }
        WorkFiles.remove(folder)
        let after = made.load(ordering: .relaxed)
        usleep(20_000)
        stop.store(true, ordering: .relaxed)
        #expect(!FileManager.default.fileExists(atPath: folder), "the work folder came back")
        // One file the thread had made before the folder went may be counted just after.
        #expect(made.load(ordering: .relaxed) <= after + 1, "files were made in the removed folder")
        #expect(!WorkFiles.registered.contains(folder))
    }
}
