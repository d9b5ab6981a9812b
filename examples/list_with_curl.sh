# An agent that scripts the Slack Web API with curl; no proxy flags, no CA flags.
set -euo pipefail
TOKEN="xoxb-agent-token"

echo "channels:"
curl -sS -H "Authorization: Bearer $TOKEN" "https://slack.com/api/conversations.list" \
    | grep -o '"name":"[^"]*"' | sed 's/"name":"\(.*\)"/  #\1/'

echo "replying in #random:"
curl -sS -H "Authorization: Bearer $TOKEN" https://slack.com/api/chat.postMessage \
    --data-urlencode channel=random --data-urlencode "text=Lunch at noon?" | grep -o '"ok":[a-z]*'
