import Foundation
import Testing

@testable import CatalogService

/// The signer against the worked examples of AWS's S3 documentation ("Signature Calculations for the Authorization
/// Header" and "Query String Authentication"): the same credentials, request and time give the published signatures.
@Suite struct SigV4SignerTests {
    let signer = SigV4Signer(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
    let may24 = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z

    func authorization(_ request: SigV4Signer.Request) -> String? {
        signer.headers(for: request, at: may24).first { $0.name == "Authorization" }?.value
    }

    @Test func aRangedGetIsSignedAsAWSDocumentsIt() {
        let request = SigV4Signer.Request(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", headers: [("Range", "bytes=0-9")])
        #expect(
            authorization(request)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test func aPresignedGetIsTheURLAWSDocuments() {
        let request = SigV4Signer.Request(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt")
        #expect(
            signer.presignedURL(for: request, expires: 86_400, at: may24)
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z"
                + "&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        )
    }

    @Test func aListingsQueryIsSortedAndEncoded() {
        let request = SigV4Signer.Request(
            method: "GET",
            host: "examplebucket.s3.amazonaws.com",
            path: "/",
            query: [("prefix", "J"), ("max-keys", "2")]
        )
        #expect(authorization(request)?.hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test func keysAndQueriesArePercentEncodedAsSigV4Wants() {
        #expect(SigV4Signer.encode("a b/c~d_e.f-g$é") == "a%20b%2Fc~d_e.f-g%24%C3%A9")
        #expect(SigV4Signer.path(bucket: "books", key: "blobs/ab/c d") == "/books/blobs/ab/c%20d")
        #expect(SigV4Signer.canonicalQuery([("b", "2"), ("a", "2"), ("a", "1")]) == "a=1&a=2&b=2")
        #expect(SigV4Signer.timestamp(may24.addingTimeInterval(3_723.5)) == "20130524T010203Z")
    }
}
