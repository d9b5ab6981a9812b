// expect: proxy=ok rewrite=ok
const request = new Request("https://api.slack.com/api/chat.postMessage", {
  method: "POST",
  headers: new Headers({ Authorization: "Bearer xoxb-1", "Content-Type": "application/x-www-form-urlencoded" }),
  body: new URLSearchParams({ channel: "random", text: "request object" }),
});
if (!(await (await fetch(request)).json()).ok) process.exit(1);
