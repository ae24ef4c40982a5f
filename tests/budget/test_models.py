"""Which window a model gets: pi-context settings, models.json, Pi's catalog, our table, the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.budget.models import (
    DEFAULT_CONTEXT_WINDOW,
    KNOWN_CONTEXT_WINDOWS,
    ModelWindows,
    PiCatalog,
    WindowOverrides,
    find_pi_ai_data_dir,
    read_models_json,
    strip_json_comments,
)
from lsp_server.cost.prices import PriceCatalog, UsageCounts, calculate_cost
from lsp_server.settings.pi_context import parse_pi_context_settings

PI_PACKAGE = Path.home() / ".cache/pi-oracle/node_modules/@earendil-works/pi-coding-agent"


def _catalog(tmp_path: Path, provider: str, models: dict[str, int], kind: str = "chat") -> PiCatalog:
    data = tmp_path / "pi-ai" / "dist" / "providers" / "data"
    data.mkdir(parents=True, exist_ok=True)
    group = {
        f"{kind}:{model}": {"id": model, "type": kind, "contextWindow": window} for model, window in models.items()
    }
    (data / f"{provider}.json").write_text(json.dumps({"some-api": group}), encoding="utf-8")
    return PiCatalog(str(data))


def _models_json(tmp_path: Path, text: str) -> str:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    (agent / "models.json").write_text(text, encoding="utf-8")
    return str(agent)


def test_a_known_model_takes_its_window_from_the_table() -> None:
    model = ModelWindows().resolve("anthropic", "claude-opus-4-5", "session")
    assert (model.context_window, model.window_source, model.coarse_source) == (200_000, "table", "session")


def test_an_unknown_model_gets_the_default_window_labelled_default() -> None:
    model = ModelWindows().resolve("local", "my-model", "session")
    assert (model.context_window, model.window_source, model.coarse_source) == (
        DEFAULT_CONTEXT_WINDOW,
        "default",
        "default",
    )


def test_the_default_window_comes_from_settings_when_set() -> None:
    model = ModelWindows(overrides=WindowOverrides(default=32_768)).resolve("local", "my-model", "session")
    assert (model.context_window, model.window_source) == (32_768, "default")


def test_the_table_matches_by_model_id_when_the_provider_is_unknown() -> None:
    model = ModelWindows().resolve("my-proxy", "gpt-4o", "session")
    assert (model.context_window, model.window_source) == (128_000, "table")


def test_a_settings_window_for_provider_and_id_beats_the_one_for_the_id_alone() -> None:
    overrides = WindowOverrides({"anthropic/claude-opus-4-5": 100_000, "claude-opus-4-5": 150_000})
    windows = ModelWindows(overrides=overrides)
    assert windows.resolve("anthropic", "claude-opus-4-5", "session").context_window == 100_000
    assert windows.resolve("bedrock", "claude-opus-4-5", "session").context_window == 150_000


def test_settings_beat_models_json(tmp_path: Path) -> None:
    agent = _models_json(tmp_path, '{"providers": {"p": {"modelOverrides": {"m": {"contextWindow": 5000}}}}}')
    windows = ModelWindows(overrides=WindowOverrides({"p/m": 7000}), models_json=read_models_json(agent))
    model = windows.resolve("p", "m", "session")
    assert (model.context_window, model.window_source, model.coarse_source) == (7000, "settings", "settings")


def test_the_cli_window_beats_everything() -> None:
    overrides = WindowOverrides({"anthropic/claude-opus-4-5": 100_000}, forced=50_000)
    assert ModelWindows(overrides=overrides).resolve("anthropic", "claude-opus-4-5", "session").context_window == 50_000


def test_models_json_override_beats_its_model_definition_and_the_catalog(tmp_path: Path) -> None:
    agent = _models_json(
        tmp_path,
        '{"providers": {"p": {"baseUrl": "http://x", "models": [{"id": "m", "contextWindow": 9000}],'
        ' "modelOverrides": {"m": {"contextWindow": 4000}}}}}',
    )
    windows = ModelWindows(models_json=read_models_json(agent), catalog=_catalog(tmp_path, "p", {"m": 1_000_000}))
    model = windows.resolve("p", "m", "session")
    assert (model.context_window, model.window_source) == (4000, "models.json")


def test_a_models_json_model_without_a_window_gets_pis_default(tmp_path: Path) -> None:
    agent = _models_json(tmp_path, '{"providers": {"ollama": {"baseUrl": "http://x", "models": [{"id": "qwen"}]}}}')
    model = ModelWindows(models_json=read_models_json(agent)).resolve("ollama", "qwen", "session")
    assert (model.context_window, model.window_source) == (128_000, "models.json")


def test_models_json_is_read_with_comments_trailing_commas_and_a_bom(tmp_path: Path) -> None:
    text = '\ufeff{\n  // my models\n  "providers": {"p": {"modelOverrides": {"m": {"contextWindow": 3000,},},},},\n}'
    agent = _models_json(tmp_path, text)
    loaded = read_models_json(agent)
    assert loaded.problem is None
    assert loaded.window_for("p", "m") == 3000


def test_comment_markers_inside_strings_are_kept() -> None:
    assert strip_json_comments('{"url": "http://a//b", "x": [1,]} // end') == '{"url": "http://a//b", "x": [1]} '


def test_a_models_json_pi_would_reject_is_ignored_and_reported(tmp_path: Path) -> None:
    agent = _models_json(tmp_path, '{"providers": {"p": {"modelOverrides": {"m": {"contextWindow": -1}}}}}')
    windows = ModelWindows.for_agent_dir(agent, package_dir=str(tmp_path / "no-pi"))
    assert windows.resolve("p", "m", "session").window_source == "default"
    assert len(windows.problems) == 1
    assert "providers.p.modelOverrides.m.contextWindow" in windows.problems[0]
    assert "models.json" in windows.problems[0]


def test_models_json_that_is_not_json_is_ignored_and_reported(tmp_path: Path) -> None:
    loaded = read_models_json(_models_json(tmp_path, "{providers"))
    assert loaded.providers == {}
    assert loaded.problem is not None and loaded.problem.startswith("Failed to parse models.json")


def test_no_models_json_is_not_a_problem(tmp_path: Path) -> None:
    loaded = read_models_json(str(tmp_path))
    assert (loaded.exists, loaded.problem) == (False, None)


def test_pis_catalog_beats_the_table(tmp_path: Path) -> None:
    windows = ModelWindows(catalog=_catalog(tmp_path, "anthropic", {"claude-opus-4-5": 123_456}))
    model = windows.resolve("anthropic", "claude-opus-4-5", "session")
    assert (model.context_window, model.window_source) == (123_456, "pi")


def test_pis_catalog_counts_chat_models_only(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path, "p", {"painter": 4096}, kind="image")
    assert catalog.window_for("p", "painter") is None


def test_pis_catalog_is_searched_across_providers_when_the_provider_is_unknown(tmp_path: Path) -> None:
    catalog = _catalog(tmp_path, "acme", {"rocket": 64_000})
    assert catalog.window_for(None, "rocket") == 64_000


def test_pis_catalog_is_found_next_to_an_installed_pi(tmp_path: Path) -> None:
    scope = tmp_path / "node_modules" / "@earendil-works"
    (scope / "pi-coding-agent").mkdir(parents=True)
    (scope / "pi-ai" / "dist" / "providers" / "data").mkdir(parents=True)
    assert find_pi_ai_data_dir(str(scope / "pi-coding-agent")) == str(scope / "pi-ai" / "dist" / "providers" / "data")


def test_no_installed_pi_means_no_catalog(tmp_path: Path) -> None:
    assert find_pi_ai_data_dir(str(tmp_path / "nowhere")) is None


def test_a_model_from_pis_settings_is_labelled_settings() -> None:
    model = ModelWindows().resolve("openai", "gpt-4o", "pi-settings")
    assert (model.model_source, model.coarse_source) == ("pi-settings", "settings")


def test_overrides_come_from_pi_context_settings() -> None:
    settings, problems = parse_pi_context_settings(
        {"budget": {"contextWindows": {"p/m": 1000}, "defaultContextWindow": 2000}}
    )
    assert problems == []
    overrides = settings.budget.window_overrides()
    assert (dict(overrides.per_model), overrides.default) == ({"p/m": 1000}, 2000)


def test_a_window_setting_must_be_positive() -> None:
    settings, problems = parse_pi_context_settings({"budget": {"contextWindows": {"p/m": 0, "q": 5}}})
    assert dict(settings.budget.context_windows) == {"q": 5}
    assert [problem.key_path for problem in problems] == [("budget", "contextWindows", "p/m")]


@pytest.mark.skipif(
    not PI_PACKAGE.is_dir(), reason="Pi is not installed in ~/.cache/pi-oracle: run tests/support/install_pi.sh"
)
def test_the_table_agrees_with_pis_catalog_where_both_know_the_model() -> None:
    catalog = PiCatalog(find_pi_ai_data_dir(str(PI_PACKAGE)))
    assert catalog.data_dir is not None
    compared = 0
    for (provider, model_id), window in KNOWN_CONTEXT_WINDOWS.items():
        pi_window = catalog.window_for(provider, model_id)
        if pi_window is not None:
            assert pi_window == window, f"{provider}/{model_id}"
            compared += 1
    assert compared >= 20


def test_models_json_numbers_are_read_as_pis_json_parse_reads_them(tmp_path: Path) -> None:
    """NaN and Infinity are not JSON: Pi rejects the file (and falls back to its catalog); an integer too large
    for a double is Infinity to Pi, not an exact int that later broke the price arithmetic (OverflowError)."""
    rejected = read_models_json(_models_json(tmp_path, '{"providers": {"p": {"models": [{"id": "m", "x": NaN}]}}}'))
    assert rejected.providers == {} and rejected.problem is not None
    assert rejected.problem.startswith("Failed to parse models.json") and "NaN" in rejected.problem
    huge = "9" * 400
    cost = f'{{"input": {huge}, "output": 1, "cacheRead": 0, "cacheWrite": 0}}'
    provider = f'{{"baseUrl": "http://x", "apiKey": "k", "models": [{{"id": "m", "cost": {cost}}}]}}'
    text = f'{{"providers": {{"p": {provider}}}}}'
    loaded = read_models_json(_models_json(tmp_path, text))
    assert loaded.problem is None
    rates = loaded.providers["p"]["models"][0]["cost"]
    assert rates["input"] == float("inf") and isinstance(rates["output"], int)
    prices = PriceCatalog(models_json=loaded).prices_for("p", "m")
    assert prices.rates is not None
    calculate_cost(prices.rates, prices.tiers, UsageCounts(input=0, output=10))  # no OverflowError
