// An agent in Node that calls the Slack Web API with the built-in fetch.
const api = async (method, body) => {
  const response = await fetch(`https://slack.com/api/${method}`, {
    method: "POST",
    headers: { Authorization: "Bearer xoxb-agent-token", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.json();
};

const { messages } = await api("conversations.history", { channel: "general", limit: 1 });
const newest = messages[0];
console.log(`reacting to: "${newest.text}"`);
const reaction = await api("reactions.add", { channel: "general", timestamp: newest.ts, name: "tada" });
console.log(`reactions.add ok=${reaction.ok}`);
