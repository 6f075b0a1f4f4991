#!/usr/bin/env python3
"""Real servers on 127.0.0.1 for the network check's tests, each on an ephemeral port.

  loopback_servers.py DIR

Makes a CA and two server certificates with `cryptography` (one valid now for localhost,
127.0.0.1 and gpuqual-test.internal; one that expired yesterday), writes DIR/ca.pem, starts

  http      HTTP/1.1: GET /ok -> 200, /down -> 503, anything else -> 404
  https     the same over TLS with the valid certificate
  expired   the same over TLS with the expired certificate
  silent    accepts TCP connections and never sends a byte
  closed    a port that was bound and released: nothing listens there

prints one JSON line {"http": port, ...} and serves until SIGTERM. Nothing
here talks to any address but 127.0.0.1.
"""
import datetime
import http.server
import ipaddress
import json
import os
import signal
import socket
import ssl
import sys
import threading

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def make_cert(subject, issuer_name, issuer_key, key, not_before, not_after, ca, sans=None):
    b = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(issuer_name)
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(not_before).not_valid_after(not_after)
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return b.sign(issuer_key, hashes.SHA256())


def write_pem(path, cert, key):
    with open(path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
        if key is not None:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        code = {"/ok": 200, "/down": 503}.get(self.path, 404)
        body = b"ok\n" if code == 200 else b"no\n"
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve_http(context=None):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if context is not None:
        srv.socket = context.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.server_address[1]


def serve_silent():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    held = []

    def loop():
        while True:
            conn, _ = s.accept()
            held.append(conn)  # kept open, never answered
    threading.Thread(target=loop, daemon=True).start()
    return s.getsockname()[1], (s, held)


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    out = sys.argv[1]
    now = datetime.datetime.now(datetime.timezone.utc)
    day = datetime.timedelta(days=1)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = make_cert("gpuqual test CA", name("gpuqual test CA"), ca_key, ca_key, now - day, now + 30 * day, True)
    write_pem(os.path.join(out, "ca.pem"), ca, None)
    sans = [x509.DNSName("localhost"), x509.DNSName("gpuqual-test.internal"),
            x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    contexts = {}
    for label, nb, na in (("valid", now - day, now + 30 * day), ("expired", now - 10 * day, now - day)):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = make_cert("localhost", ca.subject, ca_key, key, nb, na, False, sans)
        path = os.path.join(out, label + ".pem")
        write_pem(path, cert, key)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(path)
        contexts[label] = ctx
    silent, keep = serve_silent()
    ports = {"http": serve_http(), "https": serve_http(contexts["valid"]), "expired": serve_http(contexts["expired"]),
             "silent": silent, "closed": closed_port()}
    print(json.dumps(ports), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while keep:
        signal.pause()


if __name__ == "__main__":
    main()
