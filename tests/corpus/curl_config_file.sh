# expect: proxy=ok rewrite=missed
# The URL lives in a curl config file, where no argument rewriting can see it.
set -euo pipefail
cat > request.cfg <<'CFG'
url = "https://slack.com/api/chat.postMessage"
header = "Authorization: Bearer xoxb-1"
data = "channel=general&text=config-file"
max-time = 5
CFG
curl -sS -K request.cfg | grep -q '"ok":true'
