"""deploy/k8s: every manifest valid against Kubernetes' own schemas (kubernetes-validate, strict),
and wired as the design says: Services select their Deployments, autoscalers scale them,
agents may reach the proxy alone, and an agent's variables are the sandbox's own."""

from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from detour_client.ray import RAY_NODE_ENV
from sandbox.base import ProxyAccess, SandboxSpec
from sandbox.docker import IMAGE_TRUST, container_environment

FOLDER = Path(__file__).parents[2] / "deploy" / "k8s"
KUBERNETES = "1.30"


def documents() -> list[dict]:
    kustomization = yaml.safe_load((FOLDER / "kustomization.yaml").read_text())
    return [doc for name in kustomization["resources"] for doc in yaml.safe_load_all((FOLDER / name).read_text())]


def named(kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in documents() if d["kind"] == kind}


def test_the_kustomization_lists_every_manifest():
    listed = yaml.safe_load((FOLDER / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == sorted(p.name for p in FOLDER.glob("*.yaml") if p.name != "kustomization.yaml")


@pytest.mark.parametrize("doc", documents(), ids=lambda d: f"{d['kind']}/{d['metadata']['name']}")
def test_each_manifest_is_valid_kubernetes(doc):
    kubernetes_validate.validate(doc, KUBERNETES, strict=True)


def test_validation_can_fail():
    broken = {**named("Deployment")["detour-proxy"], "spec": {"replicas": "two"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_services_and_autoscalers_point_at_what_exists():
    deployments = named("Deployment") | named("StatefulSet")
    labels = {name: d["spec"]["template"]["metadata"]["labels"] for name, d in deployments.items()}
    for service in named("Service").values():
        assert service["spec"]["selector"] in labels.values(), service["metadata"]["name"]
    for hpa in named("HorizontalPodAutoscaler").values():
        assert hpa["spec"]["scaleTargetRef"]["name"] in named("Deployment")


def test_agents_may_reach_the_proxy_and_nothing_else():
    policy = named("NetworkPolicy")["detour-agent-egress"]["spec"]
    agent = named("Pod")["detour-agent"]
    assert policy["podSelector"]["matchLabels"] == agent["metadata"]["labels"]
    assert sorted(policy["policyTypes"]) == ["Egress", "Ingress"] and policy["ingress"] == []
    [rule] = policy["egress"]
    assert rule["to"] == [{"podSelector": {"matchLabels": named("Deployment")["detour-proxy"]["spec"]["template"]
                                           ["metadata"]["labels"]}}]
    assert rule["ports"] == [{"protocol": "TCP", "port": 8080}]


def test_an_agents_variables_are_the_sandboxs_own():
    access = ProxyAccess(env_id="ENV", secret="SECRET", host="HOST", port=8080, transparent_port=8080,
                         dns_port=8080, gateway_port=8080)
    expected = container_environment(SandboxSpec(argv=["-"], proxy=access, trust=IMAGE_TRUST), "HOST")
    [container] = named("Pod")["detour-agent"]["spec"]["containers"]
    given = {e["name"]: e.get("value") for e in container["env"]}
    assert set(expected) <= set(given)
    proxied = {name: value.replace("ENV:SECRET", "$(DETOUR_ENV_CREDENTIALS)").replace(
        "HOST:8080", "$(DETOUR_PROXY_SERVICE_HOST):8080") for name, value in expected.items()}
    assert {name: given[name] for name in expected} == proxied


def referenced(doc: dict, kind: str) -> set[str]:
    """Names of Secrets (secretKeyRef, secretRef, secret volumes) or ConfigMaps a manifest reads."""
    key, ref, volume = {"Secret": ("secretKeyRef", "secretRef", "secret"),
                        "ConfigMap": ("configMapKeyRef", "configMapRef", "configMap")}[kind]
    found: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            for name, value in node.items():
                if name in (key, ref) and isinstance(value, dict):
                    found.add(value["name"])
                if name == volume and isinstance(value, dict):
                    found.add(value.get("secretName") or value.get("name"))
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(doc)
    return found


@pytest.mark.parametrize("kind", ["Secret", "ConfigMap"])
def test_every_secret_and_config_map_read_is_one_the_kustomization_makes(kind):
    read = set().union(*(referenced(doc, kind) for doc in documents()))
    assert read and read <= set(named(kind)), read - set(named(kind))


KUBERAY = Path(__file__).parents[2] / "deploy" / "kuberay" / "raycluster.yaml"


def ray_pod_templates(cluster: dict) -> list[dict]:
    spec = cluster["spec"]
    return [spec["headGroupSpec"]["template"], *(group["template"] for group in spec["workerGroupSpecs"])]


def test_the_kuberay_cluster_holds_valid_pods_that_can_run_stacks():
    """KubeRay's resource is checked by its own rules (what its operator reads), and each pod it
    makes against Kubernetes' schemas, as a PodTemplate; each can run a stack's sandboxes."""
    [cluster] = yaml.safe_load_all(KUBERAY.read_text())
    assert (cluster["apiVersion"], cluster["kind"]) == ("ray.io/v1", "RayCluster")
    assert cluster["spec"]["rayVersion"].split(".")[0] == "2"
    groups = cluster["spec"]["workerGroupSpecs"]
    assert len({g["groupName"] for g in groups}) == len(groups)
    for group in groups:
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
    for params in [cluster["spec"]["headGroupSpec"]["rayStartParams"], *(g["rayStartParams"] for g in groups)]:
        assert all(isinstance(value, str) for value in params.values())  # KubeRay reads a map of strings
    for template in ray_pod_templates(cluster):
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "ray"},
                                      "template": template}, KUBERNETES, strict=True)
        [container] = template["spec"]["containers"]
        assert container["securityContext"] == {"privileged": True}  # namespaces, nftables, cgroups
        ray_env = {e["name"]: e["value"] for e in container["env"] if e["name"].startswith("RAY_")}
        assert ray_env == RAY_NODE_ENV  # what the test and bench clusters' nodes run with


def test_a_broken_ray_pod_is_caught():
    [cluster] = yaml.safe_load_all(KUBERAY.read_text())
    template = ray_pod_templates(cluster)[1]
    broken = {**template, "spec": {"containers": [{**template["spec"]["containers"][0], "ports": "6379"}]}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "ray"},
                                      "template": broken}, KUBERNETES, strict=True)
