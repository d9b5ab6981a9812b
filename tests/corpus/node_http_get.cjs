// expect: proxy=ok rewrite=ok
// Slack takes arguments in the query string too, so even a GET can post.
const http = require("node:http");

http.get("http://slack.com/api/chat.postMessage?channel=general&text=commonjs&token=xoxb-1", (res) => {
  let data = "";
  res.on("data", (c) => (data += c));
  res.on("end", () => process.exit(JSON.parse(data).ok ? 0 : 1));
});
