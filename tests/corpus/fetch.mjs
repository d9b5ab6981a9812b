// expect: proxy=ok rewrite=ok
const r = await fetch("https://slack.com/api/chat.postMessage", {
  method: "POST",
  headers: { Authorization: "Bearer xoxb-1", "Content-Type": "application/json" },
  body: JSON.stringify({ channel: "general", text: "fetch.mjs" }),
});
if (!(await r.json()).ok) process.exit(1);
