// Prints, as JSON, the GraphQL documents @linear/sdk sends for the operations detour supports.
// Input of generate.py; fed on stdin from sandbox/node_packages so that @linear/sdk resolves:
//   (cd sandbox/node_packages && node --input-type=module) < mock_services/linear/sdk_compat/dump_documents.mjs > mock_services/linear/sdk_compat/documents.json
import { LinearClient } from "@linear/sdk";

const sent = [];
const client = new LinearClient({ apiKey: "unused", apiUrl: "http://127.0.0.1:1/graphql" });
client.client.request = async (document) => { sent.push(String(document)); throw new Error("captured"); };
const operations = [
  () => client.viewer, () => client.teams(), () => client.team("ENG"), () => client.users(),
  () => client.issues({ first: 2 }), () => client.issue("ENG-1"),
  () => client.createIssue({ teamId: "t", title: "x" }), () => client.updateIssue("ENG-1", { title: "y" }),
  () => client.createComment({ issueId: "i", body: "b" }), () => client.comments(),
  () => client.workflowState("s"), () => client.workflowStates(), () => client.user("u"),
  () => client.issueLabels(), () => client.comment({ id: "c" }),
];
for (const operation of operations) {
  try { await operation(); } catch {}
}
console.log(JSON.stringify(sent, null, 1));
