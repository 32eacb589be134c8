import MapbookTestSupport
import Testing
@testable import MapbookSearch

@Suite struct SearchTextTests {
    func words(_ s: String) -> [String] { SearchText.tokens(s).map(\.text) }

    @Test func caseDiacriticsAndPunctuationFold() {
        #expect(SearchText.normalized("São Paulo") == "sao paulo")
        #expect(SearchText.normalized("  SAO-PAULO!! ") == "sao paulo")
        #expect(SearchText.normalized("Zürich") == "zurich")
        #expect(SearchText.normalized("Chișinău") == "chisinau")
        #expect(SearchText.normalized("Ōsaka") == "osaka")
        #expect(SearchText.normalized("København") == "kobenhavn")
        // Letters Unicode does not decompose, which NFD-based folding leaves alone.
        #expect(SearchText.normalized("Łódź") == "lodz")
        #expect(SearchText.normalized("Đakovo") == "dakovo")
        #expect(SearchText.normalized("Ærøskøbing") == "aeroskobing")
        #expect(SearchText.normalized("Straße") == "strasse")
        #expect(SearchText.normalized("Þingvellir") == "thingvellir")
        // Text that arrives decomposed folds the same as precomposed text.
        #expect(SearchText.normalized("Sa\u{0303}o Paulo") == "sao paulo")
        // Full-width forms and ligatures.
        #expect(SearchText.normalized("ＭＡＩＮ ｓｔ １２") == "main st 12")
        #expect(SearchText.normalized("ﬁeld") == "field")
        // Greek and Cyrillic keep their script, without accents.
        #expect(SearchText.normalized("Αθήνα") == "αθηνα")
        #expect(SearchText.normalized("МОСКВА") == "москва")
    }

    @Test func lettersAndDigitsAreSeparateTokens() {
        #expect(words("HYD-00123") == ["hyd", "00123"])
        #expect(words("hyd00123") == ["hyd", "00123"])
        #expect(words("5th Ave") == ["5", "th", "ave"])
        #expect(SearchText.tokens("HYD-00123").map(\.isNumber) == [false, true])
        // Digits of other scripts are digits.
        #expect(words("٣٤") == ["34"])
    }

    @Test func apostrophesJoinAWord() {
        #expect(words("O'Brien St") == ["obrien", "st"])
        #expect(words("Côte d’Ivoire") == ["cote", "divoire"])
    }

    @Test func nothingSearchableGivesNoTokens() {
        #expect(words("") == [])
        #expect(words(" -- ... ; ") == [])
        #expect(words("🙂🙂") == [])
    }

    @Test func typoBudgetGrowsWithLength() {
        #expect(SearchToken("oak").editBudget == 0)
        #expect(SearchToken("pine").editBudget == 1)
        #expect(SearchToken("cascade").editBudget == 1)
        #expect(SearchToken("cascades").editBudget == 2)
        #expect(SearchToken("00123456").editBudget == 0)
    }

    @Test func typingIsAnOpenLastToken() {
        #expect(SearchText.endsInToken("9500 ne casc"))
        #expect(!SearchText.endsInToken("9500 ne "))
        #expect(!SearchText.endsInToken(""))
    }

    @Test func veryLongTokensAreCut() {
        let long = String(repeating: "a", count: 5000)
        #expect(SearchText.tokens(long).first?.scalars.count == SearchText.maximumTokenLength)
    }
}

@Suite struct TermMatcherTests {
    /// The matcher's typo walk finds exactly the terms a brute-force distance finds.
    @Test func typoWalkAgreesWithBruteForce() {
        var rng = SplitMix64(seed: 42)
        // Accented letters too: the index's flat word list decodes them from UTF-8.
        let letters = Array("abcdefgé".unicodeScalars.map(\.value))
        var vocabulary = Set<[UInt32]>()
        while vocabulary.count < 1500 {
            let n = 1 + Int(rng.next() % 10)
            vocabulary.insert((0..<n).map { _ in letters[Int(rng.next() % UInt64(letters.count))] })
        }
        let terms = vocabulary.sorted { $0.lexicographicallyPrecedes($1) }
        // The same terms as the index holds them (`WordList`): the walk must read both alike.
        var list = WordList()
        for (i, term) in terms.enumerated() {
            let utf8 = Array(String(String.UnicodeScalarView(term.compactMap(Unicode.Scalar.init))).utf8)
            #expect(utf8.withUnsafeBufferPointer { list.append(utf8: $0, groupCount: 2, single: nil, block: i / 64, postings: i..<i + 1) })
        }
        #expect(list.count == terms.count && list.isStrictlySorted)
        #expect(list.term(7).token.scalars == terms[7] && list.term(7).range == 7..<8 && list.term(7).block == 0)
        for _ in 0..<60 {
            let n = 1 + Int(rng.next() % 10)
            let q = (0..<n).map { _ in letters[Int(rng.next() % UInt64(letters.count))] }
            let token = SearchToken(scalars: q, isNumber: false)
            for prefix in [false, true] {
                let matched = TermMatcher.match(token, in: terms, prefix: prefix)
                #expect(TermMatcher.match(token, in: list, prefix: prefix).elementsEqual(matched) { $0.term == $1.term && $0.quality == $1.quality })
                let found = Dictionary(uniqueKeysWithValues: matched.map { ($0.term, $0.quality) })
                for (i, term) in terms.enumerated() {
                    var want: TokenQuality?
                    if term == q {
                        want = TokenQuality(kind: .exact, edits: 0)
                    } else if prefix && term.starts(with: q) {
                        want = TokenQuality(kind: .prefix, edits: 0)
                    } else if token.editBudget > 0 {
                        let d = prefix ? Reference.prefixDistance(q, term, budget: token.editBudget) : Reference.distance(q, term)
                        if d <= token.editBudget { want = TokenQuality(kind: .fuzzy, edits: d) }
                    }
                    #expect((found[i] == nil) == (want == nil), "query \(q) term \(term) prefix \(prefix): \(String(describing: found[i])) vs \(String(describing: want))")
                    if let want, let got = found[i] { #expect(got == want, "query \(q) term \(term) prefix \(prefix)") }
                }
            }
        }
    }

    @Test func transpositionsCostOneEdit() {
        let lindne = Array("lindne".unicodeScalars.map(\.value)), linden = Array("linden".unicodeScalars.map(\.value))
        #expect(Reference.distance(lindne, linden) == 1)
        #expect(IndexQuery.editDistance(lindne, linden, prefix: false, budget: 1) == 1)
        #expect(IndexQuery.editDistance(lindne, linden, prefix: false, budget: 0) == nil)
        #expect(IndexQuery.editDistance(linden, linden, prefix: false, budget: 2) == 0)
    }

    /// The bounded distance that checks candidates' text agrees with the plain one, whole
    /// words and prefixes, within and over budget.
    @Test func boundedDistanceAgreesWithReference() {
        var rng = SplitMix64(seed: 7)
        let letters = Array("abcde".unicodeScalars.map(\.value))
        func word() -> [UInt32] { (0..<Int(rng.next() % 9)).map { _ in letters[Int(rng.next() % UInt64(letters.count))] } }
        for _ in 0..<4000 {
            let q = word(), b = word(), budget = Int(rng.next() % 3)
            for prefix in [false, true] {
                let want = prefix ? Reference.prefixDistance(q, Array(b.prefix(q.count + budget)), budget: budget) : Reference.distance(q, b)
                #expect(IndexQuery.editDistance(q, b, prefix: prefix, budget: budget) == (want <= budget ? want : nil), "\(q) \(b) prefix \(prefix) budget \(budget)")
            }
        }
    }
}

/// Plain, unoptimised distances to check the fast ones against.
enum Reference {
    /// Optimal string alignment distance, the whole matrix.
    static func distance(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, rows[i - 2][j - 2] + 1) }
                rows[i][j] = v
            }
        }
        return rows[a.count][b.count]
    }

    /// The least distance between `q` and a prefix of `b` at least `q.count - budget` long.
    static func prefixDistance(_ q: [UInt32], _ b: [UInt32], budget: Int) -> Int {
        var best = Int.max
        for n in min(max(0, q.count - budget), b.count)...b.count { best = min(best, distance(q, Array(b.prefix(n)))) }
        return best
    }
}
