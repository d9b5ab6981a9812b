// expect: proxy=ok rewrite=ok
// The undici package (npm), not Node's built-in fetch.
import { request, fetch as undiciFetch } from "undici";

const { body } = await request("https://slack.com/api/chat.postMessage", {
  method: "POST",
  headers: { authorization: "Bearer xoxb-1", "content-type": "application/json" },
  body: JSON.stringify({ channel: "general", text: "undici request" }),
});
const viaFetch = await undiciFetch("https://slack.com/api/chat.postMessage", {
  method: "POST",
  headers: { authorization: "Bearer xoxb-1", "content-type": "application/json" },
  body: JSON.stringify({ channel: "random", text: "undici fetch" }),
});
if (!(await body.json()).ok || !(await viaFetch.json()).ok) process.exit(1);
