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
}
