// expect: proxy=ok rewrite=ok
interface SlackResponse { ok: boolean; error?: string }
async function post(channel: string, text: string): Promise<SlackResponse> {
  const r = await fetch("https://slack.com/api/chat.postMessage", {
    method: "POST",
    headers: { Authorization: "Bearer xoxb-1", "Content-Type": "application/json" },
    body: JSON.stringify({ channel, text }),
  });
  return (await r.json()) as SlackResponse;
}
const result: SlackResponse = await post("general", "typescript");
if (!result.ok) throw new Error(result.error);
