import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing
import MapbookInspection

/// Numbers an attacker controls must give errors, never traps (Swift traps on overflow and on
/// converting an out-of-range Double to an integer).
@Suite struct HostileInputTests {
    @Test(arguments: [UInt64(0x7FFF_FFFF_FFFF_FFF0), UInt64.max, UInt64(1) << 40])
    func impossibleZip64OffsetsAreRefused(_ offset: UInt64) throws {
        try withTemporaryDirectory { dir in
            var entry = RawZip.Entry(name: "a.txt", text: "x")
            entry.zip64Offset = offset
            try RawZip([entry]).write(to: dir + "/z.zip")
            #expect { try ZipArchive(path: dir + "/z.zip") } throws: { "\($0)".contains("beyond") || "\($0)".contains("negative") }
            #expect(PackageValidator.validate(path: dir + "/z.zip").count(.error) == 1)
        }
    }

    @Test func absurdNumbersInMapsAndManifestsAreReadWithoutTrapping() throws {
        try withTemporaryDirectory { dir in
            try HostilePackages.absurdNumbers(at: dir + "/p.mmpk")
            let report = try PackageInspector.inspect(path: dir + "/p.mmpk")
            #expect(report.maps.count == 1)
            _ = PackageValidator.validate(path: dir + "/p.mmpk")
            #expect(ISODate.format(milliseconds: .min).hasSuffix("ms"))
            let symbol = try #require(report.maps.first?.layers.first)
            #expect(symbol.rendererType == "simple")
        }
    }
}

