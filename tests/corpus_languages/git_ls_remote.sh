# git itself (Debian's: libcurl over GnuTLS, the system store), unmodified: until the GitHub pack
# exists the replica answers 404, so what this shows is that TLS through the proxy is trusted.
out=$(git ls-remote https://slack.com/acme/api.git 2>&1)
case "$out" in
    *"certificate"*|*"SSL"*|*"TLS"*) echo "git: tls-failed: $out"; exit 1 ;;
    *"not found"*|*"404"*) echo "git: tls-ok" ;;
    *) echo "git: other: $out"; exit 1 ;;
esac
