# expect: proxy=ok rewrite=ok
# template: linear_default
set -euo pipefail
curl -sSf -H "Authorization: lin_api_1" -H "Content-Type: application/json" https://api.linear.app/graphql \
    -d '{"query": "mutation { commentCreate(input: {issueId: \"ENG-2\", body: \"from curl\"}) { success } }"}' \
    | grep -q '"success":true'
