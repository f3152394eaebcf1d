import Foundation
import TestSupport
import Testing

/// deploy/k8s is what an operator applies: valid against the Kubernetes schemas (strictly: a misspelt field fails),
/// non-root with read-only root filesystems, requests and limits, probes, a PodDisruptionBudget per service, an Ingress,
/// NetworkPolicies, secrets only in the Secret (`Tests/tools/check_k8s.py`).
@Suite struct DeploymentManifestTests {
    @Test func theKubernetesExampleIsValidAndLockedDown() async throws {
        let root = TestTools.directory.deletingLastPathComponent().deletingLastPathComponent()
        let (status, output) = try await ChildProcess.run([
            TestTools.python, TestTools.directory.appendingPathComponent("check_k8s.py").path,
            root.appendingPathComponent("deploy/k8s/bookmobile.yaml").path,
        ])
        #expect(status == 0, "\(String(decoding: output, as: UTF8.self))")
    }
}
