#!/usr/bin/env python3
"""Checks deploy/k8s against the Kubernetes schemas (kubernetes-validate, strict: no unknown field) and against what an
operator expects of it; prints each problem and exits 1 when there is one.

    check_k8s.py deploy/k8s/bookmobile.yaml
"""
import sys

import kubernetes_validate
import yaml

KUBERNETES_VERSION = "1.30.0"
SECRETS = {"SERVICE_TOKEN", "JWT_SECRET", "ADMIN_TOKEN", "CATALOG_DATABASE_URL", "PATRON_DATABASE_URL", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"}


def main(path):
    problems = []
    documents = [d for d in yaml.safe_load_all(open(path, encoding="utf-8")) if d]
    for document in documents:
        try:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            problems.append(f"{document['kind']}/{document['metadata']['name']}: {error.message}")
    by_kind = {}
    for document in documents:
        by_kind.setdefault(document["kind"], []).append(document)
    deployments = {d["metadata"]["name"]: d for d in by_kind.get("Deployment", [])}
    if set(deployments) != {"catalog", "patron", "gateway"}:
        problems.append(f"Deployments: {sorted(deployments)}")
    budgets = {d["spec"]["selector"]["matchLabels"]["app"] for d in by_kind.get("PodDisruptionBudget", [])}
    for name, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        if not pod.get("securityContext", {}).get("runAsNonRoot"):
            problems.append(f"{name}: the pod does not run as non-root")
        for container in pod["containers"]:
            context = container.get("securityContext", {})
            if context.get("readOnlyRootFilesystem") is not True or context.get("allowPrivilegeEscalation") is not False:
                problems.append(f"{name}: read-only root filesystem and no privilege escalation")
            resources = container.get("resources", {})
            if not {"cpu", "memory"} <= set(resources.get("requests", {})) or "memory" not in resources.get("limits", {}):
                problems.append(f"{name}: CPU and memory requests and a memory limit")
            for probe in ("readinessProbe", "livenessProbe"):
                if probe not in container:
                    problems.append(f"{name}: no {probe}")
            if any("value" in variable and variable["name"] in SECRETS for variable in container.get("env", [])):
                problems.append(f"{name}: a secret given as a plain value")
        if name not in budgets:
            problems.append(f"{name}: no PodDisruptionBudget")
    for config in by_kind.get("ConfigMap", []):
        leaked = SECRETS & set(config.get("data", {}))
        if leaked:
            problems.append(f"ConfigMap/{config['metadata']['name']} holds secrets: {sorted(leaked)}")
    # Blobs live in object storage: no replica needs a disk shared with another.
    for claim in by_kind.get("PersistentVolumeClaim", []):
        if "ReadWriteMany" in claim["spec"].get("accessModes", []):
            problems.append(f"PersistentVolumeClaim/{claim['metadata']['name']} is ReadWriteMany: catalog's blobs belong in object storage")
    if "BLOB_STORE" not in {key for config in by_kind.get("ConfigMap", []) for key in config.get("data", {})}:
        problems.append("no BLOB_STORE in the ConfigMap: catalog's blobs belong in object storage")
    if not by_kind.get("Ingress"):
        problems.append("no Ingress for the gateway")
    policies = {p["spec"]["podSelector"].get("matchLabels", {}).get("app") for p in by_kind.get("NetworkPolicy", [])}
    if not {"catalog", "patron", "gateway"} <= policies:
        problems.append(f"NetworkPolicies for catalog, patron and gateway: {sorted(p for p in policies if p)}")
    egress = {p["spec"]["podSelector"].get("matchLabels", {}).get("app") for p in by_kind.get("NetworkPolicy", []) if "Egress" in p["spec"].get("policyTypes", [])}
    if not {"catalog", "patron", "gateway"} <= egress:
        problems.append(f"egress NetworkPolicies for catalog, patron and gateway: {sorted(p for p in egress if p)}")
    for policy in by_kind.get("NetworkPolicy", []):
        for rule in policy["spec"].get("egress", []):
            for peer in rule.get("to", []):
                block = peer.get("ipBlock")
                if block and block["cidr"] == "0.0.0.0/0" and not {"10.0.0.0/8", "169.254.0.0/16"} <= set(block.get("except", [])):
                    problems.append(f"NetworkPolicy/{policy['metadata']['name']}: egress to any address reaches private ones and the metadata address")
    for service in by_kind.get("Service", []):
        if service["spec"].get("type", "ClusterIP") != "ClusterIP":
            problems.append(f"Service/{service['metadata']['name']} is {service['spec']['type']}: only the Ingress is public")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
