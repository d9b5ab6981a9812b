"""MkDocs hook: the CLI reference page is written from the CLI itself at build time (typer's
click commands: usage, help, every option with its type and default), so it cannot drift from
the code. docs/reference/cli.md holds the introduction and the marker this replaces."""

from __future__ import annotations

import typer.main

MARKER = "<!-- cli-reference -->"


def _cell(text: str) -> str:
    """Text that stays in one table cell: no bar ends it, no newline breaks the row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _options(command, ctx) -> list[str]:
    rows = []
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None or param.name in ("help", "install_completion", "show_completion"):
            continue
        names, help_text = record[0].replace("\n", " "), _cell(record[1])  # a code span keeps its bars
        rows.append(f"| `{names}` | {help_text} |")
    return ["| option | what it does |", "|---|---|", *rows] if rows else []


def _arguments(command) -> list[str]:
    return [f"`{p.name.upper()}`" for p in command.params if p.param_type_name == "argument"]


def _section(command, path: list[str], parent) -> list[str]:
    """A command's heading, help, usage and options, then each subcommand's (typer vendors its own
    click, so commands are read by what they have, not by click's classes)."""
    name = " ".join(path)
    ctx = command.context_class(command, info_name=path[-1], parent=parent)
    out = [f"## `{name}`", "", (command.help or command.short_help or "").strip(), "",
           "```text", command.get_usage(ctx).replace("Usage: ", ""), "```", ""]
    if arguments := _arguments(command):
        out += ["Arguments: " + ", ".join(arguments), ""]
    if options := _options(command, ctx):
        out += [*options, ""]
    if hasattr(command, "list_commands"):
        for sub_name in command.list_commands(ctx):
            sub = command.get_command(ctx, sub_name)
            if sub is not None and not sub.hidden:
                out += _section(sub, [*path, sub_name], ctx)
    return out


def reference() -> str:
    """Every command of `detour`, in the order `detour --help` lists them, as Markdown."""
    from detour.cli import app
    return "\n".join(_section(typer.main.get_command(app), ["detour"], None))


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - MkDocs' hook signature
    return markdown.replace(MARKER, reference()) if MARKER in markdown else markdown
