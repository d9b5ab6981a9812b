# expect: proxy=ok rewrite=ok
set -euo pipefail
curl -sSf -H "Authorization: Bearer xoxb-1" https://slack.com/api/chat.postMessage \
    --data-urlencode channel=general --data-urlencode "text=curl post" | grep -q '"ok":true'
