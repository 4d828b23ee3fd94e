"""Tool calls written as text in `message.content` (planner/model/textcalls/).

One test per format found in the servers' own parsers and in reports of models printing
their calls; each cites where the shape comes from. The strings are what those models
print, with our tool names (sometimes in their wire form) in place of the originals.
"""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from planner.model.textcalls import MAX_CALLS, MAX_CONTENT, Recovered, normalise_name, recover_calls

KNOWN = [
    "k8s.events",
    "k8s.pod_logs",
    "k8s.workload_status",
    "logs.search",
    "metrics.restarts",
    "net.tcp_check",
]

# the same tiers as tests/property/conftest.py (`ci` by default, `slow` on request); they
# are spelled out here because that folder's conftest is not loaded for tests/unit
_SLOW = (os.environ.get("HYPOTHESIS_PROFILE") or "ci") == "slow"
TIER = settings(
    max_examples=10_000 if _SLOW else 1_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)


def one(content: str) -> tuple[str, dict[str, object] | None, Recovered]:
    got = recover_calls(content, KNOWN)
    assert len(got.calls) == 1, got
    assert got.format_errors == 1
    assert got.unknown == []
    assert got.calls[0].id == "text-1"
    return got.calls[0].name, got.calls[0].arguments, got


def names_and_args(got: Recovered) -> list[tuple[str, dict[str, object] | None]]:
    return [(c.name, c.arguments) for c in got.calls]


# --- formats ---------------------------------------------------------------------------


def test_hermes_qwen_tool_call_tag() -> None:
    # Qwen2.5 chat template (as Ollama ships it): "For each function call, return a json
    # object with function name and arguments within <tool_call></tool_call> XML tags"
    content = (
        "I'll check recent events first.\n"
        "<tool_call>\n"
        '{"name": "k8s__events", "arguments": {"namespace": "kube-system", "limit": 20}}\n'
        "</tool_call>"
    )
    name, args, got = one(content)
    assert name == "k8s.events"
    assert args == {"namespace": "kube-system", "limit": 20}
    assert got.calls[0].raw_arguments == '{"namespace": "kube-system", "limit": 20}'
    assert got.prose == "I'll check recent events first."


def test_bare_json_object_is_the_whole_content() -> None:
    # ollama/ollama#11185: qwen3 "REPLY tool calls in the content of the message":
    # "content": "{\"name\": \"LLM_Tool_RAG\", \"arguments\": {...}}"
    name, args, got = one('{"name": "logs.search", "arguments": {"query": "connection reset"}}')
    assert (name, args) == ("logs.search", {"query": "connection reset"})
    assert got.prose == ""


def test_two_bare_objects_separated_by_a_space() -> None:
    # sgomez/ollama-ai-provider#11: "{\n  \"name\": \"weather\", ...\n} {\n  \"name\": ...}"
    content = (
        '{\n  "name": "k8s_events",\n  "arguments": {\n    "namespace": "default"\n  }\n} '
        '{\n  "name": "k8s_pod_logs",\n  "arguments": {\n    "namespace": "default"\n  }\n}'
    )
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [
        ("k8s.events", {"namespace": "default"}),
        ("k8s.pod_logs", {"namespace": "default"}),
    ]
    assert [c.id for c in got.calls] == ["text-1", "text-2"]
    assert got.format_errors == 2
    assert got.prose == ""


def test_json_in_a_markdown_fence() -> None:
    # llama.cpp common/chat.cpp, Hermes 2 Pro parser: block_start "```(?:xml|json)?\n"
    content = (
        "Here is the call:\n"
        "```json\n"
        '{"name": "k8s.workload_status", "arguments": {"namespace": "default"}}\n'
        "```\n"
        "I will report back."
    )
    name, args, got = one(content)
    assert (name, args) == ("k8s.workload_status", {"namespace": "default"})
    assert got.prose == "Here is the call:\n\nI will report back."


def test_xml_fence_around_a_tool_call_tag() -> None:
    # llama.cpp Hermes 2 Pro grammar trigger "```xml\n<response>\n    {\"name\":" and the
    # open tags it accepts inside a fence
    content = '```xml\n<tool_call>\n{"name": "k8s.events", "arguments": {}}\n</tool_call>\n```'
    name, args, got = one(content)
    assert (name, args) == ("k8s.events", {})
    assert got.prose == ""


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        ("<function_call>", "</function_call>"),
        ("<tool>", "</tool>"),
        ("<tools>", "</tools>"),
        ("<response>", "</response>"),
        ("<json>", "</json>"),
        ("<JSON>", "</JSON>"),
        ("<xml>", "</xml>"),
    ],
)
def test_other_hermes_tags(opening: str, closing: str) -> None:
    # llama.cpp common/chat.cpp, Hermes 2 Pro open_regex: "<tool_call>|<function_call>|
    # <tool>|<tools>|<response>|<json>|<xml>|<JSON>" before `{"name"`
    content = f'Checking.\n{opening}\n{{"name": "metrics.restarts", "arguments": {{}}}}\n{closing}'
    name, args, got = one(content)
    assert (name, args) == ("metrics.restarts", {})
    assert got.prose == "Checking."


def test_several_calls_in_one_tool_call_tag() -> None:
    # Ollama's qwen2.5 template renders parallel calls as one <tool_call> with one JSON
    # object a line: "<tool_call>\n{{ range .ToolCalls }}{...}\n{{ end }}</tool_call>"
    content = (
        "<tool_call>\n"
        '{"name": "k8s.events", "arguments": {"namespace": "default"}}\n'
        '{"name": "logs.search", "arguments": {"query": "OOMKilled"}}\n'
        "</tool_call>"
    )
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [
        ("k8s.events", {"namespace": "default"}),
        ("logs.search", {"query": "OOMKilled"}),
    ]
    assert got.prose == ""


def test_mistral_tool_calls_array() -> None:
    # vLLM mistral_tool_parser (< v11): "content[BOT] [{tool_call1},{tool_call2}]"; llama.cpp
    # parse_prefixed_json_tool_call_array(input, "[TOOL_CALLS]") with name, arguments, id
    content = (
        '[TOOL_CALLS] [{"name": "k8s__events", "arguments": {"namespace": "default"}, '
        '"id": "a1B2c3D4e"}, {"name": "net__tcp_check", "arguments": {"host": "10.0.0.7", '
        '"port": 5432}, "id": "f5G6h7I8j"}]'
    )
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [
        ("k8s.events", {"namespace": "default"}),
        ("net.tcp_check", {"host": "10.0.0.7", "port": 5432}),
    ]
    assert got.format_errors == 2
    assert got.prose == ""


def test_mistral_v11_name_before_arguments() -> None:
    # vLLM mistral_tool_parser (>= v11): "content[BOT]tool_name1{args_call1}[BOT]tool_name2
    # {args_call2}", and HF tokenizers "may include [ARGS] in the text"
    content = (
        'Let me look.[TOOL_CALLS]k8s__events[ARGS]{"namespace": "default"}'
        '[TOOL_CALLS]logs__search{"query": "timeout"}'
    )
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [
        ("k8s.events", {"namespace": "default"}),
        ("logs.search", {"query": "timeout"}),
    ]
    assert got.prose == "Let me look."


def test_llama3_json_with_parameters_and_python_tag() -> None:
    # vLLM llama_tool_parser (llama3_json): optional "<|python_tag|>", `parameters` or
    # `arguments`, several JSONs "separated by semicolons"; llama.cpp's Llama 3.1 regex
    # allows "type": "function" before "name"
    content = (
        '<|python_tag|>{"type": "function", "name": "k8s__events", "parameters": '
        '{"namespace": "default"}}; {"name": "metrics__restarts", "parameters": {}}<|eom_id|>'
    )
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [
        ("k8s.events", {"namespace": "default"}),
        ("metrics.restarts", {}),
    ]
    assert got.prose == ""


def test_gemma_json_prompt_format() -> None:
    # Gemma 3 function-calling docs (quoted by simonwillison.net, 2025-03-26): "{"name":
    # function name, "parameters": dictionary of argument name and its value}"
    name, args, got = one('{"name": "k8s_pod_logs", "parameters": {"pod": "web-0", "tail": 100}}')
    assert (name, args) == ("k8s.pod_logs", {"pod": "web-0", "tail": 100})
    assert got.prose == ""


def test_openai_shape_with_arguments_as_a_json_string() -> None:
    # the OpenAI wire object itself printed as text: function.arguments is a JSON string
    content = (
        '{"id": "call_hk81qg8b", "type": "function", "function": {"name": "k8s__workload_status",'
        ' "arguments": "{\\"namespace\\":\\"default\\"}"}}'
    )
    name, args, got = one(content)
    assert (name, args) == ("k8s.workload_status", {"namespace": "default"})
    assert got.calls[0].raw_arguments == '{"namespace":"default"}'


def test_llamacpp_generic_tool_call_and_tool_calls() -> None:
    # llama.cpp common_chat_parse_generic: a JSON with "tool_call" or "tool_calls"
    single = '{"tool_call": {"name": "logs.search", "arguments": {"query": "503"}}}'
    assert names_and_args(recover_calls(single, KNOWN)) == [("logs.search", {"query": "503"})]
    several = (
        '{"tool_calls": [{"name": "k8s.events", "arguments": {}, "id": "0"}, '
        '{"name": "metrics.restarts", "arguments": {}, "id": "1"}]}'
    )
    got = recover_calls(several, KNOWN)
    assert names_and_args(got) == [("k8s.events", {}), ("metrics.restarts", {})]
    assert got.prose == ""


def test_tool_and_args_keys() -> None:
    # `{"tool": ..., "args": ...}`, and `{"name": ..., "args": ...}` as in the Qwen-style
    # format taught to Gemma 3 270M (BruinAI/cactus gemma_tool_use/PLAN.md)
    name, args, _ = one('{"tool": "k8s.events", "args": {"namespace": "default"}}')
    assert (name, args) == ("k8s.events", {"namespace": "default"})
    name, args, _ = one('<tool_call>{"name": "logs.search", "args": {"query": "x"}}</tool_call>')
    assert (name, args) == ("logs.search", {"query": "x"})


def test_command_r7b_action_block() -> None:
    # llama.cpp common_chat_parse_command_r7b: "<|START_ACTION|>" then a JSON array of
    # {"tool_call_id", "tool_name", "parameters"} then "<|END_ACTION|>"
    content = (
        "<|START_ACTION|>[\n"
        '    {"tool_call_id": "0", "tool_name": "k8s_events", "parameters": {"namespace": '
        '"default"}}\n'
        "]<|END_ACTION|>"
    )
    name, args, got = one(content)
    assert (name, args) == ("k8s.events", {"namespace": "default"})
    assert got.prose == ""


def test_functools_array() -> None:
    # llama.cpp Firefunction v2 "functools[{"name":"func","arguments":{}}]" (preserved token
    # " functools["); vLLM phi4mini_tool_parser: r"functools\[(.*?)\]"
    content = ' functools[{"name": "net.tcp_check", "arguments": {"host": "db", "port": 5432}}]'
    name, args, got = one(content)
    assert (name, args) == ("net.tcp_check", {"host": "db", "port": 5432})
    assert got.prose == ""


def test_granite_nemotron_lfm2_markers() -> None:
    # llama.cpp common_chat_parse_granite "<|tool_call|>" + array; _nemotron_v2
    # "<TOOLCALL>[...]</TOOLCALL>"; _lfm2 "<|tool_call_start|>[...]<|tool_call_end|>"
    call = '[{"name": "k8s.events", "arguments": {"namespace": "default"}}]'
    for content in (
        f"<|tool_call|>{call}",
        f"<TOOLCALL>{call}</TOOLCALL>",
        f"<|tool_call_start|>{call}<|tool_call_end|>",
    ):
        name, args, got = one(content)
        assert (name, args) == ("k8s.events", {"namespace": "default"}), content
        assert got.prose == "", content


def test_function_equals_tag() -> None:
    # llama.cpp Hermes 2 Pro / Functionary v3.1 "<function=(\w+)>" + JSON + "</function>",
    # and "<function name=\"...\">"
    name, args, got = one('<function=k8s__events>{"namespace": "default"}</function>')
    assert (name, args) == ("k8s.events", {"namespace": "default"})
    assert got.prose == ""
    name, args, _ = one('<function name="logs__search">{"query": "x"}</function>')
    assert (name, args) == ("logs.search", {"query": "x"})


def test_qwen3_coder_xml_parameters() -> None:
    # vllm-project/vllm#21571: a Qwen coder model's content was
    # '<tool_call>\n<function=square_the_number>\n<parameter=input_num>\n1024\n\n\n</tool_call>'
    # (no </parameter>, no </function>); the full form closes both (vLLM qwen3coder parser)
    broken = "<tool_call>\n<function=k8s__pod_logs>\n<parameter=tail>\n200\n\n\n</tool_call>"
    name, args, got = one(broken)
    assert (name, args) == ("k8s.pod_logs", {"tail": 200})
    assert got.prose == ""
    full = (
        "Reading logs.\n<tool_call>\n<function=k8s.pod_logs>\n<parameter=pod>\nweb-0\n"
        "</parameter>\n<parameter=previous>\ntrue\n</parameter>\n</function>\n</tool_call>"
    )
    name, args, got = one(full)
    assert (name, args) == ("k8s.pod_logs", {"pod": "web-0", "previous": True})
    assert got.prose == "Reading logs."


def test_deepseek_r1_and_v31() -> None:
    # llama.cpp common_chat_parse_deepseek_r1: "(?:<｜tool▁call▁begin｜>)?function<｜tool▁sep｜>
    # ([^\n]+)\n```json\n" ... "```<｜tool▁call▁end｜>"; _v3_1: "NAME<｜tool▁sep｜>JSON"
    r1 = (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>k8s__events\n"
        '```json\n{"namespace": "default"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    name, args, got = one(r1)
    assert (name, args) == ("k8s.events", {"namespace": "default"})
    assert got.prose == ""
    v31 = (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>logs__search<｜tool▁sep｜>"
        '{"query": "x"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    name, args, got = one(v31)
    assert (name, args) == ("logs.search", {"query": "x"})
    assert got.prose == ""


def test_gpt_oss_harmony() -> None:
    # llama.cpp common_chat_parse_gpt_oss: recipient "(?: to=functions\.([^<\s]+))" and the
    # arguments after "<|message|>", ended by "<|call|>"
    content = (
        "<|channel|>commentary to=functions.k8s__events <|constrain|>json"
        '<|message|>{"namespace":"default"}<|call|>'
    )
    name, args, got = one(content)
    assert (name, args) == ("k8s.events", {"namespace": "default"})
    assert got.unknown == []
    assert got.prose == ""


def test_pythonic_list() -> None:
    # vLLM pythonic_tool_parser (Llama 3.2 / 4): the output is "a list of function calls";
    # Gemma 3 docs: "[func_name1(params_name1=params_value1, ...), func_name2(params)]"
    content = '[k8s.events(namespace="default", limit=20), logs_search(query="timeout")]'
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [
        ("k8s.events", {"namespace": "default", "limit": 20}),
        ("logs.search", {"query": "timeout"}),
    ]
    assert got.prose == ""


def test_pythonic_positional_or_non_literal_arguments_are_kept_raw() -> None:
    name, args, got = one('[k8s.events("default")]')
    assert (name, args) == ("k8s.events", None)
    assert got.calls[0].raw_arguments == '"default"'
    name, args, got = one("[logs.search(query=os.environ)]")  # read, never evaluated
    assert (name, args) == ("logs.search", None)
    assert got.calls[0].raw_arguments == "query=os.environ"
    assert recover_calls('[see("this")]', KNOWN).format_errors == 0  # unknown + positional


def test_pythonic_inside_lfm2_markers() -> None:
    # LFM2 tool spec (gpubuilders/OmniModel): '<|tool_call_start|>[get_weather(city="Paris")]
    # <|tool_call_end|>'
    content = 'Sure.<|tool_call_start|>[k8s__workload_status(namespace="default")]<|tool_call_end|>'
    name, args, got = one(content)
    assert (name, args) == ("k8s.workload_status", {"namespace": "default"})
    assert got.prose == "Sure."


def test_gemma_tool_code_fence() -> None:
    # Gemma docs (function calling, meme-generator guide): "Gemma will generate a code
    # wrapped with ```tool_code```"
    content = 'I need the restart count.\n```tool_code\nprint(metrics__restarts(window="1h"))\n```'
    name, args, got = one(content)
    assert (name, args) == ("metrics.restarts", {"window": "1h"})
    assert got.prose == "I need the restart count."


# --- names -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("k8s.events", "k8s.events"),
        ("k8s__events", "k8s.events"),  # our wire name
        ("functions.k8s.events", "k8s.events"),
        ("functions.k8s__events", "k8s.events"),
        ("function.logs.search", "logs.search"),
        ("k8s_events", "k8s.events"),  # single underscore where we have a dot
        ("k8s_pod_logs", "k8s.pod_logs"),
        ("K8S-Pod-Logs", "k8s.pod_logs"),  # case and dashes
        ("functions_k8s_events", "k8s.events"),
        ("  logs.search  ", "logs.search"),
        ("kubectl_exec", None),
        ("k8s", None),
        ("", None),
        ("k8s events", None),
    ],
)
def test_normalise_name(written: str, expected: str | None) -> None:
    assert normalise_name(written, KNOWN) == expected


def test_ambiguous_names_are_refused() -> None:
    known = ["k8s.pod_logs", "k8s.pod.logs"]
    assert normalise_name("k8s-pod-logs", known) is None
    assert normalise_name("K8S_POD_LOGS", known) is None
    assert normalise_name("k8s.pod_logs", known) == "k8s.pod_logs"  # exact still wins
    assert normalise_name("k8s__pod__logs", known) == "k8s.pod.logs"
    got = recover_calls('{"name": "k8s_pod_logs", "arguments": {}}', known)
    assert got.calls == []
    assert got.unknown == ["k8s_pod_logs"]
    assert got.format_errors == 1


def test_normalise_name_survives_odd_known_collections() -> None:
    assert normalise_name("k8s.events", []) is None
    assert normalise_name("k8s.events", {"k8s.events": 1}) == "k8s.events"  # any Collection
    assert normalise_name(None, KNOWN) is None  # type: ignore[arg-type]
    assert normalise_name("k8s.events", [None, 3, "k8s.events"]) == "k8s.events"  # type: ignore[list-item]


# --- unknown, invalid, several, prose --------------------------------------------------


def test_unknown_names_are_listed_and_stay_in_prose() -> None:
    content = 'Running it now: {"name": "kubectl_exec", "arguments": {"command": "rm -rf /"}}'
    got = recover_calls(content, KNOWN)
    assert got.calls == []
    assert got.unknown == ["kubectl_exec"]
    assert got.format_errors == 1
    assert got.prose == content


def test_array_with_known_and_unknown_names() -> None:
    content = (
        '[TOOL_CALLS] [{"name": "k8s.events", "arguments": {}}, '
        '{"name": "shell.run", "arguments": {"cmd": "id"}}]'
    )
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [("k8s.events", {})]
    assert got.unknown == ["shell.run"]
    assert got.format_errors == 2
    assert got.prose == ""  # the block goes as a whole


def test_arguments_string_that_is_not_json_is_kept_raw() -> None:
    content = '{"name": "logs.search", "arguments": "{query: timeout, since: 1h"}'
    name, args, got = one(content)
    assert name == "logs.search"
    assert args is None
    assert got.calls[0].raw_arguments == "{query: timeout, since: 1h"


def test_arguments_that_are_not_an_object_are_kept_raw() -> None:
    name, args, got = one('{"name": "logs.search", "arguments": ["timeout", "1h"]}')
    assert (name, args) == ("logs.search", None)
    assert got.calls[0].raw_arguments == '["timeout", "1h"]'


def test_broken_json_in_a_tool_call_tag_is_a_call_with_raw_arguments() -> None:
    # the model dropped the closing brace of the outer object
    content = (
        "Checking.\n<tool_call>\n"
        '{"name": "k8s.events", "arguments": {"namespace": "default", "limit": 5}\n'
        "</tool_call>"
    )
    name, args, got = one(content)
    assert name == "k8s.events"
    assert args is None
    assert got.calls[0].raw_arguments == '{"namespace": "default", "limit": 5}'
    assert got.prose == "Checking."


def test_broken_json_after_a_name_marker_is_kept_raw() -> None:
    name, args, got = one('<function=k8s.events>{"namespace": "default"</function>')
    assert (name, args) == ("k8s.events", None)
    assert got.calls[0].raw_arguments == '{"namespace": "default"'
    name, args, got = one("[TOOL_CALLS]logs__search{'query': 'x'}")
    assert (name, args) == ("logs.search", None)
    assert got.calls[0].raw_arguments == "{'query': 'x'}"


def test_empty_or_null_arguments_are_an_empty_object() -> None:
    for content in (
        '{"name": "metrics.restarts", "arguments": null}',
        '{"name": "metrics.restarts", "arguments": ""}',
        '{"name": "metrics.restarts", "arguments": {}}',
        "<function=metrics.restarts></function>",
    ):
        name, args, _ = one(content)
        assert (name, args) == ("metrics.restarts", {}), content


def test_name_of_a_known_tool_without_arguments_key() -> None:
    # "or a name key matching a known tool": the other keys are the arguments
    name, args, _ = one('{"name": "k8s.events", "namespace": "default", "type": "function"}')
    assert (name, args) == ("k8s.events", {"namespace": "default"})


def test_several_formats_and_prose_in_one_content() -> None:
    content = (
        "First the events, then the logs.\n"
        '<tool_call>\n{"name": "k8s.events", "arguments": {"namespace": "default"}}\n</tool_call>\n'
        "And the restarts:\n"
        '```json\n{"name": "metrics.restarts", "parameters": {"window": "1h"}}\n```\n'
        '[TOOL_CALLS]logs__search{"query": "panic"}'
    )
    got = recover_calls(content, KNOWN)
    assert names_and_args(got) == [
        ("k8s.events", {"namespace": "default"}),
        ("metrics.restarts", {"window": "1h"}),
        ("logs.search", {"query": "panic"}),
    ]
    assert [c.id for c in got.calls] == ["text-1", "text-2", "text-3"]
    assert got.format_errors == 3
    assert got.prose == "First the events, then the logs.\n\nAnd the restarts:"


# --- not calls -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        # a fenced JSON answer with no name
        'The summary:\n```json\n{"status": "degraded", "ready": 2, "desired": 3}\n```',
        # a name that is not a tool and no arguments key
        'Pods: [{"name": "coredns-5d78c9869d-abcde", "ready": true, "restarts": 0}]',
        # an echoed tool definition, not a call
        '{"name": "k8s__events", "description": "Recent events", "parameters": '
        '{"type": "object", "properties": {"namespace": {"type": "string"}}}}',
        # a JSON list of values, a Markdown link, braces in prose, an empty tool_call tag
        "[1, 2, 3]",
        "See [the runbook](https://example.org/runbook) for {details}.",
        "Use `{}` or `[]` when nothing was found.",
        "<tool_call></tool_call>",
        # a call only mentioned in the model's reasoning, also when the server opened the
        # reasoning in the prompt (llama.cpp "thinking_forced_open": no <think> in content)
        '<think>maybe {"name": "k8s.events", "arguments": {}}</think>All pods are ready.',
        'maybe {"name": "k8s.events", "arguments": {}}\n</think>\n\nAll pods are ready.',
        # pythonic-looking prose
        "[citation needed] and print(value) are not calls.",
    ],
)
def test_non_call_text_is_left_alone(content: str) -> None:
    got = recover_calls(content, KNOWN)
    assert got.calls == []
    assert got.unknown == []
    assert got.format_errors == 0
    assert got.prose == content.strip()


def test_call_after_reasoning_is_recovered() -> None:
    # Qwen3 / DeepSeek R1: reasoning first, then the call (llama.cpp try_parse_reasoning
    # before the tool-call parser)
    content = (
        "<think>\nThe user wants events; I could call k8s.events.\n</think>\n\n"
        '<tool_call>\n{"name": "k8s.events", "arguments": {"namespace": "default"}}\n</tool_call>'
    )
    name, args, got = one(content)
    assert (name, args) == ("k8s.events", {"namespace": "default"})
    assert got.prose == "<think>\nThe user wants events; I could call k8s.events.\n</think>"


def test_json_answer_is_not_searched_inside() -> None:
    # a JSON answer quoting a call-like object is an answer, not a call
    content = '{"answer": "ok", "example": {"name": "k8s.events", "arguments": {}}}'
    got = recover_calls(content, KNOWN)
    assert (got.calls, got.format_errors, got.prose) == ([], 0, content)


def test_empty_and_none() -> None:
    for content in (None, "", "   \n"):
        got = recover_calls(content, KNOWN)
        assert (got.calls, got.format_errors, got.unknown) == ([], 0, [])
        assert got.prose == ""


def test_content_past_the_cap_is_not_read() -> None:
    call = '{"name": "k8s.events", "arguments": {}}'
    got = recover_calls("x" * MAX_CONTENT + call, KNOWN)
    assert got.calls == []
    assert len(got.prose) == MAX_CONTENT
    got = recover_calls(call + " " + "x" * (2 * MAX_CONTENT), KNOWN)
    assert names_and_args(got) == [("k8s.events", {})]


def test_number_of_calls_is_capped() -> None:
    content = " ".join('{"name": "k8s.events", "arguments": {}}' for _ in range(3 * MAX_CALLS))
    got = recover_calls(content, KNOWN)
    assert len(got.calls) == MAX_CALLS
    assert got.format_errors == MAX_CALLS


# --- totality and bounded work ---------------------------------------------------------
# Time is CPU time of this process (not wall time), so a loaded test machine does not make
# these flaky; the worst inputs found take tens of milliseconds, the bound is 1 s.

N = MAX_CONTENT
ADVERSARIAL = {
    "open braces": "{" * N,
    "open brackets": "[" * N,
    "nested objects": '{"a":' * (N // 5),
    "nested arrays of objects": '[{"a":' * (N // 6),
    "deep but closed": "[" * 5000 + "]" * 5000,
    "quotes": '"' * N,
    "backslashes in a string": '{"a": "' + "\\" * N,
    "tool_call tags": "<tool_call>{" * (N // 12),
    "function tags": "<function=a>" * (N // 12),
    "parameters": "<function=k8s.events>" + "<parameter=a>" * (N // 13),
    "mistral markers": "[TOOL_CALLS]a{" * (N // 14),
    "deepseek markers": "<｜tool▁call▁begin｜>" * (N // 18),
    "harmony markers": "to=functions.a<|message|>{" * (N // 26),
    "think tags": "<think>" * (N // 7),
    "fences": "```json\n" * (N // 8),
    "pythonic list": "[" + "a(b=1)," * (N // 8) + "]",
    "pythonic nesting": "[a(b=" + "(" * N + ")]",
    "tool_code": "```tool_code\n" + "a(" * N,
    "many calls": '{"name": "k8s.events", "arguments": {}} ' * (N // 40),
    "many unknown calls": '{"name": "x", "arguments": {}} ' * (N // 32),
    "deep JSON string argument": '{"name": "k8s.events", "arguments": "' + "[" * N + '"}',
    "unterminated name": '<tool_call>{"name": "' + "a" * N,
    "huge": "x" * (10 * N),
}


def check(got: Recovered, known: list[str]) -> None:
    assert isinstance(got, Recovered)
    assert got.format_errors == len(got.calls) + len(got.unknown)
    assert got.format_errors <= MAX_CALLS
    assert [c.id for c in got.calls] == [f"text-{i}" for i in range(1, len(got.calls) + 1)]
    assert all(c.name in known for c in got.calls)
    assert all(c.arguments is None or isinstance(c.arguments, dict) for c in got.calls)
    assert len(got.prose) <= MAX_CONTENT
    assert got.prose == got.prose.strip()


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_input_is_fast(name: str) -> None:
    started = time.process_time()
    got = recover_calls(ADVERSARIAL[name], KNOWN)
    elapsed = time.process_time() - started
    check(got, KNOWN)
    assert elapsed < 1.0, f"{name}: {elapsed:.2f}s"


_PIECES = [
    "{",
    "}",
    "[",
    "]",
    '"',
    "\\",
    ":",
    ",",
    ";",
    "\n",
    " ",
    "(",
    ")",
    "=",
    '"name"',
    '"arguments"',
    '"parameters"',
    '"k8s.events"',
    '"k8s__events"',
    "k8s_events",
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "</function>",
    "<parameter=",
    "</parameter>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "functools",
    "<|python_tag|>",
    "```json\n",
    "```tool_code\n",
    "```",
    "<think>",
    "</think>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "to=functions.",
    "<|message|>",
    "<|tool_call_start|>",
    "<|tool_call_end|>",
    '{"name": "k8s.events", "arguments": {}}',
    '{"name": "logs.search", "arguments": "{"}',
]
_CONTENT = st.one_of(
    st.text(max_size=2000),
    st.lists(st.sampled_from(_PIECES) | st.text(max_size=8), max_size=200).map("".join),
)


@TIER
@given(_CONTENT)
@example('<tool_call>{"name": "k8s.events", "arguments": {"a": 1}</tool_call>')
@example('[TOOL_CALLS] [{"name": "k8s.events", "arguments": {}}]')
@example("<function=k8s.events><parameter=a>")
@example("```tool_code\nprint(k8s.events(a=b))\n```")
def test_recover_calls_never_raises(content: str) -> None:
    started = time.process_time()
    got = recover_calls(content, KNOWN)
    elapsed = time.process_time() - started
    check(got, KNOWN)
    assert elapsed < 1.0
    # what is recovered is removed: running again on the prose finds no known call
    assert recover_calls(got.prose, KNOWN).calls == [] or got.calls == []


@settings(max_examples=50 if not _SLOW else 500, deadline=None, print_blob=True)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8), st.integers(1, 4000))
def test_repeated_pieces_up_to_the_cap_are_fast(pieces: list[str], times: int) -> None:
    content = ("".join(pieces) * times)[: 2 * MAX_CONTENT]
    started = time.process_time()
    got = recover_calls(content, KNOWN)
    elapsed = time.process_time() - started
    check(got, KNOWN)
    assert elapsed < 1.0
