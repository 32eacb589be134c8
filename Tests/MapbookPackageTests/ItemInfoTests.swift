import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@Suite struct ItemInfoTests {
    @Test(Fixtures.required)
    func readsARealEsriItemInfo() throws {
        let info = try ItemInfo.parse(try readFile(Fixtures.path("vtpk-basemapde/sample_cache/esriinfo/iteminfo.xml")), path: "iteminfo.xml")
        #expect(info.guid == "B7035C69-DC2D-4BA0-B5A4-3656B8C3AA66")
        #expect(info.type == "Vector Tile Package")
        #expect(info.typeKeywords == ["Data", "Vector Tile Package", "vtpk"])
        #expect(info.description.hasPrefix("<DIV STYLE=\"text-align:Left;font-size:12pt\">"))
        #expect(info.extent?.minX == 8.10449700000004)
        #expect(info.attributes.first?.value == "en-DE")
        // Written and read again, nothing changes.
        #expect(try ItemInfo.parse(info.serialized(), path: "again") == info)
    }

    @Test func escapesHTMLDescriptionsAndKeepsEsriOrder() throws {
        var info = ItemInfo()
        info.title = "Water & Sewer <2026>"
        info.description = "<p>Mains &amp; valves</p>"
        info.tags = ["water", "utilities"]
        info.otherElements = [XMLElement("custom", text: "kept")]
        let bytes = info.serialized()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("<title>Water &amp; Sewer &lt;2026&gt;</title>"))
        #expect(text.contains("&lt;p&gt;Mains &amp;amp; valves&lt;/p&gt;"))
        let names = try XMLDocumentIO.parse(bytes, path: "x").elements.map(\.name)
        #expect(Array(names.prefix(5)) == ["name", "guid", "version", "created", "modified"])
        #expect(names.last == "custom")
        let back = try ItemInfo.parse(bytes, path: "x")
        #expect(back.description == "<p>Mains &amp; valves</p>")
        #expect(back.title == "Water & Sewer <2026>")
        #expect(back.otherElements.first?.text == "kept")
    }

    @Test func packageInfoRoundTrips() throws {
        var info = PackageInfo()
        info.id = "ABC"
        info.name = "Pkg"
        info.documentTypes = ["Map"]
        let back = try PackageInfo.parse(info.serialized(), path: "item.pkinfo")
        #expect(back == info)
        #expect(String(decoding: info.serialized(), as: UTF8.self).contains("pkinfostylesheet.xsl"))
    }

    @Test func refusesBrokenXMLWithALine() {
        #expect {
            try ItemInfo.parse(Array("<ESRI_ItemInformation>\n<name>x</nam>".utf8), path: "bad.xml")
        } throws: { error in
            guard let error = error as? PackageFormatError, error.kind == .xml(.notWellFormed) else { return false }
            return "\(error)".contains("bad.xml") && "\(error)".contains("line 2")
        }
        #expect(throws: PackageFormatError.self) {
            try ItemInfo.parse(Array("<other/>".utf8), path: "wrong.xml")
        }
    }

    @Test func refusesExternalEntities() throws {
        let hostile = """
            <?xml version="1.0"?>
            <!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <ESRI_ItemInformation><title>&secret;</title></ESRI_ItemInformation>
            """
        let info = try? ItemInfo.parse(Array(hostile.utf8), path: "xxe.xml")
        #expect(info?.title.contains("root:") != true)
    }

    @Test func manifestKeepsUnknownKeysAndEsriUnits() throws {
        let text = #"{"name": "P", "created": 1700000000000, "tags": "a, b", "extent": [[-1, -2], [3, 4]], "future": {"x": 1}}"#
        let manifest = PackageManifest(value: try JSONParser.parse(text))
        #expect(manifest.created == 1_700_000_000_000)
        #expect(manifest.tags == ["a", "b"])
        #expect(manifest.extent == BoundingBox(minX: -1, minY: -2, maxX: 3, maxY: 4))
        #expect(manifest.jsonValue == (try JSONParser.parse(text)))
        var changed = manifest
        changed.title = "T"
        #expect(changed.json["future"] == ["x": 1])
        #expect(changed.json.keys.last == "title")
    }
}
