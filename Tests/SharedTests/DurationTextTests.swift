import Shared
import Testing

@Suite struct DurationTextTests {
    @Test func acceptsSecondsAndUnits() {
        #expect(DurationText.seconds("90") == 90)
        #expect(DurationText.seconds("15m") == 900)
        #expect(DurationText.seconds("2h") == 7200)
        #expect(DurationText.seconds("21d") == 1_814_400.0)
        #expect(DurationText.seconds("1.5s") == 1.5)
    }

    @Test func refusesNonsense() {
        #expect(DurationText.seconds("") == nil)
        #expect(DurationText.seconds("-1") == nil)
        #expect(DurationText.seconds("abc") == nil)
        #expect(DurationText.seconds("5w") == nil)
    }
}
