"""A fake Kubernetes API server for the node helpers' tests (gpuqual-node-condition,
gpuqual-node-taint): HTTPS with a CA of its own (the helpers call it exactly as in a pod, with
--cacert and the service-account token), Node objects in memory, and every request recorded.

What it does as the API server does (Kubernetes API reference, Node v1:
https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/):
- GET /api/v1/nodes/NAME and /api/v1/nodes/NAME/status return the Node;
- PATCH .../status with application/strategic-merge-patch+json merges status.conditions by `type`
  (NodeStatus.conditions: patch strategy merge, key type) and metadata's maps (annotations,
  labels), and never changes spec: the Node's status strategy resets only the spec (Kubernetes,
  pkg/registry/core/node/strategy.go: nodeStatusStrategy.PrepareForUpdate and GetResetFields);
- PATCH /api/v1/nodes/NAME with application/merge-patch+json applies RFC 7386, refusing with
  409 Conflict (a Status object, reason Conflict) when the patch names a metadata.resourceVersion
  other than the Node's current one; every write bumps resourceVersion;
- the bearer token is checked (401 otherwise), and requests are authorized against RBAC rules
  given as ClusterRole `rules` (403 Forbidden otherwise): the tests pass the shipped component's
  own rules, so a helper that needs more than its component grants fails.
"""
import copy
import http.server
import json
import os
import ssl
import subprocess
import threading

import yaml

TOKEN = "fake-token"


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def strategic_merge_status(node, patch):
    """The part of a strategic merge patch the status subresource applies: everything but spec,
    status.conditions merged by type, the rest (metadata's annotations and labels: maps) as a
    merge patch."""
    if "metadata" in patch:
        node["metadata"] = merge_patch(node["metadata"], patch["metadata"])
    status = copy.deepcopy(node.get("status", {}))
    p = copy.deepcopy(patch.get("status", {}))
    conditions = p.pop("conditions", None)
    status = merge_patch(status, p)
    if conditions is not None:
        merged = status.get("conditions", [])
        for c in conditions:
            i = next((j for j, old in enumerate(merged) if old.get("type") == c["type"]), None)
            if i is None:
                merged.append(c)
            else:
                merged[i] = merge_patch(merged[i], c)
        status["conditions"] = merged
    node["status"] = status


def allowed(rules, verb, resource, group=""):
    return any(group in r.get("apiGroups", []) and resource in r.get("resources", []) and verb in r.get("verbs", [])
               for r in rules)


def as_list(items):
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


class FakeApi:
    def __init__(self, tmp, nodes, rules):
        self.nodes = {n["metadata"]["name"]: copy.deepcopy(n) for n in nodes}
        self.rules = rules
        self.requests = []  # (method, path, content type, parsed body or None, HTTP status)
        self.before_patch = None  # hook(node) run before a node PATCH: a concurrent writer
        self.pods, self.pdbs, self.jobs = [], [], []  # the lists the re-validation CronJob reads; Jobs it creates
        # Other lists by API path ("apis/resource.k8s.io/v1/resourceslices": items), and the API
        # groups GET /apis lists (an APIGroupList: Kubernetes API concepts, "Discovery API").
        self.lists = {}
        self.api_groups = []
        self.sa_dir = os.path.join(tmp, "sa")
        os.makedirs(self.sa_dir)
        key, cert = os.path.join(tmp, "key.pem"), os.path.join(self.sa_dir, "ca.crt")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        with open(os.path.join(self.sa_dir, "token"), "w", encoding="utf-8") as f:
            f.write(TOKEN)
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, code, obj, body=None):
                api.requests.append((self.command, self.path, self.headers.get("Content-Type"), body, code))
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def reply_done(self, *args):
                self.reply(*args)
                return True

            def status_done(self, *args):
                self.status(*args)
                return True

            def status(self, code, reason, message, body=None):
                self.reply(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                                  "reason": reason, "code": code}, body)

            def collection(self, verb, parts, body):
                """GET /apis, /api/v1/nodes|pods, /apis/policy/v1/poddisruptionbudgets, api.lists, GET|POST
                /apis/batch/v1/namespaces/NS/jobs (a label selector key=value on GET)."""
                path = "/".join(parts)
                lists = {"api/v1/nodes": ("", "nodes", lambda: list(api.nodes.values())),
                         "api/v1/pods": ("", "pods", lambda: api.pods),
                         "apis/policy/v1/poddisruptionbudgets": ("policy", "poddisruptionbudgets", lambda: api.pdbs)}
                if path == "apis" and verb == "get":
                    return self.reply_done(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
                        {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v}],
                         "preferredVersion": {"groupVersion": f"{g}/{v}", "version": v}}
                        for g, v in api.api_groups]})
                if path in api.lists and verb == "get":
                    group, resource = parts[1], parts[3]
                    if not allowed(api.rules, "list", resource, group):
                        return self.status_done(403, "Forbidden", f"cannot list {resource}", body)
                    return self.reply_done(200, as_list(api.lists[path]))
                if path in lists and verb == "get":
                    group, resource, items = lists[path]
                    if not allowed(api.rules, "list", resource, group):
                        return self.status_done(403, "Forbidden", f"cannot list {resource}", body)
                    return self.reply_done(200, as_list(items()))
                if len(parts) == 6 and parts[:4] == ["apis", "batch", "v1", "namespaces"] and parts[5] == "jobs":
                    if not allowed(api.rules, "list" if verb == "get" else "create", "jobs", "batch"):
                        return self.status_done(403, "Forbidden", f"cannot {verb} jobs", body)
                    if verb == "get":
                        query = self.path.partition("?")[2].replace("%2F", "/").replace("%3D", "=")
                        key, _, value = query.removeprefix("labelSelector=").partition("=")
                        return self.reply_done(200, as_list([j for j in api.jobs
                                                        if j["metadata"].get("labels", {}).get(key) == value]))
                    api.jobs.append(body)
                    return self.reply_done(201, body, body)
                return None

            def route(self, verb):
                body = None
                if verb in ("patch", "post"):
                    raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    body = (yaml.safe_load(raw) if self.headers.get("Content-Type") == "application/yaml"
                            else json.loads(raw or b"null"))
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    return self.status(401, "Unauthorized", "Unauthorized", body)
                parts = self.path.split("?")[0].strip("/").split("/")
                if self.collection(verb, parts, body):
                    return None
                if parts[:3] != ["api", "v1", "nodes"] or len(parts) not in (4, 5):
                    return self.status(404, "NotFound", f"no route {self.path}", body)
                resource = "nodes/status" if len(parts) == 5 and parts[4] == "status" else "nodes"
                if not allowed(api.rules, verb, resource):
                    return self.status(403, "Forbidden", f"cannot {verb} resource {resource}", body)
                node = api.nodes.get(parts[3])
                if node is None:
                    return self.status(404, "NotFound", f'nodes "{parts[3]}" not found', body)
                if verb == "get":
                    return self.reply(200, node)
                return self.patch(node, resource, body)

            def patch(self, node, resource, body):
                ctype = self.headers.get("Content-Type")
                if resource == "nodes/status":
                    if ctype != "application/strategic-merge-patch+json":
                        return self.status(415, "UnsupportedMediaType", f"status patch as {ctype}", body)
                    strategic_merge_status(node, body)
                else:
                    if ctype != "application/merge-patch+json":
                        return self.status(415, "UnsupportedMediaType", f"node patch as {ctype}", body)
                    if api.before_patch:
                        hook, api.before_patch = api.before_patch, None
                        hook(node)
                        node["metadata"]["resourceVersion"] = str(int(node["metadata"]["resourceVersion"]) + 1)
                    rv = body.get("metadata", {}).get("resourceVersion")
                    if rv is not None and rv != node["metadata"]["resourceVersion"]:
                        return self.status(409, "Conflict", "the object has been modified", body)
                    node.update(merge_patch(node, body))
                node["metadata"]["resourceVersion"] = str(int(node["metadata"]["resourceVersion"]) + 1)
                self.reply(200, node, body)

            def do_GET(self):
                self.route("get")

            def do_PATCH(self):
                self.route("patch")

            def do_POST(self):
                self.route("post")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def env(self, node_name):
        """The environment of a helper container on that node."""
        return dict(os.environ, KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT=str(self.server.server_port),
                    GPUQUAL_SA_DIR=self.sa_dir, NODE_NAME=node_name)

    def patches(self):
        return [r for r in self.requests if r[0] == "PATCH"]

    def close(self):
        self.server.shutdown()
        self.server.server_close()
