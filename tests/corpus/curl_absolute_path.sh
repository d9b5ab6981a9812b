# expect: proxy=ok rewrite=missed
# An absolute path skips the rewrite shim on PATH.
set -euo pipefail
/usr/bin/curl -sS --max-time 5 -H "Authorization: Bearer xoxb-1" https://slack.com/api/chat.postMessage \
    -d channel=general -d text=absolute | grep -q '"ok":true'
