import Testing

@testable import MapbookSupport

@Suite struct FormatTests {
    @Test func tablesAlignColumnsAndRightAlignNumbersWithoutTrailingSpaces() {
        let lines = Format.table([["NAME", "SIZE", "NOTE"], ["Naperville", "12 MB", ""], ["Portland hydrants", "980 KB", "updated"]], indent: "  ", rightAligned: [1])
        #expect(lines == [
            "  NAME                 SIZE  NOTE",
            "  Naperville          12 MB",
            "  Portland hydrants  980 KB  updated",
        ])
        #expect(Format.table([]) == [])
    }

    @Test func countsAreGroupedByThousands() {
        #expect(Format.count(0) == "0")
        #expect(Format.count(999) == "999")
        #expect(Format.count(1000) == "1,000")
        #expect(Format.count(-1_234_567) == "-1,234,567")
        #expect(Format.count(Int64.min) == "-9,223,372,036,854,775,808")
        #expect(Format.count(UInt64(12_345_678_901)) == "12,345,678,901")
        #expect(Format.count(1, "entry") == "1 entry" && Format.count(10_007, "file") == "10,007 files")
    }

    @Test func sizesAreReadAsTippecanoeAndSortReadThem() {
        #expect(Format.parseBytes("512M") == 512 << 20)
        #expect(Format.parseBytes("2G") == 2 << 30 && Format.parseBytes("2gib") == 2 << 30 && Format.parseBytes("2 GB") == 2 << 30)
        #expect(Format.parseBytes("1.5K") == 1536)
        #expect(Format.parseBytes("800000") == 800_000)
        for bad in ["", "M", "-1G", "1X", "1GG", "nan", "1e30G"] { #expect(Format.parseBytes(bad) == nil, "\(bad)") }
    }
}
