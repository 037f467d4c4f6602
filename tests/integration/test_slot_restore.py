"""The warm-up prefix survives a slot being reused: saved once, restored from its file by the real llama.cpp."""

from __future__ import annotations

from agent.context import AgentDeps
from agent.warmup import warm_up
from core.local_server import server_root
from core.slot_cache import prefill, slot_file_name


def test_generator_prefix_is_saved_then_restored_instead_of_recomputed(demo_deps: AgentDeps) -> None:
    settings = demo_deps.settings
    first = warm_up(demo_deps)
    assert first.ok, first.errors
    assert first.sources["generator"] in ("computed", "restored")
    saved = list(settings.local_llm.slot_save_path.glob("prefix-*.bin"))  # type: ignore[union-attr]
    assert saved, "the warm-up saved no slot file"
    role = settings.llm("generator")
    other = [{"role": "system", "content": "You answer briefly."}, {"role": "user", "content": "Say hi."}]
    overwritten = prefill(server_root(role.base_url), role.model, other, settings.local_llm)  # slot 0 now differs
    assert overwritten.source in ("computed", "restored") and overwritten.error is None
    assert (settings.local_llm.slot_save_path / slot_file_name(other, settings.local_llm)).is_file()  # type: ignore[operator]
    again = warm_up(demo_deps)
    assert again.ok and again.sources["generator"] == "restored"
