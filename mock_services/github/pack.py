"""The GitHub replica's descriptor: what the rest of detour knows of it."""

from pathlib import Path

from detour_core.pack import McpSurface, ServicePack

PACK = ServicePack(
    name="github",
    hosts=("api.github.com",              # REST and GraphQL (`/graphql`)
           "github.com",                  # git's smart HTTP: info/refs, git-upload-pack, git-receive-pack
           "raw.githubusercontent.com",   # a file's bytes at a ref
           "codeload.github.com",         # tarballs and zipballs
           "uploads.github.com"),         # release assets
    router="mock_services.github.router:router",
    faults="mock_services.github.errors:fault_answer",
    coverage="mock_services.github.router:API.coverage",
    credentials="mock_services.github.access:credentials",
    events="mock_services.github.events:EVENTS",
    act="mock_services.github.act:act",
    templates=Path(__file__).parent / "templates",
    signature_tables=("github_repositories", "github_refs", "github_pulls"),
    users_table="github_users",
    primary_keys={"github_refs": ("repository_id", "ref"), "github_commits": ("repository_id", "sha")},
    tables=("github_users", "github_org_members", "github_repositories", "github_refs", "github_commits",
            "github_issues", "github_pulls", "github_reviews", "github_review_comments", "github_issue_comments",
            "github_labels", "github_milestones", "github_collaborators", "github_stars", "github_hooks",
            "github_releases", "github_release_assets", "github_branch_protections",
            "github_teams", "github_team_members", "github_team_repos", "github_reactions"),
    spec="GitHub's OpenAPI description (npm @octokit/openapi, api.github.com.json; spec/api.github.com.json) "
         "and GraphQL schema (npm @octokit/graphql-schema; graphql/schema.graphql)",
    warm_up="mock_services.github.graphql.endpoint:schema",
    mcp=McpSurface(hosts=("api.githubcopilot.com/mcp",),  # and below it: /mcp/readonly, /mcp/x/{toolset}
                   tools=Path(__file__).parent / "spec" / "mcp_tools.json",
                   operations="mock_services.github.mcp_tools:OPERATIONS",
                   source="github/github-mcp-server's tool snapshots (pkg/github/__toolsnaps__)"),
)
