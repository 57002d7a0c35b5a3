"""Amazon Bedrock (issue 23, acceptance 1): event-stream framing checked against botocore's own
parser, SigV4 signatures equal to botocore's (a published AWS test vector, and every signed request
the fake server receives re-verified with botocore), the AWS credential chain, the Converse body
(images, tool results, thinking), and the one line a user without botocore gets."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

import pytest

from pi_app.ai import testing as T
from pi_app.ai.api.bedrock_converse_stream import (
    INSTALL_HINT,
    base_url_for,
    bedrock_converse_stream_api,
    request_body,
    sign_request,
)
from pi_app.ai.http.eventstream import EventStreamDecoder, EventStreamError, encode_event, encode_exception
from pi_app.ai.types import (
    AssistantMessage,
    Context,
    ImageContent,
    Model,
    SimpleStreamOptions,
    StreamOptions,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.helpers import simple_context, wire_model
from tests.fakes.llm_server import FakeLLMServer, RecordedRequest

botocore_eventstream = pytest.importorskip("botocore.eventstream")
API = "bedrock-converse-stream"


def test_our_frames_parse_with_botocore_and_back() -> None:
    frames = encode_event("contentBlockDelta", b'{"delta":{"text":"h\xc3\xa9"}}') + encode_exception(
        "throttlingException", b'{"message":"slow down"}'
    )
    buffer = botocore_eventstream.EventStreamBuffer()
    buffer.add_data(frames)
    parsed = list(buffer)
    assert [m.headers[":message-type"] for m in parsed] == ["event", "exception"]
    assert parsed[0].headers[":event-type"] == "contentBlockDelta"
    assert parsed[0].payload == b'{"delta":{"text":"h\xc3\xa9"}}'
    assert parsed[1].headers[":exception-type"] == "throttlingException"
    decoder = EventStreamDecoder()
    events = [e for i in range(0, len(frames), 7) for e in decoder.feed(frames[i : i + 7])]  # odd chunks
    assert [(e.event, e.data) for e in events] == [
        ("contentBlockDelta", '{"delta":{"text":"hé"}}'),
        ("exception:throttlingException", '{"message":"slow down"}'),
    ]
    assert decoder.flush() == []


def test_a_corrupt_frame_is_an_error() -> None:
    frame = bytearray(encode_event("messageStop", b'{"stopReason":"end_turn"}'))
    frame[-6] ^= 0xFF
    with pytest.raises(EventStreamError, match="checksum"):
        EventStreamDecoder().feed(bytes(frame))


def test_sigv4_matches_the_published_aws_test_vector(monkeypatch: pytest.MonkeyPatch) -> None:
    """AWS's SigV4 test suite "get-vanilla" request, signed through our signing path."""
    import botocore.auth
    from botocore.credentials import Credentials

    fixed = datetime.datetime(2015, 8, 30, 12, 36, 0)
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: fixed)
    creds = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    # our signer signs for the "bedrock" service; the vector is for "service": same code path
    monkeypatch.setattr(botocore.auth.SigV4Auth, "__init__", _init_for("service"))
    headers = sign_request("GET", "https://example.amazonaws.com/", {}, b"", creds, "us-east-1")
    assert headers["X-Amz-Date"] == "20150830T123600Z"
    assert headers["Authorization"] == (
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
        "SignedHeaders=host;x-amz-date, "
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
    )


def _init_for(service: str):  # type: ignore[no-untyped-def]
    import botocore.auth

    original = botocore.auth.SigV4Auth.__init__

    def init(self, credentials, _service, region):  # type: ignore[no-untyped-def]
        original(self, credentials, service, region)

    return init


def botocore_signature(request: RecordedRequest, secret: str, key: str, region: str) -> str:
    """What botocore computes for the request as the server received it (AWS's check)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    signed = request.headers["authorization"]
    names = signed.split("SignedHeaders=", 1)[1].split(",", 1)[0].split(";")
    headers = {name: request.headers[name] for name in names}
    url = f"http://{request.headers['host']}{request.path}"
    aws = AWSRequest(method=request.method, url=url, data=request.raw_body, headers=headers)
    aws.context["timestamp"] = request.headers["x-amz-date"]
    auth = SigV4Auth(Credentials(key, secret), "bedrock", region)
    canonical = auth.canonical_request(aws)
    return auth.signature(auth.string_to_sign(aws, canonical), aws)


async def test_signed_request_verifies_with_botocore(
    llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.enqueue(T.text("Hello from Bedrock"), T.usage(input=10, output=3))
    env = {"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "s3cret", "AWS_REGION": "eu-west-3"}
    model = wire_model(API, llm_server.base_url)
    stream = bedrock_converse_stream_api().stream(
        model, simple_context(), StreamOptions(env=env, max_retries=0)
    )
    message = await stream.result()
    assert message.stop_reason == "stop", message.error_message
    assert message.content[0].text == "Hello from Bedrock" and message.usage.input == 10
    request = llm_server.requests[-1]
    assert request.path == "/model/anthropic.claude-test-v1%3A0/converse-stream"
    authorization = request.headers["authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
    assert "/eu-west-3/bedrock/aws4_request" in authorization
    signature = authorization.rsplit("Signature=", 1)[1]
    assert signature == botocore_signature(request, "s3cret", "AKIDTEST", "eu-west-3")
    # tampering with the body would not verify: the signature covers the bytes sent
    request.raw_body = request.raw_body.replace(b"hi", b"ho")
    assert signature != botocore_signature(request, "s3cret", "AKIDTEST", "eu-west-3")


async def test_profile_from_the_shared_credentials_file(
    llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "credentials").write_text(
        "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = w0rk\n"
    )
    (tmp_path / "config").write_text("[profile work]\nregion = ap-south-1\n")
    for var in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    llm_server.enqueue(T.text("ok"))
    model = wire_model(API, llm_server.base_url)
    options = StreamOptions(env={"AWS_PROFILE": "work"}, max_retries=0)
    message = await bedrock_converse_stream_api().stream(model, simple_context(), options).result()
    assert message.stop_reason == "stop", message.error_message
    request = llm_server.requests[-1]
    assert "Credential=AKIDWORK/" in request.headers["authorization"]
    assert "/ap-south-1/bedrock/" in request.headers["authorization"]
    signature = request.headers["authorization"].rsplit("Signature=", 1)[1]
    assert signature == botocore_signature(request, "w0rk", "AKIDWORK", "ap-south-1")


async def test_bearer_key_and_missing_botocore(
    llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.enqueue(T.text("ok"))
    model = wire_model(API, llm_server.base_url)
    message = (
        await bedrock_converse_stream_api()
        .stream(model, simple_context(), StreamOptions(api_key="bedrock-key"))
        .result()
    )
    assert message.stop_reason == "stop"
    assert llm_server.requests[-1].headers["authorization"] == "Bearer bedrock-key"
    monkeypatch.setitem(sys.modules, "botocore", None)
    monkeypatch.setitem(sys.modules, "botocore.session", None)
    env = {"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "s3cret"}
    failed = (
        await bedrock_converse_stream_api().stream(model, simple_context(), StreamOptions(env=env)).result()
    )
    assert (failed.stop_reason, failed.error_message) == ("error", INSTALL_HINT)
    assert INSTALL_HINT == "Amazon Bedrock needs botocore: pip install 'pi-app[bedrock]'"


def test_region_picks_the_standard_endpoint() -> None:
    model = Model(id="m", api=API, base_url="https://bedrock-runtime.us-east-1.amazonaws.com")
    assert base_url_for(model, "eu-central-1") == "https://bedrock-runtime.eu-central-1.amazonaws.com"
    custom = Model(id="m", api=API, base_url="https://vpce-1.bedrock-runtime.example/")
    assert base_url_for(custom, "eu-central-1") == "https://vpce-1.bedrock-runtime.example"


def test_converse_body_images_tools_and_thinking() -> None:
    model = Model(
        id="anthropic.claude-x", api=API, provider="amazon-bedrock", reasoning=True, input=["text", "image"]
    )
    image = ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    history = [
        UserMessage(content=[TextContent(text="look"), image], timestamp=1),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="hmm", thinking_signature="sig"),
                ToolCall(id="t1", name="read", arguments={"path": "a"}),
                ToolCall(id="t2", name="read", arguments={"path": "b"}),
            ],
            api=API,
            provider="amazon-bedrock",
            model="anthropic.claude-x",
            stop_reason="toolUse",
            timestamp=2,
        ),
        ToolResultMessage(tool_call_id="t1", tool_name="read", content=[TextContent(text="A")], timestamp=3),
        ToolResultMessage(
            tool_call_id="t2", tool_name="read", content=[TextContent(text="B")], is_error=True, timestamp=4
        ),
    ]
    options = bedrock_converse_stream_api().simple_options(model, SimpleStreamOptions(reasoning="medium"))
    body = request_body(
        model, Context(system_prompt="sys", messages=history, tools=simple_context().tools), options
    )
    assert body["system"] == [{"text": "sys"}]
    user, assistant, results = body["messages"]
    assert user["content"][1] == {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}
    assert assistant["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "hmm", "signature": "sig"}}
    }
    assert assistant["content"][1] == {"toolUse": {"toolUseId": "t1", "name": "read", "input": {"path": "a"}}}
    assert [r["toolResult"]["status"] for r in results["content"]] == ["success", "error"]  # one user turn
    assert body["toolConfig"]["tools"][0]["toolSpec"]["name"] == "read"
    assert body["additionalModelRequestFields"]["thinking"]["type"] == "enabled"
    assert body["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 8192
    json.dumps(body)  # plain JSON
