// expect: proxy=ok rewrite=ok
// template: linear_default
const gql = async (query: string, variables: object = {}) => {
  const r = await fetch("https://api.linear.app/graphql", {
    method: "POST", headers: { Authorization: "lin_api_1", "Content-Type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return (await r.json()).data;
};
const issue = (await gql('{ issue(id: "ENG-1") { id } }')).issue;
const made = await gql("mutation($i: CommentCreateInput!) { commentCreate(input: $i) { success } }",
                       { i: { issueId: issue.id, body: "Looking into it" } });
if (!made.commentCreate.success) process.exit(1);
