"""Each framework adapter, driven by that framework with a scripted stand-in model (no
network but loopback): the model asks for the tool, the tool runs the code in a sandbox
behind the proxy, and the model's next turn reads what the tool answered."""

import json
import threading
import time

import pytest
import uvicorn
from fastapi import FastAPI, Request

from detour.adapters import langchain_tool, openai_tool, smolagents_tool

CODE = """import requests
sent = requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                     json={"channel": "general", "text": "posted by a tool call"}).json()
print("sent", sent["ok"], sent["channel"])"""
SAID = "sent True C01ABCD1234\n"


@pytest.fixture
def executor(api_client):
    with api_client.executor("python") as ex:
        yield ex


def posted(api_client, executor) -> list[str]:
    return [row["message_text"] for row in api_client.environments.diff(executor.env_id).inserts]


def stand_in_chat_completions(seen: list[dict]) -> FastAPI:
    """OpenAI's chat completions, scripted: call the tool first, then repeat what it answered."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> dict:
        body = await request.json()
        seen.append(body)
        last = body["messages"][-1]
        if last["role"] == "tool":
            message = {"role": "assistant", "content": f"The tool said: {last['content']}"}
        else:
            name = body["tools"][0]["function"]["name"]
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps({"code": CODE})}}]}
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": "stand-in",
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}]}
    return app


@pytest.fixture
def model_server():
    seen: list[dict] = []
    server = uvicorn.Server(uvicorn.Config(stand_in_chat_completions(seen), host="127.0.0.1", port=0,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/v1", seen
    server.should_exit = True
    thread.join(10)


def test_openai_function_tool_with_the_openai_client(api_client, executor, model_server):
    from openai import OpenAI

    url, seen = model_server
    tool = openai_tool(executor)
    model = OpenAI(base_url=url, api_key="stand-in", max_retries=0)
    messages = [{"role": "user", "content": "Post in #general"}]
    first = model.chat.completions.create(model="stand-in", messages=messages, tools=[tool.definition])
    call = first.choices[0].message
    messages += [call.model_dump(exclude_none=True), *(tool.answer(c) for c in call.tool_calls)]
    final = model.chat.completions.create(model="stand-in", messages=messages, tools=[tool.definition])
    assert final.choices[0].message.content == f"The tool said: {SAID}"
    assert seen[0]["tools"][0]["function"]["parameters"]["required"] == ["code"]
    assert posted(api_client, executor) == ["posted by a tool call"]


def test_langchain_tool(api_client, executor):
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    class StandIn(FakeMessagesListChatModel):
        """Calls the tool, then answers with what the last tool message said."""

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            from langchain_core.outputs import ChatGeneration, ChatResult
            if isinstance(messages[-1], ToolMessage):
                reply = AIMessage(content=f"The tool said: {messages[-1].content}")
            else:
                reply = AIMessage(content="", tool_calls=[{"name": tool.name, "args": {"code": CODE}, "id": "call_1"}])
            return ChatResult(generations=[ChatGeneration(message=reply)])

        def bind_tools(self, tools, **kwargs):
            return self

    tool = langchain_tool(executor)
    model = StandIn(responses=[]).bind_tools([tool])
    messages = [HumanMessage("Post in #general")]
    asked = model.invoke(messages)
    messages += [asked, *(tool.invoke(call) for call in asked.tool_calls)]
    assert isinstance(messages[-1], ToolMessage) and messages[-1].content == SAID
    assert model.invoke(messages).content == f"The tool said: {SAID}"
    assert tool.args == {"code": {"description": tool.args["code"]["description"], "title": "Code", "type": "string"}}
    assert posted(api_client, executor) == ["posted by a tool call"]


def test_smolagents_tool_in_a_tool_calling_agent(api_client, executor):
    from smolagents import ToolCallingAgent
    from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

    class StandIn(Model):
        """Calls the tool, then hands what it answered to final_answer."""

        def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
            observed = [m for m in messages if m.role == MessageRole.TOOL_RESPONSE]
            name, arguments = ("final_answer", {"answer": _text(observed[-1])}) if observed else (tool.name, {"code": CODE})
            return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[ChatMessageToolCall(
                id=f"call_{len(observed)}", type="function",
                function=ChatMessageToolCallFunction(name=name, arguments=arguments))])

    tool = smolagents_tool(executor)
    agent = ToolCallingAgent(tools=[tool], model=StandIn(), max_steps=3, verbosity_level=0)
    assert SAID.strip() in str(agent.run("Post in #general"))
    assert posted(api_client, executor) == ["posted by a tool call"]


def _text(message) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)


def test_a_failing_program_reaches_the_model_as_an_error(executor):
    tool = openai_tool(executor)
    said = tool.answer({"id": "c", "type": "function",
                        "function": {"name": tool.name, "arguments": json.dumps({"code": "raise SystemExit('no')"})}})
    assert said["tool_call_id"] == "c" and said["content"].startswith("The program failed (exit code 1)")
    assert "no" in said["content"]
    with pytest.raises(ValueError, match="not execute_bash"):
        tool.answer({"id": "c", "function": {"name": "execute_bash", "arguments": "{}"}})
