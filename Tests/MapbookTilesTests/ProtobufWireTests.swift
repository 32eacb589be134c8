import Testing
import MapbookSupport
@testable import MapbookTiles

@Suite struct ProtobufWireTests {
    func read(_ bytes: [UInt8], _ body: (inout ProtobufReader) throws(MVTError) -> Void) throws(MVTError) {
        try withRawBytes(bytes) { (raw) throws(MVTError) in
            var reader = ProtobufReader(raw)
            try body(&reader)
        }
    }

    @Test(arguments: [
        (UInt64(0), [UInt8(0)]), (1, [1]), (127, [0x7F]), (128, [0x80, 1]), (300, [0xAC, 2]),
        (16383, [0xFF, 0x7F]), (16384, [0x80, 0x80, 1]), (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ] as [(UInt64, [UInt8])])
    func varintsRoundTrip(value: UInt64, bytes: [UInt8]) throws {
        var writer = ProtobufWriter()
        writer.appendVarint(value)
        #expect(writer.bytes == bytes)
        #expect(Varint.size(value) == bytes.count)
        try read(bytes) { (reader) throws(MVTError) in
            #expect(try reader.readVarint() == value)
            #expect(reader.isAtEnd)
        }
    }

    @Test(arguments: [(Int64(0), UInt64(0)), (-1, 1), (1, 2), (-2, 3), (2147483647, 4294967294), (-2147483648, 4294967295), (Int64.max, UInt64.max - 1), (Int64.min, UInt64.max)])
    func zigzag64(value: Int64, encoded: UInt64) {
        #expect(ProtobufWriter.zigzag(value) == encoded)
        #expect(ProtobufReader.zigzag(encoded) == value)
    }

    @Test(arguments: [(Int32(0), UInt32(0)), (-1, 1), (1, 2), (25, 50), (-4, 7), (Int32.max, UInt32.max - 1), (Int32.min, UInt32.max)])
    func zigzag32(value: Int32, encoded: UInt32) {
        #expect(ProtobufWriter.zigzag(value) == encoded)
        #expect(ProtobufReader.zigzag(encoded) == value)
    }

    @Test func truncatedVarintIsAnError() {
        let error = #expect(throws: MVTError.self) {
            try read([0x80, 0x80]) { (reader) throws(MVTError) in _ = try reader.readVarint() }
        }
        #expect(error?.kind == .invalidProtobuf)
    }

    @Test func nestedMessagesGetTheirLengthWhateverTheirSize() throws {
        for size in [0, 1, 127, 128, 16383, 16384, 70000] {
            var writer = ProtobufWriter()
            writer.appendMessageField(2) { $0.bytes.append(contentsOf: repeatElement(7, count: size)) }
            writer.appendVarintField(1, 5)
            try read(writer.bytes) { (reader) throws(MVTError) in
                let (field, wireType) = try reader.readKey()
                #expect(field == 2 && wireType == .lengthDelimited)
                #expect(try reader.readLengthDelimited().count == size)
                #expect(try reader.readKey() == (1, .varint))
                #expect(try reader.readVarint() == 5)
            }
        }
    }

    @Test func packedFieldsReserveOnlyWhatTheBytesHold() throws {
        var writer = ProtobufWriter()
        writer.appendPackedField(4, [9, 50, 34, 1_000_000, UInt32.max])
        try read(writer.bytes) { (reader) throws(MVTError) in
            _ = try reader.readKey()
            let range = try reader.readLengthDelimited()
            var values: [UInt32] = []
            #expect(try reader.readPackedUInt32(range, into: &values))
            #expect(values == [9, 50, 34, 1_000_000, UInt32.max])
            #expect(values.capacity < 16)
        }
        // A 64-bit value in a uint32 field is reported, not silently cut.
        try read([0xFF, 0xFF, 0xFF, 0xFF, 0x1F]) { (reader) throws(MVTError) in
            var values: [UInt32] = []
            #expect(try !reader.readPackedUInt32(0..<5, into: &values))
        }
    }

    @Test func fixedWidthFieldsAreLittleEndian() throws {
        var writer = ProtobufWriter()
        writer.appendFixed32Field(2, Float(3.1).bitPattern)
        writer.appendFixed64Field(3, Double(1.23).bitPattern)
        #expect(Array(writer.bytes[1...4]) == [0x66, 0x66, 0x46, 0x40])
        try read(writer.bytes) { (reader) throws(MVTError) in
            #expect(try reader.readKey() == (2, .fixed32))
            #expect(Float(bitPattern: try reader.readFixed32()) == 3.1)
            #expect(try reader.readKey() == (3, .fixed64))
            #expect(Double(bitPattern: try reader.readFixed64()) == 1.23)
        }
        let error = #expect(throws: MVTError.self) {
            try read([0x15, 1, 2]) { (reader) throws(MVTError) in try reader.skip(try reader.readKey().wireType) }
        }
        #expect(error?.kind == .invalidProtobuf)
    }
}
