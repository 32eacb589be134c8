// The search benchmark's data: 1,000,000 entries over three participants (asset IDs, US-style
// addresses, place and species names) and 10,000 queries drawn from them, all from a fixed
// seed, so every run and every machine gets the same bytes.

#if canImport(Glibc)
import Glibc
#endif

/// SplitMix64: small, fast and the same everywhere.
public struct SeededGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<n.
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    public mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + int(range.count) }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    public mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }

    /// An index drawn with probability proportional to 1 / (i + 1)^s (Zipf): a few values are
    /// common, most are rare, as names in real data are.
    public mutating func zipf(_ cumulative: [Double]) -> Int {
        let u = unit() * cumulative[cumulative.count - 1]
        var lo = 0, hi = cumulative.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulative[mid] < u { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    public static func zipfTable(count: Int, exponent: Double) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(count)
        var total = 0.0
        for i in 0..<count {
            total += 1 / pow(Double(i + 1), exponent)
            out.append(total)
        }
        return out
    }
}


/// One generated feature.
public struct GeneratedEntry {
    public var text: String
    public var longitude: Double
    public var latitude: Double
}

/// A participant's layer: its name in the package, table, field and entries.
public struct GeneratedLayer {
    public var participant: String
    public var table: String
    public var field: String
    public var isAddress: Bool
    public var entries: [GeneratedEntry]
}

/// One query: what is typed, where the map is, and the entry text it should find.
public struct GeneratedQuery {
    public enum Kind: String, CaseIterable {
        case exact, typo, prefix
    }

    public var text: String
    public var kind: Kind
    public var expected: String
    public var participant: Int
    public var near: (longitude: Double, latitude: Double)
}

public enum SearchData {
    public static let seed: UInt64 = 20_240_505
    /// Bumped when the generator changes, so cached files are rebuilt.
    public static let version = 1

    // The area: Oregon and Washington, with entries clustered around towns.
    public static let area = (minLon: -124.4, minLat: 42.0, maxLon: -116.6, maxLat: 49.0)

    public struct Town {
        public var longitude: Double
        public var latitude: Double
        public var weight: Double
    }

    public static func towns(_ rng: inout SeededGenerator) -> [Town] {
        (0..<60).map { i in
            Town(
                longitude: area.minLon + rng.unit() * (area.maxLon - area.minLon),
                latitude: area.minLat + rng.unit() * (area.maxLat - area.minLat),
                weight: 1 / Double(i + 1))
        }
    }

    /// A point near a town (most) or anywhere in the area.
    public static func point(_ rng: inout SeededGenerator, towns: [Town], townTable: [Double], spreadKm: Double = 8) -> (Double, Double) {
        if rng.chance(0.1) {
            return (area.minLon + rng.unit() * (area.maxLon - area.minLon), area.minLat + rng.unit() * (area.maxLat - area.minLat))
        }
        let t = towns[rng.zipf(townTable)]
        // Roughly normal: the sum of three uniforms.
        let dx = (rng.unit() + rng.unit() + rng.unit() - 1.5) * spreadKm / 75
        let dy = (rng.unit() + rng.unit() + rng.unit() - 1.5) * spreadKm / 111
        return (min(area.maxLon, max(area.minLon, t.longitude + dx)), min(area.maxLat, max(area.minLat, t.latitude + dy)))
    }

    // MARK: - Vocabulary

    public static let assetPrefixes = ["HYD", "VLV", "MH", "SWR", "CB", "WM", "FH", "PS", "TRF", "SGN", "LT", "PL"]

    public static let streetRoots = [
        "Cascades", "Main", "Oak", "Maple", "Pine", "Cedar", "Elm", "Washington", "Lincoln", "Jefferson", "Madison", "Adams",
        "Jackson", "Columbia", "Willamette", "Rainier", "Hood", "Baker", "Olympic", "Evergreen", "Sunset", "Lake", "Hill",
        "Park", "River", "Forest", "Meadow", "Ridge", "Valley", "Spring", "Garden", "Highland", "Broadway", "Market", "Union",
        "Pacific", "Center", "Church", "School", "Mill", "Water", "Bridge", "Harbor", "Bay", "Beach", "Canyon", "Summit",
        "Orchard", "Vineyard", "Prairie", "Aspen", "Birch", "Willow", "Alder", "Spruce", "Hemlock", "Juniper", "Laurel",
        "Magnolia", "Chestnut", "Walnut", "Hawthorne", "Sycamore", "Poplar", "Cherry", "Apple", "Peach", "Plum", "Holly",
        "Fox", "Eagle", "Hawk", "Falcon", "Raven", "Heron", "Salmon", "Elk", "Deer", "Bear", "Wolf", "Beaver", "Otter",
        "Franklin", "Grant", "Monroe", "Wilson", "Harrison", "Taylor", "Tyler", "Polk", "Pierce", "Hayes", "Garfield",
        "Cleveland", "McKinley", "Roosevelt", "Kennedy", "Burnside", "Belmont", "Hawthorne", "Division", "Powell", "Foster",
        "Sandy", "Killingsworth", "Alberta", "Fremont", "Halsey", "Glisan", "Stark", "Morrison", "Yamhill", "Taylor",
        "Salmon", "Clay", "Market", "Mill", "Canal", "Ferry", "Dock", "Pier", "Quarry", "Station", "Depot", "Airport",
        "College", "University", "Hospital", "Court", "Mission", "Ranch", "Farm", "Barn", "Creek", "Brook", "Falls",
        "Glen", "Hollow", "Knoll", "Mesa", "Bluff", "Cliff", "Crest", "Point", "Shore", "Cove", "Inlet", "Island", "Marsh",
        "Heather", "Clover", "Fern", "Ivy", "Rose", "Lilac", "Daisy", "Tulip", "Iris", "Lupine", "Trillium", "Camas",
        "Chinook", "Klickitat", "Multnomah", "Clackamas", "Tualatin", "Yakima", "Spokane", "Okanogan", "Wenatchee",
        "Skagit", "Snohomish", "Nisqually", "Puyallup", "Cowlitz", "Umpqua", "Rogue", "Siuslaw", "Deschutes", "Umatilla",
        "Shasta", "Siskiyou", "Wallowa", "Malheur", "Owyhee", "Steens", "Jefferson", "Bachelor", "Thielsen", "Adams",
        "Stuart", "Pilchuck", "Index", "Baring", "Stevens", "Snoqualmie", "Tolt", "Carnation", "Duvall", "Woodinville",
    ]
    public static let streetSeconds = [
        "Creek", "Ridge", "Hill", "View", "Park", "Lake", "Valley", "Meadow", "Grove", "Wood", "Field", "Crest", "Point",
        "Hollow", "Springs", "Heights", "Landing", "Crossing", "Vista", "Bend", "Run", "Trail", "Pass", "Gate", "Glen",
    ]
    public static let streetSuffixes = [
        "St", "St", "St", "Ave", "Ave", "Ave", "Rd", "Rd", "Blvd", "Dr", "Dr", "Ln", "Way", "Way", "Ct", "Pl", "Pkwy", "Hwy",
        "Ter", "Cir", "Loop", "Trl",
    ]
    public static let directionals = ["N", "S", "E", "W", "NE", "NW", "SE", "SW"]

    public static let realPlaces = [
        "São Paulo", "Zürich", "Malmö", "Göteborg", "Besançon", "Córdoba", "Kraków", "Łódź", "Reykjavík", "Tromsø",
        "Ålesund", "Jönköping", "Düsseldorf", "München", "Nürnberg", "Genève", "Montréal", "Québec", "Bogotá",
        "Medellín", "Curaçao", "Asunción", "Mérida", "León", "Cádiz", "Málaga", "Logroño", "A Coruña", "Peñíscola",
        "Brașov", "Timișoara", "Plzeň", "České Budějovice", "Győr", "Pécs", "Székesfehérvár", "Nîmes", "Orléans",
        "Besançon", "Angoulême", "Saint-Étienne", "Île-de-Bréhat", "Aix-en-Provence", "Châlons-en-Champagne",
        "Lübeck", "Göttingen", "Tübingen", "Würzburg", "Köln", "Österreich", "Linköping", "Västerås", "Umeå",
        "Jyväskylä", "Hämeenlinna", "Århus", "Køge", "Bodø", "Fredrikstad", "Isafjörður", "Akureyri", "Grünau",
        "San José", "Mazatlán", "Querétaro", "Culiacán", "Ciudad Juárez", "Michoacán", "Yucatán", "Cancún",
        "Belém", "Maceió", "Goiânia", "Florianópolis", "Niterói", "Ribeirão Preto", "Paraná", "Amapá",
        "Valparaíso", "Concepción", "Temuco", "Antofagasta", "Iquique", "Cusco", "Trujillo", "Chiclayo",
        "Eskişehir", "İzmir", "Muğla", "Şanlıurfa", "Đà Nẵng", "Huế", "Hội An", "Cần Thơ",
    ]
    public static let placePrefixes = [
        "San", "Santa", "São", "Saint", "Sainte", "Port", "Mount", "Lake", "Fort", "New", "North", "South", "East", "West",
        "Bad", "Le", "La", "El", "Los", "Las", "Villa", "Nueva", "Alt", "Neu", "Santo", "Monte", "Val", "Ciudad",
    ]
    public static let syllables = [
        "ber", "lin", "mar", "sel", "tor", "van", "dor", "ka", "li", "mo", "ra", "si", "te", "no", "ve", "lo", "gar", "hel",
        "bro", "win", "ches", "ter", "ham", "wick", "ley", "mont", "ro", "sa", "ta", "na", "ri", "co", "za", "qui", "ju",
        "pe", "fa", "go", "du", "mi", "ne", "ho", "kel", "tam", "bur", "ren", "sto", "vik", "gor", "lan", "ost", "west",
        "mé", "rö", "zü", "sã", "ñe", "bø", "hå", "çu", "gö", "lé", "tü", "ná", "rís", "jó", "vê", "mã", "lë", "noï",
    ]
    public static let placeSuffixes = [
        "ville", "burg", "berg", "ford", "ton", "heim", "dorf", "field", "haven", "polis", "stad", "by", "holm", "minster",
        "wick", "mouth", "port", "bridge", "", "", "", "", "", "",
    ]
    public static let placeTails = [" Springs", " Falls", " Heights", "-sur-Mer", " Junction", " Crossing", " del Mar", " an der Elbe"]
    public static let genusEndings = ["us", "a", "um", "ia", "is", "ella", "opsis", "anthus", "ium"]
    public static let epithets = [
        "alba", "rubra", "garryana", "menziesii", "douglasii", "occidentalis", "orientalis", "vulgaris", "officinalis",
        "montana", "sylvestris", "borealis", "australis", "macrophyllum", "grandis", "nobilis", "procera", "contorta",
        "ponderosa", "lambertiana", "sitchensis", "heterophylla", "plicata", "nootkatensis", "kelloggii", "chrysolepis",
        "tenuifolia", "latifolia", "angustifolia", "glauca", "nigra", "lutea", "virens", "sempervirens", "pendula",
        "tremuloides", "trichocarpa", "balsamifera", "saccharinum", "circinatum", "glabrum", "cornuta", "sericea",
        "stolonifera", "racemosa", "cerasifera", "emarginata", "virginiana", "americana", "japonica", "chinensis",
        "europaea", "sibirica", "hispanica", "lusitanica", "cœrulea", "mülleri", "brücknerii", "løvenskioldii",
    ]

    // MARK: - Entries

    public static func assets(_ rng: inout SeededGenerator, count: Int, towns: [Town], townTable: [Double]) -> [GeneratedEntry] {
        // Each prefix draws distinct numbers: a stride coprime with 10^6 through 0..<10^6.
        let perPrefix = (count + assetPrefixes.count - 1) / assetPrefixes.count
        var out: [GeneratedEntry] = []
        out.reserveCapacity(count)
        var prefixState = assetPrefixes.map { _ in (start: rng.int(1_000_000), step: [7919, 104_729, 15_485_863, 32_452_843][rng.int(4)]) }
        var i = 0
        while out.count < count {
            let p = i % assetPrefixes.count
            let n = (prefixState[p].start + (i / assetPrefixes.count) * prefixState[p].step) % 1_000_000
            let digits = String(n)
            let text = assetPrefixes[p] + "-" + String(repeating: "0", count: 6 - digits.count) + digits
            let (x, y) = point(&rng, towns: towns, townTable: townTable)
            out.append(GeneratedEntry(text: text, longitude: x, latitude: y))
            i += 1
        }
        _ = perPrefix
        prefixState.removeAll()
        return out
    }

    public static func addresses(_ rng: inout SeededGenerator, count: Int, towns: [Town], townTable: [Double]) -> [GeneratedEntry] {
        // A few thousand street names, each used by several streets in different towns.
        var names: [String] = []
        var seen = Set<String>()
        while names.count < 3_000 {
            var base: String
            switch rng.int(10) {
            case 0...4: base = rng.pick(streetRoots)
            case 5...7: base = rng.pick(streetRoots) + " " + rng.pick(streetSeconds)
            default:
                let n = rng.int(in: 1...160)
                let suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th" : ["th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"][n % 10]
                base = "\(n)\(suffix)"
            }
            if seen.insert(base).inserted { names.append(base) }
        }
        let nameTable = SeededGenerator.zipfTable(count: names.count, exponent: 0.8)
        var out: [GeneratedEntry] = []
        out.reserveCapacity(count)
        while out.count < count {
            // One street: a name, maybe a directional, a suffix, a place and a direction.
            let base = names[rng.zipf(nameTable)]
            let directional = rng.chance(0.4) ? rng.pick(directionals) + " " : ""
            let street = directional + base + " " + rng.pick(streetSuffixes)
            let (x0, y0) = point(&rng, towns: towns, townTable: townTable, spreadKm: 15)
            let angle = rng.unit() * 2 * Double.pi
            var number = rng.chance(0.3) ? rng.int(in: 1...99) : rng.int(in: 100...24_000)
            let houses = min(count - out.count, rng.int(in: 2...40))
            for _ in 0..<houses {
                // 10 m along the street per number step.
                let along = Double(number % 2000) * 10 / 1000
                let x = min(area.maxLon, max(area.minLon, x0 + cos(angle) * along / 75))
                let y = min(area.maxLat, max(area.minLat, y0 + sin(angle) * along / 111))
                out.append(GeneratedEntry(text: "\(number) \(street)", longitude: x, latitude: y))
                number += 2 * rng.int(in: 1...12)
            }
        }
        return out
    }

    public static func names(_ rng: inout SeededGenerator, count: Int, towns: [Town], townTable: [Double]) -> [GeneratedEntry] {
        // 60,000 distinct names, drawn with a Zipf law: many repeat, as in real gazetteers.
        var distinct: [String] = []
        var seen = Set<String>()
        for p in realPlaces where seen.insert(p).inserted { distinct.append(p) }
        while distinct.count < 60_000 {
            var name: String
            if rng.chance(0.67) {
                var root = ""
                for _ in 0..<rng.int(in: 2...3) { root += rng.pick(syllables) }
                root = capitalized(root) + rng.pick(placeSuffixes)
                name = root
                if rng.chance(0.3) { name = rng.pick(placePrefixes) + " " + name }
                if rng.chance(0.1) { name += rng.pick(placeTails) }
            } else {
                var genus = ""
                for _ in 0..<rng.int(in: 1...2) { genus += rng.pick(syllables) }
                name = capitalized(genus + rng.pick(genusEndings)) + " " + rng.pick(epithets)
            }
            if seen.insert(name).inserted { distinct.append(name) }
        }
        let table = SeededGenerator.zipfTable(count: distinct.count, exponent: 0.9)
        var out: [GeneratedEntry] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            let (x, y) = point(&rng, towns: towns, townTable: townTable, spreadKm: 30)
            out.append(GeneratedEntry(text: distinct[rng.zipf(table)], longitude: x, latitude: y))
        }
        return out
    }

    public static func capitalized(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.uppercased() + s.dropFirst()
    }

    /// The three layers, 1,000,000 entries in all (by default).
    public static func layers(total: Int) -> (layers: [GeneratedLayer], towns: [Town]) {
        var rng = SeededGenerator(seed: seed)
        let towns = Self.towns(&rng)
        let townTable = towns.reduce(into: [Double]()) { $0.append(($0.last ?? 0) + $1.weight) }
        let third = total / 3
        let assets = Self.assets(&rng, count: third, towns: towns, townTable: townTable)
        let addresses = Self.addresses(&rng, count: third, towns: towns, townTable: townTable)
        let names = Self.names(&rng, count: total - 2 * third, towns: towns, townTable: townTable)
        return ([
            GeneratedLayer(participant: "Assets", table: "assets", field: "asset_id", isAddress: false, entries: assets),
            GeneratedLayer(participant: "Addresses", table: "addresses", field: "address", isAddress: true, entries: addresses),
            GeneratedLayer(participant: "Places", table: "places", field: "name", isAddress: false, entries: names),
        ], towns)
    }

    // MARK: - Queries

    /// ASCII for the accented letters the generator uses, as someone typing without them would.
    public static func plain(_ s: String) -> String {
        let map: [Character: String] = [
            "á": "a", "à": "a", "â": "a", "ã": "a", "ä": "a", "å": "a", "ă": "a", "Å": "A", "Á": "A", "ç": "c", "č": "c",
            "é": "e", "è": "e", "ê": "e", "ë": "e", "ě": "e", "É": "E", "í": "i", "ì": "i", "î": "i", "ï": "i", "ı": "i",
            "İ": "I", "ñ": "n", "ň": "n", "ó": "o", "ò": "o", "ô": "o", "õ": "o", "ö": "o", "ø": "o", "ő": "o", "Ö": "O",
            "Ø": "O", "ú": "u", "ù": "u", "û": "u", "ü": "u", "ű": "u", "ș": "s", "ş": "s", "Ş": "S", "ț": "t", "ł": "l",
            "Ł": "L", "ź": "z", "ż": "z", "ž": "z", "ð": "d", "Đ": "D", "đ": "d", "ß": "ss", "œ": "oe", "æ": "ae",
            "ế": "e", "ẵ": "a", "ộ": "o", "ầ": "a", "ơ": "o", "ğ": "g", "Č": "C", "Í": "I", "Î": "I", "Ú": "U", "Ü": "U",
        ]
        var out = ""
        for c in s { out += map[c] ?? String(c) }
        return out
    }

    /// The words of a text that may take a typo: letters only, four or more.
    public static func typoWords(_ text: String) -> [Range<String.Index>] {
        var out: [Range<String.Index>] = []
        var start: String.Index?
        var i = text.startIndex
        while i <= text.endIndex {
            let isLetter = i < text.endIndex && text[i].isLetter
            if isLetter, start == nil { start = i }
            if !isLetter, let s = start {
                let isWord = (s == text.startIndex || !text[text.index(before: s)].isNumber) && (i == text.endIndex || !text[i].isNumber)
                if isWord, text.distance(from: s, to: i) >= 4 { out.append(s..<i) }
                start = nil
            }
            if i == text.endIndex { break }
            i = text.index(after: i)
        }
        return out
    }

    /// One typo in a word: substitution, transposition, deletion or insertion.
    public static func typo(_ word: String, _ rng: inout SeededGenerator) -> String {
        var chars = Array(word)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        switch rng.int(4) {
        case 0:
            let i = rng.int(chars.count)
            var c = rng.pick(letters)
            while String(c) == chars[i].lowercased() { c = rng.pick(letters) }
            chars[i] = chars[i].isUppercase ? Character(c.uppercased()) : c
        case 1:
            // Neighbours that differ, else a substitution.
            let candidates = (0..<chars.count - 1).filter { chars[$0].lowercased() != chars[$0 + 1].lowercased() }
            if let i = candidates.isEmpty ? nil : rng.pick(candidates) {
                chars.swapAt(i, i + 1)
            } else {
                return typo(word, &rng)
            }
        case 2:
            chars.remove(at: rng.int(chars.count))
        default:
            chars.insert(rng.pick(letters), at: rng.int(chars.count + 1))
        }
        return String(chars)
    }

    public static func queries(_ layers: [GeneratedLayer], towns: [Town], count: Int) -> [GeneratedQuery] {
        var rng = SeededGenerator(seed: seed ^ 0x5EA2C4)
        var kinds: [GeneratedQuery.Kind] = []
        for i in 0..<count { kinds.append(i % 5 < 3 ? .exact : i % 5 == 3 ? .typo : .prefix) }
        for i in stride(from: kinds.count - 1, to: 0, by: -1) { kinds.swapAt(i, rng.int(i + 1)) }
        var out: [GeneratedQuery] = []
        out.reserveCapacity(count)
        for kind in kinds {
            let town = rng.pick(towns)
            let near = (town.longitude, town.latitude)
            while true {
                let p = rng.int(layers.count)
                let entry = layers[p].entries[rng.int(layers[p].entries.count)]
                let text = entry.text
                var typed: String
                switch kind {
                case .exact:
                    typed = text
                    if p == 0, rng.chance(0.3) {
                        // Just the digits of an ID.
                        typed = String(text.split(separator: "-").last!)
                    } else if p == 1, rng.chance(0.4) {
                        // The number after the street: "NE Cascades Pkwy 9500".
                        var words = text.split(separator: " ").map(String.init)
                        words.append(words.removeFirst())
                        typed = words.joined(separator: " ")
                    } else if p == 2, rng.chance(0.4) {
                        typed = plain(text).lowercased()
                    }
                case .typo:
                    let words = typoWords(text)
                    guard !words.isEmpty else { continue }
                    let range = rng.pick(words)
                    typed = String(text[..<range.lowerBound]) + typo(String(text[range]), &rng) + String(text[range.upperBound...])
                case .prefix:
                    let n = text.count
                    guard n >= 3 else { continue }
                    typed = String(text.prefix(rng.int(in: 3...n)))
                }
                out.append(GeneratedQuery(text: typed, kind: kind, expected: text, participant: p, near: near))
                break
            }
        }
        return out
    }
}
