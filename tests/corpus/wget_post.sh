# expect: proxy=ok rewrite=ok
set -euo pipefail
wget -qO- --header="Authorization: Bearer xoxb-1" --post-data="channel=random&text=wget" \
    https://slack.com/api/chat.postMessage | grep -q '"ok":true'
