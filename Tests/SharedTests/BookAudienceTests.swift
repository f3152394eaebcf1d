import Shared
import Testing

/// Who a book is for, from its metadata, and what a teen's or a child's card may see of it.
@Suite struct BookAudienceTests {
    @Test func theTypicalAgeRangeDecidesThenTheSubjects() {
        #expect(BookAudience.stated(ageRange: "8-12", subjects: []) == .children)
        #expect(BookAudience.stated(ageRange: "10-14", subjects: []) == .youngAdult)
        #expect(BookAudience.stated(ageRange: "13-17", subjects: ["JUV000000"]) == .youngAdult, "the age range first")
        #expect(BookAudience.stated(ageRange: "18-", subjects: []) == .adult)
        #expect(BookAudience.stated(ageRange: "8-", subjects: []) == .allAges)
        #expect(BookAudience.stated(ageRange: nil, subjects: ["Juvenile Fiction / Animals"]) == .children)
        #expect(BookAudience.stated(ageRange: nil, subjects: ["YAF019000"]) == .youngAdult)
        #expect(BookAudience.stated(ageRange: nil, subjects: ["Young Adult Fiction"]) == .youngAdult)
        #expect(BookAudience.stated(ageRange: "unknown", subjects: ["Fiction"]) == nil)
        #expect(BookAudience.stated(ageRange: nil, subjects: []) == nil)
    }

    @Test func aLimitedCardSeesOnlyWhatFitsAndNeverAnUnmarkedBook() {
        #expect(AudienceLimit.child.fits(.children) && AudienceLimit.child.fits(.allAges))
        #expect(!AudienceLimit.child.fits(.youngAdult) && !AudienceLimit.child.fits(.adult) && !AudienceLimit.child.fits(nil))
        #expect(AudienceLimit.teen.fits(.youngAdult) && AudienceLimit.teen.fits(.children) && !AudienceLimit.teen.fits(.adult))
        #expect(AudienceLimit(patronType: "adult") == nil && AudienceLimit(patronType: nil) == nil && AudienceLimit(patronType: "child") == .child)
        #expect(AudienceLimit.child.condition == "audience IN ('children', 'all-ages')")
    }
}
