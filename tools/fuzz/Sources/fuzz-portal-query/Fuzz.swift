import FuzzSupport
import MapbookPortalAPI

/// What a stranger sends the portal as text: a search `q` (parsed, then matched against an
/// item) and a URL-encoded form body (`FormEncoding.decode`). The input is both at once.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = FuzzInput.text(UnsafeBufferPointer(start: data, count: size))
    let form = FormEncoding.decode(text)
    if let q = form["q"] { query(q) }
    query(text)
    return 0
}

let item = PortalItem(
    id: "0123456789abcdef0123456789abcdef", owner: "gis_admin", orgId: "0123456789ABCDEF", created: 1_700_000_000_000,
    modified: 1_750_000_000_000, title: "Naperville Water Company", type: "Mobile Map Package",
    typeKeywords: ["Mobile Map Package", "Offline"], name: "NapervilleWater.mmpk", description: "Field maps for <b>811</b> locates",
    snippet: "Water mains, valves and laterals", tags: ["water", "utilities", "Naperville"], extent: [[-88.2, 41.7], [-88.1, 41.8]],
    access: .public, size: 5_696_577, numViews: 12)

func query(_ q: String) {
    guard let parsed = try? ItemQuery.parse(q) else { return }
    _ = parsed.matches(item, groups: ["fieldcrews"])
}
