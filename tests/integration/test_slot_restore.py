"""The warm-up prefix survives a slot being reused: saved once, restored from its file by the real llama.cpp."""

from __future__ import annotations

from agent.context import AgentDeps
from agent.warmup import warm_up
from core.local_server import server_root
from core.slot_cache import prefill


def test_generator_prefix_is_saved_then_restored_instead_of_recomputed(demo_deps: AgentDeps) -> None:
    settings = demo_deps.settings
    first = warm_up(demo_deps)
    assert first.ok, first.errors
    assert first.sources["generator"] in ("computed", "restored")
    role = settings.llm("generator")
    other = [{"role": "system", "content": "You answer briefly."}, {"role": "user", "content": "Say hi."}]
    overwritten = prefill(server_root(role.base_url), role.model, other, settings.local_llm)  # slot 0 now differs
    assert overwritten.source in ("computed", "restored") and overwritten.error is None
    again = warm_up(demo_deps)
    assert again.ok and again.sources["generator"] == "restored"
