"""Slot save/restore of the warm-up prefix (core/slot_cache.py) against a scripted llama.cpp HTTP API."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from core.settings import LocalLLMSettings, Settings
from core.slot_cache import WARM_SLOT, prefill, slot_file_name

MESSAGES = [{"role": "system", "content": "Database schema ...rules"}, {"role": "user", "content": "Question: x"}]


class FakeLlamaServer:
    """The three endpoints the warm-up uses; a saved slot is a file holding the prompt it cached."""

    def __init__(self, folder: Path, *, slots: bool = True) -> None:
        self.folder, self.slots, self.cached = folder, slots, ""
        self.calls: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content or b"{}")
        path = request.url.path + (f"?{request.url.query.decode()}" if request.url.query else "")
        self.calls.append(path)
        if path == "/v1/chat/completions":
            assert body["id_slot"] == WARM_SLOT and body["max_tokens"] == 1
            prompt = json.dumps(body["messages"])
            processed = 1 if prompt == self.cached else len(prompt)
            self.cached = prompt
            return httpx.Response(200, json={"choices": [], "timings": {"prompt_n": processed}})
        if not self.slots:
            return httpx.Response(501, json={"error": "This server does not support slots action."})
        if path.endswith("action=save"):
            (self.folder / body["filename"]).write_text(self.cached)
            return httpx.Response(200, json={"n_saved": len(self.cached)})
        if path.endswith("action=restore"):
            if not (self.folder / body["filename"]).is_file():
                return httpx.Response(400, json={"error": "failed to open file"})
            self.cached = (self.folder / body["filename"]).read_text()
            return httpx.Response(200, json={"n_restored": len(self.cached)})
        return httpx.Response(404)


def local(tmp_path: Path) -> LocalLLMSettings:
    return LocalLLMSettings(model_path=tmp_path / "model.gguf", slot_save_path=tmp_path / "slots")


def test_first_prefill_is_computed_and_saved_then_a_new_server_restores_it(tmp_path: Path) -> None:
    cfg = local(tmp_path)
    (tmp_path / "slots").mkdir()
    first = FakeLlamaServer(tmp_path / "slots")
    done = prefill("http://llm", "m", MESSAGES, cfg, transport=httpx.MockTransport(first))
    assert done.source == "computed" and done.prompt_tokens > 1 and done.error is None
    assert (tmp_path / "slots" / slot_file_name(MESSAGES, cfg)).is_file()
    restarted = FakeLlamaServer(tmp_path / "slots")  # a new process: nothing cached in memory
    again = prefill("http://llm", "m", MESSAGES, cfg, transport=httpx.MockTransport(restarted))
    assert again.source == "restored" and again.prompt_tokens == 1
    assert restarted.calls[0] == f"/slots/{WARM_SLOT}?action=restore"


def test_another_prompt_or_model_gets_another_file(tmp_path: Path) -> None:
    cfg = local(tmp_path)
    other = [MESSAGES[0], {"role": "user", "content": "Question: y"}]
    assert slot_file_name(MESSAGES, cfg) != slot_file_name(other, cfg)
    moved = LocalLLMSettings(model_path=tmp_path / "other.gguf", slot_save_path=tmp_path / "slots")
    assert slot_file_name(MESSAGES, cfg) != slot_file_name(MESSAGES, moved)


def test_failures_are_values(tmp_path: Path) -> None:
    cfg = local(tmp_path)
    no_slots = prefill("http://llm", "m", MESSAGES, cfg,
                       transport=httpx.MockTransport(FakeLlamaServer(tmp_path, slots=False)))
    assert no_slots.source == "failed" and "501" in (no_slots.error or "")

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    gone = prefill("http://llm", "m", MESSAGES, cfg, transport=httpx.MockTransport(down))
    assert gone.source == "failed" and "ConnectError" in (gone.error or "")


def test_slot_save_path_follows_the_state_dir_and_round_trips(tmp_path: Path) -> None:
    assert Settings(state_dir=tmp_path).local_llm.slot_save_path == tmp_path / "slots"
    pinned = Settings(state_dir=tmp_path, local_llm={"slot_save_path": tmp_path / "kv"})
    assert pinned.local_llm.slot_save_path == tmp_path / "kv"
    assert Settings.model_validate(pinned.model_dump()).local_llm.slot_save_path == tmp_path / "kv"
    assert Settings(local_llm={"slot_save_path": None}).local_llm.slot_save_path is None
