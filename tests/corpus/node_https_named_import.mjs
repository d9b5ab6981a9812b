// expect: proxy=ok rewrite=ok
import { request } from "node:https";

const req = request({ hostname: "slack.com", path: "/api/chat.postMessage", method: "POST",
                      headers: { Authorization: "Bearer xoxb-1", "Content-Type": "application/x-www-form-urlencoded" } },
  (res) => { let d = ""; res.on("data", (c) => (d += c)); res.on("end", () => process.exit(JSON.parse(d).ok ? 0 : 1)); });
req.end("channel=random&text=named%20import");
