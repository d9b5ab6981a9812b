// expect: proxy=ok rewrite=ok
import https from "node:https";

const body = JSON.stringify({ channel: "general", text: "node https" });
const req = https.request("https://slack.com/api/chat.postMessage", {
  method: "POST", headers: { Authorization: "Bearer xoxb-1", "Content-Type": "application/json" },
}, (res) => {
  let data = "";
  res.on("data", (c) => (data += c));
  res.on("end", () => process.exit(JSON.parse(data).ok ? 0 : 1));
});
req.end(body);
