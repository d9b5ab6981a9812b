# expect: proxy=ok rewrite=missed
# A raw TLS socket: no library to patch, so only proxy mode (transparent) sees it.
import json
import os
import socket
import ssl

ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
body = "channel=general&text=raw_socket"
with socket.create_connection(("slack.com", 443), timeout=5) as raw, ctx.wrap_socket(raw, server_hostname="slack.com") as s:
    s.sendall((f"POST /api/chat.postMessage HTTP/1.1\r\nHost: slack.com\r\nAuthorization: Bearer xoxb-1\r\n"
               f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n"
               f"Connection: close\r\n\r\n{body}").encode())
    reply = b""
    while chunk := s.recv(65536):
        reply += chunk
assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["ok"]
