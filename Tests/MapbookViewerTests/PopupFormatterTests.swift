import MapbookData
import MapbookPackage
import MapbookSupport
import Testing

@testable import MapbookViewer

@Suite struct PopupFormatterTests {
    static func layer(_ json: JSONObject) -> ViewerLayer {
        ViewerLayer(OperationalLayer(json: json), depth: 0, isBaseMap: false, fallbackID: "1")
    }

    static let fields = [
        Field(name: "NAME", type: .text, alias: "Name"), Field(name: "AREA", type: .real, alias: "Area"),
        Field(name: "COUNT", type: .integer), Field(name: "BUILT", type: .dateTime), Field(name: "STATUS", type: .integer),
        Field(name: "OPENED", type: .integer),
    ]

    static let popupLayer = layer([
        "id": "plots", "title": "Plots",
        "popupInfo": [
            "title": "{name} ({STATUS})",
            "fieldInfos": [
                ["fieldName": "AREA", "label": "Area (m²)", "visible": true, "format": ["places": 1, "digitSeparator": true]],
                ["fieldName": "NAME", "label": "Plot", "visible": true],
                ["fieldName": "COUNT", "label": "Count", "visible": false],
                ["fieldName": "BUILT", "label": "Built", "visible": true, "format": ["dateFormat": "longMonthDayYear"]],
                ["fieldName": "STATUS", "label": "Status", "visible": true],
                ["fieldName": "OPENED", "label": "Opened", "visible": true, "format": ["dateFormat": "shortDateShortTime24"]],
            ],
        ],
    ])

    @Test func fieldsFollowThePopupsOrderLabelsAndFormats() {
        let formatter = PopupFormatter(layer: Self.popupLayer, fields: Self.fields, codedValues: ["status": ["1": "Active", "2": "Retired"]])
        #expect(formatter.neededColumns == ["AREA", "NAME", "BUILT", "STATUS", "OPENED"], "hidden fields are not read")
        let popup = formatter.popup(featureID: 7, values: [.real(1234567.25), .text("Lot 7"), .text("1997-12-21T18:00:00Z"), .integer(2), .integer(882_727_200_000)])
        #expect(popup.title == "Lot 7 (Retired)", "placeholders match ignoring case; coded values by name")
        #expect(popup.fields.map(\.label) == ["Area (m²)", "Plot", "Built", "Status", "Opened"])
        #expect(popup.fields.map(\.value) == ["1,234,567.3", "Lot 7", "December 21, 1997", "Retired", "12/21/1997 18:00"])
        #expect(popup.fields[0].raw == .real(1234567.25))
    }

    @Test func nullsShowEmptyAndUnknownCodesShowTheirValue() {
        let formatter = PopupFormatter(layer: Self.popupLayer, fields: Self.fields, codedValues: ["status": ["1": "Active"]])
        let popup = formatter.popup(featureID: 1, values: [.null, .null, .null, .integer(9), .null])
        #expect(popup.title == " (9)")
        #expect(popup.fields.map(\.value) == ["", "", "", "9", ""])
    }

    @Test func aLayerWithoutAPopupShowsEveryColumnByAlias() {
        let formatter = PopupFormatter(layer: Self.layer(["id": "x", "title": "Things"]), fields: Self.fields, codedValues: [:])
        let popup = formatter.popup(featureID: 3, values: [.text("a"), .real(2.5), .integer(1000), .text("2001-02-03"), .integer(1), .null])
        #expect(popup.title == "Things")
        #expect(popup.fields.map(\.label) == ["Name", "Area", "COUNT", "BUILT", "STATUS", "OPENED"])
        #expect(popup.fields.map(\.value) == ["a", "2.5", "1000", "2001-02-03", "1", ""], "a date without a time shows as a date")
    }

    @Test(arguments: [
        ("shortDate", "12/21/1997"), ("shortDateLE", "21/12/1997"), ("longMonthDayYear", "December 21, 1997"),
        ("dayShortMonthYear", "21 Dec 1997"), ("longDate", "Sunday, December 21, 1997"), ("longMonthYear", "December 1997"),
        ("shortMonthYear", "Dec 1997"), ("year", "1997"), ("shortDateShortTime", "12/21/1997 6:05 PM"),
        ("shortDateLEShortTime24", "21/12/1997 18:05"), ("shortDateLongTime", "12/21/1997 6:05:09 PM"), ("shortDateLELongTime24", "21/12/1997 18:05:09"),
    ])
    func everyDateFormatOfTheSpecification(format: String, expected: String) {
        let seconds = ISODate.parse("1997-12-21T18:05:09Z")!
        #expect(PopupFormatter.formatDate(seconds: seconds, format, hasTime: true) == expected)
    }

    @Test func numbersRoundHalfAwayFromZeroAndGroupThousands() {
        #expect(PopupFormatter.formatNumber(-1234.5, places: 0, separator: true, integer: false) == "-1,235")
        #expect(PopupFormatter.formatNumber(0.125, places: 2, separator: false, integer: false) == "0.13")
        #expect(PopupFormatter.formatNumber(999, places: 0, separator: true, integer: true) == "999")
        #expect(PopupFormatter.formatNumber(-0.004, places: 2, separator: false, integer: false) == "0.00")
        #expect(PopupFormatter.formatNumber(1e6, places: 3, separator: true, integer: false) == "1,000,000.000")
    }

    @Test func aDescriptionIsShownAsTextWithItsPlaceholdersFilled() {
        let layer = Self.layer(["id": "x", "popupInfo": ["title": "{NAME}", "description": "<b>{NAME}</b> covers {AREA} m² &amp; more"]])
        let formatter = PopupFormatter(layer: layer, fields: Self.fields, codedValues: [:])
        #expect(formatter.neededColumns == ["NAME", "AREA"])
        let popup = formatter.popup(featureID: 1, values: [.text("Lot 1"), .real(12.5)])
        #expect(popup.text == "Lot 1 covers 12.5 m² & more")
    }
}
