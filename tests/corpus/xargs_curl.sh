# expect: proxy=ok rewrite=ok
set -euo pipefail
printf '%s\n' one two | xargs -I{} curl -sSf -w '\n' -H "Authorization: Bearer xoxb-1" \
    https://slack.com/api/chat.postMessage -d channel=general -d text=xargs-{} | grep -c '"ok":true' | grep -qx 2
