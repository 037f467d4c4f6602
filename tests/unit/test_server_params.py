"""Server parameters (core.server_params): settings reach xllamacpp's CommonParams (no model is loaded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.server_params import build_params
from core.settings import LOCAL_MODEL_NAME, LocalLLMSettings, Settings


def test_build_params_maps_settings(tmp_path: Path) -> None:
    pytest.importorskip("xllamacpp")
    local = LocalLLMSettings(port=9999, n_parallel=3, ctx_size=4096, n_threads=1, model_path=tmp_path / "m")
    params = build_params(local)
    assert (params.port, params.hostnames, params.n_parallel, params.n_ctx) == (9999, ["127.0.0.1"], 3, 4096)
    assert params.model_alias == {LOCAL_MODEL_NAME} and params.cache_prompt and params.offline
    assert params.cpuparams.n_threads == params.cpuparams_batch.n_threads == 1


# --- speculative decoding ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "kind"),
    [
        ({}, "COMMON_SPECULATIVE_TYPE_NONE"),
        ({"NL2SQL_LOCAL_LLM__SPECULATIVE": "off"}, "COMMON_SPECULATIVE_TYPE_NONE"),
        ({"NL2SQL_LOCAL_LLM__SPECULATIVE": "ngram"}, "COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE"),
        ({"NL2SQL_LOCAL_LLM__SPECULATIVE": "draft"}, "COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE"),
    ],
)
def test_speculative_env_to_params(
    env: dict[str, str], kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xllamacpp = pytest.importorskip("xllamacpp")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__DRAFT_MODEL_PATH", str(tmp_path / "draft.gguf"))
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__DRAFT_MAX", "6")
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__DRAFT_P_MIN", "0.5")
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__NGRAM_SIZE", "3")
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__NGRAM_MAX", "10")
    local = Settings(state_dir=tmp_path).local_llm  # type: ignore[call-arg]
    assert local.speculative == env.get("NL2SQL_LOCAL_LLM__SPECULATIVE", "off")
    spec = build_params(local).speculative
    assert spec.types == [getattr(xllamacpp.common_speculative_type, kind)]
    if local.speculative == "ngram":
        assert (spec.ngram_simple.size_n, spec.ngram_simple.size_m, spec.draft.n_max) == (3, 10, 10)
        assert spec.draft.mparams.path == ""  # no draft model is loaded
    elif local.speculative == "draft":
        assert spec.draft.mparams.path == str(tmp_path / "draft.gguf")
        assert (spec.draft.n_max, spec.draft.p_min) == (6, pytest.approx(0.5))
        assert spec.draft.cpuparams.n_threads == spec.draft.cpuparams_batch.n_threads == local.n_threads
    else:
        assert spec.draft.mparams.path == ""


def test_prompt_cache_setting_reaches_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xllamacpp")
    assert build_params(Settings(state_dir=tmp_path).local_llm).cache_ram_mib == 2048  # type: ignore[call-arg]
    monkeypatch.setenv("NL2SQL_LOCAL_LLM__CACHE_RAM_MIB", "512")
    local = Settings(state_dir=tmp_path).local_llm  # type: ignore[call-arg]
    assert local.cache_ram_mib == 512 and build_params(local).cache_ram_mib == 512
    assert build_params(local).cache_prompt is True


def test_speculative_rejects_unknown_mode() -> None:
    with pytest.raises(ValueError, match="speculative"):
        LocalLLMSettings(speculative="eagle")  # type: ignore[arg-type]
