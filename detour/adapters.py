"""An executor as a tool a model can call: an OpenAI function tool, a LangChain tool, a smolagents tool.

Each framework is imported only inside its own adapter, so detour needs none of them; they
come as extras (`pip install 'detour[langchain]'`, `'detour[smolagents]'`, `'detour[openai]'`).
All three show the model the same name, description, argument and answer text.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from detour_core.registry import pack

if TYPE_CHECKING:
    from detour.client import Executor

CODE_HELP = "The complete program to run; files it writes stay for the next call."


class CodeArgument(BaseModel):
    """The one argument of every executor tool."""

    code: str = Field(description=CODE_HELP)


def tool_name(executor: Executor) -> str:
    return f"execute_{executor.language}"


def tool_description(executor: Executor) -> str:
    service = executor.client.environments.get(executor.env_id).service
    hosts = ", ".join(f"https://{host}{prefix}" for host, prefix in pack(service).host_routes())
    return (f"Run {executor.language} code in a sandbox. Its network reaches the {service} API ({hosts}) "
            "of a test environment, and nothing else. Returns what the program printed, or its error.")


def answer_text(result: dict[str, Any]) -> str:
    """What the model reads back: the output, or the exit status and the error output."""
    if result["status"] == "success":
        return result["stdout"] or "(the program printed nothing)"
    why = result.get("error") or f"exit code {result['exit_code']}"
    return f"The program failed ({why}).\nstderr:\n{result['stderr']}\nstdout:\n{result['stdout']}"


def run_tool(executor: Executor, code: str) -> str:
    return answer_text(executor.execute(code))


class OpenAITool:
    """`definition` goes in the request's `tools`; `answer(tool_call)` is the message that
    carries the result back. Works with the openai package's objects and with plain dicts."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self.name = tool_name(executor)
        self.definition = {"type": "function", "function": {
            "name": self.name, "description": tool_description(executor),
            "parameters": CodeArgument.model_json_schema()}}

    def __call__(self, arguments: str | dict) -> str:
        parsed = CodeArgument.model_validate(json.loads(arguments) if isinstance(arguments, str) else arguments)
        return run_tool(self.executor, parsed.code)

    def answer(self, tool_call: Any) -> dict[str, str]:
        call = tool_call if isinstance(tool_call, dict) else tool_call.model_dump()
        if call["function"]["name"] != self.name:
            raise ValueError(f"this tool is {self.name}, not {call['function']['name']}")
        return {"role": "tool", "tool_call_id": call["id"], "content": self(call["function"]["arguments"])}


def openai_tool(executor: Executor) -> OpenAITool:
    return OpenAITool(executor)


def langchain_tool(executor: Executor):
    """A `StructuredTool` (langchain-core)."""
    from langchain_core.tools import StructuredTool

    return StructuredTool.from_function(func=lambda code: run_tool(executor, code), name=tool_name(executor),
                                        description=tool_description(executor), args_schema=CodeArgument)


def smolagents_tool(executor: Executor):
    """A `smolagents.Tool` instance, for `ToolCallingAgent` and `CodeAgent`."""
    from smolagents import Tool

    class ExecutorTool(Tool):
        name = tool_name(executor)
        description = tool_description(executor)
        inputs = {"code": {"type": "string", "description": CODE_HELP}}
        output_type = "string"
        skip_forward_signature_validation = True

        def forward(self, code: str) -> str:
            return run_tool(executor, code)

    return ExecutorTool()
